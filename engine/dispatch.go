package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
)

// Dispatch runs the hooks that match in and returns their combined Result.
//
// Dispatch runs against the plan in force when it starts. When it notices
// that the configuration files changed, it starts a load of them in the
// background and does not wait for it: the new plan serves the dispatches
// that start after it is swapped in (see [Engine.Reload] to wait). While the
// files on disk fail to load, the last good plan stays in force and
// Result.ConfigError says why. With no matching hook (and, at a tool-scoped
// event, a tool the tool table knows) Dispatch returns at once, runs and
// allocates nothing. A tool the table does not know is flagged in the
// Result and its audit (see [WithUnguardedTools]).
//
// Serial events chain: each hook sees the input as rewritten by the hooks
// before it, and the first deny stops the chain. Parallel events fan out
// (at most [WithMaxParallel] at once) and merge in plan order. A hook's
// failure (error, panic, timeout, invalid output) is skipped, or becomes a
// deny with onError: deny at events that can deny.
//
// The outcomes are:
//   - (Result, nil): the dispatch ran; every decision, rewrite and hook
//     failure is in the Result and its Audit.
//   - (Result{}, err): nothing ran: err is [ErrClosed], or wraps
//     [ErrInvalidInput]: in's event is missing or unknown, or not one the
//     engine serves ([WithEvents]), or, when a hook
//     would run or the event touches session state, in fails
//     [events.Input.Validate] (a dispatch that runs nothing checks only
//     the event: no hook reads the rest).
//
// Dispatch does not modify in or anything it references.
func (e *Engine) Dispatch(ctx context.Context, in events.Input) (res Result, err error) {
	// The Result is built in place, in the named result: Input and Result
	// are large values, and their copies were most of the fast path
	// (BenchmarkDispatchFastPath).
	res.Event = in.Event
	if e.closed.Load() {
		return Result{}, ErrClosed
	}
	if !in.Event.Valid() {
		return Result{}, invalidInput(&events.FieldError{Field: "event", Msg: fmt.Sprintf("missing or unknown event %d", uint8(in.Event))})
	}
	if e.opts.someEvents && !e.opts.events[in.Event] {
		return Result{}, invalidInput(&events.FieldError{Field: "event", Msg: fmt.Sprintf("the engine serves other events than %s (WithEvents)", in.Event)})
	}
	g := e.gen.Load()
	if e.src != nil {
		// Start a load in the background if the files changed; this
		// dispatch goes on with the plan in force.
		st := e.state.Load()
		if e.flight.Load() == nil && e.stale(st) {
			e.startLoad()
		}
		res.ConfigError = st.msg
	}
	if g.failClosed != nil && canDeny[in.Event] {
		e.failClosed(ctx, g, &in, &res)
		return res, nil
	}
	hooks := g.match(in.Event, in.ToolName)
	unguarded := toolScoped[in.Event] && !g.toolKnown(in.ToolName, in.ToolInput)
	if len(hooks) == 0 && !sessionEvent(in.Event) && !unguarded {
		// The fast path: nothing to run, nothing allocated, and nothing
		// but the event checked: walking the payloads would be most of
		// its cost (BenchmarkDispatchFastPath).
		return res, nil
	}
	if err := in.Validate(); err != nil {
		return Result{}, invalidInput(err)
	}
	e.dispatch(ctx, g, hooks, unguarded, &in, &res)
	return res, nil
}

// invalidInput is the error of Dispatch for an invalid input, out of line so
// that the fast path does not pay for its frame (BenchmarkDispatchFastPath).
//
//go:noinline
func invalidInput(err error) error {
	return fmt.Errorf("%w: %w", ErrInvalidInput, err)
}

// canDeny[ev] reports whether ev honours a deny.
var canDeny = func() (t [events.Count]bool) {
	for _, s := range events.Specs() {
		t[s.Event] = s.Decisions.Has(events.Deny)
	}
	return t
}()

// A closure is a problem that makes a degraded start fail closed: a policy
// file, or a stdlib pack the host chose, that failed to load.
type closure struct {
	what string // "the operator policy", "the host's stdlib pack protect-paths"
	tier Tier   // TierPolicy, or TierAtom for a pack
	err  *ConfigError
}

// failClosed denies a dispatch because policy files or the host's stdlib
// packs failed to load at a degraded start: no hook runs, and the audit has
// one record, for the guard that could not be applied.
func (e *Engine) failClosed(ctx context.Context, g *generation, in *events.Input, res *Result) {
	if e.dispatchRec != nil {
		ctx = e.startDispatch(ctx, in)
		defer e.endDispatch(ctx, res)
	}
	first := g.failClosed[0]
	res.Decision = events.Deny
	res.Reason = first.what + " failed to load, so this dispatch fails closed: " + first.err.Error()
	if n := len(g.failClosed) - 1; n > 0 {
		res.Reason += fmt.Sprintf(" (and %d more)", n)
	}
	res.Audit = []Record{{
		Event: res.Event, SessionID: in.SessionID, ToolCallID: in.ToolCallID, Tier: first.tier, Kind: "config",
		Hook: first.err.File, Source: first.err.Pos().String(), RegisteredBy: first.err.File,
		Outcome: OutcomeError, FailedClosed: true, Error: truncate(first.err.Error(), 2048),
	}}
	e.record(ctx, &res.Audit[0])
}

// dispatch is the slow path of Dispatch: hooks are the hooks that match, in
// plan order; unguarded says that the tool of a tool-scoped event is not in
// g's tool table; res holds the event and any configuration error. in is
// not modified: serial events chain on a private copy.
func (e *Engine) dispatch(ctx context.Context, g *generation, hooks []*hook, unguarded bool, in *events.Input, res *Result) {
	if e.dispatchRec != nil {
		ctx = e.startDispatch(ctx, in)
		defer e.endDispatch(ctx, res)
	}
	spec := in.Event.Spec()
	var c *call
	switch {
	case len(hooks) == 0 && !unguarded:
		c = &call{in: *in}
	case len(hooks) > 0 && releaseAll(hooks):
		// No hook keeps the call: it comes from a pool, and only the
		// audit is allocated (BenchmarkLuaGuardPeers).
		c = getCall(in)
		defer putCall(c)
		// Lua hooks run one at a time in a chain: the view is computed
		// only if one reads it (BenchmarkLuaGuardPeers).
		c.lazyView = !spec.Parallel
		n := len(hooks)
		if unguarded {
			n++
		}
		res.Audit = make([]Record, 0, n)
	case len(hooks) == 1 && !unguarded:
		// The most common slow path, one matching hook: the call and the
		// audit share one allocation (the Result then keeps the call's
		// copy of the input alive; its JSON encoding is dropped below)
		// (BenchmarkDispatchOneGo, TestOneHookAllocations).
		x := &callOne{c: call{in: *in}}
		c = &x.c
		res.Audit = x.audit[:0]
	default:
		c = &call{in: *in}
		res.Audit = make([]Record, 0, len(hooks)+1)
	}
	// The tool view is the engine's: whatever the host sent is replaced.
	c.tools, c.in.Tool, c.links = g.tools, nil, e.links
	switch {
	case !toolScoped[in.Event]:
	case c.lazyView:
		c.viewPending = !unguarded // an unguarded tool has no view
	default:
		c.setView()
	}
	e.sessions.before(&c.in)
	if unguarded && e.unguarded(ctx, spec, c, res) {
		hooks = nil // denied: no hook runs
	}
	if len(hooks) > 0 {
		if spec.Parallel {
			e.fanOut(ctx, spec, hooks, c, res)
		} else {
			e.chain(ctx, spec, hooks, c, res)
		}
	}
	e.sessions.after(&c.in, res, e.opts.maxStopContinues, e.opts.startContext)
	c.changed() // the Result may keep c: not its encoding of the input
}

// startDispatch tells the DispatchRecorder that a dispatch starts. Only
// identifiers go out: the input does not escape (the fast path allocates
// nothing: BenchmarkDispatchFastPath).
func (e *Engine) startDispatch(ctx context.Context, in *events.Input) context.Context {
	return e.dispatchRec.StartDispatch(ctx, DispatchInfo{Event: in.Event, SessionID: in.SessionID, ToolName: in.ToolName, ToolCallID: in.ToolCallID})
}

// endDispatch gives the DispatchRecorder a copy of the Result.
func (e *Engine) endDispatch(ctx context.Context, res *Result) {
	e.dispatchRec.EndDispatch(ctx, *res)
}

// unguarded records that the tool of a tool-scoped dispatch is in no tool
// table, with the decision of WithUnguardedTools where the event honours
// it, and reports whether that decision is a deny.
func (e *Engine) unguarded(ctx context.Context, spec events.Spec, c *call, res *Result) (denied bool) {
	res.UnguardedTool = true
	res.Audit = append(res.Audit, Record{Event: spec.Event, SessionID: c.in.SessionID, Tier: TierEngine, Kind: "engine", Hook: "unguardedTool",
		ToolCallID: c.in.ToolCallID, Outcome: OutcomeOK, Reason: unguardedReason(c.in.ToolName, c.tools.Kind(c.in.ToolName) != "")})
	rec := &res.Audit[len(res.Audit)-1]
	if d := e.opts.unguarded; d != events.Proceed && spec.Decisions.Has(d) {
		rec.Decision = d
		res.Decision, res.Reason = d, rec.Reason
	}
	e.record(ctx, rec)
	return res.Decision == events.Deny
}

// callOne is the one allocation of a dispatch with one matching hook.
type callOne struct {
	c     call
	audit [1]Record
}

func hasField(fs []string, f string) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

// chain runs the hooks of a serial event in plan order. Each Record is
// built in place, in res.Audit.
func (e *Engine) chain(ctx context.Context, spec events.Spec, hooks []*hook, c *call, res *Result) {
	for _, h := range hooks {
		res.Audit = append(res.Audit, Record{})
		rec := &res.Audit[len(res.Audit)-1]
		out := e.runHook(ctx, h, c, rec)
		stop := e.fold(spec, h, &out, rec, c, res)
		e.record(ctx, rec)
		if stop {
			break
		}
	}
	if res.Decision == events.Deny {
		res.MutatedPrompt, res.ModelOverride, res.MutatedToolInput = nil, "", nil
		res.UpdatedToolOutput, res.MutatedRequest, res.MutatedText, res.ContinueWork = nil, nil, nil, nil
	}
}

// fanOut runs the hooks of a parallel event concurrently, bounded, and merges
// their outputs in plan order. Each Record is built in place, in res.Audit.
// When every hook fits in the bound, the first one runs on the dispatching
// goroutine, which would otherwise only wait (BenchmarkDispatchParallel5).
func (e *Engine) fanOut(ctx context.Context, spec events.Spec, hooks []*hook, c *call, res *Result) {
	for _, h := range hooks {
		if h.kind == "command" {
			c.inputJSON() // once, before the goroutines share it
			break
		}
	}
	res.Audit = res.Audit[:len(hooks)]
	recs := res.Audit // the goroutines must not capture res, or it escapes
	outs := make([]events.Output, len(hooks))
	var wg sync.WaitGroup
	if len(hooks) <= e.opts.maxParallel {
		wg.Add(len(hooks) - 1)
		for i := 1; i < len(hooks); i++ {
			go e.fanHook(ctx, &wg, hooks[i], c, &recs[i], &outs[i])
		}
		outs[0] = e.runHook(ctx, hooks[0], c, &recs[0])
	} else {
		sem := make(chan struct{}, e.opts.maxParallel)
		for i := range hooks {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				outs[i] = e.runHook(ctx, hooks[i], c, &recs[i])
			})
		}
	}
	wg.Wait()
	for i := range hooks {
		e.fold(spec, hooks[i], &outs[i], &res.Audit[i], c, res)
		e.record(ctx, &res.Audit[i])
	}
}

// fanHook runs one hook of a fan-out on its own goroutine (one allocation
// per goroutine, where wg.Go with a closure costs two:
// BenchmarkDispatchParallel5).
func (e *Engine) fanHook(ctx context.Context, wg *sync.WaitGroup, h *hook, c *call, rec *Record, out *events.Output) {
	defer wg.Done()
	*out = e.runHook(ctx, h, c, rec)
}

func (e *Engine) record(ctx context.Context, r *Record) {
	if e.opts.recorder != nil {
		e.opts.recorder.Record(ctx, *r)
	}
}

// fold merges one hook's outcome into the result and, for serial events, the
// chained input. It reports whether the chain stops (a deny).
func (e *Engine) fold(spec events.Spec, h *hook, out *events.Output, rec *Record, c *call, res *Result) (stop bool) {
	if rec.Outcome != OutcomeOK {
		if h.onError != OnErrorDeny {
			return false
		}
		if spec.Decisions.Has(events.Deny) {
			rec.FailedClosed = true
			res.Decision = events.Deny
			res.Reason = fmt.Sprintf("hook %s failed and fails closed (onError: deny): %s", h.id, rec.Error)
			return true
		}
		// An event that cannot deny: withhold the payloads the hook could
		// have rewritten (a broken redactor must not let a secret through).
		if w := spec.Fields & withheldFields; w != 0 {
			rec.FailedClosed = true
			e.rewrite(spec, withheld(w, h.id), c, res)
		}
		return false
	}
	if out.Decision == events.Proceed && out.Present() == 0 {
		// Nothing to fold: most hooks proceed (BenchmarkLuaGuardPeers).
		return false
	}
	kept, dropped, decisionDropped := spec.Filter(*out)
	if decisionDropped && out.Decision != events.Proceed {
		rec.Ignored = append(rec.Ignored, "decision")
	}
	if dropped != 0 {
		// Most outputs drop nothing: walking the field names was 3% of a
		// Lua guard's dispatch (BenchmarkLuaGuardPeers).
		rec.Ignored = append(rec.Ignored, dropped.Names()...)
	}
	rec.Truncated = boundOutput(&kept)
	if kept.Decision.Rank() > res.Decision.Rank() {
		res.Decision = kept.Decision
		res.Reason = kept.Reason
		if res.Decision == events.Deny && res.Reason == "" {
			res.Reason = "denied by hook " + h.id
		}
	}
	if kept.AdditionalContext != "" {
		var cut bool
		res.AdditionalContext, cut = joinContext(res.AdditionalContext, kept.AdditionalContext)
		if cut && !hasField(rec.Truncated, "additionalContext") {
			rec.Truncated = append(rec.Truncated, "additionalContext")
		}
	}
	if kept.ModelOverride != "" {
		if len(kept.ModelOverride) > events.MaxModelSize {
			rec.Ignored = append(rec.Ignored, "modelOverride") // refused whole: a cut name is another model
		} else if e.opts.vouch != nil && e.opts.vouch(kept.ModelOverride) {
			res.ModelOverride = kept.ModelOverride
		} else {
			rec.Unvouched = true
			rec.Ignored = append(rec.Ignored, "modelOverride")
		}
	}
	if kept.ContinueWork != nil {
		res.ContinueWork = kept.ContinueWork
	}
	e.rewrite(spec, &kept, c, res)
	return kept.Decision == events.Deny
}

// withheldFields are the payload rewrites a failing onError: deny hook
// withholds at an event that cannot deny.
const withheldFields = events.FieldMutatedPrompt | events.FieldMutatedToolInput | events.FieldUpdatedToolOutput |
	events.FieldMutatedRequest | events.FieldMutatedText

// withheld returns the Output that replaces the payload fields f by a
// marker naming the failed hook.
func withheld(f events.Field, id string) *events.Output {
	marker := "[withheld: hook " + id + " failed (onError: deny)]"
	var o events.Output
	if f.Has(events.FieldMutatedPrompt) {
		o.MutatedPrompt = &marker
	}
	if f.Has(events.FieldMutatedToolInput) {
		o.MutatedToolInput = marker
	}
	if f.Has(events.FieldUpdatedToolOutput) {
		o.UpdatedToolOutput = marker
	}
	if f.Has(events.FieldMutatedRequest) {
		o.MutatedRequest = marker
	}
	if f.Has(events.FieldMutatedText) {
		o.MutatedText = &marker
	}
	return &o
}

// rewrite applies the payload rewrites of kept (already filtered by the
// event's spec) to the result and, for later hooks, to the chained input.
func (e *Engine) rewrite(spec events.Spec, kept *events.Output, c *call, res *Result) {
	cur := &c.in
	if kept.Present()&chaining != 0 {
		c.changed()
	}
	if kept.MutatedPrompt != nil {
		res.MutatedPrompt = kept.MutatedPrompt
		cur.Prompt = *kept.MutatedPrompt
	}
	if kept.MutatedToolInput != nil {
		res.MutatedToolInput = kept.MutatedToolInput
		cur.ToolInput = kept.MutatedToolInput
		// The next hook sees the view of the rewritten input.
		if c.lazyView {
			c.viewPending = c.viewPending || c.in.Tool != nil // a known tool
			c.in.Tool = nil
		} else {
			c.setView()
		}
	}
	if kept.UpdatedToolOutput != nil {
		res.UpdatedToolOutput = kept.UpdatedToolOutput
		cur.ToolResult = kept.UpdatedToolOutput
	}
	if kept.MutatedRequest != nil {
		res.MutatedRequest = kept.MutatedRequest
		cur.Request = kept.MutatedRequest
	}
	if kept.MutatedText != nil {
		res.MutatedText = kept.MutatedText
		// The event's spec says which input field the text chains into.
		if spec.ChainsInto(events.FieldMutatedText) == "subagentResult" {
			cur.SubagentResult = *kept.MutatedText
		} else {
			cur.Response = *kept.MutatedText
		}
	}
}

// runHook runs one hook with its timeout, recovering a panic, validates what
// it returned and fills *rec (which must be zero), but for what fold adds.
func (e *Engine) runHook(ctx context.Context, h *hook, c *call, rec *Record) (out events.Output) {
	rec.Event, rec.SessionID, rec.Tier, rec.Kind, rec.Hook, rec.Source, rec.RegisteredBy = h.event, c.in.SessionID, h.tier, h.kind, h.id, h.source, h.registeredBy
	rec.ToolCallID = c.in.ToolCallID
	hctx := ctx
	if h.timeout > 0 {
		var cancel context.CancelFunc
		hctx, cancel = context.WithTimeout(ctx, h.timeout)
		defer cancel()
	}
	var err error
	if !e.opts.clockSet {
		// time.Since of a base reads the monotonic clock only, which is
		// cheaper than the two wall-clock reads of time.Now
		// (BenchmarkDispatchOneGo).
		start := time.Since(e.monoBase)
		out, rec.Logs, err = runRecovered(hctx, h, c)
		rec.LatencyMs = float64(time.Since(e.monoBase)-start) / float64(time.Millisecond)
	} else {
		start := e.opts.now()
		out, rec.Logs, err = runRecovered(hctx, h, c)
		rec.LatencyMs = float64(e.opts.now().Sub(start)) / float64(time.Millisecond)
	}
	if err == nil && hctx.Err() != nil {
		// A hook that returns after its deadline is not trusted.
		err = fmt.Errorf("hook returned after its context ended: %w", context.Cause(hctx))
	}
	if err == nil && !h.validated {
		err = out.Validate()
		if err != nil {
			err = fmt.Errorf("invalid output: %w", err)
		}
	}
	if err != nil {
		out = events.Output{}
		rec.Outcome = OutcomeError
		if errors.Is(err, context.DeadlineExceeded) {
			rec.Outcome = OutcomeTimeout
		}
		rec.Error = truncate(err.Error(), 2048)
		return out
	}
	rec.Outcome = OutcomeOK
	rec.Decision = out.Decision
	rec.Reason = truncate(out.Reason, 2048)
	if out.Reason != "" && out.Decision != "" {
		rec.Rule = ruleID(out.Reason)
	}
	rec.Fields = fieldNames(out.Present())
	return out
}

// runRecovered runs h, turning a panic into an error.
func runRecovered(ctx context.Context, h *hook, c *call) (out events.Output, logs []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, logs = events.Output{}, nil
			err = fmt.Errorf("hook panicked: %v\n%s", p, firstLines(debug.Stack(), 12))
		}
	}()
	return h.run(ctx, c)
}

func firstLines(b []byte, n int) string {
	s := string(b)
	for i, c := 0, 0; i < len(s); i++ {
		if s[i] == '\n' {
			c++
			if c == n {
				return s[:i]
			}
		}
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// fieldNameSets holds the JSON names of the sets of Output fields met so
// far, each computed the first time (all 256 at once was a sixtieth of
// monad-hooks run, BenchmarkCLIRun), so that a Record's Fields cost no
// allocation (BenchmarkDispatchOneGo, TestOneHookAllocations). A set, once
// stored, is never modified.
var fieldNameSets [1 << 8]atomic.Pointer[[]string]

// fieldNames returns the shared, read-only names of the fields in f.
func fieldNames(f events.Field) []string {
	if int(f) >= len(fieldNameSets) {
		return f.Names()
	}
	if p := fieldNameSets[f].Load(); p != nil {
		return *p
	}
	names := f.Names()
	if len(names) == 0 {
		names = nil
	}
	names = names[:len(names):len(names)]
	fieldNameSets[f].CompareAndSwap(nil, &names)
	return *fieldNameSets[f].Load()
}

// chaining are the Output fields that rewrite the input of later hooks.
const chaining = events.FieldMutatedPrompt | events.FieldMutatedToolInput | events.FieldUpdatedToolOutput |
	events.FieldMutatedRequest | events.FieldMutatedText
