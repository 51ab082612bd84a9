package luaapi

import (
	"unicode"
	"unicode/utf8"

	"github.com/monad-hooks/monad-hooks/luaapi/ahocorasick"
	lua "github.com/yuin/gopher-lua"
)

// The fast paths of rules:candidates (BenchmarkRedactSecrets,
// BenchmarkRedactPII): each finds what the plain path finds, with less
// work.

// foldedMatcher returns the ASCII-case-folding matcher of keywords, or nil
// when one has an ASCII capital or a non-ASCII byte: only then does it
// find in a text what the plain matcher finds in the text's lowercase
// (see foldable).
func foldedMatcher(keywords []string) (*ahocorasick.Matcher, error) {
	for _, k := range keywords {
		for i := 0; i < len(k); i++ {
			if c := k[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
				return nil, nil
			}
		}
	}
	return ahocorasick.NewFolded(keywords)
}

// foldable reports whether strings.ToLower(s) keeps every byte of s where
// it is and lowercases only ASCII capitals among the ASCII bytes: s is
// valid UTF-8 and each non-ASCII rune lowercases to a non-ASCII rune of
// the same length. Then an ASCII keyword occurs in the lowercase where
// it occurs in s with ASCII case ignored, and an ASCII identifier's
// lowercase is its ASCII lowercase. It polls the stop flag between
// blocks (raising it).
func (v *vm) foldable(L *lua.LState, s string) bool {
	for lo := 0; lo < len(s); {
		if v.ctx.stopped() {
			L.RaiseError("%s", errStopped.Error())
		}
		hi := min(lo+scanBlock, len(s))
		i := lo
		for i < hi {
			c := s[i]
			if c < utf8.RuneSelf {
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				return false
			}
			if l := unicode.ToLower(r); l != r && (l < utf8.RuneSelf || utf8.RuneLen(l) != n) {
				return false
			}
			i += n
		}
		v.pl.work.scanBytes.Add(int64(i - lo))
		lo = i
	}
	return true
}

// lowerASCII returns s with its ASCII capitals lowercased (s itself when
// it has none).
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
