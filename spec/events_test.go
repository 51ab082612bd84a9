package spec_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/monad-hooks/monad-hooks/events"
)

type eventRow struct {
	Name      string   `toml:"name"`
	Runs      string   `toml:"runs"`
	Decisions []string `toml:"decisions"`
	Fields    []string `toml:"fields"`
	Matcher   bool     `toml:"matcher"`
}

func rowOf(s events.Spec) eventRow {
	r := eventRow{Name: s.Event.String(), Runs: "serial", Matcher: s.Matcher, Fields: s.Fields.Names(), Decisions: []string{}}
	if s.Parallel {
		r.Runs = "parallel"
	}
	for _, d := range []events.Decision{events.Deny, events.Ask, events.Allow} {
		if s.Decisions.Has(d) {
			r.Decisions = append(r.Decisions, string(d))
		}
	}
	if r.Fields == nil {
		r.Fields = []string{}
	}
	return r
}

// TestCapabilityTableData keeps spec/events.toml equal to events.Specs().
func TestCapabilityTableData(t *testing.T) {
	var doc struct {
		Event []eventRow `toml:"event"`
	}
	md, err := toml.DecodeFile("events.toml", &doc)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Fatalf("unknown keys in events.toml: %v", u)
	}
	specs := events.Specs()
	if len(doc.Event) != len(specs) {
		t.Fatalf("events.toml has %d events, events.Specs() %d", len(doc.Event), len(specs))
	}
	for i, s := range specs {
		want, got := rowOf(s), doc.Event[i]
		slices.Sort(want.Fields)
		slices.Sort(got.Fields)
		slices.Sort(want.Decisions)
		slices.Sort(got.Decisions)
		if !slices.Equal(want.Fields, got.Fields) || !slices.Equal(want.Decisions, got.Decisions) ||
			want.Name != got.Name || want.Runs != got.Runs || want.Matcher != got.Matcher {
			t.Errorf("events.toml row %d = %+v, events.Specs() says %+v", i+1, got, want)
		}
	}
}

// TestREADMECapabilityTable keeps the table in README.md equal to
// events.Specs(): each row names the event, how it runs, the decisions and
// fields it honours, and whether the matcher applies.
func TestREADMECapabilityTable(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| `") {
			cells := strings.Split(line, "|")
			if len(cells) > 2 {
				rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = line
			}
		}
	}
	for _, s := range events.Specs() {
		line, ok := rows[s.Event.String()]
		if !ok {
			t.Errorf("README capability table has no row for %s", s.Event)
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 7 {
			t.Errorf("README row for %s has %d cells: %q", s.Event, len(cells), line)
			continue
		}
		r := rowOf(s)
		want := []string{r.Runs, names(s.Decisions.String()), names(s.Fields.String()), map[bool]string{true: "yes", false: "no"}[s.Matcher]}
		for i, w := range want {
			if got := names(cells[i+2]); got != w {
				t.Errorf("README row %s cell %d = %q, want %q", s.Event, i+2, got, w)
			}
		}
	}
}

var parenthetical = regexp.MustCompile(`\([^)]*\)`)

// names reduces a table cell to its sorted, comma-separated names, without
// parenthetical notes and "-> input" chains.
func names(cell string) string {
	cell = parenthetical.ReplaceAllString(cell, "")
	var out []string
	for _, part := range strings.Split(cell, ",") {
		if f := strings.Fields(part); len(f) > 0 {
			out = append(out, f[0])
		}
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}
