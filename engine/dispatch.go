package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
)

// Dispatch runs the hooks that match in and returns their combined Result.
//
// Before it runs anything, Dispatch makes sure the plan is current: when the
// configuration changed since the last dispatch it is reloaded (a broken new
// configuration keeps the last good one in force and sets
// Result.ConfigError). With no matching hook it returns at once, runs and
// allocates nothing.
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
//   - (Result{}, err): nothing ran: err wraps [ErrInvalidInput] (in fails
//     [events.Input.Validate]) or is [ErrClosed].
//
// Dispatch does not modify in or anything it references.
func (e *Engine) Dispatch(ctx context.Context, in events.Input) (Result, error) {
	if e.closed.Load() {
		return Result{}, ErrClosed
	}
	if !in.Event.Valid() {
		return Result{}, fmt.Errorf("%w: field event: missing or unknown event %d", ErrInvalidInput, uint8(in.Event))
	}
	g := e.current(ctx)
	hooks := g.match(in.Event, in.ToolName)
	if len(hooks) == 0 && !sessionEvent(in.Event) {
		// The fast path: nothing to run, nothing allocated.
		res := Result{Event: in.Event}
		if p := e.cfgErr.Load(); p != nil {
			res.ConfigError = *p
		}
		return res, nil
	}
	return e.dispatch(ctx, hooks, in), nil
}

func sessionEvent(ev events.Event) bool {
	switch ev {
	case events.SessionStart, events.BeforeTurn, events.AfterTurn, events.SessionEnd:
		return true
	}
	return false
}

// dispatch is the slow path of Dispatch: hooks are the hooks that match, in
// plan order; in is its own copy, which serial events rewrite as they chain.
func (e *Engine) dispatch(ctx context.Context, hooks []*hook, in events.Input) Result {
	spec := in.Event.Spec()
	res := Result{Event: in.Event}
	if p := e.cfgErr.Load(); p != nil {
		res.ConfigError = *p
	}
	c := &call{in: in}
	if in.Event == events.AfterTurn {
		c.in.StopContinues = e.sessions.get(in.SessionID).StopContinues
	}
	if len(hooks) > 0 {
		res.Audit = make([]Record, 0, len(hooks))
		if spec.Parallel {
			e.fanOut(ctx, spec, hooks, c, &res)
		} else {
			e.chain(ctx, spec, hooks, c, &res)
		}
	}
	e.sessionRules(spec, &c.in, &res)
	return res
}

// sessionRules applies the per-session rules after the hooks ran: the
// SessionStart stash, its injection into the first BeforeTurn, the
// maxStopContinues bound and the SessionEnd cleanup.
func (e *Engine) sessionRules(spec events.Spec, in *events.Input, res *Result) {
	switch in.Event {
	case events.SessionStart:
		if res.AdditionalContext != "" {
			ctx := res.AdditionalContext
			res.AdditionalContext = ""
			e.sessions.update(in.SessionID, func(s *SessionState) { s.Context = joinContext(s.Context, ctx) })
		}
	case events.BeforeTurn:
		if res.Decision == events.Deny {
			return // the stash waits for the first turn that runs
		}
		if st := e.sessions.get(in.SessionID); st.Context != "" {
			res.AdditionalContext = joinContext(st.Context, res.AdditionalContext)
			e.sessions.update(in.SessionID, func(s *SessionState) { s.Context = "" })
		}
	case events.AfterTurn:
		if res.ContinueWork == nil {
			if in.StopContinues != 0 {
				e.sessions.update(in.SessionID, func(s *SessionState) { s.StopContinues = 0 })
			}
			return
		}
		if in.StopContinues >= e.opts.maxStopContinues {
			res.ContinueWork = nil
			for i := len(res.Audit) - 1; i >= 0; i-- {
				if r := &res.Audit[i]; hasField(r.Fields, "continueWork") && !hasField(r.Ignored, "continueWork") {
					r.Capped = true
					r.Ignored = append(r.Ignored, "continueWork")
					break
				}
			}
			e.sessions.update(in.SessionID, func(s *SessionState) { s.StopContinues = 0 })
			return
		}
		e.sessions.update(in.SessionID, func(s *SessionState) { s.StopContinues = in.StopContinues + 1 })
	case events.SessionEnd:
		e.sessions.drop(in.SessionID)
	}
}

func hasField(fs []string, f string) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

func joinContext(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}

// chain runs the hooks of a serial event in plan order.
func (e *Engine) chain(ctx context.Context, spec events.Spec, hooks []*hook, c *call, res *Result) {
	for _, h := range hooks {
		out, rec := e.runHook(ctx, h, c)
		stop := e.fold(spec, h, out, &rec, c, res)
		res.Audit = append(res.Audit, rec)
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
// their outputs in plan order.
func (e *Engine) fanOut(ctx context.Context, spec events.Spec, hooks []*hook, c *call, res *Result) {
	type slot struct {
		out events.Output
		rec Record
	}
	slots := make([]slot, len(hooks))
	for _, h := range hooks {
		if h.kind == "command" {
			c.inputJSON() // once, before the goroutines share it
			break
		}
	}
	sem := make(chan struct{}, e.opts.maxParallel)
	var wg sync.WaitGroup
	for i, h := range hooks {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			slots[i].out, slots[i].rec = e.runHook(ctx, h, c)
		})
	}
	wg.Wait()
	for i := range slots {
		s := &slots[i]
		e.fold(spec, hooks[i], s.out, &s.rec, c, res)
		res.Audit = append(res.Audit, s.rec)
		e.record(ctx, s.rec)
	}
}

func (e *Engine) record(ctx context.Context, r Record) {
	if e.opts.recorder != nil {
		e.opts.recorder.Record(ctx, r)
	}
}

// fold merges one hook's outcome into the result and, for serial events, the
// chained input. It reports whether the chain stops (a deny).
func (e *Engine) fold(spec events.Spec, h *hook, out events.Output, rec *Record, c *call, res *Result) (stop bool) {
	cur := &c.in
	if rec.Outcome != OutcomeOK {
		if h.onError == OnErrorDeny && spec.Decisions.Has(events.Deny) {
			rec.FailedClosed = true
			res.Decision = events.Deny
			res.Reason = fmt.Sprintf("hook %s failed and fails closed (onError: deny): %s", h.id, rec.Error)
			return true
		}
		return false
	}
	kept, dropped, decisionDropped := spec.Filter(out)
	if decisionDropped && out.Decision != events.Proceed {
		rec.Ignored = append(rec.Ignored, "decision")
	}
	rec.Ignored = append(rec.Ignored, dropped.Names()...)
	if kept.Decision.Rank() > res.Decision.Rank() {
		res.Decision = kept.Decision
		res.Reason = kept.Reason
		if res.Decision == events.Deny && res.Reason == "" {
			res.Reason = "denied by hook " + h.id
		}
	}
	if kept.AdditionalContext != "" {
		res.AdditionalContext = joinContext(res.AdditionalContext, kept.AdditionalContext)
	}
	if kept.Present()&chaining != 0 {
		c.changed()
	}
	if kept.MutatedPrompt != nil {
		res.MutatedPrompt = kept.MutatedPrompt
		cur.Prompt = *kept.MutatedPrompt
	}
	if kept.ModelOverride != "" {
		if e.opts.vouch != nil && e.opts.vouch(kept.ModelOverride) {
			res.ModelOverride = kept.ModelOverride
		} else {
			rec.Unvouched = true
			rec.Ignored = append(rec.Ignored, "modelOverride")
		}
	}
	if kept.MutatedToolInput != nil {
		res.MutatedToolInput = kept.MutatedToolInput
		cur.ToolInput = kept.MutatedToolInput
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
		if spec.Event == events.AfterSubagent {
			cur.SubagentResult = *kept.MutatedText
		} else {
			cur.Response = *kept.MutatedText
		}
	}
	if kept.ContinueWork != nil {
		res.ContinueWork = kept.ContinueWork
	}
	return kept.Decision == events.Deny
}

// runHook runs one hook with its timeout, recovering a panic, and validates
// what it returned. The Record is complete but for what fold adds.
func (e *Engine) runHook(ctx context.Context, h *hook, c *call) (out events.Output, rec Record) {
	rec = Record{Event: h.event, Tier: h.tier, Kind: h.kind, Hook: h.id, Source: h.source}
	hctx := ctx
	if h.timeout > 0 {
		var cancel context.CancelFunc
		hctx, cancel = context.WithTimeout(ctx, h.timeout)
		defer cancel()
	}
	start := e.opts.now()
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("hook panicked: %v\n%s", p, firstLines(debug.Stack(), 12))
			}
		}()
		out, rec.Logs, err = h.run(hctx, c)
		return err
	}()
	rec.LatencyMs = float64(e.opts.now().Sub(start)) / float64(time.Millisecond)
	if err == nil && hctx.Err() != nil {
		// A hook that returns after its deadline is not trusted.
		err = fmt.Errorf("hook returned after its context ended: %w", context.Cause(hctx))
	}
	if err == nil {
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
		return out, rec
	}
	rec.Outcome = OutcomeOK
	rec.Decision = out.Decision
	rec.Reason = truncate(out.Reason, 2048)
	rec.Fields = fieldNames(out.Present())
	return out, rec
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

// fieldNameSets holds the JSON names of every set of Output fields, computed
// once, so that a Record's Fields cost no allocation. It is never modified.
var fieldNameSets = func() (t [1 << 8][]string) {
	for f := range t {
		if names := events.Field(f).Names(); len(names) > 0 {
			t[f] = names[:len(names):len(names)]
		}
	}
	return t
}()

// fieldNames returns the shared, read-only names of the fields in f.
func fieldNames(f events.Field) []string {
	if int(f) < len(fieldNameSets) {
		return fieldNameSets[f]
	}
	return f.Names()
}

// chaining are the Output fields that rewrite the input of later hooks.
const chaining = events.FieldMutatedPrompt | events.FieldMutatedToolInput | events.FieldUpdatedToolOutput |
	events.FieldMutatedRequest | events.FieldMutatedText
