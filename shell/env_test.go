package shell_test

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/monad-hooks/monad-hooks/shell"
)

// TestSanitizeEnv lists, rule by rule, entries a hook keeps and entries it
// never sees.
func TestSanitizeEnv(t *testing.T) {
	t.Parallel()
	kept := []string{
		// What tools need.
		"PATH=/usr/bin:/bin", "HOME=/home/u", "PWD=/work", "OLDPWD=/", "LANG=C.UTF-8", "LC_ALL=C",
		"TERM=xterm-256color", "SHELL=/bin/bash", "USER=u", "TMPDIR=/tmp", "EDITOR=vi",
		"GIT_AUTHOR_NAME=A U Thor", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=x",
		"AUTHOR=me", "GOPATH=/go", "NODE_ENV=production", "SSH_TTY=/dev/pts/0",
		"MONADIC=1", "XMONAD_X=1", // not MONAD_
		"caf\u00e9=x",     // non-ASCII, harmless
		"EMPTY=", "A=b=c", // values may hold "="
		"PLAIN=has KEY and TOKEN=SECRET in the value", // the words in a value do not count
		"HTTP_PROXY=http://proxy.internal:3128",       // a URL without credentials
		"REPO_URL=https://github.com/org/repo.git",    // idem
		"MAILTO=ops@example.com",                      // an @ but no URL
		"GIT_SSH_COMMAND=ssh -o User=git@example.com", // idem
		"DOCS=see https://example.com/a@b",            // @ in the path, not in the authority
	}
	stripped := []string{
		// MONAD_*, any case.
		"MONAD_SESSION=abc", "MONAD_=x", "monad_x=1", "Monad_Debug=1",
		// The contract's five words, anywhere in the name, any case.
		"OPENAI_API_KEY=sk-1", "my_Api_kEy=1", "KEY=1", "SSH_KEYS=x", "MONKEY=banana",
		"GITHUB_TOKEN=ghp", "TOKENIZERS_PARALLELISM=false", "AWS_SECRET_ACCESS_KEY=x", "client_secret=x",
		"DB_PASSWORD=x", "PGPASSWORD=x", "GOOGLE_APPLICATION_CREDENTIALS=/x.json", "Credentials=x",
		"VALUE_HAS_KEY=KEY=TOKEN",
		"\u017fecret=x", // long s folds to S
		"\u212aEY=x",    // Kelvin sign folds to K
		// A name ending in _PWD.
		"MYSQL_PWD=x", "mysql_pwd=x", "REDIS_PWD=x",
		// PASS anywhere in the name.
		"PASSWD=x", "PGPASS=/home/u/.pgpass", "X_PASSPHRASE=x", "SMTP_PASS=x", "PASS=x",
		// AUTH as a name segment, or a segment that starts or ends with it
		// (but AUTHOR).
		"NPM_CONFIG__AUTH=x", "GH_AUTH=x", "SSH_AUTH_SOCK=/tmp/agent.sock", "AUTH=x",
		"HTTP_AUTHORIZATION=Basic eA==", "BASICAUTH=x", "GITHUB_OAUTH=x", "AUTHN_URL=x", "auth_header=x",
		// COOKIE anywhere in the name.
		"COOKIE=a=b", "SESSION_COOKIE=x", "CURL_COOKIEJAR=/tmp/j",
		// A URL with credentials in its value, under any name.
		"DATABASE_URL=postgres://app:pw@db/app",
		"REDIS_URL=redis://:pw@cache:6379/0",
		"GIT_REMOTE=https://ghp_abc@github.com/org/repo.git",
		"MIRRORS=http://a.example https://u:p@b.example/x",
		"AMQP=AMQPS://guest:guest@rabbit",
		// Not variables.
		"NOEQUALS", "=value", "", "NUL=a\x00b",
	}
	for _, kv := range kept {
		assert.Equal(t, []string{kv}, shell.SanitizeEnv([]string{kv}), "want kept: %q", kv)
	}
	for _, kv := range stripped {
		assert.Empty(t, shell.SanitizeEnv([]string{kv}), "want stripped: %q", kv)
	}

	if got := shell.SanitizeEnv(nil); got == nil || len(got) != 0 {
		t.Errorf("SanitizeEnv(nil) = %#v, want empty and non-nil", got)
	}
	in := []string{"B=1", "API_KEY=x", "A=2", "MONAD_X=3", "B=4"}
	orig := slices.Clone(in)
	got := shell.SanitizeEnv(in)
	assert.Equal(t, []string{"B=1", "A=2", "B=4"}, got, "order")
	assert.Equal(t, orig, in, "input modified")
	got[0] = "changed"
	assert.Equal(t, "B=1", in[0], "result aliases the input")
}

// secretName is an independent statement of the name rule for ASCII names;
// credentialURL of the value rule.
var (
	secretName    = regexp.MustCompile(`(?i)^monad_|key|token|secret|password|credential|_pwd$|pass|cookie|(^|[^a-z0-9])(auth[a-z0-9]*|[a-z0-9]*auth)([^a-z0-9]|$)`)
	authorSegment = regexp.MustCompile(`(?i)(^|[^a-z0-9])authors?([^a-z0-9]|$)`)
	credentialURL = regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://[^/?#@\s]*@`)
)

func wantStripped(name, value string) bool {
	if credentialURL.MatchString(value) {
		return true
	}
	// AUTHOR and AUTHORS are the only AUTH... segments that stay: test the
	// rule with them removed.
	return secretName.MatchString(authorSegment.ReplaceAllString(name, "${1}x${2}"))
}

// TestSanitizeEnvProperty checks random names and values, in random case,
// against the independent statement: an entry is kept iff neither rule
// matches, and the kept entries keep their order.
func TestSanitizeEnvProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"monad_", "MONAD", "key", "token", "secret", "password", "credential", "api", "_", "x",
		"path", "home", "k", "e", "y", "tok", "en", "1", "mon", "ad_", "cred", "ential", "pwd", "pa", "ss",
		"auth", "or", "oauth", "author", "cook", "ie", "s"}
	values := []string{"", "x", "=", "://", "u:p@h", "https://", "@", "/", "a b", "http://h/x@y", "git@host"}
	randCase := func(s string) string {
		b := []byte(s)
		for i := range b {
			if rng.IntN(2) == 0 {
				b[i] = strings.ToUpper(string(b[i]))[0]
			}
		}
		return string(b)
	}
	for range 2000 {
		var env, want []string
		for range rng.IntN(8) {
			var name, value strings.Builder
			for range 1 + rng.IntN(4) {
				name.WriteString(randCase(parts[rng.IntN(len(parts))]))
			}
			for range rng.IntN(4) {
				value.WriteString(randCase(values[rng.IntN(len(values))]))
			}
			kv := name.String() + "=" + value.String()
			env = append(env, kv)
			if !wantStripped(name.String(), value.String()) {
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
