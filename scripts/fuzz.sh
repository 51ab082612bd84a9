#!/usr/bin/env bash
# Runs every Go fuzz target of the module for a while each.
#   scripts/fuzz.sh [DURATION]      (default 30s per target)
# Run by hand: CI stays deterministic and runs only the seed corpora (as
# part of go test).
# Prints each target's final line (execs, new interesting inputs); a crash
# fails the script and leaves the failing input under the package's
# testdata/fuzz/<Target>/ to commit as a regression case.
set -euo pipefail
cd "$(dirname "$0")/.."
dur="${1:-30s}"
status=0
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    echo "== $pkg $target ($dur)"
    if ! out=$(go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$dur" 2>&1); then
      echo "$out" | tail -30
      status=1
    else
      { echo "$out" | grep -E 'execs:' || echo "$out"; } | tail -1
    fi
  done
done
exit $status
