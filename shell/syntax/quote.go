package syntax

import "strings"

// Join returns the command line that runs argv as a POSIX shell would run
// it: the words separated by single spaces, each word that holds anything
// but ASCII letters, digits and @%+=:,./_- written in single quotes (a
// single quote inside closes the quotes, is escaped with a backslash and
// reopens them), the empty word as a pair of quotes, and a first word of
// the form NAME=value quoted too (unquoted, it would be an assignment). It
// is how a host's argv-style command ({"command":["rm","-rf","/"]}) becomes
// the one line that guards read. Split(Join(argv)) returns argv. Join is
// pure and safe for concurrent use.
func Join(argv []string) string {
	var b strings.Builder
	for i, w := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if plainWord(w) && (i > 0 || !assignment(w)) {
			b.WriteString(w)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(w, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

// plainWord reports whether w reads as itself when written unquoted
// (but for an assignment in the command's first word).
func plainWord(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("@%+=:,./_-", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// assignment reports whether w has the form NAME=value.
func assignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" || '0' <= name[0] && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
