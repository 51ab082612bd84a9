package hosts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine/hosts"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/shell"
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

// TestPayloadRoundTrip: for every host and every host event that maps to a
// Monad event, the payload a command hook gets (Payload) decodes back
// (Decode) into the same HookInput, as far as the host's fields carry it:
// one field table serves both directions.
func TestPayloadRoundTrip(t *testing.T) {
	failed := false
	sample := func(ev events.Event) events.Input {
		in := events.Input{Event: ev, SessionID: "s1", Cwd: "/w"}
		switch ev {
		case events.BeforeTurn:
			in.Prompt = "p"
		case events.BeforeTool, events.ApprovalRequest:
			in.ToolName, in.ToolInput, in.ToolCallID = "Bash", map[string]any{"command": "ls", "file_path": "/w/a"}, "c1"
		case events.AfterTool:
			in.ToolName, in.ToolInput, in.ToolCallID, in.ToolResult = "Bash", map[string]any{"command": "ls", "file_path": "/w/a"}, "c1", "out"
		case events.AfterTurn:
			in.Response, in.Reason, in.StopContinues = "done", "completed", 1
		case events.BeforeModel:
			in.Request = map[string]any{"model": "m"}
		case events.AfterModel:
			in.Request, in.Response = map[string]any{"model": "m"}, "text"
		case events.BeforeCompact, events.AfterCompact:
			in.Compaction = &events.Compaction{Trigger: "auto"}
		case events.BeforeSubagent:
			in.SubagentName = "Explore"
		case events.AfterSubagent:
			in.SubagentName, in.SubagentResult = "Explore", "found"
		case events.SessionEnd:
			in.Reason = "completed"
		}
		return in
	}
	for _, name := range hosts.Names() {
		h, _ := hosts.Lookup(name)
		for _, hev := range h.Events {
			if hev.Monad == events.Invalid {
				continue
			}
			in := sample(hev.Monad)
			b, err := h.Payload(hev, in)
			require.NoError(t, err, "%s %s", name, hev.Name)
			c := h.Decode(b, events.Invalid)
			require.Equal(t, hosts.Decoded, c.Status, "%s %s: %v: %s", name, hev.Name, c.Err, b)
			assert.Equal(t, hev.Name, c.Event.Name)
			got := c.Input
			if first, _ := h.EventFor(hev.Monad, ""); first.Name != hev.Name {
				// Another event of the same Monad event (Cursor's
				// beforeShellExecution, Claude Code's PostToolUseFailure)
				// carries a part of the input: what it gives back is in.
				if m, ok := got.ToolInput.(map[string]any); ok {
					for k, v := range m {
						assert.Equal(t, in.ToolInput.(map[string]any)[k], v, "%s %s: %s", name, hev.Name, k)
					}
				}
				assert.Equal(t, in.SessionID, got.SessionID)
				continue
			}
			// What the host's payload does not carry, it cannot give back.
			want := in
			if got.ToolCallID == "" {
				want.ToolCallID = ""
			}
			for _, f := range []struct{ got, want *string }{{&got.Reason, &want.Reason}, {&got.Response, &want.Response}, {&got.SubagentResult, &want.SubagentResult}} {
				if *f.got == "" {
					*f.want = ""
				}
			}
			if got.StopContinues == 0 {
				want.StopContinues = 0
			}
			if got.Request == nil {
				want.Request = nil
			}
			if got.OK != nil {
				want.OK = got.OK
			}
			if !assert.Equal(t, want, got, "%s %s: %s", name, hev.Name, b) {
				failed = true
			}
		}
	}
	if failed {
		t.Log("a host event's fields do not carry the input both ways")
	}
}

// TestInterpretFailures: whatever the host, a hook that could not run, was
// killed or exited with a code the host reads as a failure is an error (the
// engine's onError decides), never a decision.
func TestInterpretFailures(t *testing.T) {
	for _, name := range hosts.Names() {
		h, _ := hosts.Lookup(name)
		hev, ok := h.EventFor(events.BeforeTool, "")
		require.True(t, ok, name)
		in := events.Input{Event: events.BeforeTool, ToolName: "Bash", ToolInput: map[string]any{"command": "ls"}}
		for _, r := range []shell.Result{{ExitCode: 1}, {ExitCode: 127}, {ExitCode: -1, Signal: "killed"}, {ExitCode: 0, StdoutTruncated: true, Stdout: []byte("{")}} {
			out, err := h.Interpret(hev, in, r, nil)
			assert.Error(t, err, "%s %+v", name, r)
			assert.Equal(t, events.Output{}, out)
		}
		_, err := h.Interpret(hev, in, shell.Result{}, shell.ErrTimeout)
		assert.ErrorIs(t, err, shell.ErrTimeout, name)
		out, err := h.Interpret(hev, in, shell.Result{ExitCode: 2, Stderr: []byte("  no \n")}, nil)
		require.NoError(t, err, name)
		assert.Equal(t, events.Output{Decision: events.Deny, Reason: "no"}, out, name)
	}
}

// TestShapes: a text rewrite of an object output (the withheld marker)
// replaces every string of it; a merge patch deletes with null and sends
// the dropped keys as null.
func TestShapes(t *testing.T) {
	cc, _ := hosts.Lookup("claude-code")
	c := cc.Decode([]byte(`{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"env"},"tool_response":{"stdout":"k","stderr":"e","exit":0,"lines":["a",{"b":"c"}]}}`), events.Invalid)
	require.NoError(t, c.Err)
	a := cc.Encode(c, events.Output{UpdatedToolOutput: "[withheld]"})
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"stdout":"[withheld]","stderr":"[withheld]","exit":0,"lines":["[withheld]",{"b":"[withheld]"}]}}}`, string(a.Stdout))
	gem, _ := hosts.Lookup("gemini-cli")
	c = gem.Decode([]byte(`{"hook_event_name":"BeforeTool","tool_name":"x","tool_input":{"a":1,"b":2}}`), events.Invalid)
	require.NoError(t, c.Err)
	a = gem.Encode(c, events.Output{MutatedToolInput: map[string]any{"a": 3}})
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"a":3,"b":null}}}`, string(a.Stdout))
}

// FuzzDecode: whatever the payload, every host decodes it or refuses it,
// never panics, and a refusal at an event that can deny (or at no known
// event) is never an answer a host reads as "proceed"; a decoded input is
// valid and the host answers it.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":"beforeShellExecution","command":"ls","workspace_roots":["/p"]}`,
		`{"hook_event_name":"AfterModel","llm_response":{"candidates":[{"content":{"parts":["a",{"text":"b"}]}}]}}`,
		`{"hook_event_name":"stop","loop_count":-1}`, `{"hook_event_name":"Stop","stop_hook_active":"yes"}`,
		`{"event":"pre_tool_use","tool_input":[1,2]}`, `{"hook_event_name":"beforeMCPExecution","tool_input":"{\"a\":1e999}"}`,
		`{"hook_event_name":"BeforeTool","timestamp":"x","tool_input":null}`, `[]`, `null`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		for _, name := range hosts.Names() {
			h, _ := hosts.Lookup(name)
			c := h.Decode(payload, events.Invalid)
			switch c.Status {
			case hosts.Decoded:
				require.NoError(t, c.Input.Validate(), name)
				h.Encode(c, events.Output{Decision: events.Deny, Reason: "r"})
			case hosts.Refused:
				require.Error(t, c.Err)
				a := h.Refuse(c, c.Err.Error())
				ev := c.Input.Event
				if name != "monad" && (!ev.Valid() || ev.Spec().Decisions.Has(events.Deny)) {
					require.True(t, a.Exit == 2 || len(a.Stdout) > 0, "%s: %q refused as %+v", name, payload, a)
				}
			}
		}
	})
}
