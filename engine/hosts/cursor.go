package hosts

import (
	"strings"

	"github.com/monad-hooks/monad-hooks/events"
)

// newCursor builds the host of Cursor's agent (cursor.com/docs/hooks): hooks.json version 1,
// payloads with hook_event_name, conversation_id, generation_id,
// workspace_roots and the event's fields; answers are JSON on stdout with
// exit 0: permission (allow, deny, ask) with user_message and
// agent_message at the gating events, continue at beforeSubmitPrompt,
// followup_message at stop, additional_context at sessionStart.
// cursorSilence is Cursor's "nothing to say": its failClosed blocks on an
// empty stdout, which is not JSON.
var cursorSilence = []byte("{}\n")

func newCursor() *Host {
	h := &Host{
		Name:           "cursor",
		Summary:        "Cursor's agent: hook_event_name payloads (conversation_id, workspace_roots); JSON answers (permission, user_message, agent_message), exit 0",
		Agent:          "cursor",
		EventKeys:      []string{"hook_event_name"},
		JSONAnswers:    true,
		ContextAtStart: true,
		Silence:        cursorSilence,
		Events: []Event{
			{Name: "sessionStart", Monad: events.SessionStart},
			{Name: "sessionEnd", Monad: events.SessionEnd, fields: []field{f("reason", "reason", kEndReason)}},
			{Name: "preToolUse", Monad: events.BeforeTool, fields: []field{
				f("tool_name", "toolName", kString), f("tool_input", "toolInput", kJSON), f("tool_use_id", "toolCallId", kString)}},
			{Name: "beforeShellExecution", Monad: events.BeforeTool, tool: "Shell", fields: []field{f("command", "toolInput.command", kString)},
				Note: "the shell tool Shell with {command}; a rewrite cannot be applied: it blocks the call, showing the rewrite"},
			{Name: "beforeMCPExecution", Monad: events.BeforeTool, fields: []field{f("tool_name", "toolName", kMCPTool), f("tool_input", "toolInput", kJSON)},
				Note: "the tool is named MCP:TOOL, as preToolUse names it; a rewrite cannot be applied: it blocks the call, showing the rewrite"},
			{Name: "beforeReadFile", Monad: events.BeforeTool, tool: "Read", fields: []field{f("file_path", "toolInput.file_path", kString)},
				Note: "the read tool Read with {file_path}; no ask: an ask blocks the read"},
			{Name: "postToolUse", Monad: events.AfterTool, fields: []field{
				f("tool_name", "toolName", kString), f("tool_input", "toolInput", kJSON), f("tool_output", "toolResult", kJSON), f("tool_use_id", "toolCallId", kString)},
				Note: "an output rewrite applies to MCP tools only (updated_mcp_tool_output)"},
			{Name: "afterShellExecution", Monad: events.AfterTool, tool: "Shell", fields: []field{f("command", "toolInput.command", kString), f("output", "toolResult", kString)},
				Note: "observe only: an output rewrite cannot be applied"},
			{Name: "afterMCPExecution", Monad: events.AfterTool, fields: []field{
				f("tool_name", "toolName", kMCPTool), f("tool_input", "toolInput", kJSON), f("result_json", "toolResult", kJSON)},
				Note: "observe only: an output rewrite cannot be applied"},
			{Name: "postToolUseFailure"},
			{Name: "afterFileEdit"},
			{Name: "beforeSubmitPrompt", Monad: events.BeforeTurn, fields: []field{f("prompt", "prompt", kString)},
				Note: "takes no context and cannot replace the prompt: a prompt rewrite blocks it, showing the rewrite"},
			{Name: "subagentStart", Monad: events.BeforeSubagent, fields: []field{f("subagent_type", "subagentName", kString)},
				Note: "takes no context: context for the subagent is dropped"},
			{Name: "subagentStop", Monad: events.AfterSubagent, fields: []field{f("subagent_type", "subagentName", kString)}},
			{Name: "preCompact", Monad: events.BeforeCompact, fields: []field{f("trigger", "compaction.trigger", kString)},
				Note: "observe only: what to preserve is dropped"},
			{Name: "stop", Monad: events.AfterTurn, fields: []field{f("status", "reason", kEndReason), f("loop_count", "stopContinues", kCount)},
				Note: "continueWork is followup_message; loop_count counts as the continuations so far"},
			{Name: "afterAgentResponse"},
			{Name: "afterAgentThought"},
			{Name: "beforeTabFileRead"},
			{Name: "afterTabFileEdit"},
		},
		Notes: []string{
			"Every answer is JSON on stdout with exit 0; no opinion is {} (not an empty stdout, which Cursor may read as invalid JSON and, with failClosed, as a block).",
			"preToolUse, beforeShellExecution, beforeMCPExecution, beforeReadFile: permission deny, ask or allow with user_message and agent_message (the reason); beforeReadFile has no ask, so an ask denies the read saying approval is needed.",
			"A tool-input rewrite is updated_input at preToolUse; the other before* events cannot apply one, so it blocks the call and shows the rewrite to the agent. Context at these events is dropped.",
			"postToolUse: an output rewrite is updated_mcp_tool_output for MCP tools; Cursor cannot replace a built-in tool's output, so a redaction of it does not reach the model's copy (use beforeReadFile/preToolUse guards for what must not be read).",
			"beforeSubmitPrompt: a deny is continue false with user_message; a prompt rewrite, which Cursor cannot apply, blocks the prompt and shows the rewrite; context is dropped (use sessionStart).",
			"stop: continueWork is followup_message, bounded by --max-stop-continues (with loop_count as the count so far) and by Cursor's own loop_limit.",
			"sessionStart: context is additional_context.",
			"Cursor fails open on a hook that crashes or times out unless failClosed is set: install sets it.",
			"A payload naming no known event is refused with exit 2 (a block) and permission deny on stdout.",
		},
		projectEnv: []string{"CURSOR_PROJECT_DIR", "CLAUDE_PROJECT_DIR"},
		common: []field{
			f("conversation_id", "sessionId", kString), f("session_id", "sessionId", kString),
			f("cwd", "cwd", kString), f("workspace_roots", "cwd", kFirst),
		},
		block: func(reason string) map[string]any {
			return map[string]any{"permission": "deny", "continue": false, "user_message": reason, "agent_message": reason}
		},
	}
	h.encode = cursorAnswer
	h.read = cursorRead
	return h
}

func cursorAnswer(c *Call, out events.Output) Answer {
	m := map[string]any{}
	deny := func(reason string) {
		m["permission"], m["user_message"], m["agent_message"] = "deny", reason, reason
	}
	switch c.Input.Event {
	case events.BeforeTool:
		name := c.Event.Name
		switch {
		case out.Decision == events.Deny:
			deny(deniedReason(out))
		case out.Decision == events.Ask && name == "beforeReadFile":
			deny(askBlocked("Cursor's beforeReadFile", out.Reason))
		case out.MutatedToolInput != nil && name != "preToolUse":
			deny(inputBlocked(out.MutatedToolInput))
		default:
			if out.Decision == events.Ask || out.Decision == events.Allow {
				m["permission"] = string(out.Decision)
				if out.Reason != "" {
					m["user_message"], m["agent_message"] = out.Reason, out.Reason
				}
			}
			if out.MutatedToolInput != nil {
				m["updated_input"] = out.MutatedToolInput
			}
		}
	case events.AfterTool:
		if out.UpdatedToolOutput != nil && c.Event.Name == "postToolUse" && strings.HasPrefix(strings.ToLower(c.Input.ToolName), "mcp") {
			m["updated_mcp_tool_output"] = out.UpdatedToolOutput
		}
	case events.BeforeTurn:
		switch {
		case out.Decision == events.Deny:
			m["continue"], m["user_message"] = false, deniedReason(out)
		case out.MutatedPrompt != nil:
			m["continue"], m["user_message"] = false, promptBlocked(*out.MutatedPrompt)
		}
	case events.AfterTurn:
		if out.ContinueWork != nil {
			m["followup_message"] = continueReason(out.ContinueWork)
		}
	case events.SessionStart:
		if out.AdditionalContext != "" {
			m["additional_context"] = out.AdditionalContext
		}
	}
	if len(m) == 0 {
		return Answer{Stdout: cursorSilence}
	}
	return answerJSON(m)
}

// cursorRead reads a hook written for Cursor: exit 2 denies with stderr as
// the reason; exit 0 with JSON decides (permission, continue, updated_input,
// additional_context, followup_message, updated_mcp_tool_output); stdout
// that is not JSON, and any other exit, are failures (Cursor fails open on
// them unless failClosed, which imports as onError deny).
func cursorRead(_ *Event, in *events.Input, exit int, stdout, stderr []byte) (events.Output, error) {
	switch exit {
	case 2:
		return events.Output{Decision: events.Deny, Reason: stderrReason(stderr)}, nil
	case 0:
	default:
		return events.Output{}, errOtherExit(exit, stderr)
	}
	m, err := object(stdout)
	if err != nil {
		return events.Output{}, invalidOutput(err)
	}
	var out events.Output
	r := &reader{m: m}
	reason := r.str("agent_message")
	if reason == "" {
		reason = r.str("user_message")
	}
	switch p := r.str("permission"); p {
	case "allow", "deny", "ask":
		out.Decision, out.Reason = events.Decision(p), reason
	}
	if !r.boolean("continue", true) {
		out.Decision, out.Reason = events.Deny, reason
	}
	out.MutatedToolInput = r.value("updated_input")
	out.AdditionalContext = r.str("additional_context")
	if s := r.str("followup_message"); s != "" {
		out.ContinueWork = &events.ContinueWork{Reason: s}
	}
	out.UpdatedToolOutput = r.value("updated_mcp_tool_output")
	if r.err != nil {
		return events.Output{}, invalidOutput(r.err)
	}
	return out, nil
}
