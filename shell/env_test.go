package shell_test

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/shell"
)

func TestSanitizeEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		keep bool
	}{
		{"PATH=/usr/bin:/bin", true},
		{"HOME=/home/u", true},
		{"LANG=C.UTF-8", true},
		{"MONAD_SESSION=abc", false},
		{"MONAD_=x", false},
		{"monad_x=1", false},
		{"Monad_Debug=1", false},
		{"MONADIC=1", true}, // not MONAD_
		{"XMONAD_X=1", true},
		{"OPENAI_API_KEY=sk-1", false},
		{"my_Api_kEy=1", false},
		{"KEY=1", false},
		{"SSH_KEYS=x", false},
		{"MONKEY=banana", false}, // substring: a false positive on the safe side
		{"GITHUB_TOKEN=ghp", false},
		{"TOKENIZERS_PARALLELISM=false", false},
		{"AWS_SECRET_ACCESS_KEY=x", false},
		{"client_secret=x", false},
		{"DB_PASSWORD=x", false},
		{"PGPASSWORD=x", false},
		{"GOOGLE_APPLICATION_CREDENTIALS=/x.json", false},
		{"Credentials=x", false},
		{"PASSWD=x", true}, // not on the contract's list
		{"AUTH=x", true},
		{"VALUE_HAS_KEY=KEY=TOKEN", false},
		{"PLAIN=has KEY and TOKEN=SECRET in the value", true},
		{"EMPTY=", true},
		{"A=b=c", true},
		{"\u017fecret=x", false}, // long s folds to S
		{"\u212aEY=x", false},    // Kelvin sign folds to K
		{"caf\u00e9=x", true},    // non-ASCII, harmless
		{"NOEQUALS", false},      // not a variable
		{"=value", false},        // empty name
		{"", false},
		{"NUL=a\x00b", false}, // os/exec refuses it
	} {
		got := shell.SanitizeEnv([]string{tc.in})
		if keep := len(got) == 1 && got[0] == tc.in; keep != tc.keep || (!keep && len(got) != 0) {
			t.Errorf("SanitizeEnv(%q) = %q, want kept %v", tc.in, got, tc.keep)
		}
	}

	if got := shell.SanitizeEnv(nil); got == nil || len(got) != 0 {
		t.Errorf("SanitizeEnv(nil) = %#v, want empty and non-nil", got)
	}
	in := []string{"B=1", "API_KEY=x", "A=2", "MONAD_X=3", "B=4"}
	orig := slices.Clone(in)
	got := shell.SanitizeEnv(in)
	if want := []string{"B=1", "A=2", "B=4"}; !slices.Equal(got, want) {
		t.Errorf("order: got %q, want %q", got, want)
	}
	if !slices.Equal(in, orig) {
		t.Errorf("input modified: %q", in)
	}
	got[0] = "changed"
	if in[0] != "B=1" {
		t.Error("result aliases the input")
	}
}

// secretRE is an independent statement of the rule for ASCII names.
var secretRE = regexp.MustCompile(`(?i)^monad_|key|token|secret|password|credential`)

// TestSanitizeEnvProperty checks random names, in random case, against
// secretRE: a name is kept iff it does not match, values never matter, and
// the kept entries keep their order.
func TestSanitizeEnvProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"monad_", "MONAD", "key", "token", "secret", "password", "credential", "api", "_", "x", "path", "home", "k", "e", "y", "tok", "en", "1", "mon", "ad_", "cred", "ential"}
	randCase := func(s string) string {
		b := []byte(s)
		for i := range b {
			if rng.IntN(2) == 0 {
				b[i] = strings.ToUpper(string(b[i]))[0]
			}
		}
		return string(b)
	}
	for range 500 {
		var env, want []string
		for range rng.IntN(8) {
			var name strings.Builder
			for range 1 + rng.IntN(4) {
				name.WriteString(randCase(parts[rng.IntN(len(parts))]))
			}
			value := randCase(strings.Repeat(parts[rng.IntN(len(parts))]+"=", rng.IntN(3)))
			kv := name.String() + "=" + value
			env = append(env, kv)
			if !secretRE.MatchString(name.String()) {
				want = append(want, kv)
			}
		}
		got := shell.SanitizeEnv(env)
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("SanitizeEnv(%q) = %q, want %q", env, got, want)
		}
		if again := shell.SanitizeEnv(got); !slices.Equal(again, got) {
			t.Fatalf("not idempotent: %q then %q", got, again)
		}
	}
}
