package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/tools"
)

// compile orders the hooks by tier (stable within a tier), compiles their
// matchers, links each command hook to the earlier identical ones of its
// event (dedup happens per dispatch, among the hooks that match: see
// generation.match) and indexes the result by event. tab is the tool table
// that kinds are matched against.
func compile(specs []hookSpec, tab *tools.Table) (*generation, ConfigErrors) {
	g := &generation{}
	var errs ConfigErrors
	type key struct {
		ev    events.Event
		dedup string
	}
	earlier := map[key][]*hook{} // the command hooks of each spec, in plan order
	for _, tier := range []Tier{TierAtom, TierPolicy, TierUser} {
		for i := range specs {
			s := &specs[i]
			if s.tier != tier {
				continue
			}
			if !s.event.Valid() {
				errs = append(errs, &ConfigError{Code: CodeUnknownEvent, File: s.pos.File, Line: s.pos.Line, Col: s.pos.Col, Msg: fmt.Sprintf("hook %s: invalid event %v", s.id, s.event)})
				continue
			}
			re, err := compileMatcher(s.matcher)
			if err != nil {
				errs = append(errs, &ConfigError{Code: CodeBadMatcher, File: s.pos.File, Line: s.pos.Line, Col: s.pos.Col, Msg: fmt.Sprintf("hook %s: %v", s.id, err)})
				continue
			}
			if err := checkKinds(s.event, s.kinds); err != nil {
				errs = append(errs, &ConfigError{Code: CodeBadKind, File: s.pos.File, Line: s.pos.Line, Col: s.pos.Col, Msg: fmt.Sprintf("hook %s: %v", s.id, err)})
				continue
			}
			h := &hook{hookSpec: *s, re: re, tools: tab}
			if s.dedup != "" {
				k := key{s.event, s.dedup}
				if prev := earlier[k]; len(prev) > 0 {
					f := prev[0]
					if f.group == 0 {
						g.groups[s.event]++
						f.group = g.groups[s.event]
					}
					h.group, h.dupOf = f.group, f
					h.neverRuns = !toolScoped[s.event]
					for _, p := range prev {
						h.neverRuns = h.neverRuns || p.covers(h)
					}
				}
				earlier[k] = append(earlier[k], h)
			}
			g.byEvent[s.event] = append(g.byEvent[s.event], h)
		}
	}
	for ev, hs := range g.byEvent {
		// At events that are not tool-scoped every hook matches: the hooks
		// that run are known now.
		if !toolScoped[ev] {
			g.always[ev] = dedup(hs, g.groups[ev])
		}
	}
	return g, errs
}

// covers reports whether h matches every tool that o matches: its matcher
// matches every tool or is o's, and it has no kinds or every kind of o.
func (h *hook) covers(o *hook) bool {
	if h.re != nil && h.matcher != o.matcher {
		return false
	}
	if len(h.kinds) == 0 {
		return true
	}
	if len(o.kinds) == 0 {
		return false
	}
	for _, k := range o.kinds {
		if !slices.Contains(h.kinds, k) {
			return false
		}
	}
	return true
}

// dedup returns hooks without the command hooks whose identical command spec
// came earlier in hooks: identical specs run once, in the place of the first.
// groups is the number of dedup groups of the event; hooks is returned as is
// when it has no duplicate.
func dedup(hooks []*hook, groups int) []*hook {
	if groups == 0 {
		return hooks
	}
	seen := make([]bool, groups+1)
	out := make([]*hook, 0, len(hooks))
	for _, h := range hooks {
		if h.group != 0 {
			if seen[h.group] {
				continue
			}
			seen[h.group] = true
		}
		out = append(out, h)
	}
	if len(out) == len(hooks) {
		return hooks
	}
	return out
}

// sortSpecsStable orders specs by tier, then event, keeping the file order
// within each.
func sortSpecsStable(specs []hookSpec) {
	slices.SortStableFunc(specs, func(a, b hookSpec) int {
		if a.tier != b.tier {
			return int(a.tier) - int(b.tier)
		}
		return int(a.event) - int(b.event)
	})
}

// PlannedHook describes one hook of the current plan.
type PlannedHook struct {
	Event  events.Event `json:"event"`
	Tier   Tier         `json:"tier"`
	Kind   string       `json:"kind"`
	ID     string       `json:"hook"`
	Source string       `json:"source,omitempty"`
	// RegisteredBy is what configured the hook (see Record.RegisteredBy).
	RegisteredBy string `json:"registeredBy,omitempty"`
	// Matcher is the tool-name matcher as configured ("" matches all).
	Matcher string `json:"matcher,omitempty"`
	// Kinds are the tool kinds the hook is restricted to (none: every
	// tool the matcher matches).
	Kinds []events.ToolKind `json:"kinds,omitempty"`
	// TimeoutMs is the hook's timeout; 0 means none beyond the dispatch
	// context.
	TimeoutMs int64 `json:"timeoutMs,omitempty"`
	// OnError is "skip" or "deny".
	OnError string `json:"onError"`
	// Persistent is set for a command hook that runs as one resident
	// process ("persistent": true).
	Persistent bool `json:"persistent,omitempty"`
	// DuplicateOf is set for a command hook whose command spec (command,
	// timeout and onError) an earlier hook of the event already has: it
	// names the first such hook ("tier source"). Identical specs run once
	// per dispatch, in the place of the first of them whose matcher
	// matched; so this hook does not run for a tool that an earlier
	// identical hook matches too.
	DuplicateOf string `json:"duplicateOf,omitempty"`
	// Dropped is set when the hook never runs: an earlier identical hook
	// matches every tool it matches (at events that are not tool-scoped,
	// every duplicate).
	Dropped bool `json:"dropped,omitempty"`
}

func planned(h *hook) PlannedHook {
	t := h.timeout
	if t == 0 {
		t = h.shownTimeout
	}
	p := PlannedHook{Event: h.event, Tier: h.tier, Kind: h.kind, ID: h.id, Source: h.source, RegisteredBy: h.registeredBy,
		Matcher: h.matcher, Kinds: h.kinds, TimeoutMs: t.Milliseconds(), OnError: h.onError.String(), Persistent: h.resident != ""}
	if h.dupOf != nil {
		p.DuplicateOf = h.dupOf.tier.String() + " " + h.dupOf.source
		p.Dropped = h.neverRuns
	}
	return p
}

// Plan returns every hook of the current plan, event by event in firing
// order, each event's hooks in plan order; duplicate command specs are in
// their place, with DuplicateOf set. When the configuration files changed it
// first waits for them to load, as [Engine.Reload] does (bounded by ctx).
// The caller owns the slice.
func (e *Engine) Plan(ctx context.Context) []PlannedHook {
	e.sync(ctx)
	g := e.gen.Load()
	var out []PlannedHook
	for _, ev := range events.All() {
		for _, h := range g.byEvent[ev] {
			out = append(out, planned(h))
		}
	}
	return out
}

// Explanation says whether one hook of an event would run for an input, and
// why not when it would not.
type Explanation struct {
	PlannedHook
	// Matched: the hook's matcher and kinds match the input's tool (always
	// true at events that are not tool-scoped).
	Matched bool `json:"matched"`
	// Runs: the hook would run; false for a hook that did not match, and
	// for a duplicate command spec whose identical hook runs in its place.
	Runs bool   `json:"runs"`
	Why  string `json:"why"`
}

// Explain returns, for each hook of in.Event in plan order, whether it would
// run for in and why, exactly as Dispatch would decide, without running any
// hook. When the configuration files changed it first waits for them to
// load, as [Engine.Reload] does (bounded by ctx).
func (e *Engine) Explain(ctx context.Context, in events.Input) []Explanation {
	e.sync(ctx)
	g := e.gen.Load()
	if !in.Event.Valid() {
		return nil
	}
	spec := in.Event.Spec()
	runs := g.match(in.Event, in.ToolName)
	kind := g.tools.Kind(in.ToolName)
	var out []Explanation
	for _, h := range g.byEvent[in.Event] {
		x := Explanation{PlannedHook: planned(h), Matched: h.matches(spec, in.ToolName), Runs: slices.Contains(runs, h)}
		switch {
		case !spec.Matcher:
			x.Why = in.Event.String() + " is not tool-scoped: every hook matches"
		case len(h.kinds) > 0 && !slices.Contains(h.kinds, kind):
			x.Why = fmt.Sprintf("the hook is for tools of kind %s; tool %q is %s", kindList(h.kinds), in.ToolName, kindPhrase(kind))
		case h.re == nil && len(h.kinds) > 0:
			x.Why = fmt.Sprintf("tool %q is of kind %s", in.ToolName, kind)
		case h.re == nil:
			x.Why = "the matcher matches every tool"
		case x.Matched:
			x.Why = fmt.Sprintf("matcher %q matches tool %q", h.matcher, in.ToolName)
		default:
			x.Why = fmt.Sprintf("matcher %q does not match tool %q", h.matcher, in.ToolName)
		}
		if x.Matched && !x.Runs {
			for _, r := range runs {
				if r.group == h.group {
					x.Why += fmt.Sprintf(", but the identical command spec of %s %s runs in its place (identical specs run once per event)", r.tier, r.source)
					break
				}
			}
		}
		out = append(out, x)
	}
	return out
}
