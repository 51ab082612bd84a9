package luaapi

import (
	"fmt"
	"regexp/syntax"
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
			// eight ASCII bytes a step (BenchmarkRedactSecrets)
			for i+8 <= hi && s[i]|s[i+1]|s[i+2]|s[i+3]|s[i+4]|s[i+5]|s[i+6]|s[i+7] < utf8.RuneSelf {
				i += 8
			}
			if i == hi {
				break
			}
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

// A byteSet is a set of bytes.
type byteSet [256]bool

func (b *byteSet) add(o *byteSet) {
	for i, in := range o {
		b[i] = b[i] || in
	}
}

// addRune adds the bytes of r's encoding that matter here: an ASCII rune
// itself, for any other rune every byte from 0x80 (its encoding, and the
// invalid bytes Go's matcher reads as U+FFFD).
func (b *byteSet) addRune(r rune) {
	if r < utf8.RuneSelf {
		b[r] = true
		return
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		b[c] = true
	}
}

// Where an expression can match empty (see reShape.empty), from the
// most restrictive to anywhere.
const (
	emptyNever     = iota
	emptyTextStart // only at the start of the text (\A, ^)
	emptyLineStart // only there or after a newline ((?m)^)
	emptyAnywhere
)

// A reShape is what an RE2 expression's matches can look like, in bytes,
// conservatively: min and max bound their length (max < 0: unbounded);
// first, last and all hold every byte a non-empty match can begin with,
// end with and contain; empty says where it can match empty; every match
// holds at least one byte of need, unless need is empty.
type reShape struct {
	min, max               int
	first, last, all, need byteSet
	empty                  int
}

// size returns how many bytes b holds.
func (b *byteSet) size() int {
	n := 0
	for _, in := range b {
		if in {
			n++
		}
	}
	return n
}

// shapeOf returns the shape of re.
func shapeOf(re *syntax.Regexp) *reShape {
	sh := &reShape{}
	switch re.Op {
	case syntax.OpNoMatch:
		sh.empty = emptyNever
	case syntax.OpEmptyMatch, syntax.OpEndLine, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		sh.empty = emptyAnywhere
	case syntax.OpBeginText:
		sh.empty = emptyTextStart
	case syntax.OpBeginLine:
		sh.empty = emptyLineStart
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			lo, hi := utf8.RuneLen(r), utf8.RuneLen(r)
			set := byteSet{}
			set.addRune(r)
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					set.addRune(f)
					lo, hi = min(lo, utf8.RuneLen(f)), max(hi, utf8.RuneLen(f))
				}
			}
			if sh.min == 0 {
				sh.first, sh.need = set, set
			}
			sh.last = set
			sh.all.add(&set)
			sh.min += lo
			sh.max += hi
		}
		if sh.min == 0 {
			sh.empty = emptyAnywhere
		}
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		set, width := byteSet{}, 1
		switch re.Op {
		case syntax.OpCharClass:
			for i := 0; i+1 < len(re.Rune); i += 2 {
				for r := re.Rune[i]; r <= re.Rune[i+1] && r < utf8.RuneSelf; r++ {
					set[r] = true
				}
				if re.Rune[i+1] >= utf8.RuneSelf {
					set.addRune(utf8.RuneSelf)
					width = utf8.UTFMax
				}
			}
		default:
			for c := range 256 {
				set[c] = re.Op == syntax.OpAnyChar || c != '\n'
			}
			width = utf8.UTFMax
		}
		sh.first, sh.last, sh.all, sh.need = set, set, set, set
		sh.min, sh.max = 1, width
	case syntax.OpCapture:
		return shapeOf(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		sub := shapeOf(re.Sub[0])
		lo, hi := 0, -1
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
		}
		*sh = *sub
		sh.min = sub.min * lo
		switch {
		case hi < 0 || sub.max < 0:
			sh.max = -1
			if sub.max == 0 {
				sh.max = 0
			}
		default:
			sh.max = sub.max * hi
		}
		if lo == 0 {
			sh.empty, sh.need = emptyAnywhere, byteSet{}
		}
	case syntax.OpConcat:
		sh.empty = emptyAnywhere
		lead, trail := true, true
		for _, s := range re.Sub {
			sub := shapeOf(s)
			sh.min += sub.min
			if sh.max >= 0 && sub.max >= 0 {
				sh.max += sub.max
			} else {
				sh.max = -1
			}
			sh.all.add(&sub.all)
			if n := sub.need.size(); n > 0 && (sh.need.size() == 0 || n < sh.need.size()) {
				sh.need = sub.need
			}
			if lead {
				sh.first.add(&sub.first)
				lead = sub.empty != emptyNever
			}
			sh.empty = min(sh.empty, sub.empty)
		}
		for i := len(re.Sub) - 1; i >= 0 && trail; i-- {
			sub := shapeOf(re.Sub[i])
			sh.last.add(&sub.last)
			trail = sub.empty != emptyNever
		}
	case syntax.OpAlternate:
		for i, s := range re.Sub {
			sub := shapeOf(s)
			if i == 0 {
				*sh = *sub
				continue
			}
			sh.min = min(sh.min, sub.min)
			if sh.max >= 0 && sub.max >= 0 {
				sh.max = max(sh.max, sub.max)
			} else {
				sh.max = -1
			}
			sh.first.add(&sub.first)
			sh.last.add(&sub.last)
			sh.all.add(&sub.all)
			sh.empty = max(sh.empty, sub.empty)
			if sub.need.size() == 0 {
				sh.need = byteSet{}
			} else if sh.need.size() > 0 {
				sh.need.add(&sub.need)
			}
		}
	default: // unknown: anything
		for c := range 256 {
			sh.first[c], sh.last[c], sh.all[c] = true, true, true
		}
		sh.max, sh.empty = -1, emptyAnywhere
	}
	return sh
}

// minGateValue is the shortest value that makes a rule's expression run
// only around candidates: shorter ones are too common for the gate to pay.
const minGateValue = 4

// gateDensity: a text with more than one candidate per gateDensity bytes
// is searched whole (each candidate costs a search of a window); and once
// the windows searched add up to gateBudget times the text, the rest of it
// is searched whole too.
const (
	gateDensity = 32
	gateBudget  = 4
)

// A scanGate lets a rule's expression (pre)(val)post run only where a
// value can begin (BenchmarkRedactPII): at a byte val can begin with,
// inside a run of at least val's minimum length of bytes val can contain
// that holds a byte every value holds (need), after a byte pre can end
// with (or where pre can be empty). Each such start c is tried with an
// anchored expression that finds the leftmost match starting in
// [c-maxPre, c], in a window that holds any such match whole and the
// rune after it: maxLen bytes on, or, when matches are unbounded, up to
// the end of the run of value bytes at c+maxPre and maxPost bytes more.
// The search then gives what the plain search from the same position
// gives.
type scanGate struct {
	first, all, preLast, need byteSet
	hasNeed                   bool
	minVal                    int
	maxPre, maxPost, maxLen   int // maxLen < 0: unbounded
	preEmpty                  int
	// anchored at the start of the text, and after one rune of context
	atStart, afterRune *regexpEntry
}

// newGate returns the gate of a rule's expression rx, or nil when its
// shape does not allow one (a value that can be short, a context of
// unbounded length).
func (v *vm) newGate(rx *regexpEntry) *scanGate {
	re, err := syntax.Parse(rx.re.String(), syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < 2 ||
		re.Sub[0].Op != syntax.OpCapture || re.Sub[0].Cap != 1 || re.Sub[1].Op != syntax.OpCapture || re.Sub[1].Cap != 2 {
		return nil
	}
	whole, pre, val := shapeOf(re), shapeOf(re.Sub[0]), shapeOf(re.Sub[1])
	post := shapeOf(&syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: re.Sub[2:]})
	if pre.max < 0 || post.max < 0 || val.min < minGateValue {
		return nil
	}
	g := &scanGate{first: val.first, all: val.all, preLast: pre.last, need: val.need, hasNeed: val.need.size() > 0,
		minVal: val.min, maxPre: pre.max, maxPost: post.max, maxLen: whole.max, preEmpty: pre.empty}
	skip := fmt.Sprintf(`(?s:.){0,%d}?(`, pre.max)
	g.atStart = v.pl.recach.get(`\A` + skip + rx.re.String() + `)`)
	g.afterRune = v.pl.recach.get(`\A(?s:.)` + skip + rx.re.String() + `)`)
	if g.atStart.err != nil || g.afterRune.err != nil {
		return nil
	}
	return g
}

// candidates returns the positions of text (0-based) after its first
// byte where a value can begin: a byte val begins with, at least minVal
// bytes val can contain from there, one of them a byte of need, after a
// byte that pre can end with (or that follows a place where pre can
// match empty). The first byte is left to startsAt (it depends on where
// a search begins).
func (g *scanGate) candidates(text string) []int {
	var out []int
	n, all := len(text), &g.all
	// Only runs of minVal bytes or more matter: probing the last byte of
	// the next minVal skips them all when it is no value byte, so a text
	// with few value bytes costs one probe every minVal bytes
	// (BenchmarkRedactPII). Before i, no such run begins, and text[i-1]
	// is no value byte.
	for i := 0; i+g.minVal <= n; {
		probe := i + g.minVal - 1
		if !all[text[probe]] {
			i = probe + 1
			continue
		}
		a := probe
		for a > i && all[text[a-1]] {
			a--
		}
		j := probe + 1
		for j < n && all[text[j]] {
			j++
		}
		if j-a >= g.minVal {
			out = g.runCandidates(text, a, j, out)
		}
		i = j + 1
	}
	return out
}

// runCandidates appends to out the candidates in text[i:j], a run of
// bytes val can contain.
func (g *scanGate) runCandidates(text string, i, j int, out []int) []int {
	{
		last := j - g.minVal
		if g.hasNeed {
			k := j - 1
			for k >= i && !g.need[text[k]] {
				k--
			}
			last = min(last, k)
		}
		for p := max(i, 1); p <= last; p++ {
			if g.first[text[p]] && g.after(text[p-1]) {
				out = append(out, p)
			}
		}
	}
	return out
}

// after reports whether a value can begin after byte c.
func (g *scanGate) after(c byte) bool {
	return g.preLast[c] || g.preEmpty == emptyAnywhere || g.preEmpty == emptyLineStart && c == '\n'
}

// startsAt reports whether a value can begin at the start cur of a
// search (where pre can match empty at the start of the text).
func (g *scanGate) startsAt(text string, cur int) bool {
	if g.preEmpty == emptyNever || cur+g.minVal > len(text) || !g.first[text[cur]] {
		return false
	}
	need := !g.hasNeed
	for k := cur; k < len(text) && g.all[text[k]] && (k < cur+g.minVal || !need); k++ {
		need = need || g.need[text[k]]
		if k >= cur+g.minVal-1 && need {
			return true
		}
	}
	return false
}

// windowEnd returns where the window of candidate c ends (see scanGate).
func (g *scanGate) windowEnd(text string, c int) int {
	end := c + g.maxLen
	if g.maxLen < 0 {
		end = min(c+g.maxPre, len(text))
		for end < len(text) && g.all[text[end]] {
			end++
		}
		end += g.maxPost
	}
	return min(len(text), end+utf8.UTFMax)
}

// A gateRun is the state of one gated scanRange: the candidates, the
// first not yet passed, and the bytes the windows may still cover.
type gateRun struct {
	cands  []int
	k      int
	budget int
}

// gatedSearch returns what r.search(rx, text[cur:]) returns (the
// submatch indexes of the leftmost match, relative to cur), trying only
// the candidates of g (cur only grows from call to call). It reports
// false when the budget is spent: the caller then searches the text.
func (r *ruleRun) gatedSearch(g *scanGate, gr *gateRun, text string, cur int) ([]int, bool) {
	for gr.k < len(gr.cands) && gr.cands[gr.k] <= cur {
		gr.k++
	}
	if g.startsAt(text, cur) {
		if loc, ok := r.tryAt(g, gr, text, cur, cur); loc != nil || !ok {
			return loc, ok
		}
	}
	for ; gr.k < len(gr.cands); gr.k++ {
		if loc, ok := r.tryAt(g, gr, text, cur, gr.cands[gr.k]); loc != nil || !ok {
			return loc, ok
		}
	}
	return nil, true
}

// tryAt returns the leftmost match in text[cur:] that starts between
// c-maxPre and c, relative to cur, or nil; false when the budget is
// spent.
func (r *ruleRun) tryAt(g *scanGate, gr *gateRun, text string, cur, c int) ([]int, bool) {
	r.poll()
	p0, we := max(cur, c-g.maxPre), g.windowEnd(text, c)
	e, base := g.atStart, cur
	if p0 > cur {
		_, w := utf8.DecodeLastRuneInString(text[cur:p0])
		e, base = g.afterRune, p0-w
	}
	if gr.budget -= we - base; gr.budget < 0 {
		return nil, false
	}
	r.v.pl.work.scanRuns.Add(1)
	loc := r.search(e, text[base:we])
	if loc == nil || base+loc[2] > c {
		return nil, true
	}
	loc = loc[2:]
	for i := range loc {
		if loc[i] >= 0 {
			loc[i] += base - cur
		}
	}
	return loc, true
}

// requiredLiteral returns a literal every match of re holds (the longest
// one it finds among the parts every match goes through), or "".
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			return string(re.Rune)
		}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best := ""
		for _, s := range re.Sub {
			if l := requiredLiteral(s); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return ""
}

// ruleLiteral returns the literal every match of rx holds ("" if none
// is known).
func ruleLiteral(rx *regexpEntry) string {
	re, err := syntax.Parse(rx.re.String(), syntax.Perl)
	if err != nil {
		return ""
	}
	return requiredLiteral(re)
}

// maxValueRun bounds the run of bytes an anchored value expression is
// searched in (see anchoredRun); past it the search reads the rest of the
// text as before.
const maxValueRun = 1024

// anchoredRun returns the bytes a match of rx can hold when rx is
// anchored at the start of the text (nil otherwise). Every match of such
// an expression, and every attempt Go's matcher keeps alive, lies in the
// run of those bytes at the start of the text, so a search of that run
// and the rune after it gives what a search of the whole text gives.
func anchoredRun(rx *regexpEntry) *byteSet {
	re, err := syntax.Parse(rx.re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil || prog.StartCond()&syntax.EmptyBeginText == 0 {
		return nil
	}
	all := shapeOf(re).all
	return &all
}

// valueWindow returns the part of rest an anchored value expression
// whose bytes are run needs to be searched in (see anchoredRun): rest
// itself when the run is longer than maxValueRun (BenchmarkRedactSecrets:
// a short string runs Go's backtracker directly instead of a polled
// automaton over the rest of the text).
func valueWindow(run *byteSet, rest string) string {
	if run == nil {
		return rest
	}
	k := 0
	for k < len(rest) && run[rest[k]] {
		if k++; k > maxValueRun {
			return rest
		}
	}
	return rest[:min(len(rest), k+utf8.UTFMax)]
}
