package stdlib_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

// TestRuleCases runs the cases every embedded rule carries: each match
// case must get the rule's decision with a reason that names the rule,
// each pass case no decision at all from ask-irreversible.
func TestRuleCases(t *testing.T) {
	p := mustLoad(t, "ask-irreversible", nil)
	for _, f := range embeddedRules(t) {
		for _, r := range f.Rules {
			for _, c := range r.Match {
				out := p.call(t, shellInput(c))
				if string(out.Decision) != r.Decision || !strings.Contains(out.Reason, "["+r.ID+"]") {
					t.Errorf("%s %s: match %q: got %s (%s), want %s by this rule", f.Path, r.ID, c, out.Decision, out.Reason, r.Decision)
					continue
				}
				checkRuleReason(t, c, out.Reason)
			}
			for _, c := range r.Pass {
				if out := p.call(t, shellInput(c)); out.Decision != "" {
					t.Errorf("%s %s: pass %q: got %s (%s)", f.Path, r.ID, c, out.Decision, out.Reason)
				}
			}
		}
	}
}

// checkRuleReason checks the shape of an ask-irreversible reason: one short
// line that names the pack, the rule and a safer way.
func checkRuleReason(tb testing.TB, input, reason string) {
	tb.Helper()
	checkReason(tb, "ask-irreversible", input, reason)
	if !strings.Contains(reason, "; instead: ") || !strings.Contains(reason, "[") {
		tb.Errorf("%q: reason %q does not name the rule and a safer way", input, reason)
	}
}

// familyCorpus is one family's labelled commands: "+" must be asked about
// or denied, "-" must pass.
type familyCorpus struct {
	family          string
	dangerous, safe []string
	dnum, snum      []int
}

func readFamilyCorpus(tb testing.TB, path string) familyCorpus {
	tb.Helper()
	c := familyCorpus{family: strings.TrimSuffix(filepath.Base(path), ".txt")}
	for _, l := range readCorpus(tb, path) {
		switch {
		case strings.HasPrefix(l.text, "+ "):
			c.dangerous = append(c.dangerous, l.text[2:])
			c.dnum = append(c.dnum, l.num)
		case strings.HasPrefix(l.text, "- "):
			c.safe = append(c.safe, l.text[2:])
			c.snum = append(c.snum, l.num)
		default:
			tb.Fatalf("%s:%d: want a line starting with \"+ \" or \"- \"", path, l.num)
		}
	}
	return c
}

// familyFigures is what a corpus measured: dangerous commands caught, safe
// ones touched.
type familyFigures struct {
	caught, dangerous, touched, safe int
}

func (f familyFigures) String() string {
	return fmt.Sprintf("%d/%d caught (%.0f%%), %d/%d harmless touched", f.caught, f.dangerous, 100*f.rate(), f.touched, f.safe)
}

func (f familyFigures) rate() float64 {
	if f.dangerous == 0 {
		return 1
	}
	return float64(f.caught) / float64(f.dangerous)
}

// measureFamily runs one corpus file through the pack, reporting every
// miss and every touched harmless command.
func measureFamily(t *testing.T, p *pack, path string) familyFigures {
	c := readFamilyCorpus(t, path)
	var f familyFigures
	for i, cmd := range c.dangerous {
		f.dangerous++
		out := p.call(t, shellInput(cmd))
		if out.Decision == events.Ask || out.Decision == events.Deny {
			f.caught++
			checkRuleReason(t, cmd, out.Reason)
		} else {
			t.Errorf("%s:%d: not caught: %s", path, c.dnum[i], cmd)
		}
	}
	for i, cmd := range c.safe {
		f.safe++
		if out := p.call(t, shellInput(cmd)); out.Decision != "" {
			f.touched++
			t.Errorf("%s:%d: %s: %s (%s)", path, c.snum[i], out.Decision, cmd, out.Reason)
		}
	}
	return f
}

// The targets of every family on its corpus and its held-out corpus.
const (
	minFamilyCaught = 0.95
	minFamilyCases  = 20 // destructive commands in a family's main corpus
)

// TestQualityFamilies measures every family's corpus and held-out corpus
// (testdata/rules/<family>.txt and testdata/rules/holdout/<family>.txt):
// at least 95% of the destructive commands caught and no harmless one
// touched. The figures are printed with -v and recorded in README.md.
func TestQualityFamilies(t *testing.T) {
	p := mustLoad(t, "ask-irreversible", nil)
	files := embeddedRules(t)
	families := map[string]bool{}
	for _, f := range files {
		families[f.Family] = true
	}
	paths, err := filepath.Glob("testdata/rules/*.txt")
	for i := range paths {
		paths[i] = strings.TrimPrefix(paths[i], "testdata/")
	}
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var lines, rows []string
	byFamily := map[string]*stdlib.RuleFile{}
	for _, f := range files {
		byFamily[f.Family] = f
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		if !families[name] {
			t.Errorf("%s: no rule file %s.toml", path, name)
			continue
		}
		main := measureFamily(t, p, path)
		hold := measureFamily(t, p, filepath.Join("rules/holdout", name+".txt"))
		lines = append(lines, fmt.Sprintf("%-12s corpus %s; held out %s", name, main, hold))
		f := byFamily[name]
		rows = append(rows, fmt.Sprintf("| `%s` | %s | %d | %s | %d/%d (%s) | %d/%d | %d/%d (%s) | %d/%d |", name, f.Group, len(f.Rules),
			strings.ReplaceAll(f.Summary, "|", `\|`), main.caught, main.dangerous, pctOf(main.caught, main.dangerous), main.touched, main.safe,
			hold.caught, hold.dangerous, pctOf(hold.caught, hold.dangerous), hold.touched, hold.safe))
		if main.dangerous < minFamilyCases {
			t.Errorf("%s: %d destructive commands, want at least %d", path, main.dangerous, minFamilyCases)
		}
		for _, f := range []familyFigures{main, hold} {
			if f.rate() < minFamilyCaught {
				t.Errorf("%s: caught %.3f, below %.2f", name, f.rate(), minFamilyCaught)
			}
		}
	}
	for name := range families {
		if _, err := os.Stat(filepath.Join("testdata/rules", name+".txt")); err != nil {
			t.Errorf("family %s has no corpus testdata/rules/%s.txt", name, name)
		}
	}
	t.Logf("ask-irreversible per family:\n%s", strings.Join(lines, "\n"))
	checkFamiliesSection(t, rows)
}

func pctOf(hit, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(hit)/float64(n))
}

// checkFamiliesSection compares the README block <!-- families --> with the
// figures measured, and rewrites it with -update.
func checkFamiliesSection(t *testing.T, rows []string) {
	t.Helper()
	body := "| family | group | rules | what it guards | corpus caught | harmless touched | held out caught | held-out harmless touched |\n|---|---|---|---|---|---|---|---|\n" + strings.Join(rows, "\n") + "\n"
	checkReadmeBlock(t, "families", body, "go test ./stdlib -run TestQualityFamilies -update")
}
