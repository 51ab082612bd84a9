package hosts

import (
	"encoding/json"

	"github.com/monad-hooks/monad-hooks/events"
)

// newCrush builds the host of Charm's Crush (docs/hooks/README.md): the payload names the
// event in "event" (only PreToolUse so far; names are case-insensitive and
// may be snake_case) with session_id, cwd, tool_name and tool_input. It
// reads exit 2 as a block with stderr as the reason, 49 as a halt, and
// exit 0 with JSON on stdout (its own envelope, or Claude Code's
// hookSpecificOutput, which this answer uses) as the decision; any other
// exit code, and silence, mean "no opinion". Crush has no ask: an ask
// blocks the call with a reason saying approval is needed. Its
// updated_input is a shallow merge, so a rewrite is sent as every key of
// the new input, with the keys the rewrite dropped set to null.
func newCrush() *Host {
	h := &Host{
		Name:       "crush",
		Summary:    "Charm's Crush: PreToolUse payloads with event, session_id, cwd, tool_name, tool_input; exit 2 blocks",
		Agent:      "crush",
		EventKeys:  []string{"event", "hook_event_name"},
		Events:     []Event{{Name: "PreToolUse", Monad: events.BeforeTool}, {Name: "PreCompact"}},
		FoldEvents: true,
		Notes: []string{
			"A deny is exit 2 with the reason on stderr; an allow, context or rewrite is Claude Code's hookSpecificOutput on stdout; no opinion is silence.",
			"An ask blocks the call (exit 2): Crush hooks cannot ask a person; the reason says approval is needed.",
			"A rewrite is sent whole, with the keys it dropped set to null: Crush merges updated_input over the input.",
			"serve --host crush is refused: Crush reads a deny from the exit code only.",
		},
		projectEnv: []string{"CRUSH_PROJECT_DIR"},
		common: []field{
			f("session_id", "sessionId", kString), f("cwd", "cwd", kString), f("tool_name", "toolName", kString),
			f("tool_input", "toolInput", kValue), f("tool_use_id", "toolCallId", kString),
		},
	}
	h.encode = crushAnswer
	h.read = crushRead
	h.callEnv = crushEnv
	return h
}

// crushEnv is what Crush passes its hooks in variables besides the payload
// (docs/hooks/README.md, "Environment Variables"); many Crush hooks read
// only CRUSH_TOOL_INPUT_COMMAND.
func crushEnv(ev *Event, in *events.Input) []string {
	env := []string{"CRUSH=1", "AGENT=crush", "AI_AGENT=crush", "CRUSH_EVENT=" + ev.Name,
		"CRUSH_TOOL_NAME=" + in.ToolName, "CRUSH_SESSION_ID=" + in.SessionID, "CRUSH_CWD=" + in.Cwd}
	m, _ := in.ToolInput.(map[string]any)
	if s, ok := m["command"].(string); ok {
		env = append(env, "CRUSH_TOOL_INPUT_COMMAND="+s)
	}
	if s, ok := m["file_path"].(string); ok {
		env = append(env, "CRUSH_TOOL_INPUT_FILE_PATH="+s)
	}
	return env
}

// block is Crush's deny: exit 2 with the reason on stderr.
func block(reason string) Answer {
	return Answer{Exit: 2, Stderr: oneLine(reason) + "\n"}
}

func crushAnswer(c *Call, out events.Output) Answer {
	switch out.Decision {
	case events.Deny:
		if out.Reason == "" {
			return block("denied by monad-hooks")
		}
		return block(out.Reason)
	case events.Ask:
		return block(askBlocked("a Crush hook", out.Reason))
	}
	hso := map[string]any{}
	if out.Decision == events.Allow {
		hso["permissionDecision"] = "allow"
		if out.Reason != "" {
			hso["permissionDecisionReason"] = out.Reason
		}
	}
	if out.AdditionalContext != "" {
		hso["additionalContext"] = out.AdditionalContext
	}
	if patch, ok := mergePatch(c.Input.ToolInput, out.MutatedToolInput); ok {
		hso["updatedInput"] = patch
	}
	return answerHSO(map[string]any{}, hso, "PreToolUse") // silence for no opinion
}

// crushRead reads a hook written for Crush: exit 2 blocks, 49 halts the
// turn (a deny here), exit 0 with its envelope (decision, reason, context,
// updated_input merged over the input) or Claude Code's
// hookSpecificOutput; other exits are "no opinion" to Crush and a failure
// here (onError decides).
func crushRead(_ *Event, in *events.Input, exit int, stdout, stderr []byte) (events.Output, error) {
	switch exit {
	case 2, 49:
		return events.Output{Decision: events.Deny, Reason: stderrReason(stderr)}, nil
	case 0:
	default:
		return events.Output{}, errOtherExit(exit, stderr)
	}
	m, err := object(stdout)
	if err != nil || m == nil {
		return events.Output{}, err
	}
	if _, ok := m["hookSpecificOutput"]; ok {
		return claudeRead(&Event{Name: "PreToolUse", Monad: events.BeforeTool}, in, 0, stdout, stderr)
	}
	var env struct {
		Decision     string          `json:"decision"`
		Halt         bool            `json:"halt"`
		Reason       string          `json:"reason"`
		Context      json.RawMessage `json:"context"`
		UpdatedInput json.RawMessage `json:"updated_input"`
	}
	if err := json.Unmarshal(stdout, &env); err != nil {
		return events.Output{}, invalidOutput(err)
	}
	var out events.Output
	switch {
	case env.Halt || env.Decision == "deny":
		out.Decision, out.Reason = events.Deny, env.Reason
	case env.Decision == "allow":
		out.Decision, out.Reason = events.Allow, env.Reason
	}
	if ctx, err := stringOrLines(env.Context); err != nil {
		return out, invalidOutput(err)
	} else {
		out.AdditionalContext = ctx
	}
	if len(env.UpdatedInput) > 0 && !isNull(env.UpdatedInput) {
		v, err := events.DecodeValue(env.UpdatedInput)
		if err != nil {
			return out, invalidOutput(err)
		}
		out.MutatedToolInput = mergeOver(in.ToolInput, v)
	}
	return out, nil
}
