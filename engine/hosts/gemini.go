package hosts

import (
	"encoding/json"

	"github.com/monad-hooks/monad-hooks/events"
)

// newGeminiCLI builds the host of Google's Gemini CLI (docs/hooks/reference.md and
// packages/core/src/hooks/types.ts): payloads with hook_event_name,
// session_id, cwd, timestamp and the event's fields; answers are JSON on
// stdout with exit 0: decision (allow, deny or block, ask), reason, and
// hookSpecificOutput (tool_input merged over the arguments,
// additionalContext, llm_request, llm_response).
func newGeminiCLI() *Host {
	h := &Host{
		Name:           "gemini-cli",
		Summary:        "Google's Gemini CLI: hook_event_name payloads; JSON answers (decision, reason, hookSpecificOutput), exit 0",
		Agent:          "gemini-cli",
		EventKeys:      []string{"hook_event_name"},
		JSONAnswers:    true,
		ContextAtStart: true,
		Events: []Event{
			{Name: "SessionStart", Monad: events.SessionStart},
			{Name: "SessionEnd", Monad: events.SessionEnd, fields: []field{f("reason", "reason", kEndReason)}},
			{Name: "BeforeAgent", Monad: events.BeforeTurn, fields: []field{f("prompt", "prompt", kString)},
				Note: "cannot replace the prompt: a prompt rewrite blocks it, showing the rewrite"},
			{Name: "AfterAgent", Monad: events.AfterTurn, fields: []field{
				f("prompt_response", "response", kString), f("stop_hook_active", "stopContinues", kFlag), f("prompt", "prompt", kString)},
				Note: "continueWork is decision deny with its reason (a retry with the reason as the prompt); the response is shown already: a rewrite of it is dropped"},
			{Name: "BeforeModel", Monad: events.BeforeModel, fields: []field{f("llm_request", "request", kValue)}},
			{Name: "AfterModel", Monad: events.AfterModel, fields: []field{f("llm_response", "response", kModelText), f("llm_request", "request", kValue)},
				Note: "fires for every streamed chunk; a rewrite replaces the chunk's text"},
			{Name: "BeforeToolSelection"},
			{Name: "BeforeTool", Monad: events.BeforeTool, fields: []field{f("mcp_context", "toolName", kMCPContext), f("tool_name", "toolName", kString), f("tool_input", "toolInput", kValue)},
				Note: "an MCP server's tool (with mcp_context) is named mcp_SERVER_TOOL, as Gemini CLI 0.46 and later name it"},
			{Name: "AfterTool", Monad: events.AfterTool, fields: []field{
				f("mcp_context", "toolName", kMCPContext), f("tool_name", "toolName", kString), f("tool_input", "toolInput", kValue), f("tool_response", "toolResult", kValue)}},
			{Name: "PreCompress", Monad: events.BeforeCompact, fields: []field{f("trigger", "compaction.trigger", kString)},
				Note: "advisory: what to preserve is dropped"},
			{Name: "Notification"},
		},
		Notes: []string{
			"Every answer is JSON on stdout with exit 0; no opinion is silence.",
			"BeforeTool: decision deny, ask or allow with reason; a rewrite is hookSpecificOutput.tool_input, which Gemini merges over the arguments, so the keys it dropped are sent as null; context is dropped (BeforeTool takes none).",
			"AfterTool: a rewrite of the output is decision deny with the rewritten text as the reason, which replaces the result the model sees.",
			"BeforeAgent: a deny is decision deny; a prompt rewrite, which Gemini cannot apply there, blocks the prompt and shows the rewrite; context is hookSpecificOutput.additionalContext; a modelOverride is dropped.",
			"AfterAgent: continueWork is decision deny with its reason, bounded by --max-stop-continues across runs when run keeps --state.",
			"BeforeModel: a request rewrite is hookSpecificOutput.llm_request. AfterModel: a text rewrite is hookSpecificOutput.llm_response.",
			"A payload naming no known event is refused with exit 2 (a block) and decision deny on stdout.",
		},
		projectEnv: []string{"GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"},
		common:     []field{f("session_id", "sessionId", kString), f("cwd", "cwd", kString), f("timestamp", "timestamp", kTime)},
		block: func(reason string) map[string]any {
			return map[string]any{"decision": "deny", "reason": reason}
		},
	}
	h.encode = geminiAnswer
	h.read = geminiRead
	return h
}

func geminiAnswer(c *Call, out events.Output) Answer {
	m := map[string]any{}
	hso := map[string]any{}
	deny := func(reason string) { m["decision"], m["reason"] = "deny", reason }
	switch c.Input.Event {
	case events.BeforeTool:
		switch out.Decision {
		case events.Deny:
			deny(deniedReason(out))
		case events.Ask, events.Allow:
			m["decision"] = string(out.Decision)
			if out.Reason != "" {
				m["reason"] = out.Reason
			}
		}
		if patch, ok := mergePatch(c.Input.ToolInput, out.MutatedToolInput); ok && out.Decision != events.Deny {
			hso["tool_input"] = patch
		}
	case events.AfterTool:
		if out.UpdatedToolOutput != nil {
			deny(outputText(out.UpdatedToolOutput))
		}
	case events.BeforeTurn:
		switch {
		case out.Decision == events.Deny:
			deny(deniedReason(out))
		case out.MutatedPrompt != nil:
			deny(promptBlocked(*out.MutatedPrompt))
		case out.AdditionalContext != "":
			hso["additionalContext"] = out.AdditionalContext
		}
	case events.AfterTurn:
		if out.ContinueWork != nil {
			deny(continueReason(out.ContinueWork))
		}
	case events.BeforeModel:
		switch {
		case out.Decision == events.Deny:
			deny(deniedReason(out))
		case out.MutatedRequest != nil:
			hso["llm_request"] = out.MutatedRequest
		}
	case events.AfterModel:
		if out.MutatedText != nil {
			hso["llm_response"] = newLLMResponse(*out.MutatedText, c.Raw["llm_response"])
		}
	case events.SessionStart:
		if out.AdditionalContext != "" {
			hso["additionalContext"] = out.AdditionalContext
		}
	}
	return answerHSO(m, hso, c.Event.Name)
}

// geminiRead reads a hook written for Gemini CLI: exit 2 blocks with stderr
// as the reason (at AfterAgent a retry with it as the prompt, at AfterTool
// the replacement of the result); exit 0 with JSON decides, and plain text
// on stdout is a message to the user (no opinion); any other exit is a
// failure (a warning to Gemini; onError decides here).
func geminiRead(_ *Event, in *events.Input, exit int, stdout, stderr []byte) (events.Output, error) {
	var out events.Output
	block := func(reason string) {
		switch in.Event {
		case events.AfterTurn:
			out.ContinueWork = &events.ContinueWork{Reason: reason}
		case events.AfterTool:
			out.UpdatedToolOutput = geminiToolOutput(in.ToolResult, reason)
		default:
			out.Decision, out.Reason = events.Deny, reason
		}
	}
	switch exit {
	case 2:
		block(stderrReason(stderr))
		return out, nil
	case 0:
	default:
		return out, errOtherExit(exit, stderr)
	}
	m, err := object(stdout)
	if err != nil || m == nil {
		return out, nil
	}
	r := &reader{m: m}
	hso := r.object("hookSpecificOutput")
	switch d := r.str("decision"); d {
	case "deny", "block":
		block(r.str("reason"))
	case "ask", "allow":
		out.Decision, out.Reason = events.Decision(d), r.str("reason")
	case "approve":
		out.Decision, out.Reason = events.Allow, r.str("reason")
	}
	if v := hso.value("tool_input"); v != nil {
		out.MutatedToolInput = mergeOver(in.ToolInput, v)
	}
	out.AdditionalContext = hso.str("additionalContext")
	if v := hso.value("llm_request"); v != nil {
		out.MutatedRequest = mergeOver(in.Request, v)
	}
	if raw, ok := hso.raw("llm_response"); ok && in.Event == events.AfterModel {
		var resp llmResponse
		if err := json.Unmarshal(raw, &resp); err != nil && r.err == nil {
			r.err = err
		}
		t := resp.text()
		out.MutatedText = &t
	}
	if !r.boolean("continue", true) {
		out.Decision, out.Reason, out.ContinueWork = events.Deny, r.str("stopReason"), nil
	}
	r.adopt(hso)
	if r.err != nil {
		return events.Output{}, invalidOutput(r.err)
	}
	return out, nil
}

// geminiToolOutput is a tool response whose result the model sees is text:
// the original with its llmContent and returnDisplay replaced.
func geminiToolOutput(orig any, text string) any {
	out := map[string]any{}
	if m, ok := orig.(map[string]any); ok {
		for k, v := range m {
			out[k] = v
		}
	}
	out["llmContent"], out["returnDisplay"] = text, text
	return out
}
