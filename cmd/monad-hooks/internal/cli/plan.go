package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// planWidth is the width check's output fits in.
const planWidth = 100

// planView prints a plan for a person: paths relative to the working
// directory, every line within planWidth columns.
type planView struct {
	w   io.Writer
	dir string // the working directory: paths under it are shown relative to it
	all bool   // list the stdlib's hooks too
}

// printPlan prints the plan event by event. The user's own hooks (and the
// operator's, and the host's Go hooks) are listed, each numbered with its
// place in its event's dispatch order; the stdlib's hooks are summed up in
// one line per pack unless all is set, which lists every hook in dispatch
// order. JSON output is the whole plan.
func printPlan(ctx context.Context, w io.Writer, eng *engine.Engine, asJSON, all bool, dir string) error {
	plan := eng.Plan(ctx)
	if asJSON {
		if plan == nil {
			plan = []engine.PlannedHook{}
		}
		return writeJSONLine(w, plan)
	}
	v := &planView{w: w, dir: dir, all: all}
	if len(plan) == 0 {
		v.text("no hooks: every dispatch returns at once")
		return v.tools(ctx, eng)
	}
	if !all {
		fmt.Fprintln(w, "Your hooks, by event, numbered in the order they run:")
	}
	var cur events.Event
	n, shown, hidden, nEvents, running, yours := 0, 0, 0, 0, 0, 0
	packs := map[string][]events.Event{} // the events of each stdlib pack
	var packOrder []string
	flush := func() {
		if hidden > 0 && shown > 0 {
			fmt.Fprintf(w, "  + %d stdlib %s (--all lists %s)\n", hidden, plural(hidden, "hook", "hooks"), plural(hidden, "it", "them"))
		}
	}
	for _, h := range plan {
		if h.Event != cur {
			flush()
			cur, n, shown, hidden = h.Event, 0, 0, 0
			nEvents++
		}
		if !h.Dropped {
			n++
			running++
		}
		if pack, ok := strings.CutPrefix(h.Source, "stdlib:"); ok && h.Kind == "lua" {
			if !slices.Contains(packs[pack], h.Event) {
				if packs[pack] == nil {
					packOrder = append(packOrder, pack)
				}
				packs[pack] = append(packs[pack], h.Event)
			}
			if !all {
				hidden++
				continue
			}
		}
		if shown == 0 {
			mode := "serial"
			if h.Event.Spec().Parallel {
				mode = "parallel"
			}
			fmt.Fprintf(w, "%s (%s)\n", h.Event, mode)
		}
		shown++
		yours++
		v.hook(h, n)
	}
	flush()
	if !all && yours == 0 {
		fmt.Fprintln(w, "  none: only the stdlib's")
	}
	if !all && len(packOrder) > 0 {
		slices.Sort(packOrder)
		fmt.Fprintln(w, "The stdlib packs and their events (--all lists their hooks; monad-hooks stdlib NAME documents one):")
		for _, p := range packOrder {
			var evs []string
			for _, e := range packs[p] {
				evs = append(evs, e.String())
			}
			v.row("  "+p+": ", strings.SplitAfter(strings.Join(evs, ", "), " "), "    ")
		}
	}
	fmt.Fprintf(w, "%d %s at %d %s\n", running, plural(running, "hook", "hooks"), nEvents, plural(nEvents, "event", "events"))
	return v.tools(ctx, eng)
}

// hook prints one hook of the plan, the n-th to run at its event: its tier,
// kind and identity, then where it is defined, what it matches, its timeout
// and onError.
func (v *planView) hook(h engine.PlannedHook, n int) {
	id := v.shortID(h)
	if h.Dropped {
		v.row("  -  ", []string{h.Tier.String(), h.Kind, id}, "       ")
		v.row("       ", []string{v.where(h), "dropped: identical to " + v.short(h.DuplicateOf) + ", which runs in its place"}, "       ")
		return
	}
	num := fmt.Sprintf("  %d. ", n)
	indent := strings.Repeat(" ", len(num)+2)
	v.row(num, []string{h.Tier.String(), h.Kind, id}, indent)
	details := []string{v.where(h), matcherText(h), timeoutText(h.TimeoutMs), "onError=" + h.OnError}
	if h.DuplicateOf != "" {
		details = append(details, "(identical to "+v.short(h.DuplicateOf)+": runs only for tools that one does not match)")
	}
	v.row(indent, details, indent)
}

// row prints fields after prefix, two spaces apart (none after a field that
// ends in a space), starting a new line (with indent) where the next field
// would pass planWidth; a field wider than a line is cut short with "…"
// (check --json has it whole).
func (v *planView) row(prefix string, fields []string, indent string) {
	var b strings.Builder
	b.WriteString(prefix)
	col, prev := utf8.RuneCountInString(prefix), ""
	for _, f := range fields {
		if f == "" {
			continue
		}
		f = cut(oneLine(f), planWidth-utf8.RuneCountInString(indent))
		width := utf8.RuneCountInString(strings.TrimRight(f, " "))
		sep := "  "
		if prev == "" || strings.HasSuffix(prev, " ") {
			sep = ""
		}
		if prev != "" && col+len(sep)+width > planWidth {
			b.WriteString("\n")
			b.WriteString(indent)
			col, sep = utf8.RuneCountInString(indent), ""
		}
		b.WriteString(sep)
		b.WriteString(f)
		col += len(sep) + utf8.RuneCountInString(f)
		prev = f
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	io.WriteString(v.w, strings.Join(lines, "\n")+"\n")
}

// text prints prose wrapped at planWidth.
func (v *planView) text(s string) {
	words := strings.Fields(s)
	for i := range words[:len(words)-1] {
		words[i] += " "
	}
	v.row("", words, "")
}

// cut shortens s to at most n runes, ending it with "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// short shows the paths under the working directory in s relative to it.
func (v *planView) short(s string) string {
	if v.dir == "" {
		return s
	}
	return strings.ReplaceAll(s, v.dir+string(filepath.Separator), "")
}

// shortID shows a hook's identity with its paths relative to the working
// directory: "./guards/x.sh" for a command that runs a script in it.
func (v *planView) shortID(h engine.PlannedHook) string {
	if h.Kind == "command" && v.dir != "" {
		return strings.ReplaceAll(h.ID, v.dir+string(filepath.Separator), "."+string(filepath.Separator))
	}
	return h.ID
}

// where says where a hook is defined and, when that is not the same, what
// registered it, with short paths; a stdlib pack's hook is its pack
// unless a configuration file named the pack.
func (v *planView) where(h engine.PlannedHook) string {
	if pack, ok := strings.CutPrefix(h.Source, "stdlib:"); ok && h.RegisteredBy == "stdlib "+pack {
		return h.Source
	}
	return v.short(where(h))
}

// tools lists the tools declared beyond the built-in table and the hooks
// that cover each, event by event.
func (v *planView) tools(ctx context.Context, eng *engine.Engine) error {
	declared := eng.Tools(ctx, true)
	all := len(eng.Tools(ctx, false))
	if len(declared) == 0 {
		v.text(fmt.Sprintf("Tools: the built-in table (%d tools of Claude Code, Gemini CLI, Codex, Cursor, OpenCode, Crush and the seed); a tool outside it is unguarded: declare it under \"tools\" in agents.json.", all))
		return nil
	}
	fmt.Fprintf(v.w, "Tools declared beyond the built-in table (%d of %d):\n", len(declared), all)
	for _, t := range declared {
		v.row("  ", []string{t.Name, string(t.Kind), v.short(t.DeclaredBy)}, "    ")
		v.row("    ", strings.SplitAfter(coverage(t), " "), "    ")
	}
	return nil
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
	case len(t.Agents) == 0:
		// Resolved by its tool part (tools/mcp.md).
		return fmt.Sprintf("Tool %q: kind %s (an MCP server's tool in the MCP table; a call whose input holds none of the fields it reads is unguarded).", name, t.Kind)
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
