package shell

import (
	"strings"
	"unicode/utf8"
)

// SanitizeEnv returns the environment for a command hook: environ (in the
// "NAME=value" form of os.Environ) without the variables a hook must not
// see. It drops every variable whose name
//
//   - starts with MONAD_, in any case (monad_x and Monad_X too: the seed
//     says MONAD_*, and stripping more is the safe side), or
//   - contains KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL, in any case and
//     anywhere in the name (so MONKEY_BARS and TOKENIZERS_PARALLELISM go
//     too: a false positive costs a hook a variable, a false negative leaks
//     a secret),
//
// and every entry that is not a variable: one without "=", with an empty
// name, or holding a NUL byte (os/exec would refuse to start with it).
// Names are compared after Unicode case folding, so "ſecret" (long s) is a
// SECRET. Values are never inspected and may contain "=". The rest is
// returned in order, in a new slice (never nil); environ is not modified.
//
// The list is the contract's, not an allowlist: a caller that wants a
// minimal environment should build one (PATH, HOME, LANG, ...) and pass it
// through SanitizeEnv too. SanitizeEnv is safe for concurrent use.
func SanitizeEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || strings.IndexByte(kv, 0) >= 0 || secretName(name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// secretName reports whether a variable named name is withheld from hooks.
func secretName(name string) bool {
	u := strings.ToUpper(name) // no allocation for an upper-case ASCII name
	if !isASCII(name) {
		// Fold both ways, so that a character whose upper case is ASCII
		// (ſ -> S) and one whose lower case is ASCII (K, Kelvin -> k)
		// both count.
		u = strings.ToUpper(strings.ToLower(name))
	}
	return strings.HasPrefix(u, "MONAD_") ||
		strings.Contains(u, "KEY") ||
		strings.Contains(u, "TOKEN") ||
		strings.Contains(u, "SECRET") ||
		strings.Contains(u, "PASSWORD") ||
		strings.Contains(u, "CREDENTIAL")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
