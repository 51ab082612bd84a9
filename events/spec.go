package events

import "strings"

// A Field names one field of [Output] that an event may honour. Fields form a
// bit set.
type Field uint16

// The Output fields an event can honour. Decision and Reason are not in this
// set: which decisions an event honours is [Spec.Decisions].
const (
	FieldAdditionalContext Field = 1 << iota
	FieldMutatedPrompt
	FieldModelOverride
	FieldMutatedToolInput
	FieldUpdatedToolOutput
	FieldMutatedRequest
	FieldMutatedText
	FieldContinueWork
)

// fieldNames lists every Field with its JSON name, in the order of the
// contract.
var fieldNames = []struct {
	f    Field
	name string
}{
	{FieldAdditionalContext, "additionalContext"},
	{FieldMutatedPrompt, "mutatedPrompt"},
	{FieldModelOverride, "modelOverride"},
	{FieldMutatedToolInput, "mutatedToolInput"},
	{FieldUpdatedToolOutput, "updatedToolOutput"},
	{FieldMutatedRequest, "mutatedRequest"},
	{FieldMutatedText, "mutatedText"},
	{FieldContinueWork, "continueWork"},
}

// Has reports whether every field of g is in f.
func (f Field) Has(g Field) bool { return f&g == g }

// Names returns the JSON names of the fields in f, in contract order.
func (f Field) Names() []string {
	var out []string
	for _, n := range fieldNames {
		if f.Has(n.f) {
			out = append(out, n.name)
		}
	}
	return out
}

// String returns the JSON names of the fields joined by ", ", or "none".
func (f Field) String() string {
	if f == 0 {
		return "none"
	}
	return strings.Join(f.Names(), ", ")
}

// A DecisionSet is a set of decisions an event honours.
type DecisionSet uint8

// The members of a DecisionSet.
const (
	CanAllow DecisionSet = 1 << iota
	CanDeny
	CanAsk
)

// Has reports whether d is honoured by the set. [Proceed] is always honoured.
func (s DecisionSet) Has(d Decision) bool {
	switch d {
	case Proceed:
		return true
	case Allow:
		return s&CanAllow != 0
	case Deny:
		return s&CanDeny != 0
	case Ask:
		return s&CanAsk != 0
	}
	return false
}

// String lists the decisions in the set ("deny, ask, allow"), or "none".
func (s DecisionSet) String() string {
	var parts []string
	for _, d := range []Decision{Deny, Ask, Allow} {
		if s.Has(d) {
			parts = append(parts, string(d))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Spec is what a hook may do at one event: the capability table of the
// contract, one row per event. It is the single source of that table; the
// docs and spec/events.toml are checked against it by tests.
type Spec struct {
	Event Event
	// Parallel is true for events whose hooks fan out concurrently; the
	// others chain serially, each hook seeing the rewrites before it.
	Parallel bool
	// Decisions is the set of decisions honoured at this event. A decision
	// outside it is ignored (and still shown in the audit).
	Decisions DecisionSet
	// Fields is the set of Output fields honoured at this event.
	Fields Field
	// Matcher is true for the tool-scoped events, where a hook's matcher is
	// a regular expression on the tool name. At other events every hook
	// matches.
	Matcher bool
	// Doc says in a few words what the event is for.
	Doc string
}

var specs = [Count]Spec{
	SessionStart: {Event: SessionStart, Parallel: true,
		Fields: FieldAdditionalContext,
		Doc:    "a session is created; context is stashed for its first BeforeTurn"},
	BeforeTurn: {Event: BeforeTurn, Decisions: CanDeny,
		Fields: FieldMutatedPrompt | FieldModelOverride | FieldAdditionalContext,
		Doc:    "before a turn begins; deny aborts the turn"},
	BeforeModel: {Event: BeforeModel, Decisions: CanDeny,
		Fields: FieldMutatedRequest,
		Doc:    "before each reasoning model call; deny aborts the turn via the error path"},
	BeforeTool: {Event: BeforeTool, Decisions: CanDeny | CanAsk | CanAllow,
		Fields: FieldMutatedToolInput | FieldAdditionalContext, Matcher: true,
		Doc: "before a tool runs; deny skips it, ask forces the approval gate"},
	ApprovalRequest: {Event: ApprovalRequest, Decisions: CanDeny | CanAsk | CanAllow,
		Matcher: true,
		Doc:     "a tool reaches the approval gate; deny auto-denies, allow auto-approves, ask defers"},
	AfterTool: {Event: AfterTool, Fields: FieldUpdatedToolOutput, Matcher: true,
		Doc: "after a tool runs, on success and failure"},
	AfterModel: {Event: AfterModel, Fields: FieldMutatedText,
		Doc: "after a successful reasoning response"},
	BeforeCompact: {Event: BeforeCompact, Parallel: true, Fields: FieldAdditionalContext,
		Doc: "before history compaction; context says what to preserve"},
	AfterCompact: {Event: AfterCompact, Parallel: true,
		Doc: "after history compaction; observe only"},
	BeforeSubagent: {Event: BeforeSubagent, Fields: FieldAdditionalContext,
		Doc: "before a forked subagent runs; context goes into the fork"},
	AfterSubagent: {Event: AfterSubagent, Fields: FieldMutatedText,
		Doc: "after a fork finishes, on success and failure"},
	AfterTurn: {Event: AfterTurn, Fields: FieldMutatedText | FieldContinueWork,
		Doc: "a turn ends (completed, aborted or error); continueWork keeps the agent working"},
	SessionEnd: {Event: SessionEnd, Parallel: true,
		Doc: "a session is deleted; observe only"},
}

// Spec returns the capability row of e. For an invalid event it returns the
// zero Spec, which honours nothing.
func (e Event) Spec() Spec {
	if !e.Valid() {
		return Spec{}
	}
	return specs[e]
}

// Specs returns the whole capability table in firing order. The caller owns
// the returned slice.
func Specs() []Spec {
	out := make([]Spec, 0, Count-1)
	for _, e := range All() {
		out = append(out, specs[e])
	}
	return out
}

// ChainsInto returns the name of the Input field that an honoured rewrite
// field chains into at this event ("mutatedText" -> "response" at
// AfterModel), or "" when the field does not chain (additionalContext,
// modelOverride, continueWork).
func (s Spec) ChainsInto(f Field) string {
	switch f {
	case FieldMutatedPrompt:
		return "prompt"
	case FieldMutatedRequest:
		return "request"
	case FieldMutatedToolInput:
		return "toolInput"
	case FieldUpdatedToolOutput:
		return "toolResult"
	case FieldMutatedText:
		if s.Event == AfterSubagent {
			return "subagentResult"
		}
		return "response"
	}
	return ""
}

// Present returns the set of fields that o sets, whether or not any event
// honours them.
func (o *Output) Present() Field {
	var f Field
	if o.AdditionalContext != "" {
		f |= FieldAdditionalContext
	}
	if o.MutatedPrompt != nil {
		f |= FieldMutatedPrompt
	}
	if o.ModelOverride != "" {
		f |= FieldModelOverride
	}
	if o.MutatedToolInput != nil {
		f |= FieldMutatedToolInput
	}
	if o.UpdatedToolOutput != nil {
		f |= FieldUpdatedToolOutput
	}
	if o.MutatedRequest != nil {
		f |= FieldMutatedRequest
	}
	if o.MutatedText != nil {
		f |= FieldMutatedText
	}
	if o.ContinueWork != nil {
		f |= FieldContinueWork
	}
	return f
}

// Filter returns o with the fields and the decision this event does not honour
// cleared, and the set of fields (and whether the decision) it dropped. Reason
// is kept only when a decision is kept.
func (s Spec) Filter(o Output) (kept Output, dropped Field, decisionDropped bool) {
	dropped = o.Present() &^ s.Fields
	kept = o
	if !s.Decisions.Has(o.Decision) {
		kept.Decision = Proceed
		decisionDropped = true
	}
	if kept.Decision == Proceed {
		kept.Reason = ""
	}
	if dropped.Has(FieldAdditionalContext) {
		kept.AdditionalContext = ""
	}
	if dropped.Has(FieldMutatedPrompt) {
		kept.MutatedPrompt = nil
	}
	if dropped.Has(FieldModelOverride) {
		kept.ModelOverride = ""
	}
	if dropped.Has(FieldMutatedToolInput) {
		kept.MutatedToolInput = nil
	}
	if dropped.Has(FieldUpdatedToolOutput) {
		kept.UpdatedToolOutput = nil
	}
	if dropped.Has(FieldMutatedRequest) {
		kept.MutatedRequest = nil
	}
	if dropped.Has(FieldMutatedText) {
		kept.MutatedText = nil
	}
	if dropped.Has(FieldContinueWork) {
		kept.ContinueWork = nil
	}
	return kept, dropped, decisionDropped
}
