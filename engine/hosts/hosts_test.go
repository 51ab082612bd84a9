package hosts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine/hosts"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/tools"
)

func TestCrushDecode(t *testing.T) {
	crush, ok := hosts.Lookup("crush")
	require.True(t, ok)
	c := crush.Decode([]byte(`{"event":"PRE_TOOL_USE","session_id":"s1","cwd":"/w","tool_name":"bash","tool_input":{"command":"ls"},"tool_use_id":"c9","extra":1}`), events.Invalid)
	require.NoError(t, c.Err)
	assert.Equal(t, hosts.Decoded, c.Status)
	assert.Equal(t, events.Input{Event: events.BeforeTool, SessionID: "s1", Cwd: "/w", ToolName: "bash",
		ToolInput: map[string]any{"command": "ls"}, ToolCallID: "c9"}, c.Input)

	// The command line's event must agree with the payload's.
	c = crush.Decode([]byte(`{"event":"PreToolUse"}`), events.AfterTool)
	assert.Equal(t, hosts.Refused, c.Status)
	assert.ErrorContains(t, c.Err, "its event is PreToolUse (BeforeTool), but the command line says AfterTool")
	c = crush.Decode([]byte(`{"tool_name":"bash"}`), events.BeforeTool)
	require.NoError(t, c.Err)
	assert.Equal(t, hosts.Decoded, c.Status)
	assert.Equal(t, events.BeforeTool, c.Input.Event)

	for _, bad := range []string{``, `null`, `[]`, `{"event":3}`, `{"event":"Stop"}`, `{"tool_name":"x"}`, `{"event":"PreToolUse","tool_input":[}`} {
		c := crush.Decode([]byte(bad), events.Invalid)
		assert.Equal(t, hosts.Refused, c.Status, bad)
		require.Error(t, c.Err, bad)
		a := crush.Refuse(c, c.Err.Error())
		assert.Equal(t, 2, a.Exit, "%s: a refusal blocks", bad)
		assert.Contains(t, a.Stderr, "monad-hooks refused", bad)
	}
}

func TestCrushAnswers(t *testing.T) {
	crush, _ := hosts.Lookup("crush")
	c := crush.Decode([]byte(`{"event":"PreToolUse","tool_name":"bash","tool_input":{"command":"ls"}}`), events.Invalid)
	require.NoError(t, c.Err)
	a := crush.Encode(c, events.Output{Decision: events.Deny})
	assert.Equal(t, hosts.Answer{Exit: 2, Stderr: "denied by monad-hooks\n"}, a)
	a = crush.Encode(c, events.Output{Decision: events.Deny, Reason: "no\nway"})
	assert.Equal(t, "no way\n", a.Stderr, "one line")
	assert.Equal(t, hosts.Answer{}, crush.Encode(c, events.Output{}), "no opinion is silence")
	a = crush.Encode(c, events.Output{AdditionalContext: "note"})
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"note"}}`, string(a.Stdout))
}

func TestMonadRefusals(t *testing.T) {
	monad, _ := hosts.Lookup("monad")
	a := monad.Refuse(hosts.Call{Input: events.Input{Event: events.BeforeTool}}, "invalid input: x")
	assert.Equal(t, 0, a.Exit)
	assert.JSONEq(t, `{"event":"BeforeTool","decision":"deny","reason":"monad-hooks refused the hook input, so the call is blocked: invalid input: x"}`, string(a.Stdout))
	a = monad.Refuse(hosts.Call{Input: events.Input{Event: events.AfterModel}}, "invalid input: x")
	assert.Equal(t, hosts.Answer{Exit: 1, Stderr: "monad-hooks: invalid input: x\n"}, a)
	a = monad.Refuse(hosts.Call{}, "invalid input: no event")
	assert.Equal(t, 1, a.Exit, "the seed's contract never exits 2")
}

// TestHostsKnowTheirTools: a host's agent is in the built-in tool table.
func TestHostsKnowTheirTools(t *testing.T) {
	assert.Equal(t, []string{"monad", "claude-code", "gemini-cli", "codex", "cursor", "crush"}, hosts.Names())
	for _, n := range hosts.Names() {
		h, ok := hosts.Lookup(n)
		require.True(t, ok)
		if h.Agent != "" {
			_, ok := tools.AgentTools(h.Agent)
			assert.True(t, ok, "%s: agent %q", n, h.Agent)
		}
	}
	_, ok := hosts.Lookup("vim")
	assert.False(t, ok)
}
