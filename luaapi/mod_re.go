package luaapi

import (
	"fmt"
	"regexp"
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
	re, err := compileRegexp(pat)
	e := &regexpEntry{re: re, err: err}
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
func (v *vm) regexp(L *lua.LState, n int) *regexp.Regexp {
	pat := L.CheckString(n)
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
	return e.re
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

// re.find(s, pattern [, init]) -> start, end, captures... | nil
func (v *vm) reFind(L *lua.LState) int {
	s := L.CheckString(1)
	re := v.regexp(L, 2)
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
	loc := re.FindStringSubmatchIndex(s[init-1:])
	if loc == nil {
		L.Push(lua.LNil)
		return 1
	}
	off := init - 1
	L.Push(lua.LNumber(off + loc[0] + 1))
	L.Push(lua.LNumber(off + loc[1]))
	for i := 2; i+1 < len(loc); i += 2 {
		if loc[i] < 0 {
			L.Push(lua.LNil)
		} else {
			L.Push(lua.LString(s[off+loc[i] : off+loc[i+1]]))
		}
	}
	return len(loc)/2 + 1
}

// re.match(s, pattern) -> boolean
func (v *vm) reMatch(L *lua.LState) int {
	s := L.CheckString(1)
	re := v.regexp(L, 2)
	L.Push(lua.LBool(re.MatchString(s)))
	return 1
}

// re.gsub(s, pattern, repl [, n]) -> string, count
func (v *vm) reGsub(L *lua.LState) int {
	s := L.CheckString(1)
	re := v.regexp(L, 2)
	repl := L.CheckString(3)
	n := L.OptInt(4, -1)
	limit := v.pl.opts.MaxStringSize
	matches := re.FindAllStringSubmatchIndex(s, n)
	if len(matches) == 0 {
		L.Push(lua.LString(s))
		L.Push(lua.LNumber(0))
		return 2
	}
	var b []byte
	last := 0
	for _, m := range matches {
		b = append(b, s[last:m[0]]...)
		b = re.ExpandString(b, repl, s, m)
		last = m[1]
		if len(b) > limit {
			L.RaiseError("re.gsub: the result would be larger than %d bytes", limit)
		}
	}
	b = append(b, s[last:]...)
	if len(b) > limit {
		L.RaiseError("re.gsub: the result would be larger than %d bytes", limit)
	}
	L.Push(lua.LString(b))
	L.Push(lua.LNumber(len(matches)))
	return 2
}

// re.split(s, pattern [, n]) -> list
func (v *vm) reSplit(L *lua.LState) int {
	s := L.CheckString(1)
	re := v.regexp(L, 2)
	n := resultCap(L.OptInt(3, -1))
	parts := re.Split(s, n)
	t := L.CreateTable(len(parts), 0)
	t.Metatable = v.arrayMT
	for i, p := range parts {
		t.RawSetInt(i+1, lua.LString(p))
	}
	L.Push(t)
	return 1
}

// re.findall(s, pattern [, n]) -> list of matched strings
func (v *vm) reFindAll(L *lua.LState) int {
	s := L.CheckString(1)
	re := v.regexp(L, 2)
	n := resultCap(L.OptInt(3, -1))
	ms := re.FindAllString(s, n)
	t := L.CreateTable(len(ms), 0)
	t.Metatable = v.arrayMT
	for i, m := range ms {
		t.RawSetInt(i+1, lua.LString(m))
	}
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
