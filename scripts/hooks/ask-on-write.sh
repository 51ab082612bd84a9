#!/bin/sh
# Example command hook (BeforeTool, matcher "^(write_file|file_write)$"):
# force the human approval gate for every file write.
cat >/dev/null
printf '{"decision":"ask","reason":"file writes need a human look"}\n'
