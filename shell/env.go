package shell

import (
	"strings"
	"unicode/utf8"
)

// SanitizeEnv returns the environment for a command hook: environ (in the
// "NAME=value" form of os.Environ) without the variables a hook must not
// see. Names are compared in upper case, after Unicode case folding (so
// "ſecret", with a long s, is a SECRET). It drops every variable whose name
//
//   - starts with MONAD_ (the engine's own variables);
//   - contains KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL (the contract's five
//     words), PASS (PASSWD, PGPASS, X_PASSPHRASE) or COOKIE, anywhere in the
//     name (so MONKEY_BARS and TOKENIZERS_PARALLELISM go too: a false
//     positive costs a hook a variable, a false negative leaks a secret);
//   - ends with _PWD (MYSQL_PWD; PWD and OLDPWD stay);
//   - has a segment (the parts between characters other than letters and
//     digits) that starts or ends with AUTH, other than AUTHOR and AUTHORS
//     (GH_AUTH, NPM_CONFIG__AUTH, SSH_AUTH_SOCK, HTTP_AUTHORIZATION,
//     GITHUB_OAUTH; GIT_AUTHOR_NAME stays);
//
// every variable whose value holds a URL with credentials, that is a scheme,
// "://" and a user part ending in "@" before the host
// (DATABASE_URL=postgres://app:pw@db/app, https://TOKEN@github.com/...);
// and every entry that is not a variable: one without "=", with an empty
// name, or holding a NUL byte (os/exec would refuse to start with it). The
// rest is returned in order, in a new slice (never nil); environ is not
// modified.
//
// The rule is a denylist, not an allowlist: a caller that wants a minimal
// environment should build one (PATH, HOME, LANG, ...) and pass it through
// SanitizeEnv too. SanitizeEnv is safe for concurrent use.
func SanitizeEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || strings.IndexByte(kv, 0) >= 0 || secretName(name) || credentialURL(value) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// secretWords are the words that withhold a variable wherever they occur in
// its upper-case name. PASSWORD is covered by PASS.
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASS", "CREDENTIAL", "COOKIE"}

// secretName reports whether a variable named name is withheld from hooks.
func secretName(name string) bool {
	u := strings.ToUpper(name) // no allocation for an upper-case ASCII name
	if !isASCII(name) {
		// Fold both ways, so that a character whose upper case is ASCII
		// (ſ -> S) and one whose lower case is ASCII (K, Kelvin -> k)
		// both count.
		u = strings.ToUpper(strings.ToLower(name))
	}
	if strings.HasPrefix(u, "MONAD_") || strings.HasSuffix(u, "_PWD") {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(u, w) {
			return true
		}
	}
	return authSegment(u)
}

// authSegment reports whether the upper-case name u has a segment that starts
// or ends with AUTH, other than AUTHOR and AUTHORS.
func authSegment(u string) bool {
	for len(u) > 0 {
		i := 0
		for i < len(u) && isAlnum(u[i]) {
			i++
		}
		seg := u[:i]
		if (strings.HasPrefix(seg, "AUTH") || strings.HasSuffix(seg, "AUTH")) && seg != "AUTHOR" && seg != "AUTHORS" {
			return true
		}
		if i < len(u) {
			i++ // the separator
		}
		u = u[i:]
	}
	return false
}

// credentialURL reports whether v holds a URL with a user part: a scheme
// (letters, digits, +, - and ., at least one letter), "://", then an "@"
// before any of "/?#" or white space.
func credentialURL(v string) bool {
	for {
		i := strings.Index(v, "://")
		if i < 0 {
			return false
		}
		letter := false
		for j := i - 1; j >= 0 && isSchemeByte(v[j]); j-- {
			letter = letter || isLetter(v[j])
		}
		rest := v[i+3:]
		if letter {
			for k := 0; k < len(rest); k++ {
				c := rest[k]
				if c == '@' {
					return true
				}
				if c == '/' || c == '?' || c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' {
					break
				}
			}
		}
		v = rest
	}
}

func isLetter(c byte) bool     { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool      { return isLetter(c) || c >= '0' && c <= '9' }
func isSchemeByte(c byte) bool { return isAlnum(c) || c == '+' || c == '-' || c == '.' }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
