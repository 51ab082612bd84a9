package luaapi

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Lua patterns: string.find, match, gmatch and gsub.
//
// gopher-lua's matcher runs inside one VM instruction, so it cannot be
// interrupted: `string.find(("a"):rep(100).."c", ".-.-.-b")` backtracks for
// hundreds of milliseconds and longer subjects for hours, and its gsub
// copies the whole buffer per match (quadratic). These functions are a port
// of Lua 5.1's lstrlib.c matcher (with 5.2's recursion bound) that checks
// the call's stop reason every few thousand steps, builds gsub results
// linearly, and bounds them by Options.MaxStringSize. Semantics are Lua
// 5.1's, with two differences: a pattern may contain "\0", and a pattern
// more than 200 items deep fails with "pattern too complex".

const (
	patMaxCaptures = 32
	patMaxDepth    = 200
	patCheckSteps  = 4096
	capUnfinished  = -1
	capPosition    = -2
	patSpecials    = "^$*+?.([%-"
)

type patCapture struct {
	init, len int
}

type matchState struct {
	v        *vm
	L        *lua.LState
	src, pat string
	level    int
	depth    int
	steps    int
	capture  [patMaxCaptures]patCapture
}

func (ms *matchState) error(format string, args ...any) {
	ms.L.RaiseError("%s", fmt.Sprintf(format, args...))
}

func (ms *matchState) step() {
	ms.steps++
	if ms.steps%patCheckSteps == 0 && ms.v.ctx.stopped() {
		ms.L.RaiseError("%s", ms.v.ctx.stopErr().Error())
	}
}

// at returns the subject byte at i, 0 past the end (C's terminating NUL).
func (ms *matchState) at(i int) byte {
	if i < len(ms.src) {
		return ms.src[i]
	}
	return 0
}

// pat returns the pattern byte at i, 0 past the end.
func (ms *matchState) p(i int) byte {
	if i < len(ms.pat) {
		return ms.pat[i]
	}
	return 0
}

func (ms *matchState) checkCapture(l int) int {
	l -= '1'
	if l < 0 || l >= ms.level || ms.capture[l].len == capUnfinished {
		ms.error("invalid capture index")
	}
	return l
}

func (ms *matchState) captureToClose() int {
	for level := ms.level - 1; level >= 0; level-- {
		if ms.capture[level].len == capUnfinished {
			return level
		}
	}
	ms.error("invalid pattern capture")
	return 0
}

func (ms *matchState) classEnd(p int) int {
	c := ms.p(p)
	p++
	switch c {
	case '%':
		if p >= len(ms.pat) {
			ms.error("malformed pattern (ends with '%%')")
		}
		return p + 1
	case '[':
		if ms.p(p) == '^' {
			p++
		}
		for {
			if p >= len(ms.pat) {
				ms.error("malformed pattern (missing ']')")
			}
			c := ms.pat[p]
			p++
			if c == '%' && p < len(ms.pat) {
				p++
			}
			if ms.p(p) == ']' && p < len(ms.pat) {
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
func (ms *matchState) matchBracketClass(c byte, p, ec int) bool {
	sig := true
	if ms.p(p+1) == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		if ms.pat[p] == '%' {
			p++
			if matchClass(c, ms.p(p)) {
				return sig
			}
		} else if ms.p(p+1) == '-' && p+2 < ec {
			p += 2
			if ms.pat[p-2] <= c && c <= ms.pat[p] {
				return sig
			}
		} else if ms.pat[p] == c {
			return sig
		}
	}
	return !sig
}

func (ms *matchState) singleMatch(c byte, p, ep int) bool {
	switch ms.p(p) {
	case '.':
		return true
	case '%':
		return matchClass(c, ms.p(p+1))
	case '[':
		return ms.matchBracketClass(c, p, ep-1)
	}
	return ms.p(p) == c
}

func (ms *matchState) matchBalance(s, p int) int {
	if p+1 >= len(ms.pat) {
		ms.error("unbalanced pattern")
	}
	if s >= len(ms.src) || ms.src[s] != ms.pat[p] {
		return -1
	}
	b, e := ms.pat[p], ms.pat[p+1]
	cont := 1
	for s++; s < len(ms.src); s++ {
		ms.step()
		if ms.src[s] == e {
			cont--
			if cont == 0 {
				return s + 1
			}
		} else if ms.src[s] == b {
			cont++
		}
	}
	return -1
}

func (ms *matchState) maxExpand(s, p, ep int) int {
	i := 0
	for s+i < len(ms.src) && ms.singleMatch(ms.src[s+i], p, ep) {
		i++
		ms.step()
	}
	for ; i >= 0; i-- {
		if res := ms.match(s+i, ep+1); res != -1 {
			return res
		}
	}
	return -1
}

func (ms *matchState) minExpand(s, p, ep int) int {
	for {
		if res := ms.match(s, ep+1); res != -1 {
			return res
		}
		if s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep) {
			s++
		} else {
			return -1
		}
	}
}

func (ms *matchState) startCapture(s, p, what int) int {
	level := ms.level
	if level >= patMaxCaptures {
		ms.error("too many captures")
	}
	ms.capture[level] = patCapture{init: s, len: what}
	ms.level = level + 1
	res := ms.match(s, p)
	if res == -1 {
		ms.level--
	}
	return res
}

func (ms *matchState) endCapture(s, p int) int {
	l := ms.captureToClose()
	ms.capture[l].len = s - ms.capture[l].init
	res := ms.match(s, p)
	if res == -1 {
		ms.capture[l].len = capUnfinished
	}
	return res
}

func (ms *matchState) matchCapture(s int, l byte) int {
	i := ms.checkCapture(int(l))
	c := ms.capture[i]
	if len(ms.src)-s >= c.len && ms.src[c.init:c.init+c.len] == ms.src[s:s+c.len] {
		return s + c.len
	}
	return -1
}

// match returns the end of the match of pat[p:] at src[s:], or -1.
func (ms *matchState) match(s, p int) int {
	ms.depth++
	if ms.depth > patMaxDepth {
		ms.error("pattern too complex")
	}
	defer func() { ms.depth-- }()
	for {
		ms.step()
		if p >= len(ms.pat) {
			return s
		}
		switch ms.pat[p] {
		case '(':
			if ms.p(p+1) == ')' {
				return ms.startCapture(s, p+2, capPosition)
			}
			return ms.startCapture(s, p+1, capUnfinished)
		case ')':
			return ms.endCapture(s, p+1)
		case '$':
			if p+1 == len(ms.pat) {
				if s == len(ms.src) {
					return s
				}
				return -1
			}
		case '%':
			switch ms.p(p + 1) {
			case 'b':
				s = ms.matchBalance(s, p+2)
				if s == -1 {
					return -1
				}
				p += 4
				continue
			case 'f':
				p += 2
				if ms.p(p) != '[' {
					ms.error("missing '[' after '%%f' in pattern")
				}
				ep := ms.classEnd(p)
				var prev byte
				if s > 0 {
					prev = ms.src[s-1]
				}
				if ms.matchBracketClass(prev, p, ep-1) || !ms.matchBracketClass(ms.at(s), p, ep-1) {
					return -1
				}
				p = ep
				continue
			default:
				if isdigit(ms.p(p + 1)) {
					s = ms.matchCapture(s, ms.p(p+1))
					if s == -1 {
						return -1
					}
					p += 2
					continue
				}
			}
		}
		// default: a single-character class, maybe with a quantifier
		ep := ms.classEnd(p)
		m := s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep)
		switch ms.p(ep) {
		case '?':
			if m {
				if res := ms.match(s+1, ep+1); res != -1 {
					return res
				}
			}
			p = ep + 1
			continue
		case '*':
			return ms.maxExpand(s, p, ep)
		case '+':
			if m {
				return ms.maxExpand(s+1, p, ep)
			}
			return -1
		case '-':
			return ms.minExpand(s, p, ep)
		}
		if !m {
			return -1
		}
		s++
		p = ep
	}
}

// capture returns capture i of a match of src[s:e] as a Lua value.
func (ms *matchState) captureValue(i, s, e int) lua.LValue {
	if i >= ms.level {
		if i == 0 {
			return lua.LString(ms.src[s:e])
		}
		ms.error("invalid capture index")
	}
	c := ms.capture[i]
	switch c.len {
	case capUnfinished:
		ms.error("unfinished capture")
	case capPosition:
		return lua.LNumber(c.init + 1)
	}
	return lua.LString(ms.src[c.init : c.init+c.len])
}

// pushCaptures pushes the captures (or the whole match when there are
// none and wholeIfNone) and returns how many.
func (ms *matchState) pushCaptures(s, e int, wholeIfNone bool) int {
	n := ms.level
	if n == 0 && wholeIfNone {
		n = 1
	}
	for i := 0; i < n; i++ {
		ms.L.Push(ms.captureValue(i, s, e))
	}
	return n
}

// installPatterns installs the pattern-matching string functions.
func (v *vm) installPatterns(str, _ *lua.LTable) {
	L := v.L
	str.RawSetString("find", L.NewFunction(func(L *lua.LState) int { return v.strFindAux(L, true) }))
	str.RawSetString("match", L.NewFunction(func(L *lua.LState) int { return v.strFindAux(L, false) }))
	str.RawSetString("gmatch", L.NewFunction(v.strGmatch))
	str.RawSetString("gsub", L.NewFunction(v.strGsub))
}

func posrelat(pos, n int) int {
	if pos < 0 {
		return n + pos + 1
	}
	return pos
}

func (v *vm) strFindAux(L *lua.LState, find bool) int {
	s := L.CheckString(1)
	pat := L.CheckString(2)
	init := posrelat(L.OptInt(3, 1), len(s))
	if init < 1 {
		init = 1
	}
	if init > len(s)+1 { // Lua 5.2: no match past the end
		L.Push(lua.LNil)
		return 1
	}
	init--
	if find && (lua.LVAsBool(L.Get(4)) || !strings.ContainsAny(pat, patSpecials)) {
		if i := strings.Index(s[init:], pat); i >= 0 {
			L.Push(lua.LNumber(init + i + 1))
			L.Push(lua.LNumber(init + i + len(pat)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	anchor := strings.HasPrefix(pat, "^")
	if anchor {
		pat = pat[1:]
	}
	ms := &matchState{v: v, L: L, src: s, pat: pat}
	for s1 := init; ; s1++ {
		ms.level = 0
		if e := ms.match(s1, 0); e != -1 {
			if find {
				L.Push(lua.LNumber(s1 + 1))
				L.Push(lua.LNumber(e))
				return ms.pushCaptures(-1, -1, false) + 2
			}
			return ms.pushCaptures(s1, e, true)
		}
		if s1 >= len(s) || anchor {
			break
		}
	}
	L.Push(lua.LNil)
	return 1
}

// strGmatch is string.gmatch. As in gopher-lua, a leading '^' anchors the
// first match (Lua 5.1 would match a literal '^').
func (v *vm) strGmatch(L *lua.LState) int {
	s := L.CheckString(1)
	pat := L.CheckString(2)
	anchor := strings.HasPrefix(pat, "^")
	if anchor {
		pat = pat[1:]
	}
	pos := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		ms := &matchState{v: v, L: L, src: s, pat: pat}
		end := len(s)
		if anchor {
			end = min(pos, 0)
		}
		for src := pos; src <= end; src++ {
			ms.level = 0
			if e := ms.match(src, 0); e != -1 {
				pos = e
				if e == src {
					pos++
				}
				return ms.pushCaptures(src, e, true)
			}
		}
		pos = len(s) + 1
		return 0
	}))
	return 1
}

func (v *vm) strGsub(L *lua.LState) int {
	src := L.CheckString(1)
	pat := L.CheckString(2)
	repl := L.Get(3)
	switch repl.Type() {
	case lua.LTNumber, lua.LTString, lua.LTFunction, lua.LTTable:
	default:
		L.ArgError(3, "string/function/table expected")
	}
	maxS := L.OptInt(4, len(src)+1)
	anchor := strings.HasPrefix(pat, "^")
	if anchor {
		pat = pat[1:]
	}
	limit := v.pl.opts.MaxStringSize
	ms := &matchState{v: v, L: L, src: src, pat: pat}
	var b strings.Builder
	grow := func(n int) {
		if b.Len()+n > limit {
			L.RaiseError("string.gsub: the result would be larger than %d bytes", limit)
		}
	}
	replStr := ""
	if repl.Type() == lua.LTString || repl.Type() == lua.LTNumber {
		replStr = lua.LVAsString(repl)
	}
	s, n := 0, 0
	for n < maxS {
		ms.level = 0
		e := ms.match(s, 0)
		if e != -1 {
			n++
			v.gsubAddValue(ms, &b, grow, repl, replStr, s, e)
		}
		if e != -1 && e > s {
			s = e
		} else if s < len(src) {
			grow(1)
			b.WriteByte(src[s])
			s++
		} else {
			break
		}
		if anchor {
			break
		}
	}
	grow(len(src) - s)
	b.WriteString(src[s:])
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(n))
	return 2
}

func (v *vm) gsubAddValue(ms *matchState, b *strings.Builder, grow func(int), repl lua.LValue, news string, s, e int) {
	L := ms.L
	var val lua.LValue
	switch r := repl.(type) {
	case lua.LString, lua.LNumber:
		for i := 0; i < len(news); i++ {
			c := news[i]
			if c != '%' {
				grow(1)
				b.WriteByte(c)
				continue
			}
			i++
			if i >= len(news) {
				break
			}
			c = news[i]
			switch {
			case !isdigit(c):
				grow(1)
				b.WriteByte(c)
			case c == '0':
				grow(e - s)
				b.WriteString(ms.src[s:e])
			default:
				cv := ms.captureValue(int(c-'1'), s, e)
				cs := lua.LVAsString(cv)
				if n, ok := cv.(lua.LNumber); ok {
					cs = strconv.Itoa(int(n))
				}
				grow(len(cs))
				b.WriteString(cs)
			}
		}
		return
	case *lua.LFunction:
		top := L.GetTop()
		L.Push(r)
		n := ms.pushCaptures(s, e, true)
		L.Call(n, 1)
		val = L.Get(-1)
		L.SetTop(top)
	case *lua.LTable:
		val = L.GetTable(r, ms.captureValue(0, s, e))
	}
	switch x := val.(type) {
	case *lua.LNilType:
		grow(e - s)
		b.WriteString(ms.src[s:e])
	case lua.LBool:
		if !bool(x) {
			grow(e - s)
			b.WriteString(ms.src[s:e])
			return
		}
		L.RaiseError("invalid replacement value (a boolean)")
	case lua.LString:
		grow(len(x))
		b.WriteString(string(x))
	case lua.LNumber:
		str := x.String()
		grow(len(str))
		b.WriteString(str)
	default:
		L.RaiseError("invalid replacement value (a %s)", val.Type().String())
	}
}
