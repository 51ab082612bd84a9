package suggest

import (
	"strings"
	"testing"
)

func TestClosest(t *testing.T) {
	known := []string{"matcher", "commandFields", "protectedBranches", "extraPatterns", "exempt", "root"}
	for _, c := range []struct{ name, want string }{
		{"protectedBranch", "protectedBranches"},
		{"PROTECTEDBRANCHES", "protectedBranches"},
		{"matchr", "matcher"},
		{"macther", "matcher"},
		{"rot", "root"},
		{"ro", ""}, // 2 edits on a 4-byte name is not a typo
		{"nonsense", ""},
		{"exempts", "exempt"},
		{"", ""},
		{strings.Repeat("a", 65), ""},
	} {
		if got := Closest(c.name, known); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := Closest("ab", []string{"ac"}); got != "" {
		t.Errorf("a one-edit match on a 2-byte name: %q", got)
	}
	if got := Closest("hooks", []string{"hook", "hooks2"}); got != "hook" {
		t.Errorf("ties go to the first: %q", got)
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"kitten", "sitting", 10, 3},
		{"kitten", "sitting", 3, 3},
		{"", "abc", 10, 3},
		{"abc", "abc", 10, 0},
		{"abcdef", "a", 3, 3}, // length difference alone reaches the limit
		{strings.Repeat("a", 65), strings.Repeat("a", 65), 3, 3},
	} {
		if got := distance(c.a, c.b, c.limit); got != c.want {
			t.Errorf("distance(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
	}
}

func TestDidYouMeanAndHint(t *testing.T) {
	alias := func(s string) string { return map[string]string{"PreToolUse": "BeforeTool", "Gone": "Nowhere"}[s] }
	known := []string{"BeforeTool", "AfterTool"}
	for _, c := range []struct{ name, dym string }{
		{"PreToolUse", ` (did you mean "BeforeTool"?)`}, // an alias
		{"BeforTool", ` (did you mean "BeforeTool"?)`},  // a typo
		{"Gone", ""}, // an alias of nothing known
		{"Nonsense", ""},
	} {
		if got := DidYouMean(c.name, known, alias); got != c.dym {
			t.Errorf("DidYouMean(%q) = %q, want %q", c.name, got, c.dym)
		}
		if got, want := Hint(c.name, known, alias), c.dym+"; want one of BeforeTool, AfterTool"; got != want {
			t.Errorf("Hint(%q) = %q, want %q", c.name, got, want)
		}
	}
	if got := DidYouMean("afterTool", known, nil); got != ` (did you mean "AfterTool"?)` {
		t.Errorf("without aliases: %q", got)
	}
}
