package luapattern

// The matcher: a port of lstrlib.c's match() and its helpers. Errors abort
// the whole call by panicking with an abort value, recovered at the API
// boundary (see run), as luaL_error longjmps out of the C matcher.

const (
	maxDepth      = 200
	capUnfinished = -1
	capPosition   = -2
	specials      = "^$*+?.([%-"
)

// abort carries an error out of the matcher to run.
type abort struct{ err error }

type capture struct {
	init, len int
}

type state struct {
	src, pat string
	level    int
	depth    int
	capture  [MaxCaptures]capture

	o       *Options
	steps   int
	checkAt int // the step count at which to call check
}

func newState(src, pat string, o *Options) *state {
	st := &state{src: src, pat: pat, o: o}
	st.checkAt = st.nextCheck()
	return st
}

// run calls f and turns an abort into an error; other panics pass through.
// It adds the call's steps to the test counter.
func (st *state) run(f func()) (err error) {
	defer func() {
		if st.o.count != nil {
			st.o.count.Steps += st.steps
		}
		if r := recover(); r != nil {
			a, ok := r.(abort)
			if !ok {
				panic(r)
			}
			err = a.err
		}
	}()
	f()
	return nil
}

func (st *state) fail(msg string) {
	panic(abort{&PatternError{Msg: msg}})
}

func (st *state) nextCheck() int {
	next := st.steps + CheckEvery
	if st.o.MaxSteps > 0 && st.o.MaxSteps < next {
		next = st.o.MaxSteps + 1
	}
	return next
}

// step counts one unit of matcher work.
func (st *state) step() {
	st.steps++
	if st.steps >= st.checkAt {
		st.check()
	}
}

func (st *state) check() {
	if st.o.MaxSteps > 0 && st.steps > st.o.MaxSteps {
		panic(abort{ErrTooManySteps})
	}
	if st.o.Stop != nil {
		if err := st.o.Stop(); err != nil {
			panic(abort{err})
		}
	}
	st.checkAt = st.nextCheck()
}

// at returns the subject byte at i, 0 past the end (C's terminating NUL).
func (st *state) at(i int) byte {
	if i < len(st.src) {
		return st.src[i]
	}
	return 0
}

// p returns the pattern byte at i, 0 past the end.
func (st *state) p(i int) byte {
	if i < len(st.pat) {
		return st.pat[i]
	}
	return 0
}

func (st *state) checkCapture(l int) int {
	l -= '1'
	if l < 0 || l >= st.level || st.capture[l].len == capUnfinished {
		st.fail("invalid capture index")
	}
	return l
}

func (st *state) captureToClose() int {
	for level := st.level - 1; level >= 0; level-- {
		if st.capture[level].len == capUnfinished {
			return level
		}
	}
	st.fail("invalid pattern capture")
	return 0
}

func (st *state) classEnd(p int) int {
	c := st.p(p)
	p++
	switch c {
	case '%':
		if p >= len(st.pat) {
			st.fail("malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		if st.p(p) == '^' {
			p++
		}
		for {
			if p >= len(st.pat) {
				st.fail("malformed pattern (missing ']')")
			}
			c := st.pat[p]
			p++
			if c == '%' && p < len(st.pat) {
				p++
			}
			if st.p(p) == ']' && p < len(st.pat) {
				break
			}
		}
		return p + 1
	}
	return p
}

func isalpha(c byte) bool  { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isdigit(c byte) bool  { return '0' <= c && c <= '9' }
func islower(c byte) bool  { return 'a' <= c && c <= 'z' }
func isupper(c byte) bool  { return 'A' <= c && c <= 'Z' }
func isspace(c byte) bool  { return c == ' ' || '\t' <= c && c <= '\r' }
func iscntrl(c byte) bool  { return c < 32 || c == 127 }
func ispunct(c byte) bool  { return 33 <= c && c <= 126 && !isalpha(c) && !isdigit(c) }
func isxdigit(c byte) bool { return isdigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func matchClass(c, cl byte) bool {
	var res bool
	lower := cl
	if isupper(cl) {
		lower = cl + ('a' - 'A')
	}
	switch lower {
	case 'a':
		res = isalpha(c)
	case 'c':
		res = iscntrl(c)
	case 'd':
		res = isdigit(c)
	case 'l':
		res = islower(c)
	case 'p':
		res = ispunct(c)
	case 's':
		res = isspace(c)
	case 'u':
		res = isupper(c)
	case 'w':
		res = isalpha(c) || isdigit(c)
	case 'x':
		res = isxdigit(c)
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if isupper(cl) {
		return !res
	}
	return res
}

// matchBracketClass matches c against the class [p, ec] where pat[p] is
// '[' and pat[ec] is ']'.
func (st *state) matchBracketClass(c byte, p, ec int) bool {
	sig := true
	if st.p(p+1) == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		if st.pat[p] == '%' {
			p++
			if matchClass(c, st.p(p)) {
				return sig
			}
		} else if st.p(p+1) == '-' && p+2 < ec {
			p += 2
			if st.pat[p-2] <= c && c <= st.pat[p] {
				return sig
			}
		} else if st.pat[p] == c {
			return sig
		}
	}
	return !sig
}

func (st *state) singleMatch(c byte, p, ep int) bool {
	switch st.p(p) {
	case '.':
		return true
	case '%':
		return matchClass(c, st.p(p+1))
	case '[':
		return st.matchBracketClass(c, p, ep-1)
	}
	return st.p(p) == c
}

func (st *state) matchBalance(s, p int) int {
	if p+1 >= len(st.pat) {
		st.fail("unbalanced pattern")
	}
	if s >= len(st.src) || st.src[s] != st.pat[p] {
		return -1
	}
	b, e := st.pat[p], st.pat[p+1]
	cont := 1
	for s++; s < len(st.src); s++ {
		st.step()
		if st.src[s] == e {
			cont--
			if cont == 0 {
				return s + 1
			}
		} else if st.src[s] == b {
			cont++
		}
	}
	return -1
}

func (st *state) maxExpand(s, p, ep int) int {
	i := 0
	for s+i < len(st.src) && st.singleMatch(st.src[s+i], p, ep) {
		i++
		st.step()
	}
	for ; i >= 0; i-- {
		if res := st.match(s+i, ep+1); res != -1 {
			return res
		}
	}
	return -1
}

func (st *state) minExpand(s, p, ep int) int {
	for {
		if res := st.match(s, ep+1); res != -1 {
			return res
		}
		if s < len(st.src) && st.singleMatch(st.src[s], p, ep) {
			s++
		} else {
			return -1
		}
	}
}

func (st *state) startCapture(s, p, what int) int {
	level := st.level
	if level >= MaxCaptures {
		st.fail("too many captures")
	}
	st.capture[level] = capture{init: s, len: what}
	st.level = level + 1
	res := st.match(s, p)
	if res == -1 {
		st.level--
	}
	return res
}

func (st *state) endCapture(s, p int) int {
	l := st.captureToClose()
	st.capture[l].len = s - st.capture[l].init
	res := st.match(s, p)
	if res == -1 {
		st.capture[l].len = capUnfinished
	}
	return res
}

// matchCapture matches a back-reference %l at s. A position capture has no
// text: in Lua 5.1 its length (CAP_POSITION, -2) becomes a huge size_t, so
// the length check fails and there is no match.
func (st *state) matchCapture(s int, l byte) int {
	i := st.checkCapture(int(l))
	c := st.capture[i]
	if c.len >= 0 && len(st.src)-s >= c.len && st.src[c.init:c.init+c.len] == st.src[s:s+c.len] {
		return s + c.len
	}
	return -1
}

// match returns the end of the match of pat[p:] at src[s:], or -1.
func (st *state) match(s, p int) int {
	st.depth++
	if st.depth > maxDepth {
		st.fail("pattern too complex")
	}
	res := st.doMatch(s, p)
	st.depth--
	return res
}

func (st *state) doMatch(s, p int) int {
	for {
		st.step()
		if p >= len(st.pat) {
			return s
		}
		switch st.pat[p] {
		case '(':
			if st.p(p+1) == ')' {
				return st.startCapture(s, p+2, capPosition)
			}
			return st.startCapture(s, p+1, capUnfinished)
		case ')':
			return st.endCapture(s, p+1)
		case '$':
			if p+1 == len(st.pat) {
				if s == len(st.src) {
					return s
				}
				return -1
			}
		case '%':
			switch st.p(p + 1) {
			case 'b':
				s = st.matchBalance(s, p+2)
				if s == -1 {
					return -1
				}
				p += 4
				continue
			case 'f':
				p += 2
				if st.p(p) != '[' {
					st.fail("missing '[' after '%f' in pattern")
				}
				ep := st.classEnd(p)
				var prev byte
				if s > 0 {
					prev = st.src[s-1]
				}
				if st.matchBracketClass(prev, p, ep-1) || !st.matchBracketClass(st.at(s), p, ep-1) {
					return -1
				}
				p = ep
				continue
			default:
				if isdigit(st.p(p + 1)) {
					s = st.matchCapture(s, st.p(p+1))
					if s == -1 {
						return -1
					}
					p += 2
					continue
				}
			}
		}
		// default: a single-character class, maybe with a quantifier
		ep := st.classEnd(p)
		m := s < len(st.src) && st.singleMatch(st.src[s], p, ep)
		switch st.p(ep) {
		case '?':
			if m {
				if res := st.match(s+1, ep+1); res != -1 {
					return res
				}
			}
			p = ep + 1
			continue
		case '*':
			return st.maxExpand(s, p, ep)
		case '+':
			if m {
				return st.maxExpand(s+1, p, ep)
			}
			return -1
		case '-':
			return st.minExpand(s, p, ep)
		}
		if !m {
			return -1
		}
		s++
		p = ep
	}
}

// result returns the match src[s:e] with the captures of the last match.
func (st *state) result(s, e int) Match {
	m := Match{Start: s, End: e}
	if st.level > 0 {
		m.Captures = make([]Capture, st.level)
		for i, c := range st.capture[:st.level] {
			switch c.len {
			case capUnfinished:
				m.Captures[i] = Capture{Start: c.init, End: c.init, Open: true}
			case capPosition:
				m.Captures[i] = Capture{Start: c.init, End: c.init, Position: true}
			default:
				m.Captures[i] = Capture{Start: c.init, End: c.init + c.len}
			}
		}
	}
	return m
}
