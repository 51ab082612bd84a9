package luapattern

import (
	"errors"
	"strconv"
	"strings"
)

// MaxCaptures is the number of captures a pattern may have (Lua's
// LUA_MAXCAPTURES); one more is "too many captures".
const MaxCaptures = 32

// CheckEvery is how many steps pass between two calls of [Options.Stop].
const CheckEvery = 4096

// ErrTooManySteps is returned when a call takes more than
// [Options.MaxSteps] steps.
var ErrTooManySteps = errors.New("luapattern: step budget exhausted")

// ErrTooLarge is returned by Gsub and GsubFunc when the result would be
// longer than [Options.MaxSize] bytes.
var ErrTooLarge = errors.New("luapattern: result larger than the size limit")

// PatternError is a malformed pattern, or a capture used that the pattern
// does not have. Msg is Lua 5.1's message, e.g. "malformed pattern (missing
// ']')", "invalid capture index", "unfinished capture", "too many
// captures", "pattern too complex".
type PatternError struct {
	Msg string
}

// Error returns Msg, as Lua reports it.
func (e *PatternError) Error() string { return e.Msg }

// Options interrupts and bounds one call. The zero value runs to
// completion without bounds.
type Options struct {
	// Stop, when not nil, is called every CheckEvery steps of matcher
	// work; a non-nil error ends the call, which returns that error.
	Stop func() error
	// MaxSteps, when positive, bounds the steps of one call (one Next of
	// an Iter); the call that would take more returns ErrTooManySteps.
	MaxSteps int
	// MaxSize, when positive, bounds the length of Gsub's and GsubFunc's
	// result; a longer result is ErrTooLarge.
	MaxSize int

	count *counter // tests: the work done, see export_test.go
}

// counter adds up the work of the calls made with an Options.
type counter struct {
	Steps int // matcher steps
	Bytes int // bytes appended to Gsub results
}

// Capture is one capture of a match.
type Capture struct {
	// Start and End delimit the captured text, src[Start:End]. A position
	// capture, written "()", has Start == End.
	Start, End int
	// Position is set for a position capture: its Lua value is the number
	// Start+1.
	Position bool
	// Open is set for a capture the pattern did not close ("(a" matches
	// "a"); [Match.Capture] refuses it.
	Open bool
}

// Text returns the capture as Lua turns it into a string: the captured
// text of src, or the 1-based position of a position capture.
func (c Capture) Text(src string) string {
	if c.Position {
		return strconv.Itoa(c.Start + 1)
	}
	return src[c.Start:c.End]
}

// Match is one match of a pattern in a subject.
type Match struct {
	// Start and End delimit the whole match, src[Start:End].
	Start, End int
	// Captures are the pattern's captures in pattern order; nil when it
	// has none.
	Captures []Capture
}

// Capture returns capture i (0-based) as Lua's string functions hand it
// out: when the pattern has no captures, capture 0 is the whole match; an
// index past the captures is a *PatternError "invalid capture index", an
// open capture one "unfinished capture".
func (m *Match) Capture(i int) (Capture, error) {
	if i < 0 || i >= len(m.Captures) {
		if i == 0 {
			return Capture{Start: m.Start, End: m.End}, nil
		}
		return Capture{}, &PatternError{Msg: "invalid capture index"}
	}
	c := m.Captures[i]
	if c.Open {
		return Capture{}, &PatternError{Msg: "unfinished capture"}
	}
	return c, nil
}

// Find is string.find: the first match of pat in src that starts at or
// after init, a 0-based offset clamped to [0, len(src)] (so an empty
// pattern matches at the end when init is past it). The search is plain
// (pat is a substring, not a pattern) when plain is set or pat has none of
// the characters ^$*+?.([%-. found is false when there is no match.
func Find(src, pat string, init int, plain bool, o Options) (m Match, found bool, err error) {
	init = clamp(init, len(src))
	if plain || !strings.ContainsAny(pat, specials) {
		if i := strings.Index(src[init:], pat); i >= 0 {
			return Match{Start: init + i, End: init + i + len(pat)}, true, nil
		}
		return Match{}, false, nil
	}
	return find(src, pat, init, &o)
}

// FindPattern is string.match: the first match of the pattern pat in src
// that starts at or after init, a 0-based offset clamped to [0, len(src)].
// A leading '^' anchors the match at init. found is false when there is no
// match.
func FindPattern(src, pat string, init int, o Options) (m Match, found bool, err error) {
	return find(src, pat, clamp(init, len(src)), &o)
}

// clamp clamps init to [0, n], as Lua 5.1's str_find_aux does.
func clamp(init, n int) int {
	return min(max(init, 0), n)
}

func find(src, pat string, init int, o *Options) (m Match, found bool, err error) {
	anchor := strings.HasPrefix(pat, "^")
	if anchor {
		pat = pat[1:]
	}
	st := newState(src, pat, o)
	err = st.run(func() {
		for s1 := init; ; s1++ {
			st.level = 0
			if e := st.match(s1, 0); e != -1 {
				m, found = st.result(s1, e), true
				return
			}
			if s1 >= len(src) || anchor {
				return
			}
		}
	})
	return m, found, err
}

// Iter is string.gmatch's iterator: successive calls of Next return the
// successive matches of a pattern in a subject. It is not safe for
// concurrent use.
type Iter struct {
	src, pat string
	pos      int
}

// Gmatch returns an iterator over the matches of pat in src. As in Lua
// 5.1, a leading '^' is not an anchor: it matches a '^' in src.
func Gmatch(src, pat string) *Iter {
	return &Iter{src: src, pat: pat}
}

// Next returns the next match; found is false when there are no more. After
// an empty match, the search goes on one byte further.
func (it *Iter) Next(o Options) (m Match, found bool, err error) {
	st := newState(it.src, it.pat, &o)
	err = st.run(func() {
		for s := it.pos; s <= len(it.src); s++ {
			st.level = 0
			if e := st.match(s, 0); e != -1 {
				it.pos = e
				if e == s {
					it.pos++
				}
				m, found = st.result(s, e), true
				return
			}
		}
		it.pos = len(it.src) + 1
	})
	return m, found, err
}

// Gsub is string.gsub with a replacement string: it returns src with each
// of the first max matches of pat (all when max is negative) replaced by
// repl, and the number of matches replaced. In repl, %0 stands for the
// whole match, %1 to %9 for a capture (%1 also for the whole match when
// the pattern has no captures; a position capture writes its number), %
// followed by any other character for that character, and a % ending repl
// for a "\x00" (Lua 5.1 writes the terminating NUL of its C string). A
// leading '^' in pat anchors the match at the start of src.
func Gsub(src, pat, repl string, max int, o Options) (string, int, error) {
	return gsub(src, pat, max, &o, func(st *state, b *builder, s, e int) {
		for i := 0; i < len(repl); i++ {
			c := repl[i]
			if c != '%' {
				b.writeByte(c)
				continue
			}
			i++
			if i >= len(repl) {
				b.writeByte(0)
				break
			}
			c = repl[i]
			switch {
			case !isdigit(c):
				b.writeByte(c)
			case c == '0':
				b.writeString(src[s:e])
			default:
				b.writeString(st.captureText(int(c-'1'), s, e))
			}
		}
	})
}

// GsubFunc is string.gsub with a function or a table: it returns src with
// each of the first max matches of pat (all when max is negative) replaced
// by what f returns for it, and the number of matches. When f returns keep,
// the match is kept as it is (Lua's nil or false); an error from f ends
// the call and is returned. A panic in f passes through.
func GsubFunc(src, pat string, max int, o Options, f func(m *Match) (repl string, keep bool, err error)) (string, int, error) {
	return gsub(src, pat, max, &o, func(st *state, b *builder, s, e int) {
		m := st.result(s, e)
		repl, keep, err := f(&m)
		if err != nil {
			panic(abort{err})
		}
		if keep {
			repl = src[s:e]
		}
		b.writeString(repl)
	})
}

func gsub(src, pat string, max int, o *Options, add func(st *state, b *builder, s, e int)) (string, int, error) {
	anchor := strings.HasPrefix(pat, "^")
	if anchor {
		pat = pat[1:]
	}
	st := newState(src, pat, o)
	b := &builder{limit: o.MaxSize}
	n := 0
	err := st.run(func() {
		defer func() {
			if o.count != nil {
				o.count.Bytes += b.Len()
			}
		}()
		s := 0
		for max < 0 || n < max {
			st.level = 0
			e := st.match(s, 0)
			if e != -1 {
				n++
				add(st, b, s, e)
			}
			if e != -1 && e > s {
				s = e
			} else if s < len(src) {
				b.writeByte(src[s])
				s++
			} else {
				break
			}
			if anchor {
				break
			}
		}
		b.writeString(src[s:])
	})
	if err != nil {
		return "", 0, err
	}
	return b.String(), n, nil
}

// captureText is capture i of the match src[s:e] as a string (Lua's
// push_onecapture followed by a conversion to string).
func (st *state) captureText(i, s, e int) string {
	if i >= st.level {
		if i == 0 {
			return st.src[s:e]
		}
		st.fail("invalid capture index")
	}
	c := st.capture[i]
	switch c.len {
	case capUnfinished:
		st.fail("unfinished capture")
	case capPosition:
		return strconv.Itoa(c.init + 1)
	}
	return st.src[c.init : c.init+c.len]
}

// builder is the result of a gsub, bounded by a limit (0: none).
type builder struct {
	strings.Builder
	limit int
}

func (b *builder) grow(n int) {
	if b.limit > 0 && b.Len()+n > b.limit {
		panic(abort{ErrTooLarge})
	}
}

func (b *builder) writeByte(c byte) {
	b.grow(1)
	b.WriteByte(c)
}

func (b *builder) writeString(s string) {
	b.grow(len(s))
	b.WriteString(s)
}
