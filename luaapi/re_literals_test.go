package luaapi

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLiteralsNeverHideAMatch: a text the literal check turns away holds
// no match, for the placeholder expressions of the redacting packs and
// some of literals, classes, repetitions and case folding (k and s also
// fold to U+212A and U+017F); and the check turns most random texts away.
func TestLiteralsNeverHideAMatch(t *testing.T) {
	pats := []string{
		`(?i)(replace[_-]?(me|with|this)|real[_-]?(secret|key|token)|insert[_-]|your[_-]|placeholder|changeme|dummy|example|redacted|x{6,}|\*{4,}|\.\.\.|<|>|\$\{|\{\{)`,
		`(?i)^(\$\{?[A-Za-z_]|\{\{|<[^>]*>?$|%\(?[A-Za-z_]|\[[A-Za-z_ -]*\]$|x{4,}|\*{3,}|\.{3,}|(changeme|change_me|password|passw0rd|secret|example|sample|dummy|placeholder|redacted|your[_-]|my[_-]|test[_-]?(key|token|secret)?$|none$|null$|nil$|undefined$|true$|false$|string$|optional|required|todo))`,
		`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+(\(|\[|$)|^[A-Za-z_][A-Za-z0-9_]*[(\[]|^(os|process|env|ENV|config|settings|self|this|args|opts|options|req|request|params)[.\[]`,
		`(?i)^(postgres|root|admin|guest|password|passwd|secret|changeme|test|pass|mysql|default|toor|user|dev|local|example|123456|12345678)$`,
		`(?i)(png|jpe?g|gif|svg|js|json|md|txt|py|go)$`,
		`(?i)ks+k`, `[0-9][<>]b`, `(?i)s{3}`, `[0-9]x(y|z)+`, `[.-]\d`, `(?i)\w(ks|sk)`,
	}
	r := rand.New(rand.NewPCG(11, 12))
	pieces := []string{"a", "K", "s", "S", "\u212a", "\u017f", "x", "X", "*", ".", "<", ">", "$", "{", "(", "[", "]", "_", "-", "é", "\xff", "example", "EXAMPLE", "Dummy", "your-", "change_me", "os.", "png", "y", "z", "1", "ks", "kss"}
	for _, p := range pats {
		e := newRegexpEntry(p)
		require.NoError(t, e.err)
		require.NotNil(t, e.lits, p)
		turned := 0
		for range 4000 {
			var b strings.Builder
			for n := r.IntN(12); n > 0; n-- {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			s := b.String()
			if !e.lits.mayMatch(s) {
				turned++
				require.Nil(t, e.re.FindStringIndex(s), "%s on %q", p, s)
			}
		}
		require.Positive(t, turned, p)
	}
	require.Nil(t, newRegexpEntry(`[a-z]+`).lits)
	require.Nil(t, newRegexpEntry(`a|[0-9]`).lits)
}
