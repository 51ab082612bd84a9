#!/usr/bin/env bash
# Measures the peak resident memory of `monad-hooks serve --listen` (the
# defaults: the default stdlib set, --max-concurrent 32) while a dozen
# clients POST 15 MiB HookInputs at once.
#   scripts/serve-rss.sh [BINARY] [EVENT]
# EVENT: BeforeTool (default; a write_file whose content is one 15 MiB
# string), AfterTool (a toolResult of 15 MiB) or Many (a write_file whose
# content is a list of 3 million short strings) or Numbers (a list of 7.8
# million zeros: the most values per byte).
# Prints VmHWM (peak RSS) of the server.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-}"
event="${2:-BeforeTool}"
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
if [ -z "$bin" ]; then
  bin="$tmp/monad-hooks"
  go build -o "$bin" ./cmd/monad-hooks
fi
python3 - "$tmp/body.json" "$event" <<'PY'
import json, sys
path, event = sys.argv[1], sys.argv[2]
blob = ("the quick brown fox jumps over the lazy dog " * 400000)[:15 * 1024 * 1024 - 200]
if event == "AfterTool":
    doc = {"event": "AfterTool", "toolName": "read_file", "toolInput": {"path": "x.txt"}, "toolResult": blob}
elif event == "Numbers":
    doc = {"event": "BeforeTool", "toolName": "write_file", "toolInput": {"path": "notes/x.txt", "content": [0] * (15 * 1024 * 1024 // 2 - 100)}}
elif event == "Many":
    doc = {"event": "BeforeTool", "toolName": "write_file", "toolInput": {"path": "notes/x.txt", "content": ["ab"] * (15 * 1024 * 1024 // 5 - 100)}}
else:
    doc = {"event": "BeforeTool", "toolName": "write_file", "toolInput": {"path": "notes/x.txt", "content": blob}}
open(path, "w").write(json.dumps(doc, separators=(",", ":")))
PY
port=$((20000 + RANDOM % 20000))
(cd "$tmp" && exec "$bin" serve --listen "127.0.0.1:$port" 2>"$tmp/err") &
pid=$!
for _ in $(seq 100); do grep -q listening "$tmp/err" 2>/dev/null && break; sleep 0.1; done
for i in $(seq 12); do
  curl -s -o "$tmp/out$i" -w '%{http_code}\n' -H 'Content-Type: application/json' \
    --data-binary @"$tmp/body.json" "http://127.0.0.1:$port/v1/dispatch" >"$tmp/code$i" &
done
wait $(jobs -p | grep -v "^$pid\$") 2>/dev/null || true
codes=$(cat "$tmp"/code* | sort | uniq -c | tr -s ' ' | tr '\n' ';')
echo "event=$event body=$(stat -c %s "$tmp/body.json") bytes, 12 clients; status codes: $codes"
grep -E 'VmHWM|VmRSS' /proc/$pid/status
