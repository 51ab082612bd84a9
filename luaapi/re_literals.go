package luaapi

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// A litSet is a set of literals one of which every match of a pattern
// holds: exact ones, and folded ones (ASCII, lowercase) that match with
// ASCII case ignored. A search over a text that holds none of them finds
// nothing, and is skipped (BenchmarkRedactSecrets: the packs' placeholder
// expressions, alternations of words, run on every candidate value).
type litSet struct {
	exact, folded []string
	// asciiOnly: a folded literal has k or s, which (?i) also matches as
	// U+212A and U+017F: the folded check then holds only for ASCII text
	asciiOnly bool
}

// maxLits bounds a litSet; maxLitText is the longest text a search checks
// the literals in first (the folded check lowercases a copy of it).
const (
	maxLits    = 64
	maxLitText = 64 << 10
)

type lit struct {
	s    string
	fold bool
}

// requiredLits returns literals one of which every match of re holds
// (false when it finds none).
func requiredLits(re *syntax.Regexp) ([]lit, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		fold := re.Flags&syntax.FoldCase != 0
		if fold {
			for i := 0; i < len(s); i++ {
				if s[i] >= utf8.RuneSelf {
					return nil, false
				}
			}
			s = lowerASCII(s)
		}
		return []lit{{s, fold}}, true
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLits(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min < 1 {
			return nil, false
		}
		l, ok := requiredLits(re.Sub[0])
		if ok && len(l) == 1 && re.Sub[0].Op == syntax.OpLiteral && len(re.Sub[0].Rune) == 1 {
			l[0].s = strings.Repeat(l[0].s, min(re.Min, 16))
		}
		return l, ok
	case syntax.OpCharClass:
		var out []lit
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				if c >= utf8.RuneSelf || len(out) == 4 {
					return nil, false
				}
				out = append(out, lit{string(c), false})
			}
		}
		return out, len(out) > 0
	case syntax.OpConcat:
		var best []lit
		for _, s := range re.Sub {
			if l, ok := requiredLits(s); ok && (best == nil || shortest(l) > shortest(best)) {
				best = l
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var out []lit
		for _, s := range re.Sub {
			l, ok := requiredLits(s)
			if !ok || len(out)+len(l) > maxLits {
				return nil, false
			}
			out = append(out, l...)
		}
		return out, true
	}
	return nil, false
}

// shortest returns the length of the shortest of lits.
func shortest(lits []lit) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l.s) < n {
			n = len(l.s)
		}
	}
	return n
}

// newLitSet returns the literal set of a parsed pattern (nil when none is
// known).
func newLitSet(re *syntax.Regexp) *litSet {
	lits, ok := requiredLits(re)
	if !ok {
		return nil
	}
	ls := &litSet{}
	for _, l := range lits {
		if l.fold {
			ls.folded = append(ls.folded, l.s)
			ls.asciiOnly = ls.asciiOnly || strings.ContainsAny(l.s, "ks")
		} else {
			ls.exact = append(ls.exact, l.s)
		}
	}
	return ls
}

// mayMatch reports whether s holds one of the literals (true for a text
// too long to check, and for a non-ASCII text when the folded check needs
// ASCII).
func (ls *litSet) mayMatch(s string) bool {
	if len(s) > maxLitText {
		return true
	}
	for _, x := range ls.exact {
		if strings.Contains(s, x) {
			return true
		}
	}
	if len(ls.folded) == 0 {
		return false
	}
	if ls.asciiOnly {
		for i := 0; i < len(s); i++ {
			if s[i] >= utf8.RuneSelf {
				return true
			}
		}
	}
	low := lowerASCII(s)
	for _, x := range ls.folded {
		if strings.Contains(low, x) {
			return true
		}
	}
	return false
}
