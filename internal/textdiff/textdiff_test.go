package textdiff

import (
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	if got := Unified("a", "b", "x\n", "x\n"); got != "" {
		t.Errorf("equal texts: %q", got)
	}
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	b := "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\neleven\n"
	want := `--- old
+++ new
@@ -2,9 +2,10 @@
 2
 3
 4
-5
+five
 6
 7
 8
 9
 10
+eleven
`
	if got := Unified("old", "new", a, b); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got := Unified("old", "new", "", "{\n}\n")
	if got != "--- old\n+++ new\n@@ -0,0 +1,2 @@\n+{\n+}\n" {
		t.Errorf("from nothing: %q", got)
	}
	// Far-apart changes are separate hunks.
	far := strings.Repeat("x\n", 20)
	got = Unified("a", "b", "A\n"+far+"B\n", "a\n"+far+"b\n")
	if strings.Count(got, "@@ -") != 2 {
		t.Errorf("want 2 hunks:\n%s", got)
	}
}

// TestUnifiedBounded: a middle longer than MaxLines is shown removed and
// added whole rather than compared in MaxLines^2 steps.
func TestUnifiedBounded(t *testing.T) {
	var a, b strings.Builder
	for i := range MaxLines + 1 {
		a.WriteString("a" + string(rune('0'+i%10)) + "\n")
		b.WriteString("b" + string(rune('0'+i%10)) + "\n")
	}
	got := Unified("a", "b", a.String(), b.String())
	if strings.Count(got, "\n-") != MaxLines+1 || strings.Count(got, "\n+") != MaxLines+1+1 {
		t.Errorf("want every line removed and added: %d - %d +", strings.Count(got, "\n-"), strings.Count(got, "\n+"))
	}
}
