package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// printPlan prints the plan event by event, each event's hooks in dispatch
// order.
func printPlan(ctx context.Context, w io.Writer, eng *engine.Engine, asJSON bool) error {
	plan := eng.Plan(ctx)
	if asJSON {
		if plan == nil {
			plan = []engine.PlannedHook{}
		}
		return writeJSONLine(w, plan)
	}
	if len(plan) == 0 {
		if _, err := fmt.Fprintln(w, "no hooks: every dispatch returns at once"); err != nil {
			return err
		}
		return printTools(ctx, w, eng)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	var cur events.Event
	n, nEvents, running := 0, 0, 0
	for _, h := range plan {
		if h.Event != cur {
			cur, n = h.Event, 0
			nEvents++
			spec := h.Event.Spec()
			mode := "serial"
			if spec.Parallel {
				mode = "parallel"
			}
			fmt.Fprintf(tw, "%s (%s)\n", h.Event, mode)
		}
		if h.Dropped {
			fmt.Fprintf(tw, "  -\t%s\t%s\t%s\t%s\tdropped: identical to %s, which runs in its place\n", h.Tier, h.Kind, h.ID, where(h), h.DuplicateOf)
			continue
		}
		n++
		running++
		dup := ""
		if h.DuplicateOf != "" {
			dup = "\t(identical to " + h.DuplicateOf + ": runs only for tools that one does not match)"
		}
		fmt.Fprintf(tw, "  %d.\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n", n, h.Tier, h.Kind, h.ID, where(h), matcherText(h), timeoutText(h.TimeoutMs), "onError="+h.OnError, dup)
	}
	fmt.Fprintf(tw, "%d %s at %d %s\n", running, plural(running, "hook", "hooks"), nEvents, plural(nEvents, "event", "events"))
	if err := tw.Flush(); err != nil {
		return err
	}
	return printTools(ctx, w, eng)
}

// printTools lists the tools declared beyond the built-in table and the
// hooks that cover each, event by event.
func printTools(ctx context.Context, w io.Writer, eng *engine.Engine) error {
	declared := eng.Tools(ctx, true)
	all := len(eng.Tools(ctx, false))
	if len(declared) == 0 {
		_, err := fmt.Fprintf(w, "Tools: the built-in table (%d tools of Claude Code, Gemini CLI, Codex, Cursor, OpenCode, Crush and the seed); a tool outside it is unguarded: declare it under \"tools\" in agents.json.\n", all)
		return err
	}
	fmt.Fprintf(w, "Tools declared beyond the built-in table (%d of %d):\n", len(declared), all)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range declared {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", t.Name, t.Kind, t.DeclaredBy, coverage(t))
	}
	return tw.Flush()
}

// where says where a hook is defined and, when that is not the same, what
// registered it: "stdlib/deny-destructive:530 (registered by agents.json:4:11)".
func where(h engine.PlannedHook) string {
	switch {
	case h.RegisteredBy == "" || h.RegisteredBy == h.Source:
		return orDash(h.Source)
	case h.Source == "":
		return "registered by " + h.RegisteredBy
	}
	return h.Source + " (registered by " + h.RegisteredBy + ")"
}

// coverage says which hooks cover a tool, event by event.
func coverage(t engine.ToolInfo) string {
	var parts []string
	for _, ev := range events.All() {
		if ids := t.Hooks[ev]; len(ids) > 0 {
			parts = append(parts, fmt.Sprintf("%s: %s", ev, strings.Join(ids, ", ")))
		}
	}
	if len(parts) == 0 {
		return "no hook covers it"
	}
	return strings.Join(parts, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func matcherText(h engine.PlannedHook) string {
	switch {
	case !h.Event.Spec().Matcher:
		if h.Matcher != "" && h.Matcher != "*" {
			return "matcher=" + strconv.Quote(h.Matcher) + " (ignored: not tool-scoped)"
		}
		return "every call"
	}
	var kinds []string
	for _, k := range h.Kinds {
		kinds = append(kinds, string(k))
	}
	switch {
	case len(kinds) > 0 && (h.Matcher == "" || h.Matcher == "*"):
		return "kind=" + strings.Join(kinds, ",")
	case len(kinds) > 0:
		return "kind=" + strings.Join(kinds, ",") + " matcher=" + strconv.Quote(h.Matcher)
	case h.Matcher == "" || h.Matcher == "*":
		return "every tool"
	}
	return "matcher=" + strconv.Quote(h.Matcher)
}

func timeoutText(ms int64) string {
	if ms == 0 {
		return "no timeout"
	}
	return "timeout=" + (time.Duration(ms) * time.Millisecond).String()
}

// toolLine says what the engine knows of a tool.
func toolLine(ctx context.Context, eng *engine.Engine, name string) string {
	t, ok := eng.Tool(ctx, name)
	switch {
	case !ok:
		return fmt.Sprintf("Tool %q is unguarded: neither declared nor in the built-in table, so no guard knows what it does (declare it under \"tools\" in agents.json).", name)
	case t.DeclaredBy != "":
		return fmt.Sprintf("Tool %q: kind %s, declared by %s.", name, t.Kind, t.DeclaredBy)
	}
	return fmt.Sprintf("Tool %q: kind %s (built in: %s).", name, t.Kind, strings.Join(t.Agents, ", "))
}

// printExplain prints which hooks in would run, in order, and why each of
// the others would not; no hook is run.
func printExplain(ctx context.Context, w io.Writer, eng *engine.Engine, in events.Input, asJSON bool) error {
	xs := eng.Explain(ctx, in)
	rules := eng.ExplainRules(ctx, in)
	var others []engine.PlannedHook
	for _, h := range eng.Plan(ctx) {
		if h.Event != in.Event {
			others = append(others, h)
		}
	}
	if asJSON {
		type otherEvent struct {
			engine.PlannedHook
			Matched bool   `json:"matched"`
			Runs    bool   `json:"runs"`
			Why     string `json:"why"`
		}
		type decided struct {
			engine.Explanation
			Rules *engine.RuleMatch `json:"rules,omitempty"`
		}
		out := make([]any, 0, len(xs)+len(others))
		for _, x := range xs {
			d := decided{Explanation: x}
			for i := range rules {
				if rules[i].Hook == x.ID {
					d.Rules = &rules[i]
				}
			}
			out = append(out, d)
		}
		for _, h := range others {
			out = append(out, otherEvent{h, false, false, "other event: " + h.Event.String()})
		}
		return writeJSONLine(w, out)
	}
	var run, skip []engine.Explanation
	for _, x := range xs {
		if x.Runs {
			run = append(run, x)
		} else {
			skip = append(skip, x)
		}
	}
	what := in.Event.String()
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if in.Event.Spec().Matcher {
		what += fmt.Sprintf(" of tool %q", in.ToolName)
		fmt.Fprintln(tw, toolLine(ctx, eng, in.ToolName))
	}
	switch {
	case len(xs) == 0:
		fmt.Fprintf(tw, "%s: no hook is configured for %s; the dispatch returns at once.\n", what, in.Event)
	case len(run) == 0:
		fmt.Fprintf(tw, "%s: none of the %d %s of %s would run; the dispatch returns at once.\n", what, len(xs), plural(len(xs), "hook", "hooks"), in.Event)
	default:
		fmt.Fprintf(tw, "%s: %d of %d %s would run, in this order", what, len(run), len(xs), plural(len(xs), "hook", "hooks"))
		if in.Event.Spec().Parallel {
			fmt.Fprint(tw, " (in parallel; results merge in this order)")
		} else {
			fmt.Fprint(tw, " (serially; the first deny stops the chain)")
		}
		fmt.Fprintln(tw, ":")
		for i, x := range run {
			fmt.Fprintf(tw, "  %d.\t%s\t%s\t%s\t%s\t%s\n", i+1, x.Tier, x.Kind, x.ID, where(x.PlannedHook), x.Why)
		}
	}
	if len(rules) > 0 {
		fmt.Fprintln(tw, "Rules that decide this input (their hooks ran, sandboxed):")
		for _, m := range rules {
			printRuleMatch(tw, m)
		}
	}
	if len(skip) > 0 {
		fmt.Fprintln(tw, "Would not run:")
		for _, x := range skip {
			fmt.Fprintf(tw, "  -\t%s\t%s\t%s\t%s\t%s\n", x.Tier, x.Kind, x.ID, where(x.PlannedHook), x.Why)
		}
	}
	if len(others) > 0 {
		fmt.Fprintln(tw, "Hooks of other events (they never run for this input):")
		for _, h := range others {
			fmt.Fprintf(tw, "  -\t%s\t%s\t%s\t%s\t%s\n", h.Tier, h.Kind, h.ID, where(h), "other event: "+h.Event.String())
		}
	}
	return tw.Flush()
}

// oneLine keeps tab-aligned output on one line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// printRuleMatch prints the decision of a hook that evaluates rule files,
// the rule that decided, and the rule's own cases.
func printRuleMatch(w io.Writer, m engine.RuleMatch) {
	fmt.Fprintf(w, "  %s\t%s\t%s\n", m.Decision, m.Hook, oneLine(m.Reason))
	if m.Rule == nil {
		return
	}
	fmt.Fprintf(w, "  \trule %s (%s, %s)\n", m.Rule.ID, m.File, m.Rule.Field)
	for _, c := range m.Rule.Match {
		fmt.Fprintf(w, "  \t  catches: %s\n", oneLine(c))
	}
	for _, c := range m.Rule.Pass {
		fmt.Fprintf(w, "  \t  leaves alone: %s\n", oneLine(c))
	}
}
