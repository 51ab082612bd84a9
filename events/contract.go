package events

import (
	"fmt"
	"math"
	"time"
)

// Input is the HookInput: what a hook receives. Which fields are populated
// depends on the event (see the contract); the JSON names are exactly the
// contract's. Free-form payloads (ToolInput, ToolResult, Request, Usage) hold
// decoded JSON values: map[string]any, []any, string, json.Number or float64,
// bool and nil.
//
// An Input is a value: the engine never modifies the Input it is given or
// anything it references, and a hook must not modify the Input it receives
// (it returns a rewrite in its [Output] instead).
type Input struct {
	Event     Event  `json:"event"`
	SessionID string `json:"sessionId,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	// Timestamp is an RFC 3339 time, kept as the host sent it.
	Timestamp string `json:"timestamp,omitempty"`

	// Prompt is the user's prompt (BeforeTurn).
	Prompt string `json:"prompt,omitempty"`

	// ToolName, ToolInput and ToolResult describe the tool call (BeforeTool,
	// ApprovalRequest, AfterTool).
	ToolName   string `json:"toolName,omitempty"`
	ToolInput  any    `json:"toolInput,omitempty"`
	ToolResult any    `json:"toolResult,omitempty"`

	// ToolCallID identifies one tool call, so that the audit records of its
	// BeforeTool, ApprovalRequest and AfterTool can be tied together. It is
	// an optional field beyond the seed's contract, kept as the host sent
	// it.
	ToolCallID string `json:"toolCallId,omitempty"`
	// Tool is the engine's view of the tool call (BeforeTool,
	// ApprovalRequest, AfterTool): its kind and the command, paths,
	// contents and URLs of its input, found through the engine's tool table.
	// It is an extension beyond the seed's contract, computed by the engine:
	// a value the host sends is ignored, and it is nil for a tool the table
	// does not know.
	Tool *ToolView `json:"tool,omitempty"`

	// OK and Error carry the outcome of AfterTool, AfterSubagent and
	// AfterTurn, which fire on failure too.
	OK    *bool  `json:"ok,omitempty"`
	Error string `json:"error,omitempty"`

	// Reason is why a turn or session ended: "completed", "aborted" or
	// "error" (AfterTurn, SessionEnd).
	Reason string `json:"reason,omitempty"`

	// Usage and Cost report what a turn consumed (AfterTurn).
	Usage any      `json:"usage,omitempty"`
	Cost  *float64 `json:"cost,omitempty"`

	// Caller, Request and Response describe a reasoning model call
	// (BeforeModel, AfterModel); Response is also the final text at
	// AfterTurn.
	Caller   *Caller `json:"caller,omitempty"`
	Request  any     `json:"request,omitempty"`
	Response string  `json:"response,omitempty"`

	// Compaction describes a history compaction (BeforeCompact,
	// AfterCompact).
	Compaction *Compaction `json:"compaction,omitempty"`

	// SubagentName and SubagentResult describe a forked subagent
	// (BeforeSubagent, AfterSubagent).
	SubagentName   string `json:"subagentName,omitempty"`
	SubagentResult string `json:"subagentResult,omitempty"`

	// StopContinues is set by the engine at AfterTurn: how many consecutive
	// AfterTurn continuations (continueWork) this session has had so far.
	// A value sent by the host is replaced.
	StopContinues int `json:"stopContinues,omitempty"`
}

// Caller says which reasoning loop a model call belongs to.
type Caller struct {
	// Kind is "main" or "subagent".
	Kind      string `json:"kind"`
	AgentName string `json:"agentName,omitempty"`
}

// Compaction describes a history compaction.
type Compaction struct {
	Trigger string `json:"trigger,omitempty"`
	Tokens  int64  `json:"tokens,omitempty"`
}

// A Decision is what a hook says about the action at hand. The zero value
// [Proceed] means no opinion.
type Decision string

// The decisions, in increasing strength: when several hooks decide, the
// strongest wins (deny > ask > allow > proceed).
const (
	Proceed Decision = ""
	Allow   Decision = "allow"
	Ask     Decision = "ask"
	Deny    Decision = "deny"
)

// String returns the decision as a person reads it: "proceed" for
// [Proceed] (the empty string, which JSON omits), else its JSON spelling.
func (d Decision) String() string {
	if d == Proceed {
		return "proceed"
	}
	return string(d)
}

// Rank orders decisions by strength: Proceed 0, Allow 1, Ask 2, Deny 3, and -1
// for an unknown decision.
func (d Decision) Rank() int {
	switch d {
	case Proceed:
		return 0
	case Allow:
		return 1
	case Ask:
		return 2
	case Deny:
		return 3
	}
	return -1
}

// Output is the HookOutput: what a hook returns. The zero value means
// "proceed" and changes nothing. Fields an event does not honour are ignored
// (see [Spec.Filter]). A JSON null is the same as an absent field, so a
// rewrite can never set a payload to null.
type Output struct {
	Decision          Decision      `json:"decision,omitempty"`
	Reason            string        `json:"reason,omitempty"`
	AdditionalContext string        `json:"additionalContext,omitempty"`
	MutatedPrompt     *string       `json:"mutatedPrompt,omitempty"`
	ModelOverride     string        `json:"modelOverride,omitempty"`
	MutatedToolInput  any           `json:"mutatedToolInput,omitempty"`
	UpdatedToolOutput any           `json:"updatedToolOutput,omitempty"`
	MutatedRequest    any           `json:"mutatedRequest,omitempty"`
	MutatedText       *string       `json:"mutatedText,omitempty"`
	ContinueWork      *ContinueWork `json:"continueWork,omitempty"`
}

// ContinueWork asks the agent to keep working after a turn ends (AfterTurn).
type ContinueWork struct {
	Reason string `json:"reason"`
}

// Validate reports whether o is a valid HookOutput: a known decision and
// JSON-representable payloads, with mutatedToolInput an object. It is what
// the engine applies to the outputs of Go and Lua hooks; [DecodeOutput]
// applies the same rules to JSON.
func (o *Output) Validate() error {
	if o.Decision.Rank() < 0 {
		return &FieldError{Field: "decision", Msg: fmt.Sprintf("unknown decision %q (want allow, deny or ask)", string(o.Decision))}
	}
	if o.MutatedToolInput != nil {
		if _, ok := o.MutatedToolInput.(map[string]any); !ok {
			return &FieldError{Field: "mutatedToolInput", Msg: fmt.Sprintf("want an object, got %s", jsonKind(o.MutatedToolInput))}
		}
	}
	for _, p := range []struct {
		name string
		v    any
	}{{"mutatedToolInput", o.MutatedToolInput}, {"updatedToolOutput", o.UpdatedToolOutput}, {"mutatedRequest", o.MutatedRequest}} {
		if err := checkJSONValue(p.v, 0); err != nil {
			return &FieldError{Field: p.name, Msg: err.Error()}
		}
	}
	return nil
}

// Validate reports whether in is a valid HookInput: a known event, an RFC 3339
// timestamp if one is set, a known caller kind and end reason, and
// JSON-representable payloads.
func (in *Input) Validate() error {
	if in.Event == Invalid {
		return &FieldError{Field: "event", Msg: "missing event"}
	}
	if !in.Event.Valid() {
		return &FieldError{Field: "event", Msg: fmt.Sprintf("unknown event %d", uint8(in.Event))}
	}
	if in.Timestamp != "" {
		if _, err := time.Parse(time.RFC3339Nano, in.Timestamp); err != nil {
			return &FieldError{Field: "timestamp", Msg: fmt.Sprintf("want an RFC 3339 time, got %q", in.Timestamp)}
		}
	}
	if in.Caller != nil && in.Caller.Kind != "main" && in.Caller.Kind != "subagent" {
		return &FieldError{Field: "caller.kind", Msg: fmt.Sprintf("want \"main\" or \"subagent\", got %q", in.Caller.Kind)}
	}
	switch in.Reason {
	case "", "completed", "aborted", "error":
	default:
		return &FieldError{Field: "reason", Msg: fmt.Sprintf("want completed, aborted or error, got %q", in.Reason)}
	}
	if in.Cost != nil && (math.IsNaN(*in.Cost) || math.IsInf(*in.Cost, 0)) {
		return &FieldError{Field: "cost", Msg: "want a finite number"}
	}
	for _, p := range []struct {
		name string
		v    any
	}{{"toolInput", in.ToolInput}, {"toolResult", in.ToolResult}, {"usage", in.Usage}, {"request", in.Request}} {
		if err := checkJSONValue(p.v, 0); err != nil {
			return &FieldError{Field: p.name, Msg: err.Error()}
		}
	}
	return nil
}

// A FieldError says which field of an Input or Output is invalid and why.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return "field " + e.Field + ": " + e.Msg }

// MaxDepth bounds the nesting of free-form JSON payloads; deeper values are
// invalid, so that no converter recurses without bound.
const MaxDepth = 200
