#!/usr/bin/env bash
# The full soak: 1,000,000 dispatches through the default stdlib set from two
# goroutines; prints the heap and live-VM figures before and after.
#   scripts/soak.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
MONAD_SOAK="${1:-1000000}" go test ./engine -run '^TestSoak$' -v -count=1 -timeout 60m | grep -E 'soak_test|^(ok|FAIL|---)'
