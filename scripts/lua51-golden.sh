#!/usr/bin/env bash
# Regenerates the expected results of luaapi's TestPatternsMatchLua51 with
# PUC Lua 5.1 (Debian/Ubuntu: apt-get install lua5.1; the file was made
# with Lua 5.1.5). Review the diff: each changed line is a change of what
# Lua 5.1 is recorded to do.
#   scripts/lua51-golden.sh
set -euo pipefail
cd "$(dirname "$0")/.."
lua=$(command -v lua5.1 || true)
if [ -z "$lua" ]; then
  echo "lua5.1 not found (apt-get install lua5.1)" >&2
  exit 1
fi
"$lua" -v 2>&1 | grep -q '^Lua 5\.1' || { echo "$lua is not Lua 5.1" >&2; exit 1; }
"$lua" luaapi/testdata/lua51/patterns.lua >luaapi/testdata/lua51/patterns.out
echo "wrote luaapi/testdata/lua51/patterns.out ($("$lua" -v 2>&1))"
