package settings

import (
	"regexp"
	"testing"
)

// TestNameChecksAreTheirRegexps: exactList and envName accept what the
// regular expressions they replaced accept.
func TestNameChecksAreTheirRegexps(t *testing.T) {
	exact := regexp.MustCompile(`^[A-Za-z0-9_\- ,|]+$`)
	env := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	for _, s := range []string{"", "Bash", "Edit|Write", "Edit, Write", "mcp__x__y", "a-b", "9x", "_x", "x9", "X_Y",
		"Edit.*", "a\tb", "a\nb", "é", "a=b", "$X", " ", "|", "a b", "CLAUDE_PROJECT_DIR", "1", "A\x00"} {
		if got, want := exactList(s), exact.MatchString(s); got != want {
			t.Errorf("exactList(%q) = %v, want %v", s, got, want)
		}
		if got, want := envName(s), env.MatchString(s); got != want {
			t.Errorf("envName(%q) = %v, want %v", s, got, want)
		}
	}
}
