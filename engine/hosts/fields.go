package hosts

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
)

// A field maps one key of a host payload to one field of the HookInput, in
// both directions: Decode reads it, Payload writes it back.
type field struct {
	key  string // the payload's key
	to   string // the Input's field, by its JSON name; "toolInput.K" is key K of the tool input
	kind fieldKind
}

// fieldKind says how a payload value converts.
type fieldKind uint8

const (
	// kString: a string.
	kString fieldKind = iota
	// kValue: any JSON value (a free-form payload).
	kValue
	// kJSON: a JSON document held in a string (Cursor's MCP tool_input),
	// or any JSON value as it is; written back as the value.
	kJSON
	// kFlag: a boolean; true is a count of 1 (stop_hook_active).
	kFlag
	// kCount: a non-negative integer (loop_count).
	kCount
	// kTime: a timestamp, kept when it is RFC 3339 and dropped otherwise
	// (a host's own time format must not refuse its payload).
	kTime
	// kEndReason: why a turn ended, kept when it is one of the seed's
	// (completed, aborted, error) and dropped otherwise.
	kEndReason
	// kFirst: the first string of an array (Cursor's workspace_roots).
	kFirst
	// kModelText: a Gemini LLMResponse, whose candidates' text parts are
	// the Input's text.
	kModelText
	// kMCPTool: the name of an MCP server's tool as Cursor's
	// beforeMCPExecution gives it (the tool's own name), read as Cursor's
	// preToolUse names it: MCP:TOOL (the tool table resolves that form);
	// written back without MCP:.
	kMCPTool
	// kMCPContext: Gemini CLI's mcp_context ({server_name, tool_name, ...}
	// beside an MCP tool's call), read as the tool name mcp_SERVER_TOOL,
	// the name Gemini CLI 0.46 and later give (older versions give the
	// bare tool name, which the tool table cannot tell from a built-in
	// tool's); not written back.
	kMCPContext
)

// f builds a field.
func f(key, to string, kind fieldKind) field { return field{key: key, to: to, kind: kind} }

// decode sets the Input's field from raw; ok false when the value is
// dropped (kTime, kEndReason).
func (fd field) decode(in *events.Input, raw json.RawMessage) (ok bool, err error) {
	var v any
	switch fd.kind {
	case kString, kTime, kEndReason:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return false, fmt.Errorf("want a string")
		}
		switch {
		case fd.kind == kTime:
			if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
				return false, nil
			}
		case fd.kind == kEndReason && s != "completed" && s != "aborted" && s != "error":
			return false, nil
		}
		v = s
	case kValue:
		if v, err = events.DecodeValue(raw); err != nil {
			return false, err
		}
	case kJSON:
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if v, err = events.DecodeValue([]byte(s)); err != nil {
				v = s // not JSON: the string itself
			}
		} else if v, err = events.DecodeValue(raw); err != nil {
			return false, err
		}
	case kFlag:
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return false, fmt.Errorf("want a boolean")
		}
		if !b {
			return false, nil
		}
		v = 1
	case kCount:
		var n int
		if json.Unmarshal(raw, &n) != nil || n < 0 {
			return false, fmt.Errorf("want a non-negative integer")
		}
		v = n
	case kFirst:
		var a []string
		if json.Unmarshal(raw, &a) != nil {
			return false, fmt.Errorf("want an array of strings")
		}
		if len(a) == 0 {
			return false, nil
		}
		v = a[0]
	case kModelText:
		var r llmResponse
		if json.Unmarshal(raw, &r) != nil {
			return false, fmt.Errorf("want an LLMResponse object")
		}
		v = r.text()
	case kMCPTool:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return false, fmt.Errorf("want a string")
		}
		if !strings.HasPrefix(s, mcpPrefix) {
			s = mcpPrefix + s
		}
		v = s
	case kMCPContext:
		var c struct {
			Server string `json:"server_name"`
			Tool   string `json:"tool_name"`
		}
		if json.Unmarshal(raw, &c) != nil || c.Server == "" || c.Tool == "" {
			return false, nil // not one: the tool_name field gives the name
		}
		v = "mcp_" + geminiName(c.Server) + "_" + geminiName(c.Tool)
	}
	return true, setField(in, fd.to, v)
}

// encode returns the payload value of the Input's field; ok false when the
// Input has none.
func (fd field) encode(in *events.Input) (any, bool) {
	v, ok := getField(in, fd.to)
	if !ok {
		return nil, false
	}
	switch fd.kind {
	case kFlag:
		return v.(int) > 0, true
	case kFirst:
		return []string{v.(string)}, true
	case kModelText:
		return newLLMResponse(v.(string), nil), true
	case kMCPTool:
		return strings.TrimPrefix(v.(string), mcpPrefix), true
	case kMCPContext:
		return nil, false
	}
	return v, true
}

// mcpPrefix begins the name Cursor's preToolUse gives an MCP server's tool.
const mcpPrefix = "MCP:"

// geminiName is s with what Gemini CLI does not allow in a tool name
// (anything but letters, digits, _ . : -) replaced by _, as Gemini CLI
// makes the names of MCP tools.
func geminiName(s string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("_.:-", r) {
			return r
		}
		return '_'
	}, s)
}

// setField sets the Input's field named by its JSON name.
func setField(in *events.Input, to string, v any) error {
	if k, ok := strings.CutPrefix(to, "toolInput."); ok {
		m, _ := in.ToolInput.(map[string]any)
		if m == nil {
			m = map[string]any{}
			in.ToolInput = m
		}
		m[k] = v
		return nil
	}
	switch to {
	case "toolInput":
		in.ToolInput = v
		return nil
	case "toolResult":
		in.ToolResult = v
		return nil
	case "request":
		in.Request = v
		return nil
	case "stopContinues":
		in.StopContinues = v.(int)
		return nil
	}
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("want a string")
	}
	switch to {
	case "sessionId":
		in.SessionID = s
	case "cwd":
		in.Cwd = s
	case "timestamp":
		in.Timestamp = s
	case "prompt":
		in.Prompt = s
	case "toolName":
		in.ToolName = s
	case "toolCallId":
		in.ToolCallID = s
	case "error":
		in.Error = s
	case "reason":
		in.Reason = s
	case "response":
		in.Response = s
	case "subagentName":
		in.SubagentName = s
	case "subagentResult":
		in.SubagentResult = s
	case "compaction.trigger":
		if in.Compaction == nil {
			in.Compaction = &events.Compaction{}
		}
		in.Compaction.Trigger = s
	default:
		return fmt.Errorf("no input field %s", to)
	}
	return nil
}

// getField returns the Input's field named by its JSON name, when set.
func getField(in *events.Input, to string) (any, bool) {
	if k, ok := strings.CutPrefix(to, "toolInput."); ok {
		m, _ := in.ToolInput.(map[string]any)
		v, ok := m[k]
		return v, ok && v != nil
	}
	var v any
	switch to {
	case "toolInput":
		v = in.ToolInput
	case "toolResult":
		v = in.ToolResult
	case "request":
		v = in.Request
	case "stopContinues":
		return in.StopContinues, in.Event == events.AfterTurn
	case "compaction.trigger":
		if in.Compaction == nil || in.Compaction.Trigger == "" {
			return nil, false
		}
		return in.Compaction.Trigger, true
	default:
		s := map[string]string{
			"sessionId": in.SessionID, "cwd": in.Cwd, "timestamp": in.Timestamp, "prompt": in.Prompt,
			"toolName": in.ToolName, "toolCallId": in.ToolCallID, "error": in.Error, "reason": in.Reason,
			"response": in.Response, "subagentName": in.SubagentName, "subagentResult": in.SubagentResult,
		}[to]
		return s, s != ""
	}
	return v, v != nil
}

// llmResponse is Gemini CLI's stable LLMResponse, as far as hooks read it.
type llmResponse struct {
	Candidates []struct {
		Content struct {
			Parts []json.RawMessage `json:"parts"`
		} `json:"content"`
	} `json:"candidates"`
}

// text joins the text parts of every candidate.
func (r llmResponse) text() string {
	var b strings.Builder
	for _, c := range r.Candidates {
		for _, p := range c.Content.Parts {
			var s string
			if json.Unmarshal(p, &s) == nil {
				b.WriteString(s)
				continue
			}
			var obj struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(p, &obj) == nil {
				b.WriteString(obj.Text)
			}
		}
	}
	return b.String()
}

// newLLMResponse is an LLMResponse whose one candidate says text, with the
// other fields of orig (the response it replaces) kept, and its first
// candidate's finishReason.
func newLLMResponse(text string, orig json.RawMessage) map[string]any {
	out := map[string]any{}
	var o map[string]any
	if orig != nil && json.Unmarshal(orig, &o) == nil {
		for k, v := range o {
			out[k] = v
		}
	}
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": []string{text}}}
	if cs, ok := o["candidates"].([]any); ok && len(cs) > 0 {
		if c0, ok := cs[0].(map[string]any); ok && c0["finishReason"] != nil {
			cand["finishReason"] = c0["finishReason"]
		}
	}
	out["candidates"] = []any{cand}
	return out
}
