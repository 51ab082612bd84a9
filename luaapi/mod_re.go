package luaapi

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"
)

// MaxPatternSize bounds the length of an RE2 pattern given to the re module
// or a hook matcher.
const MaxPatternSize = 4096

const (
	reCacheSize = 512 // patterns cached per pool
	reLocalSize = 64  // patterns memoised per VM, without locking
)

type regexpEntry struct {
	re  *regexp.Regexp
	err error
	// insts is the size of the compiled program: Go's matcher does at
	// most that many steps per byte of input (see remain.go).
	insts int
	// backward is set when the program looks at the rune before a
	// position (^, \b, \B): a search from an offset then needs it.
	backward bool
	// prefix is a literal every match begins with ("" if none); complete
	// is set when the pattern is that literal.
	prefix   string
	complete bool
	// lits: literals one of which every match holds (nil: none known)
	lits *litSet

	ctxOnce sync.Once
	ctxRe   *regexp.Regexp // see ctx
}

// newRegexpEntry compiles pat and measures its program.
func newRegexpEntry(pat string) *regexpEntry {
	re, err := compileRegexp(pat)
	e := &regexpEntry{re: re, err: err}
	if err != nil {
		return e
	}
	e.prefix, e.complete = re.LiteralPrefix()
	e.insts, e.backward = 1<<16, true // unknown: assume the worst
	if sre, err := syntax.Parse(pat, syntax.Perl); err == nil {
		if e.prefix == "" {
			e.lits = newLitSet(sre)
		}
		if prog, err := syntax.Compile(sre.Simplify()); err == nil {
			e.insts = max(len(prog.Inst), 1)
			e.backward = looksBack(prog)
		}
	}
	if e.backward && len(pat) >= ctxCheckSize {
		if err := ctxError(pat); err != nil {
			return &regexpEntry{err: err}
		}
	}
	return e
}

// looksBack reports whether prog looks at the rune before a position (^,
// \b, \B): a search from an offset then needs it.
func looksBack(prog *syntax.Prog) bool {
	for _, in := range prog.Inst {
		if in.Op == syntax.InstEmptyWidth && syntax.EmptyOp(in.Arg)&(syntax.EmptyBeginLine|syntax.EmptyBeginText|syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0 {
			return true
		}
	}
	return false
}

// ctxError returns the error of a pattern whose ctx expression does not
// parse: it nests the pattern a few levels deeper, so a pattern just under
// RE2's nesting limit compiles but that would not, and ctx must not fail
// (it is made on first use, for every VM of the pool).
func ctxError(pat string) error {
	_, err := syntax.Parse(ctxPattern(pat), syntax.Perl)
	if err == nil {
		return nil
	}
	msg := err.Error()
	var se *syntax.Error
	if errors.As(err, &se) {
		msg = se.Code.String()
	}
	return fmt.Errorf("bad RE2 pattern: %s (searched after its first match)", msg)
}

// ctxCheckSize is the length from which newRegexpEntry checks that ctx's
// expression parses: each level of nesting costs a byte of the pattern at
// least, and RE2's limit is 1000 levels.
const ctxCheckSize = 900

// ctxPattern is the expression of regexpEntry.ctx for pattern pat.
func ctxPattern(pat string) string { return `\A(?s:.)(?s:.*?)(` + pat + `)` }

// ctx returns the pattern that searches, in a text that starts one rune
// before the position of interest, for the leftmost match of the pattern
// at or after that position: \A(?s:.)(?s:.*?)(pattern). The skipped rune
// gives ^, \b and \B the context of the whole subject; the pattern's
// match is group 1, its groups follow.
func (e *regexpEntry) ctx() *regexp.Regexp {
	e.ctxOnce.Do(func() {
		e.ctxRe = regexp.MustCompile(ctxPattern(e.re.String())) // checked by newRegexpEntry
	})
	return e.ctxRe
}

// reCache is the pool-wide cache of compiled patterns, shared by the VMs of
// a pool (compiled regexps are safe for concurrent use). It is bounded: when
// full, an arbitrary entry is evicted.
type reCache struct {
	m    sync.Map // string -> *regexpEntry
	n    atomic.Int64
	max  int64
	evMu sync.Mutex
}

func newReCache(max int) *reCache { return &reCache{max: int64(max)} }

func (c *reCache) get(pat string) *regexpEntry {
	if e, ok := c.m.Load(pat); ok {
		return e.(*regexpEntry)
	}
	e := newRegexpEntry(pat)
	if c.n.Load() >= c.max {
		c.evMu.Lock()
		c.m.Range(func(k, _ any) bool {
			if _, loaded := c.m.LoadAndDelete(k); loaded {
				c.n.Add(-1)
			}
			return c.n.Load() >= c.max
		})
		c.evMu.Unlock()
	}
	if actual, loaded := c.m.LoadOrStore(pat, e); loaded {
		return actual.(*regexpEntry)
	}
	c.n.Add(1)
	return e
}

func compileRegexp(pat string) (*regexp.Regexp, error) {
	if len(pat) > MaxPatternSize {
		return nil, fmt.Errorf("pattern of %d bytes is longer than %d", len(pat), MaxPatternSize)
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, fmt.Errorf("bad RE2 pattern: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, nil
}

// regexp returns the compiled pattern at argument n, raising a Lua error for
// a bad pattern.
func (v *vm) regexp(L *lua.LState, n int) *regexpEntry {
	pat := L.CheckString(n)
	if e := v.reLast; e != nil && pat == v.reLastPat {
		// The pattern of the last search: a script passes the same
		// constant (the same string) call after call, which compares
		// equal by its pointer without hashing it (BenchmarkLuaGuardPeers).
		return e
	}
	e, ok := v.reLocal[pat]
	if !ok {
		e = v.pl.recach.get(pat)
		if len(v.reLocal) >= reLocalSize {
			clear(v.reLocal)
		}
		v.reLocal[pat] = e
	}
	if e.err != nil {
		L.RaiseError("%s", e.err.Error())
	}
	v.reLastPat, v.reLast = pat, e
	return e
}

func (v *vm) reModule() *lua.LTable {
	return v.funcs(map[string]lua.LGFunction{
		"find":    v.reFind,
		"match":   v.reMatch,
		"gsub":    v.reGsub,
		"split":   v.reSplit,
		"findall": v.reFindAll,
		"quote":   v.reQuote,
	})
}

// funcs builds a module table.
func (v *vm) funcs(m map[string]lua.LGFunction) *lua.LTable {
	t := v.L.CreateTable(0, len(m))
	for name, f := range m {
		t.RawSetString(name, v.L.NewFunction(f))
	}
	return t
}

// The matching functions below bound their work by the call's deadline:
// see remain.go. Each raises "stopped" when the call must stop (the call's
// outcome is then its stop reason, whatever the script does with the
// error).

// re.find(s, pattern [, init]) -> start, end, captures... | nil
func (v *vm) reFind(L *lua.LState) int {
	s := L.CheckString(1)
	e := v.regexp(L, 2)
	init := L.OptInt(3, 1)
	if init < 0 {
		init = len(s) + init + 1
	}
	if init < 1 {
		init = 1
	}
	if init > len(s)+1 {
		L.Push(lua.LNil)
		return 1
	}
	sub := s[init-1:]
	loc := v.searchOrRaise(L, e, sub, 0)
	if loc == nil {
		L.Push(lua.LNil)
		return 1
	}
	off := init - 1
	L.Push(luaInt(off + loc[0] + 1))
	L.Push(luaInt(off + loc[1]))
	for i := 2; i+1 < len(loc); i += 2 {
		if loc[i] < 0 {
			L.Push(lua.LNil)
		} else {
			L.Push(ownString(sub[loc[i]:loc[i+1]], s))
		}
	}
	return len(loc)/2 + 1
}

// re.match(s, pattern) -> boolean
func (v *vm) reMatch(L *lua.LState) int {
	s := L.CheckString(1)
	e := v.regexp(L, 2)
	if e.complete || v.direct(e, len(s)) {
		L.Push(lua.LBool(e.re.MatchString(s))) // allocates nothing
		return 1
	}
	L.Push(lua.LBool(v.searchOrRaise(L, e, s, 0) != nil))
	return 1
}

// searchOrRaise is search raising the stop.
func (v *vm) searchOrRaise(L *lua.LState, e *regexpEntry, s string, pos int) []int {
	loc, stopped := v.search(e, s, pos)
	if stopped {
		L.RaiseError("%s", errStopped.Error())
	}
	return loc
}

// allMatchesOrRaise is allMatches raising the stop.
func (v *vm) allMatchesOrRaise(L *lua.LState, e *regexpEntry, s string, n int, deliver func([]int) error) {
	if err := v.allMatches(e, s, n, deliver); err != nil {
		L.RaiseError("%s", err.Error())
	}
}

// re.gsub(s, pattern, repl [, n]) -> string, count
func (v *vm) reGsub(L *lua.LState) int {
	s := L.CheckString(1)
	e := v.regexp(L, 2)
	repl := L.CheckString(3)
	n := L.OptInt(4, -1)
	limit := v.pl.opts.MaxStringSize
	var b []byte
	last, count := 0, 0
	v.allMatchesOrRaise(L, e, s, n, func(m []int) error {
		b = append(b, s[last:m[0]]...)
		b = e.re.ExpandString(b, repl, s, m)
		last = m[1]
		count++
		if len(b) > limit {
			return fmt.Errorf("re.gsub: the result would be larger than %d bytes", limit)
		}
		return nil
	})
	if count == 0 {
		L.Push(lua.LString(s))
		L.Push(lua.LNumber(0))
		return 2
	}
	b = append(b, s[last:]...)
	if len(b) > limit {
		L.RaiseError("re.gsub: the result would be larger than %d bytes", limit)
	}
	L.Push(lua.LString(b))
	L.Push(luaInt(count))
	return 2
}

// re.split(s, pattern [, n]) -> list, as Go's regexp.Split
func (v *vm) reSplit(L *lua.LState) int {
	s := L.CheckString(1)
	e := v.regexp(L, 2)
	n := resultCap(L.OptInt(3, -1))
	t := L.CreateTable(0, 0)
	t.Metatable = v.arrayMT
	parts := 0
	add := func(p string) {
		parts++
		t.RawSetInt(parts, ownString(p, s))
	}
	if n == 0 {
		L.Push(t)
		return 1
	}
	if len(e.re.String()) > 0 && len(s) == 0 {
		add("")
		L.Push(t)
		return 1
	}
	beg, end := 0, 0
	done := errors.New("done")
	err := v.allMatches(e, s, n, func(m []int) error {
		if parts == n-1 {
			return done
		}
		end = m[0]
		if m[1] != 0 {
			add(s[beg:end])
		}
		beg = m[1]
		return nil
	})
	if err != nil && err != done {
		L.RaiseError("%s", err.Error())
	}
	if end != len(s) {
		add(s[beg:])
	}
	L.Push(t)
	return 1
}

// re.findall(s, pattern [, n]) -> list of matched strings
func (v *vm) reFindAll(L *lua.LState) int {
	s := L.CheckString(1)
	e := v.regexp(L, 2)
	n := resultCap(L.OptInt(3, -1))
	t := L.CreateTable(0, 0)
	t.Metatable = v.arrayMT
	i := 0
	v.allMatchesOrRaise(L, e, s, n, func(m []int) error {
		i++
		t.RawSetInt(i, ownString(s[m[0]:m[1]], s))
		return nil
	})
	L.Push(t)
	return 1
}

// re.quote(s) -> s with every RE2 metacharacter escaped
func (v *vm) reQuote(L *lua.LState) int {
	L.Push(lua.LString(regexp.QuoteMeta(L.CheckString(1))))
	return 1
}

// resultCap bounds the number of results of re.split and re.findall, so
// that the list stays a Lua sequence (see MaxArrayIndex).
func resultCap(n int) int {
	if n < 0 || n >= MaxArrayIndex {
		return MaxArrayIndex - 1
	}
	return n
}
