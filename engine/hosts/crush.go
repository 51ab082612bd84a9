package hosts

import (
	"strings"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// crush is Charm's Crush (docs/hooks/README.md): the payload names the
// event in "event" (only PreToolUse so far; names are case-insensitive and
// may be snake_case) with session_id, cwd, tool_name and tool_input. It
// reads exit 2 as a block with stderr as the reason, 49 as a halt, and
// exit 0 with JSON on stdout (its own envelope, or Claude Code's
// hookSpecificOutput, which this answer uses) as the decision; any other
// exit code, and silence, mean "no opinion". Crush has no ask: an ask
// blocks the call with a reason saying approval is needed. Its
// updated_input is a shallow merge, so a rewrite is sent as every key of
// the new input, with the keys the rewrite dropped set to null.
var crush = &Host{
	Name:       "crush",
	Summary:    "Charm's Crush: PreToolUse payloads with event, session_id, cwd, tool_name, tool_input; exit 2 blocks",
	Agent:      "crush",
	EventKeys:  []string{"event", "hook_event_name"},
	Events:     map[string]events.Event{"PreToolUse": events.BeforeTool},
	FoldEvents: true,
	Fields: map[string]string{
		"session_id": "sessionId", "cwd": "cwd", "tool_name": "toolName", "tool_input": "toolInput",
		"tool_use_id": "toolCallId",
	},
	Encode: crushAnswer,
	Refuse: func(ev events.Event, reason string) Answer {
		if !canDeny(ev) {
			return Answer{Stderr: reason}
		}
		return block("monad-hooks refused the hook input, so the call is blocked: " + reason)
	},
}

// block is Crush's deny: exit 2 with the reason on stderr.
func block(reason string) Answer {
	return Answer{Exit: 2, Stderr: oneLine(reason) + "\n"}
}

func crushAnswer(ev events.Event, in events.Input, res engine.Result) Answer {
	switch res.Decision {
	case events.Deny:
		if res.Reason == "" {
			return block("denied by monad-hooks")
		}
		return block(res.Reason)
	case events.Ask:
		why := "monad-hooks asks for a person's approval, which a Crush hook cannot ask for, so the call is blocked"
		if res.Reason != "" {
			why += ": " + res.Reason
		}
		return block(why)
	}
	out := map[string]any{"hookEventName": "PreToolUse"}
	if res.Decision == events.Allow {
		out["permissionDecision"] = "allow"
		if res.Reason != "" {
			out["permissionDecisionReason"] = res.Reason
		}
	}
	if res.AdditionalContext != "" {
		out["additionalContext"] = res.AdditionalContext
	}
	if m, ok := res.MutatedToolInput.(map[string]any); ok {
		patch := make(map[string]any, len(m))
		for k, v := range m {
			patch[k] = v
		}
		if old, ok := in.ToolInput.(map[string]any); ok {
			for k := range old {
				if _, kept := m[k]; !kept {
					patch[k] = nil
				}
			}
		}
		out["updatedInput"] = patch
	}
	if len(out) == 1 {
		return Answer{} // no opinion: silence
	}
	return Answer{Stdout: jsonLine(map[string]any{"hookSpecificOutput": out})}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
