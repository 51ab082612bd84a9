package hosts

import (
	"github.com/monad-hooks/monad-hooks/events"
)

// newCodex builds the host of OpenAI's Codex CLI (developers.openai.com/codex/hooks and
// codex-rs/hooks: the generated command input and output schemas and
// output_parser.rs): Claude Code's payload and answer shapes, with its own
// limits: a PreToolUse hook cannot ask (an ask fails the hook, and the call
// proceeds), an allow is only valid with updatedInput, and a deny needs a
// non-empty reason. Shell-like tools arrive as Bash with {"command": ...},
// apply_patch with the patch in command, MCP tools as mcp__server__tool.
func newCodex() *Host {
	h := &Host{
		Name:           "codex",
		Summary:        "OpenAI's Codex CLI: Claude Code-shaped payloads and JSON answers, with Codex's limits (no ask, allow only with updatedInput)",
		Agent:          "codex",
		EventKeys:      []string{"hook_event_name"},
		JSONAnswers:    true,
		ContextAtStart: true,
		Events: []Event{
			{Name: "SessionStart", Monad: events.SessionStart},
			{Name: "UserPromptSubmit", Monad: events.BeforeTurn, fields: []field{f("prompt", "prompt", kString)},
				Note: "cannot replace the prompt: a prompt rewrite blocks it, showing the rewrite"},
			{Name: "PreToolUse", Monad: events.BeforeTool, fields: ccTool},
			{Name: "PermissionRequest", Monad: events.ApprovalRequest, fields: ccTool},
			{Name: "PostToolUse", Monad: events.AfterTool, fields: append([]field{f("tool_response", "toolResult", kValue)}, ccTool...)},
			{Name: "PreCompact", Monad: events.BeforeCompact, fields: []field{f("trigger", "compaction.trigger", kString)},
				Note: "takes no context: what to preserve is dropped"},
			{Name: "PostCompact", Monad: events.AfterCompact, fields: []field{f("trigger", "compaction.trigger", kString)}},
			{Name: "SubagentStart", Monad: events.BeforeSubagent, fields: []field{f("agent_type", "subagentName", kString)}},
			{Name: "SubagentStop", Monad: events.AfterSubagent, fields: []field{
				f("agent_type", "subagentName", kString), f("last_assistant_message", "subagentResult", kString)},
				Note: "cannot replace the subagent's result: a rewrite of it is dropped"},
			{Name: "Stop", Monad: events.AfterTurn, fields: []field{
				f("last_assistant_message", "response", kString), f("stop_hook_active", "stopContinues", kFlag)},
				Note: "continueWork is decision block with its reason; Codex itself has no bound, --max-stop-continues is it"},
			{Name: "StopFailure"},
			{Name: "Interrupt"},
			{Name: "SessionEnd", Monad: events.SessionEnd, fields: []field{f("reason", "reason", kEndReason)}},
		},
		Notes: []string{
			"Every answer is JSON on stdout with exit 0; no opinion is silence.",
			"PreToolUse: a deny is permissionDecision deny with a reason; an ask, which a Codex hook cannot give (Codex would count the hook as failed and run the call), is a deny whose reason says approval is needed.",
			"PreToolUse: an allow without a rewrite is silence (Codex accepts allow only with updatedInput); a rewrite is permissionDecision allow with updatedInput, the only way Codex applies one.",
			"PermissionRequest: decision.behavior deny (message) or allow; an ask leaves the person to decide.",
			"PostToolUse: a rewrite of the output is decision block with the rewritten text as the reason, which Codex gives the model in place of the result.",
			"UserPromptSubmit: a deny is decision block; a prompt rewrite blocks the prompt and shows the rewrite; context is additionalContext.",
			"Stop: continueWork is decision block with its reason; Codex has no bound of its own: --max-stop-continues, with run keeping --state, is the bound.",
			"A payload naming no known event is refused with exit 2 (a block) and decision block on stdout.",
		},
		common: []field{f("session_id", "sessionId", kString), f("cwd", "cwd", kString)},
		block: func(reason string) map[string]any {
			return map[string]any{"decision": "block", "reason": reason}
		},
	}
	h.encode = codexAnswer
	h.read = codexRead
	h.payload = ccPayload
	return h
}

func codexAnswer(c *Call, out events.Output) Answer {
	return ccAnswer(c, out, func(m, hso map[string]any) {
		switch c.Input.Event {
		case events.BeforeTool:
			switch {
			case out.Decision == events.Deny:
				hso["permissionDecision"], hso["permissionDecisionReason"] = "deny", deniedReason(out)
			case out.Decision == events.Ask:
				hso["permissionDecision"], hso["permissionDecisionReason"] = "deny", askBlocked("a Codex hook", out.Reason)
			case out.MutatedToolInput != nil:
				hso["permissionDecision"], hso["updatedInput"] = "allow", out.MutatedToolInput
			}
		case events.AfterTool:
			if out.UpdatedToolOutput != nil {
				m["decision"], m["reason"] = "block", outputText(out.UpdatedToolOutput)
			}
		}
	})
}

// codexRead reads a hook written for Codex: as one written for Claude Code,
// but a PostToolUse block (exit 2 or decision block) gives the model its
// reason in place of the tool's result.
func codexRead(ev *Event, in *events.Input, exit int, stdout, stderr []byte) (events.Output, error) {
	out, err := claudeRead(ev, in, exit, stdout, stderr)
	if err == nil && in.Event == events.AfterTool && out.Decision == events.Deny {
		out.UpdatedToolOutput, out.Decision, out.Reason = out.Reason, events.Proceed, ""
	}
	return out, err
}
