#!/bin/sh
# Example command hook (BeforeTool): deny `rm -rf /` and friends.
# Reads the HookInput JSON on stdin; exit 2 denies with stderr as the reason.
# agents.json:
#   {"hooks": {"BeforeTool": [{"matcher": "^(bash|shell_exec)$",
#     "hooks": [{"command": "./scripts/hooks/deny-rm-root.sh", "onError": "deny"}]}]}}
input=$(cat)
if printf '%s' "$input" | grep -Eq '"command":"[^"]*rm +-[a-zA-Z]*[rR][a-zA-Z]*[fF]?[a-zA-Z]* +/( |")'; then
  echo "recursive deletion of / is not allowed" >&2
  exit 2
fi
exit 0
