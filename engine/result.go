package engine

import (
	"context"

	"github.com/monad-hooks/monad-hooks/events"
)

// Result is the combined outcome of one dispatch: the merged decision, the
// honoured rewrites (each under its Output field name) and the audit. Empty
// fields are omitted from its JSON. A Result owns its slices; the payload
// values (MutatedToolInput, ...) are the values hooks returned and must be
// treated as read-only.
type Result struct {
	Event events.Event `json:"event"`
	// Decision is the strongest decision honoured at the event (deny > ask >
	// allow > proceed); Proceed when no hook decided.
	Decision events.Decision `json:"decision,omitempty"`
	// Reason is the reason of the hook whose decision won; for a deny with
	// no reason, the engine names the hook. A hook's reason is cut to
	// events.MaxReasonSize (see [Record.Truncated]).
	Reason string `json:"reason,omitempty"`
	// AdditionalContext joins the honoured contexts in plan order with a
	// blank line. At the first BeforeTurn of a session that is not denied, the
	// context stashed at SessionStart comes first. It is at most
	// events.MaxContextSize bytes in all: what is over is cut, with a
	// marker (see [Record.Truncated]); so is the stash.
	AdditionalContext string `json:"additionalContext,omitempty"`

	// The honoured rewrites, as chained through the hooks (the last one
	// wins). A deny drops them.
	MutatedPrompt     *string `json:"mutatedPrompt,omitempty"`
	ModelOverride     string  `json:"modelOverride,omitempty"`
	MutatedToolInput  any     `json:"mutatedToolInput,omitempty"`
	UpdatedToolOutput any     `json:"updatedToolOutput,omitempty"`
	MutatedRequest    any     `json:"mutatedRequest,omitempty"`
	MutatedText       *string `json:"mutatedText,omitempty"`

	// ContinueWork asks the agent to keep working (AfterTurn); nil once the
	// session has reached maxStopContinues. Its reason is cut to
	// events.MaxReasonSize.
	ContinueWork *events.ContinueWork `json:"continueWork,omitempty"`

	// ConfigError is set when the configuration changed on disk but failed
	// to load: the last good configuration stayed in force.
	ConfigError string `json:"configError,omitempty"`

	// UnguardedTool is set at a tool-scoped event (BeforeTool,
	// ApprovalRequest, AfterTool) whose tool is neither declared nor in the
	// built-in table: no guard knows what it does. The audit then starts
	// with the engine's record of it (see [WithUnguardedTools]).
	UnguardedTool bool `json:"unguardedTool,omitempty"`

	// Audit has one Record per executed hook, in plan order.
	Audit []Record `json:"audit,omitempty"`
}

// Output returns the decision, reason, context and honoured rewrites of r
// as a HookOutput (what a host adapter answers with). The payload values
// are r's own, shared.
func (r *Result) Output() events.Output {
	return events.Output{Decision: r.Decision, Reason: r.Reason, AdditionalContext: r.AdditionalContext,
		MutatedPrompt: r.MutatedPrompt, ModelOverride: r.ModelOverride, MutatedToolInput: r.MutatedToolInput,
		UpdatedToolOutput: r.UpdatedToolOutput, MutatedRequest: r.MutatedRequest, MutatedText: r.MutatedText,
		ContinueWork: r.ContinueWork}
}

// Denied reports whether the result is a deny.
func (r *Result) Denied() bool { return r.Decision == events.Deny }

// An Outcome is how one hook's execution ended.
type Outcome string

// The outcomes of a hook execution.
const (
	OutcomeOK      Outcome = "ok"
	OutcomeError   Outcome = "error"
	OutcomeTimeout Outcome = "timeout"
)

// Record reports one executed hook. It holds what the hook decided and why,
// never the payloads it saw or returned.
type Record struct {
	Event events.Event `json:"event"`
	// SessionID is the session of the dispatch (the input's sessionId).
	SessionID string `json:"sessionId,omitempty"`
	Tier      Tier   `json:"tier"`
	// Kind is "go", "lua" or "command"; "config" for the record of a
	// policy file that failed to load (see [WithDegradedStart]), "engine"
	// for a rule of the engine itself (Tier TierEngine).
	Kind string `json:"kind"`
	// Hook is the hook's identity: "go:<name>"; for a Lua hook
	// "lua:<script>#<name>" (hook{ name = ... }) or "lua:<script>#<n>",
	// the n-th hook of its script, where <script> is the script's path
	// relative to the configuration file that names it (to Files.Root for
	// Files.Lua), "stdlib:<pack>" or "fs:<path>"; the command line of a
	// command hook; "unguardedTool" for the engine's record of a tool that
	// no guard knows (see [WithUnguardedTools]).
	Hook string `json:"hook"`
	// Source is where the hook is defined: the file:line:col of a command
	// hook, the script:line of a Lua hook{} call ("stdlib:<pack>" for a
	// stdlib pack, whose script is embedded).
	Source string `json:"source,omitempty"`
	// RegisteredBy is what configured the hook: the file:line:col of a
	// command hook or of the atoms entry that loaded a Lua script or stdlib
	// pack, the path given to Files.Lua, "stdlib NAME" for a pack of
	// Files.Stdlib or WithStdlib, "WithHook #N" for a Go hook.
	RegisteredBy string `json:"registeredBy,omitempty"`
	// ToolCallID is the input's toolCallId, which ties together the records
	// of one tool call's BeforeTool, ApprovalRequest and AfterTool.
	ToolCallID string `json:"toolCallId,omitempty"`

	Outcome Outcome `json:"outcome"`
	// Decision and Reason are what the hook returned, even when the event
	// does not honour the decision.
	Decision events.Decision `json:"decision,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	// Rule is the id of the rule the reason names, for a decision whose
	// reason follows the stdlib's form "<pack> [<rule>]: ...":
	// "<family>:<rule>" for the rule files (iac:terraform-destroy),
	// "<pack>:<rule>" for the packs written in Lua
	// (deny-destructive:delete-critical); empty otherwise.
	Rule string `json:"rule,omitempty"`
	// Fields are the Output fields the hook returned; Ignored those of them
	// (and "decision") that the event did not honour, or that the engine
	// refused (an unvouched modelOverride, or one longer than
	// events.MaxModelSize; a capped continueWork).
	Fields  []string `json:"fields,omitempty"`
	Ignored []string `json:"ignored,omitempty"`
	// Truncated are the fields of the hook's output that the engine cut
	// to their bounds, each then ending in a marker that says so
	// (events.CutText): "reason" and "continueWork" (a reason over
	// events.MaxReasonSize), "additionalContext" (over
	// events.MaxContextSize, or the dispatch's contexts joined reached
	// that bound at this hook). The decision stands: a deny whose reason
	// was cut is a deny.
	Truncated []string `json:"truncated,omitempty"`
	// FailedClosed is true when the hook failed and onError: deny turned the
	// failure into the dispatch's deny, or withheld the payload it could
	// rewrite (at events that cannot deny).
	FailedClosed bool `json:"failedClosed,omitempty"`
	// Capped is true when the hook's continueWork was dropped because the
	// session reached maxStopContinues.
	Capped bool `json:"capped,omitempty"`
	// Unvouched is true when the hook's modelOverride was dropped because
	// the host did not vouch for the model.
	Unvouched bool `json:"unvouched,omitempty"`

	LatencyMs float64 `json:"latencyMs"`
	Error     string  `json:"error,omitempty"`
	// Logs are messages the hook logged (Lua hooks), bounded (20 lines of
	// at most 1 KiB): "level script:line: message", then the fields of
	// log.info(msg, fields) as one JSON object.
	Logs []string `json:"logs,omitempty"`
}

// A Recorder receives one Record for every hook the engine executes (the audit
// seam). Record is called on the dispatching goroutine, in plan order, after
// the hook ran; it may be called from several dispatches at once, so it must
// be safe for concurrent use, and it should not block. It cannot change the
// outcome of a dispatch.
type Recorder interface {
	Record(ctx context.Context, r Record)
}

// A DispatchRecorder is a [Recorder] that also sees each dispatch that runs
// hooks as a whole, as net/http/httptrace sees a request: a tracer's span
// per dispatch, with the hooks' records inside it. StartDispatch is called
// before the first hook runs and returns the context the hooks, Record and
// EndDispatch get (the Record of each hook comes in plan order, after the
// hook ran); EndDispatch gets the Result. A dispatch that runs nothing (the
// fast path, or an invalid input) calls neither. The methods are called on
// the dispatching goroutine, from several dispatches at once: they must be
// safe for concurrent use and should not block; they cannot change the
// outcome of a dispatch.
type DispatchRecorder interface {
	Recorder
	StartDispatch(ctx context.Context, d DispatchInfo) context.Context
	EndDispatch(ctx context.Context, res Result)
}

// DispatchInfo describes a dispatch to a [DispatchRecorder]: its event and
// the identifiers of the input, never its payloads.
type DispatchInfo struct {
	Event      events.Event
	SessionID  string
	ToolName   string
	ToolCallID string
}

// MultiRecorder returns a Recorder that passes every call to each of rs, in
// order (EndDispatch in reverse order); nil entries are skipped.
// StartDispatch threads the context through those of rs that are
// DispatchRecorders. It is safe for concurrent use when each of rs is.
func MultiRecorder(rs ...Recorder) DispatchRecorder {
	var m multiRecorder
	for _, r := range rs {
		if r != nil {
			m = append(m, r)
		}
	}
	return m
}

type multiRecorder []Recorder

func (m multiRecorder) Record(ctx context.Context, r Record) {
	for _, x := range m {
		x.Record(ctx, r)
	}
}

func (m multiRecorder) StartDispatch(ctx context.Context, d DispatchInfo) context.Context {
	for _, x := range m {
		if dr, ok := x.(DispatchRecorder); ok {
			ctx = dr.StartDispatch(ctx, d)
		}
	}
	return ctx
}

func (m multiRecorder) EndDispatch(ctx context.Context, res Result) {
	for i := len(m) - 1; i >= 0; i-- {
		if dr, ok := m[i].(DispatchRecorder); ok {
			dr.EndDispatch(ctx, res)
		}
	}
}

// RecorderFunc adapts a function to a [Recorder].
type RecorderFunc func(ctx context.Context, r Record)

// Record calls f(ctx, r).
func (f RecorderFunc) Record(ctx context.Context, r Record) { f(ctx, r) }
