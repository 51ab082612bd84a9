package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
)

// TestHookTextsReachTheHostBounded: a hook's 1 MiB reason and context
// reach the host cut to their bounds on every path (run, run --host, serve
// lines with --host), and the deny stays a deny.
func TestHookTextsReachTheHostBounded(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	env := testEnv(t,
		fixedHook("big-deny", events.BeforeTool, "^(bash|Bash)$", events.Output{Decision: events.Deny, Reason: big}),
		fixedHook("big-context", events.SessionStart, "", events.Output{AdditionalContext: big}))
	const slack = 1 << 10 // the JSON around the text in a host's answer
	const mark = "[cut to its 16 KiB bound by monad-hooks]"

	code, stdout, stderr := runCLI(t, env, `{"toolName":"bash","toolInput":{"command":"ls"}}`, "run", "BeforeTool", "--stdlib", "none")
	require.Equal(t, ExitOK, code, stderr)
	r := decodeResult(t, stdout)
	assert.Equal(t, events.Deny, r.Decision)
	assert.Less(t, len(stdout), events.MaxReasonSize+4*slack, "the reason, and the audit's copy of its first 2 KiB")
	assert.True(t, strings.HasSuffix(r.Reason, mark))

	code, stdout, stderr = runCLI(t, env, `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		"run", "--host", "claude-code", "--stdlib", "none")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stdout, `"permissionDecision":"deny"`)
	assert.Contains(t, stdout, mark)
	assert.Less(t, len(stdout), events.MaxReasonSize+slack)

	stdin := `{"session_id":"s","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}` + "\n" +
		`{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}` + "\n"
	code, stdout, stderr = runCLI(t, env, stdin, "serve", "--stdlib", "none", "--host", "claude-code")
	require.Equal(t, ExitOK, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], "[cut to its 64 KiB bound by monad-hooks]")
	assert.Less(t, len(lines[0]), events.MaxContextSize+slack)
	assert.Contains(t, lines[1], `"permissionDecision":"deny"`)
	assert.Less(t, len(lines[1]), events.MaxReasonSize+slack)
}
