package hosts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/engine/hosts"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/tools"
)

func TestCrushDecode(t *testing.T) {
	crush, ok := hosts.Lookup("crush")
	require.True(t, ok)
	st, in, err := crush.Decode([]byte(`{"event":"PRE_TOOL_USE","session_id":"s1","cwd":"/w","tool_name":"bash","tool_input":{"command":"ls"},"tool_use_id":"c9","extra":1}`), events.Invalid)
	require.NoError(t, err)
	assert.Equal(t, hosts.Decoded, st)
	assert.Equal(t, events.Input{Event: events.BeforeTool, SessionID: "s1", Cwd: "/w", ToolName: "bash",
		ToolInput: map[string]any{"command": "ls"}, ToolCallID: "c9"}, in)

	// The command line's event must agree with the payload's.
	st, _, err = crush.Decode([]byte(`{"event":"PreToolUse"}`), events.AfterTool)
	assert.Equal(t, hosts.Refused, st)
	assert.ErrorContains(t, err, "its event is PreToolUse (BeforeTool), but the command line says AfterTool")
	st, in, err = crush.Decode([]byte(`{"tool_name":"bash"}`), events.BeforeTool)
	require.NoError(t, err)
	assert.Equal(t, hosts.Decoded, st)
	assert.Equal(t, events.BeforeTool, in.Event)

	for _, bad := range []string{``, `null`, `[]`, `{"event":3}`, `{"event":"Stop"}`, `{"tool_name":"x"}`, `{"event":"PreToolUse","tool_input":[}`} {
		st, in, err := crush.Decode([]byte(bad), events.Invalid)
		assert.Equal(t, hosts.Refused, st, bad)
		assert.Error(t, err, bad)
		a := crush.Refuse(in.Event, err.Error())
		assert.Equal(t, 2, a.Exit, "%s: a refusal blocks", bad)
		assert.Contains(t, a.Stderr, "monad-hooks refused", bad)
	}
}

func TestCrushAnswers(t *testing.T) {
	crush, _ := hosts.Lookup("crush")
	in := events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "ls"}}
	a := crush.Encode(events.BeforeTool, in, engine.Result{Decision: events.Deny})
	assert.Equal(t, hosts.Answer{Exit: 2, Stderr: "denied by monad-hooks\n"}, a)
	a = crush.Encode(events.BeforeTool, in, engine.Result{Decision: events.Deny, Reason: "no\nway"})
	assert.Equal(t, "no way\n", a.Stderr, "one line")
	assert.Equal(t, hosts.Answer{}, crush.Encode(events.BeforeTool, in, engine.Result{}), "no opinion is silence")
	a = crush.Encode(events.BeforeTool, in, engine.Result{AdditionalContext: "note"})
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"note"}}`, string(a.Stdout))
}

func TestMonadRefusals(t *testing.T) {
	monad, _ := hosts.Lookup("monad")
	a := monad.Refuse(events.BeforeTool, "invalid input: x")
	assert.Equal(t, 0, a.Exit)
	assert.JSONEq(t, `{"event":"BeforeTool","decision":"deny","reason":"monad-hooks refused the input, so the call is denied: invalid input: x"}`, string(a.Stdout))
	a = monad.Refuse(events.AfterModel, "invalid input: x")
	assert.Equal(t, hosts.Answer{Exit: 1, Stderr: "monad-hooks: invalid input: x"}, a)
}

// TestHostsKnowTheirTools: a host's agent is in the built-in tool table.
func TestHostsKnowTheirTools(t *testing.T) {
	assert.Equal(t, []string{"monad", "crush"}, hosts.Names())
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
