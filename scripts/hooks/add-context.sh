#!/bin/sh
# Example command hook (BeforeTurn or SessionStart): inject context.
# Prints a HookOutput JSON object on stdout.
cat >/dev/null
branch=$(git rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)
printf '{"additionalContext":"The current git branch is %s."}\n' "$branch"
