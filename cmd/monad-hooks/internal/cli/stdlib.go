package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/stdlib"
	"github.com/monad-hooks/monad-hooks/tools"
)

// cmdStdlib lists the stdlib packs, or documents one.
func cmdStdlib(_ context.Context, inv *invocation, args []string) int {
	fs := newFlagSet("stdlib")
	pos, code := parseArgs(inv, fs, helpStdlib, args)
	if code >= 0 {
		return code
	}
	switch len(pos) {
	case 0:
		defaults := stdlib.Default()
		tw := tabwriter.NewWriter(inv.stdout, 0, 4, 2, ' ', 0)
		for _, p := range stdlib.Packs() {
			mark := ""
			if slices.Contains(defaults, p.Name) {
				mark = "(default)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, mark, p.Summary)
		}
		tw.Flush()
		fmt.Fprintf(inv.stdout, "\nThe default set (%s) runs when --stdlib is absent.\nRun 'monad-hooks stdlib NAME' for a pack's documentation and parameters.\n", strings.Join(defaults, ", "))
		files, err := engine.StdlibRules()
		if err != nil {
			inv.errorf("%v", err)
			return ExitFail
		}
		fmt.Fprintf(inv.stdout, "\nRule families of ask-irreversible (its parameters deny, ask and off take a family, a group or a rule id):\n\n")
		printFamilies(inv.stdout, files)
		fmt.Fprintln(inv.stdout, "\nRun 'monad-hooks stdlib FAMILY' for a family's rules.")
		return ExitOK
	case 1:
		if p, ok := stdlib.Lookup(pos[0]); ok {
			printPack(inv, p)
			return ExitOK
		}
		files, err := engine.StdlibRules()
		if err != nil {
			inv.errorf("%v", err)
			return ExitFail
		}
		var picked []*stdlib.RuleFile
		for _, f := range files {
			if f.Family == pos[0] || f.Group == pos[0] {
				picked = append(picked, f)
			}
		}
		if len(picked) == 0 {
			inv.errorf("unknown pack, family or group %q (packs: %s; families: run monad-hooks stdlib)", pos[0], strings.Join(stdlib.Names(), ", "))
			return ExitFail
		}
		for _, f := range picked {
			printRules(inv.stdout, f)
		}
		return ExitOK
	}
	return inv.usageErr("want at most one pack name, got %d arguments", len(pos))
}

// printPackTools lists, for each tool kind a pack checks, the tools of that
// kind in the built-in tool table.
func printPackTools(w io.Writer, kinds []string) {
	if len(kinds) == 0 {
		return
	}
	byKind := map[string][]string{}
	for _, s := range tools.Builtin() {
		byKind[string(s.Kind)] = append(byKind[string(s.Kind)], s.Name)
	}
	fmt.Fprintln(w, "Tools: every tool of these kinds in the tool table; built in:")
	for _, k := range kinds {
		fmt.Fprintf(w, "  %s: %s\n", k, strings.Join(byKind[k], ", "))
	}
	fmt.Fprintln(w, `  and the host's own tools, declared with engine.WithTools or "tools" in agents.json.`)
}

func printPack(inv *invocation, p stdlib.PackInfo) {
	w := inv.stdout
	fmt.Fprintf(w, "%s: %s\n", p.Name, p.Summary)
	if slices.Contains(stdlib.Default(), p.Name) {
		fmt.Fprintln(w, "In the default set.")
	}
	if len(p.Events) > 0 {
		fmt.Fprintf(w, "Events: %s\n", strings.Join(p.Events, ", "))
	}
	printPackTools(w, p.Kinds)
	if len(p.Needs) > 0 {
		fmt.Fprintf(w, "Needs: %s (it refuses to load without them; the CLI gives $HOME and --root)\n", strings.Join(p.Needs, ", "))
	}
	if doc := strings.TrimSpace(p.Doc); doc != "" {
		fmt.Fprintf(w, "\n%s\n", doc)
	}
	fmt.Fprintln(w)
	if len(p.Params) == 0 {
		fmt.Fprintln(w, "Parameters: none.")
	} else {
		fmt.Fprintln(w, "Parameters:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, q := range p.Params {
			def := q.Default
			if def == "" {
				def = "-"
			}
			fmt.Fprintf(tw, "  %s\t%s\tdefault %s\t%s\n", q.Name, q.Type, def, oneLine(q.Doc))
		}
		tw.Flush()
	}
	if p.Rules {
		if files, err := engine.StdlibRules(); err == nil {
			fmt.Fprintln(w, "\nFamilies:")
			printFamilies(w, files)
		}
	}
	fmt.Fprintf(w, `
Load it with --stdlib %s, or with parameters in agents.json:

	{"atoms": [{"stdlib": %q, "with": {...}}]}
`, p.Name, p.Name)
}

// printFamilies prints one line per rule family: name, group, rule count,
// the decisions its rules take by default, summary.
func printFamilies(w io.Writer, files []*stdlib.RuleFile) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "  family\tgroup\trules\tdecision\twhat it guards\n")
	for _, f := range files {
		asks, denies := 0, 0
		for _, r := range f.Rules {
			if r.Decision == stdlib.DecisionDeny {
				denies++
			} else {
				asks++
			}
		}
		decision := "ask"
		switch {
		case asks == 0:
			decision = "deny"
		case denies > 0:
			decision = fmt.Sprintf("ask (%d deny)", denies)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\n", f.Family, f.Group, len(f.Rules), decision, oneLine(f.Summary))
	}
	tw.Flush()
}

// printRules prints a family's rules: id, decision, programs and reason.
func printRules(w io.Writer, f *stdlib.RuleFile) {
	fmt.Fprintf(w, "%s (group %s): %s\n\n", f.Family, f.Group, f.Summary)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range f.Rules {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.ID, r.Decision, strings.Join(r.Programs, ", "), r.Reason)
	}
	tw.Flush()
	fmt.Fprintln(w)
}
