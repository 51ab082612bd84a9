package hosts

import (
	"strings"

	"github.com/monad-hooks/monad-hooks/events"
)

// The payload fields of a tool call, shared by Claude Code and Codex.
var ccTool = []field{
	f("tool_name", "toolName", kString), f("tool_input", "toolInput", kValue), f("tool_use_id", "toolCallId", kString),
}

// newClaudeCode builds the host of Anthropic's Claude Code (code.claude.com/docs/en/hooks):
// payloads with hook_event_name, session_id, cwd and the event's fields;
// answers are JSON on stdout with exit 0 (hookSpecificOutput for PreToolUse,
// PermissionRequest and context, a top-level decision "block" elsewhere),
// which is also what its HTTP hooks read.
func newClaudeCode() *Host {
	h := &Host{
		Name:           "claude-code",
		Summary:        "Anthropic's Claude Code: hook_event_name payloads; JSON answers (hookSpecificOutput, decision block), exit 0",
		Agent:          "claude-code",
		EventKeys:      []string{"hook_event_name"},
		JSONAnswers:    true,
		ContextAtStart: true,
		Events: []Event{
			{Name: "SessionStart", Monad: events.SessionStart},
			{Name: "Setup"},
			{Name: "InstructionsLoaded"},
			{Name: "UserPromptSubmit", Monad: events.BeforeTurn, fields: []field{f("prompt", "prompt", kString)},
				Note: "cannot replace the prompt: a prompt rewrite blocks it, showing the rewrite"},
			{Name: "UserPromptExpansion"},
			{Name: "MessageDisplay"},
			{Name: "PreToolUse", Monad: events.BeforeTool, fields: ccTool},
			{Name: "PermissionRequest", Monad: events.ApprovalRequest, fields: ccTool},
			{Name: "PostToolUse", Monad: events.AfterTool, fields: append([]field{f("tool_response", "toolResult", kValue)}, ccTool...)},
			{Name: "PostToolUseFailure", Monad: events.AfterTool, failure: true, fields: append([]field{f("error", "error", kString)}, ccTool...)},
			{Name: "PostToolBatch"},
			{Name: "PermissionDenied"},
			{Name: "Notification"},
			{Name: "SubagentStart", Monad: events.BeforeSubagent, fields: []field{f("agent_type", "subagentName", kString)}},
			{Name: "SubagentStop", Monad: events.AfterSubagent, fields: []field{
				f("agent_type", "subagentName", kString), f("last_assistant_message", "subagentResult", kString)},
				Note: "cannot replace the subagent's result: a rewrite of it is dropped"},
			{Name: "TaskCreated"},
			{Name: "TaskCompleted"},
			{Name: "Stop", Monad: events.AfterTurn, fields: []field{
				f("last_assistant_message", "response", kString), f("stop_hook_active", "stopContinues", kFlag)},
				Note: "continueWork is decision block with its reason; the response is shown already: a rewrite of it is dropped"},
			{Name: "StopFailure"},
			{Name: "TeammateIdle"},
			{Name: "ConfigChange"},
			{Name: "CwdChanged"},
			{Name: "DirectoryAdded"},
			{Name: "FileChanged"},
			{Name: "WorktreeCreate"},
			{Name: "WorktreeRemove"},
			{Name: "PreCompact", Monad: events.BeforeCompact, fields: []field{f("trigger", "compaction.trigger", kString)},
				Note: "takes no context: what to preserve is dropped"},
			{Name: "PostCompact", Monad: events.AfterCompact, fields: []field{f("trigger", "compaction.trigger", kString)}},
			{Name: "SessionEnd", Monad: events.SessionEnd, fields: []field{f("reason", "reason", kEndReason)}},
			{Name: "Elicitation"},
			{Name: "ElicitationResult"},
		},
		Notes: []string{
			"Every answer is JSON on stdout with exit 0 (what HTTP hooks read too); no opinion is silence.",
			"PreToolUse: permissionDecision deny, ask or allow with permissionDecisionReason; a rewrite is updatedInput (the whole input), context additionalContext.",
			"PermissionRequest: decision.behavior deny (message) or allow; an ask leaves the person to decide.",
			"PostToolUse: a rewrite is updatedToolOutput; a text in place of an object (a withheld output) replaces every string of it, since Claude Code ignores a replacement of another shape.",
			"UserPromptSubmit: a deny is decision block; a prompt rewrite, which Claude Code cannot apply, blocks the prompt and shows the rewrite; a modelOverride is dropped.",
			"Stop: continueWork is decision block with its reason, bounded by --max-stop-continues across runs when run keeps --state (stop_hook_active counts as one continuation without it).",
			"SessionStart and SubagentStart: context is hookSpecificOutput.additionalContext.",
			"A payload naming no known event is refused with exit 2 (a block) and decision block on stdout.",
		},
		projectEnv: []string{"CLAUDE_PROJECT_DIR"},
		common:     []field{f("session_id", "sessionId", kString), f("cwd", "cwd", kString)},
		block: func(reason string) map[string]any {
			return map[string]any{"decision": "block", "reason": reason}
		},
	}
	h.encode = claudeAnswer
	h.read = claudeRead
	h.payload = ccPayload
	return h
}

// ccPayload completes a Claude Code or Codex payload: a tool failure event
// has no result.
func ccPayload(ev *Event, _ *events.Input, obj map[string]any) {
	if ev.failure {
		delete(obj, "tool_response")
	}
}

func claudeAnswer(c *Call, out events.Output) Answer {
	return ccAnswer(c, out, func(m, hso map[string]any) {
		switch c.Input.Event {
		case events.BeforeTool:
			switch out.Decision {
			case events.Deny:
				hso["permissionDecision"], hso["permissionDecisionReason"] = "deny", deniedReason(out)
			case events.Ask, events.Allow:
				hso["permissionDecision"] = string(out.Decision)
				if out.Reason != "" {
					hso["permissionDecisionReason"] = out.Reason
				}
			}
			if out.Decision != events.Deny && out.MutatedToolInput != nil {
				hso["updatedInput"] = out.MutatedToolInput
			}
		case events.AfterTool:
			if out.UpdatedToolOutput != nil && !c.Event.failure {
				hso["updatedToolOutput"] = fitShape(c.Input.ToolResult, out.UpdatedToolOutput)
			}
		}
	})
}

// ccAnswer is the answer of Claude Code and Codex, whose shapes agree but
// for a tool call's: tool fills those in (m is the answer, hso its
// hookSpecificOutput).
func ccAnswer(c *Call, out events.Output, tool func(m, hso map[string]any)) Answer {
	m := map[string]any{}
	hso := map[string]any{}
	block := func(reason string) { m["decision"], m["reason"] = "block", reason }
	switch c.Input.Event {
	case events.BeforeTool, events.AfterTool:
		tool(m, hso)
	case events.ApprovalRequest:
		switch out.Decision {
		case events.Deny:
			hso["decision"] = map[string]any{"behavior": "deny", "message": deniedReason(out)}
		case events.Allow:
			hso["decision"] = map[string]any{"behavior": "allow"}
		}
	case events.BeforeTurn:
		switch {
		case out.Decision == events.Deny:
			block(deniedReason(out))
		case out.MutatedPrompt != nil:
			block(promptBlocked(*out.MutatedPrompt))
		}
	case events.AfterTurn:
		if out.ContinueWork != nil {
			block(continueReason(out.ContinueWork))
		}
	}
	switch c.Input.Event {
	case events.BeforeTool, events.BeforeTurn, events.SessionStart, events.BeforeSubagent:
		if out.AdditionalContext != "" && m["decision"] == nil {
			hso["additionalContext"] = out.AdditionalContext
		}
	}
	return answerHSO(m, hso, c.Event.Name)
}

// claudeRead reads a hook written for Claude Code (or Codex, whose answers
// are the same): exit 2 blocks with stderr as the reason (at Stop and
// SubagentStop it keeps the agent working); exit 0 with JSON on stdout
// decides; plain text on stdout is context at the events that take it and
// ignored elsewhere; any other exit is a failure (onError decides).
func claudeRead(ev *Event, in *events.Input, exit int, stdout, stderr []byte) (events.Output, error) {
	switch exit {
	case 2:
		reason := stderrReason(stderr)
		if in.Event == events.AfterTurn || in.Event == events.AfterSubagent {
			return events.Output{ContinueWork: &events.ContinueWork{Reason: reason}}, nil
		}
		return events.Output{Decision: events.Deny, Reason: reason}, nil
	case 0:
	default:
		return events.Output{}, errOtherExit(exit, stderr)
	}
	m, err := object(stdout)
	if err != nil {
		// Plain text: context where the host reads it so.
		switch in.Event {
		case events.SessionStart, events.BeforeTurn:
			return events.Output{AdditionalContext: strings.TrimSpace(string(stdout))}, nil
		}
		return events.Output{}, nil
	}
	var out events.Output
	r := &reader{m: m}
	hso := r.object("hookSpecificOutput")
	r.adopt(hso)
	switch r.str("decision") {
	case "block":
		if in.Event == events.AfterTurn || in.Event == events.AfterSubagent {
			out.ContinueWork = &events.ContinueWork{Reason: r.str("reason")}
		} else {
			out.Decision, out.Reason = events.Deny, r.str("reason")
		}
	case "approve":
		out.Decision, out.Reason = events.Allow, r.str("reason")
	}
	switch d := hso.str("permissionDecision"); d {
	case "allow", "deny", "ask":
		out.Decision, out.Reason = events.Decision(d), hso.str("permissionDecisionReason")
	}
	if dec := hso.object("decision"); dec.m != nil {
		switch dec.str("behavior") {
		case "allow":
			out.Decision = events.Allow
		case "deny":
			out.Decision, out.Reason = events.Deny, dec.str("message")
		}
		if v := dec.value("updatedInput"); v != nil {
			out.MutatedToolInput = v
		}
		hso.adopt(dec)
	}
	if v := hso.value("updatedInput"); v != nil {
		out.MutatedToolInput = v
	}
	out.AdditionalContext = hso.str("additionalContext")
	if v := hso.value("updatedToolOutput"); v != nil {
		out.UpdatedToolOutput = v
	} else if v := hso.value("updatedMCPToolOutput"); v != nil {
		out.UpdatedToolOutput = v
	}
	if !r.boolean("continue", true) {
		// Stop everything: a deny where the event can deny.
		out.Decision, out.Reason = events.Deny, r.str("stopReason")
		out.ContinueWork = nil
	}
	r.adopt(hso)
	if r.err != nil {
		return events.Output{}, invalidOutput(r.err)
	}
	return out, nil
}
