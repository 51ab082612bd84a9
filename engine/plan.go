package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/tools"
)

// Stable configuration error codes of the engine itself. Errors from
// configuration files carry the codes of package config.
const (
	CodeUnknownEvent   = "unknown_event"
	CodeMissingHandler = "missing_handler"
	CodeBadMatcher     = "bad_matcher"
	CodeBadAtom        = "bad_atom"
	CodeLuaLoad        = "lua_load"
	CodeRead           = "read_error"
	// CodeBadKind: a hook's tool kinds are unknown, or given at an event
	// that is not tool-scoped.
	CodeBadKind = "bad_kind"
	// CodeBadTool: a tool declaration is invalid (no name, an unknown kind,
	// a malformed location), or a user file redeclares a tool that is
	// already known.
	CodeBadTool = "bad_tool"
	// CodeBadOption: an option's value is invalid.
	CodeBadOption = "bad_option"
	// CodeUnmetNeed: a stdlib pack needs what the host did not give
	// (Files.Home for home-directory rules, Files.Root for the project
	// root), and would run weakened.
	CodeUnmetNeed = "unmet_need"
)

// ConfigError is one problem in a configuration. Code is stable and machine
// readable; Source says where (file:line:col when known).
type ConfigError struct {
	Code   string
	Source string
	Msg    string
}

func (e *ConfigError) Error() string {
	if e.Source == "" {
		return e.Code + ": " + e.Msg
	}
	return e.Source + ": " + e.Code + ": " + e.Msg
}

// ConfigErrors lists every problem found in a configuration, in the order
// found. It is returned by [New] and [Engine.Reload] as an error.
type ConfigErrors []*ConfigError

func (es ConfigErrors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// compile orders the hooks by tier (stable within a tier), drops command hooks
// whose identity already runs at the event (the first occurrence keeps its
// place), compiles matchers, and indexes the result by event. tab is the
// tool table that kinds are matched against.
func compile(specs []hookSpec, tab *tools.Table) (*generation, ConfigErrors) {
	g := &generation{}
	var errs ConfigErrors
	type key struct {
		ev    events.Event
		dedup string
	}
	seen := map[key]*hook{}
	for _, tier := range []Tier{TierAtom, TierPolicy, TierUser} {
		for i := range specs {
			s := &specs[i]
			if s.tier != tier {
				continue
			}
			if !s.event.Valid() {
				errs = append(errs, &ConfigError{Code: CodeUnknownEvent, Source: s.source, Msg: fmt.Sprintf("hook %s: invalid event %v", s.id, s.event)})
				continue
			}
			re, err := compileMatcher(s.matcher)
			if err != nil {
				errs = append(errs, &ConfigError{Code: CodeBadMatcher, Source: s.source, Msg: fmt.Sprintf("hook %s: %v", s.id, err)})
				continue
			}
			if err := checkKinds(s.event, s.kinds); err != nil {
				errs = append(errs, &ConfigError{Code: CodeBadKind, Source: s.source, Msg: fmt.Sprintf("hook %s: %v", s.id, err)})
				continue
			}
			h := &hook{hookSpec: *s, re: re, tools: tab}
			if s.dedup != "" {
				k := key{s.event, s.dedup}
				if kept := seen[k]; kept != nil {
					g.dropped = append(g.dropped, dropped{hook: h, keptBy: kept})
					continue
				}
				seen[k] = h
			}
			g.byEvent[s.event] = append(g.byEvent[s.event], h)
		}
	}
	return g, errs
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
	// DuplicateOf is set for a command hook that dedup dropped: it does not
	// run, because the identical command spec it names ("tier source")
	// already runs at this event.
	DuplicateOf string `json:"duplicateOf,omitempty"`
}

func planned(h *hook) PlannedHook {
	t := h.timeout
	if t == 0 {
		t = h.shownTimeout
	}
	return PlannedHook{Event: h.event, Tier: h.tier, Kind: h.kind, ID: h.id, Source: h.source, Matcher: h.matcher, Kinds: h.kinds, TimeoutMs: t.Milliseconds(), OnError: h.onError.String()}
}

// Plan returns every hook of the current plan, event by event in firing
// order, each event's hooks in dispatch order, followed by the duplicate
// command specs that dedup dropped at that event (DuplicateOf set). It
// reloads first if the configuration changed. The caller owns the slice.
func (e *Engine) Plan(ctx context.Context) []PlannedHook {
	g := e.current(ctx)
	var out []PlannedHook
	for _, ev := range events.All() {
		for _, h := range g.byEvent[ev] {
			out = append(out, planned(h))
		}
		for _, d := range g.dropped {
			if d.hook.event == ev {
				p := planned(d.hook)
				p.DuplicateOf = d.keptBy.tier.String() + " " + d.keptBy.source
				out = append(out, p)
			}
		}
	}
	return out
}

// dropped is a command hook that dedup removed from the plan, and the hook
// that runs in its place.
type dropped struct {
	hook, keptBy *hook
}

// Explanation says whether one hook of an event would run for an input, and
// why not when it would not.
type Explanation struct {
	PlannedHook
	Matched bool   `json:"matched"`
	Why     string `json:"why"`
}

// Explain returns, for each hook of in.Event in dispatch order, whether it
// would run for in and why, without running any hook. It reloads first if
// the configuration changed.
func (e *Engine) Explain(ctx context.Context, in events.Input) []Explanation {
	g := e.current(ctx)
	if !in.Event.Valid() {
		return nil
	}
	spec := in.Event.Spec()
	var out []Explanation
	for _, h := range g.byEvent[in.Event] {
		x := Explanation{PlannedHook: planned(h), Matched: h.matches(spec, in.ToolName)}
		kind := g.tools.Kind(in.ToolName)
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
		out = append(out, x)
	}
	return out
}
