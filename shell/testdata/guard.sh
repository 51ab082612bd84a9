#!/bin/sh
# A typical guard: deny shell_exec, ask for file_write, proceed otherwise.
input=$(cat)
case "$input" in
*'"toolName":"shell_exec"'*)
	echo "shell_exec is not allowed here" >&2
	exit 2
	;;
*'"toolName":"file_write"'*)
	echo '{"decision":"ask","reason":"review the write"}'
	;;
esac
exit 0
