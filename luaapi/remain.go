package luaapi

import (
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// Host functions and the deadline.
//
// The watchdog stops a handler at its next VM instruction; a host function
// (a Go function called from Lua) runs to completion unless it polls the
// stop flag itself. Every host function whose work grows with its input
// therefore either polls v.ctx.stopped() between bounded steps (JSON
// decoding, shell parsing, building result tables, converting values) or,
// for Go's regexp package, which has no such hook, bounds each
// uninterruptible run:
//
//   - A search over n bytes with a program of m instructions costs at most
//     n*m steps of Go's matcher (it is linear in both). When that worst case
//     is at most cheapSteps, or fits in a quarter of the call's remaining
//     time at nsPerStep, the search runs directly on the string, at full
//     speed (literal-prefix scans included).
//   - Otherwise it reads the text through a stopReader, which polls the stop
//     flag every few thousand steps and ends the text when the call must
//     stop: the search is then abandoned and the function raises. Since a
//     reader loses Go's literal-prefix scan, the search first skips to the
//     first occurrence of the pattern's literal prefix, if it has one; a
//     pattern that is a literal always runs directly (strings.Index).
//   - Functions that find every match (re.gsub, re.split, re.findall) search
//     match by match (allMatches), polling between matches: Go's own FindAll
//     can be quadratic (each search may scan to the end of the text before
//     settling on a short match).
//
// So a host function returns within a few milliseconds of the stop, and a
// search run directly could only overrun the deadline if Go's matcher were
// more than four times slower than nsPerStep.

const (
	// cheapSteps is the worst case (bytes times program size) of a search
	// that always runs directly: about 5 ms.
	cheapSteps = 1 << 18
	// nsPerStep is a conservative cost of one matcher step (measured 5 to
	// 14 ns on a loaded 2-core machine).
	nsPerStep = 25
	// pollSteps is about how many matcher steps a stopReader lets run
	// between two polls of the stop flag.
	pollSteps = 1 << 16
)

// direct reports whether a search over n bytes with e may run without
// polling.
func (v *vm) direct(e *regexpEntry, n int) bool {
	if v.polledOnly {
		return false
	}
	steps := int64(n) * int64(e.insts)
	if steps <= cheapSteps {
		return true
	}
	return time.Duration(steps*nsPerStep) <= v.ctx.remaining()/4
}

// search returns the submatch indexes of the leftmost match of e in s at or
// after pos, as Go's FindAll functions see it (^, \b and \B see the text
// before pos), or nil; stopped reports that the call had to stop.
func (v *vm) search(e *regexpEntry, s string, pos int) (loc []int, stopped bool) {
	if e.complete {
		// A literal: Go searches it with strings.Index, in linear time.
		if loc = e.re.FindStringSubmatchIndex(s[pos:]); loc != nil {
			loc[0], loc[1] = loc[0]+pos, loc[1]+pos
		}
		return loc, false
	}
	if e.lits != nil && !e.lits.mayMatch(s[pos:]) {
		return nil, false // no literal every match holds (BenchmarkRedactSecrets)
	}
	if e.prefix != "" && !v.direct(e, len(s)-pos) {
		// Every match begins with the prefix: skip to its first
		// occurrence as Go's direct search would (the polled one does
		// not).
		k := strings.Index(s[pos:], e.prefix)
		if k < 0 {
			return nil, false
		}
		pos += k
	}
	re, base := e.re, pos
	derived := false
	if pos > 0 && e.backward {
		_, w := utf8.DecodeLastRuneInString(s[:pos])
		base = pos - w
		re = e.ctx()
		derived = true
	}
	sub := s[base:]
	if v.direct(e, len(sub)) {
		loc = re.FindStringSubmatchIndex(sub)
	} else {
		r := stopReader{s: sub, stop: &v.ctx, every: max(1, pollSteps/e.insts)}
		loc = re.FindReaderSubmatchIndex(&r)
		v.pl.work.reBytes.Add(int64(r.i))
		if r.stopped {
			return nil, true
		}
	}
	if loc == nil {
		return nil, false
	}
	if derived {
		loc = loc[2:]
	}
	for i := range loc {
		if loc[i] >= 0 {
			loc[i] += base
		}
	}
	return loc, false
}

// allMatches calls deliver with the submatch indexes of each successive
// non-overlapping match of e in s (at most n; all when n < 0), as Go's
// regexp FindAll functions do, polling the stop flag between matches. It
// returns errStopped when the call had to stop, or the first error deliver
// returned.
func (v *vm) allMatches(e *regexpEntry, s string, n int, deliver func([]int) error) error {
	if n < 0 {
		n = len(s) + 1
	}
	prevEnd := -1
	for pos, i := 0, 0; i < n && pos <= len(s); {
		if v.ctx.stopped() {
			return errStopped
		}
		v.pl.work.reSearches.Add(1)
		m, stopped := v.search(e, s, pos)
		if stopped {
			return errStopped
		}
		if m == nil {
			break
		}
		accept := true
		if m[1] == pos {
			// An empty match: not right after a previous match; move on
			// one rune.
			if m[0] == prevEnd {
				accept = false
			}
			if pos < len(s) {
				_, w := utf8.DecodeRuneInString(s[pos:])
				pos += w
			} else {
				pos = len(s) + 1
			}
		} else {
			pos = m[1]
		}
		prevEnd = m[1]
		if accept {
			if err := deliver(m); err != nil {
				return err
			}
			i++
		}
	}
	return nil
}

// A stopReader gives a string to Go's regexp rune by rune, polling the stop
// flag every `every` bytes; once the call must stop it ends the text (the
// match is then abandoned).
type stopReader struct {
	s       string
	i       int
	stop    *vmCtx
	every   int
	next    int
	stopped bool
}

func (r *stopReader) ReadRune() (rune, int, error) {
	if r.i >= r.next {
		r.next = r.i + r.every
		if r.stop.stopped() {
			r.stopped = true
		}
	}
	if r.stopped || r.i >= len(r.s) {
		return 0, 0, io.EOF
	}
	if c := r.s[r.i]; c < utf8.RuneSelf {
		r.i++
		return rune(c), 1, nil
	}
	c, w := utf8.DecodeRuneInString(r.s[r.i:])
	r.i += w
	return c, w, nil
}
