package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// TestHostMCPCalls: a call of an MCP server's tool, in each host's real
// payload shape, reaches the guards of its kind through run --host: the
// tool table resolves the host's name for it (Cursor's
// beforeMCPExecution's bare name read as MCP:TOOL, Gemini CLI's
// mcp_context as mcp_SERVER_TOOL), and the hook sees the engine's view.
func TestHostMCPCalls(t *testing.T) {
	t.Parallel()
	guard := engine.GoHook{Name: "guard", Event: events.BeforeTool, Kinds: []events.ToolKind{events.ToolShell, events.ToolQuery, events.ToolWrite},
		Handler: engine.HandlerFunc(func(_ context.Context, in *events.Input) (events.Output, error) {
			if in.Tool == nil {
				return events.Output{}, nil
			}
			what := in.Tool.Command + strings.Join(in.Tool.Contents, "") + strings.Join(in.Tool.Paths, "")
			return events.Output{Decision: events.Deny, Reason: in.ToolName + " " + string(in.Tool.Kind) + ": " + what}, nil
		})}
	env := testEnv(t, guard)
	cases := []struct {
		host, payload, want string
	}{
		{"claude-code", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"mcp__postgres__query","tool_input":{"sql":"DROP TABLE users"},"tool_use_id":"t1"}`,
			`mcp__postgres__query query: DROP TABLE users`},
		{"codex", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","model":"gpt-5","tool_name":"mcp__desktop-commander__execute_command","tool_input":{"command":"rm -rf ~"},"tool_use_id":"c1"}`,
			`mcp__desktop-commander__execute_command shell: rm -rf ~`},
		{"gemini-cli", `{"session_id":"s","cwd":"/w","hook_event_name":"BeforeTool","timestamp":"2026-12-03T10:00:00Z","tool_name":"mcp_filesystem_write_file","tool_input":{"path":"/home/u/.ssh/authorized_keys","content":"k"},"mcp_context":{"server_name":"filesystem","tool_name":"write_file","command":"npx"}}`,
			`mcp_filesystem_write_file write: k/home/u/.ssh/authorized_keys`},
		{"gemini-cli", `{"session_id":"s","cwd":"/w","hook_event_name":"BeforeTool","timestamp":"2026-12-03T10:00:00Z","tool_name":"execute_command","tool_input":{"command":"rm -rf /"},"mcp_context":{"server_name":"desktop commander","tool_name":"execute_command","url":"http://localhost:1"}}`,
			`mcp_desktop_commander_execute_command shell: rm -rf /`},
		{"cursor", `{"hook_event_name":"beforeMCPExecution","conversation_id":"c","generation_id":"g","workspace_roots":["/w"],"tool_name":"query","tool_input":"{\"sql\":\"DROP TABLE users\"}","mcp_server_name":"postgres","url":"http://localhost:3000"}`,
			`MCP:query query: DROP TABLE users`},
		{"cursor", `{"hook_event_name":"preToolUse","conversation_id":"c","generation_id":"g","workspace_roots":["/w"],"tool_name":"MCP:execute_command","tool_input":{"command":"rm -rf ~"},"tool_use_id":"u1"}`,
			`MCP:execute_command shell: rm -rf ~`},
		{"crush", `{"event":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"mcp_dc_start_process","tool_input":{"command":"rm -rf ~"}}`,
			`mcp_dc_start_process shell: rm -rf ~`},
	}
	for _, c := range cases {
		_, stdout, stderr := runCLI(t, env, c.payload, "run", "--stdlib", "none", "--host", c.host)
		assert.Contains(t, stdout+stderr, c.want, "%s: %s", c.host, c.payload)
		assert.NotContains(t, stdout+stderr, "unguarded", c.host)
	}
	// The same hosts' look-alikes: a search tool called query stays
	// unguarded (no guard reads it), a harmless command is not denied.
	code, stdout, stderr := runCLI(t, env, `{"hook_event_name":"beforeMCPExecution","conversation_id":"c","generation_id":"g","workspace_roots":["/w"],"tool_name":"query","tool_input":"{\"query\":\"drop a table\"}"}`,
		"run", "--stdlib", "none", "--host", "cursor")
	require.Equal(t, ExitOK, code, stderr)
	assert.NotContains(t, stdout, `"deny"`)
	assert.Contains(t, stderr, `"MCP:query" is a tool of an MCP server whose input holds none of the fields`)
}

// TestExplainMCPTool: explain says that an MCP server's tool is known by
// the MCP table, not "built in" by an agent.
func TestExplainMCPTool(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	code, stdout, stderr := runCLI(t, env, `{"hook_event_name":"PreToolUse","tool_name":"mcp__fs__write_file","tool_input":{"path":"a","content":"b"}}`,
		"explain", "--host", "claude-code", "--stdlib", "none")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stdout, `Tool "mcp__fs__write_file": kind write (an MCP server's tool in the MCP table;`)
}
