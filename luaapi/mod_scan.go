package luaapi

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/monad-hooks/monad-hooks/luaapi/ahocorasick"
	lua "github.com/yuin/gopher-lua"
)

// The Lua module scan (require("scan")): keyword search in one pass over a
// text, whatever the number of keywords (an Aho-Corasick automaton, see
// package ahocorasick), for the prefilters of guards and the candidate
// search of redaction rules. What it compiles is built once per pool (a
// cache keyed by the lists and options) and shared by the pool's VMs; a
// script gets it as a userdata with methods. scan.keywords and scan.rules
// only check what they are given (a bad list or expression is an error of
// the call, hence of the script's load); a set's automaton and a rule's
// expressions are built the first time a search needs them, once per pool
// (a one-shot `monad-hooks run` builds only what its input reaches).
//
//	scan.keywords(list [, {token = "[class]"}]) -> set
//	    list: non-empty strings. With token, an RE2 character class, an
//	    occurrence counts only where it begins a token: at the start of
//	    the text or after a byte the class does not match.
//	set:find(s [, init]) -> start, end, keyword | nil
//	    The occurrence that ends first (the longest of those that end at
//	    the same byte) in s from init (1-based, default 1) on.
//	scan.config_names() -> set
//	    The names of the host's guard rails (path.config()), lowercased:
//	    each file's base name, and each folder's name and ".lua" (its
//	    scripts); a set that finds nothing when there are none. A
//	    prefilter built with it depends on path.config() without the
//	    script reading it (see Record: a pool planned from a Record
//	    makes the set from its own Options.ConfigPaths).
//	scan.any(list [, {lower = true, drop = "bytes"}]) -> test
//	    list: keyword sets, RE2 expressions (strings) and other tests.
//	    With lower, they search string.lower of the text; with drop, the
//	    text without the bytes of drop (after lower).
//	test:test(s) -> boolean
//	    Whether one of them finds something in s: a keyword of a set
//	    (where a token begins, for a set with token), a match of an
//	    expression, a test that is true. A keyword set or a test is also
//	    what hook{ prefilter = ... } takes (see the package doc).
//	scan.rules(list) -> rules
//	    The redaction rules of stdlib's monad.redact, as data (see
//	    readScanRule): keywords, expressions and how each runs.
//	scan.entropy(s) -> number
//	    The Shannon entropy of s, in bits per byte.
//	rules:candidates(s) -> spans, wanted
//	    spans: a flat list start1, end1, rule1, start2, ... of the values
//	    the rules' expressions find (before any check of their value); wanted: the
//	    indexes of the rules left to Lua (lua = true) whose words occur.
//
// Both search functions poll the call's stop flag between blocks of text
// and raise "stopped" when the call must stop, as the re functions do.
// A rule whose value is at least a few bytes long and whose match is
// bounded runs its expression only where a value can begin (scanGate, in
// mod_scan_fast.go), with the same candidates as a search of the text.

const (
	scanCacheSize  = 64      // compiled sets and rule sets per pool
	maxScanItems   = 1 << 14 // keywords of a set, rules of a rule set
	scanBlock      = 64 << 10
	maxHits        = 4096 // keyword positions a rule examines one by one
	maxWindowHits  = 1024 // positions a window rule examines one by one
	identReach     = 64   // bytes of an identifier around an assignment's word
	defaultBack    = 128
	defaultAhead   = 640
	scanKeywordsMT = "scan.keywords"
	scanRulesMT    = "scan.rules"
	scanAnyMT      = "scan.any"
)

// The indexes of the scan module's metatables in vm.scanMTs.
const (
	scanKeywordsIdx = iota
	scanRulesIdx
	scanAnyIdx
)

// scanCache holds what scan compiled for a pool, by key; it is bounded
// (beyond scanCacheSize entries, compiling is not cached).
type scanCache struct {
	mu sync.Mutex
	m  map[string]any
}

func (c *scanCache) get(key string, build func() (any, error)) (any, error) {
	c.mu.Lock()
	x, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return x, nil
	}
	x, err := build()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if y, ok := c.m[key]; ok {
		return y, nil
	}
	if c.m == nil {
		c.m = map[string]any{}
	}
	if len(c.m) < scanCacheSize {
		c.m[key] = x
	}
	return x, nil
}

func (v *vm) scanModule() *lua.LTable {
	L := v.L
	mt := func(name string, methods map[string]lua.LGFunction) *lua.LTable {
		t := L.CreateTable(0, 3)
		t.RawSetString("__index", v.funcs(methods))
		t.RawSetString("__metatable", lua.LString(name))
		t.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
			L.RaiseError("cannot modify a %s value", name)
			return 0
		}))
		return t
	}
	v.scanMTs = []*lua.LTable{
		scanKeywordsIdx: mt(scanKeywordsMT, map[string]lua.LGFunction{"find": v.scanFind}),
		scanRulesIdx:    mt(scanRulesMT, map[string]lua.LGFunction{"candidates": v.scanCandidates}),
		scanAnyIdx:      mt(scanAnyMT, map[string]lua.LGFunction{"test": v.scanTest}),
	}
	return v.funcs(map[string]lua.LGFunction{
		"keywords":     v.scanKeywords,
		"config_names": v.scanConfigNames,
		"rules":        v.scanRules,
		"any":          v.scanAny,
		"entropy":      scanEntropy,
	})
}

// scan.entropy(s) -> the Shannon entropy of s in bits per byte. It is
// computed as the Lua loop it replaces was (a count per byte in a table,
// then h = h - p * math.log(p) / math.log(2) over pairs of the counts:
// bytes 1 to 255 in order, then 0), so that a threshold compares the same
// float.
func scanEntropy(L *lua.LState) int {
	s := L.CheckString(1)
	if len(s) == 0 {
		L.Push(lua.LNumber(0))
		return 1
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	add := func(c int) {
		if c > 0 {
			p := float64(c) / n
			t := float64(p * math.Log(p))
			h = h - t/math.Log(2)
		}
	}
	for b := 1; b < 256; b++ {
		add(counts[b])
	}
	add(counts[0])
	L.Push(lua.LNumber(h))
	return 1
}

// cacheKey appends parts to b, each prefixed by its length.
func cacheKey(b *strings.Builder, parts ...string) {
	for _, p := range parts {
		b.WriteString(strconv.Itoa(len(p)))
		b.WriteByte(':')
		b.WriteString(p)
	}
}

// luaStrings reads t[1..#t] as non-empty strings; what names the list in
// errors.
func (v *vm) luaStrings(L *lua.LState, t *lua.LTable, what string) []string {
	t = v.unwrap(t)
	n := t.Len()
	if n > maxScanItems {
		L.RaiseError("%s: more than %d entries", what, maxScanItems)
	}
	out := make([]string, 0, n)
	for i := 1; i <= n; i++ {
		s, ok := t.RawGetInt(i).(lua.LString)
		if !ok || s == "" {
			L.RaiseError("%s[%d]: want a non-empty string", what, i)
		}
		if len(s) > MaxPatternSize {
			L.RaiseError("%s[%d]: longer than %d bytes", what, i, MaxPatternSize)
		}
		out = append(out, string(s))
	}
	return out
}

// A kwSet is a compiled scan.keywords set. Its automaton is built the
// first time a search needs it: a guard's top level makes sets for
// prefilters that most inputs never reach, and building them all was a
// tenth of `monad-hooks run BeforeTool` (BenchmarkCLIRun). scan.keywords
// checked that it builds (ahocorasick.Check).
type kwSet struct {
	words []string
	class string // the token class as given ("": none), for a Record
	// config: the set of scan.config_names(), made from
	// Options.ConfigPaths (a Record keeps it as such, not its words)
	config bool
	token  *[256]bool // bytes of a token; nil: no token rule

	once     sync.Once
	m        *ahocorasick.Matcher
	err      error
	built    *atomic.Int64 // the pool's count of built automata
	searches atomic.Int32  // searches so far, up to past naiveSearches (see first)
}

// matcher returns the set's automaton, building it on first use. An error
// (never, after ahocorasick.Check) is the caller's to fail closed on.
func (set *kwSet) matcher() (*ahocorasick.Matcher, error) {
	set.once.Do(func() {
		set.m, set.err = ahocorasick.New(set.words)
		set.built.Add(1)
	})
	return set.m, set.err
}

// byteClass returns the bytes the RE2 character class cls matches, as a
// one-byte string each.
func byteClass(cls string) (*[256]bool, error) {
	pat := `\A(?:` + cls + `)\z`
	// A character class is read from its ranges: compiling it and matching
	// 256 strings was a hundredth of monad-hooks run (BenchmarkCLIRun). A
	// one-byte string of a byte past ASCII is not UTF-8, which Go's
	// matcher reads as U+FFFD.
	if re, err := syntax.Parse(cls, syntax.Perl); err == nil && re.Op == syntax.OpCharClass && len(pat) <= MaxPatternSize {
		var in [256]bool
		for b := range 256 {
			r := rune(b)
			if b >= utf8.RuneSelf {
				r = utf8.RuneError
			}
			in[b] = classHas(re.Rune, r)
		}
		return &in, nil
	}
	return byteClassMatched(pat)
}

// classHas reports whether r is in ranges, syntax.Regexp.Rune's pairs of
// bounds.
func classHas(ranges []rune, r rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] <= r && r <= ranges[i+1] {
			return true
		}
	}
	return false
}

// byteClassMatched is byteClass by matching each byte with the pattern pat.
func byteClassMatched(pat string) (*[256]bool, error) {
	re, err := compileRegexp(pat)
	if err != nil {
		return nil, err
	}
	var in [256]bool
	for b := range 256 {
		in[b] = re.MatchString(string([]byte{byte(b)}))
	}
	return &in, nil
}

// scan.keywords(list [, opts]) -> set
func (v *vm) scanKeywords(L *lua.LState) int {
	words := v.luaStrings(L, L.CheckTable(1), "scan.keywords")
	token := ""
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		opts := v.unwrap(L.CheckTable(2))
		opts.ForEach(func(k, val lua.LValue) {
			if k != lua.LString("token") {
				L.ArgError(2, fmt.Sprintf("unknown option %s", k.String()))
			}
		})
		if t, ok := opts.RawGetString("token").(lua.LString); ok {
			token = string(t)
		} else if opts.RawGetString("token") != lua.LNil {
			L.ArgError(2, "token: want an RE2 character class")
		}
	}
	set, err := v.pl.keywordSet(words, token)
	return v.pushScanValue(L, "scan.keywords", set, err, scanKeywordsIdx)
}

// scan.config_names() -> set
func (v *vm) scanConfigNames(L *lua.LState) int {
	set, err := v.pl.configNames()
	return v.pushScanValue(L, "scan.config_names", set, err, scanKeywordsIdx)
}

// configNames returns the pool's set of scan.config_names(), made once.
func (pl *plan) configNames() (*kwSet, error) {
	x, err := pl.scans.get("c", func() (any, error) {
		var words []string
		add := func(w string) {
			if w != "" && !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
		for _, p := range pl.opts.ConfigPaths {
			p = strings.ToLower(filepath.ToSlash(p))
			dir, folder := strings.CutSuffix(p, "/")
			if folder {
				p = dir
			}
			add(p[strings.LastIndexByte(p, '/')+1:])
			if folder {
				add(".lua")
			}
		}
		if len(words) > 0 {
			if err := ahocorasick.Check(words); err != nil {
				return nil, err
			}
		}
		return &kwSet{words: words, config: true, built: &pl.work.automata}, nil
	})
	if err != nil {
		return nil, err
	}
	return x.(*kwSet), nil
}

// keywordSet returns the pool's set of words with the token class token
// ("": none), made once per pool (scan.keywords, and the prefilters of a
// pool planned from Records).
func (pl *plan) keywordSet(words []string, token string) (*kwSet, error) {
	var key strings.Builder
	key.WriteString("k")
	cacheKey(&key, token)
	cacheKey(&key, words...)
	x, err := pl.scans.get(key.String(), func() (any, error) {
		if err := ahocorasick.Check(words); err != nil {
			return nil, err
		}
		set := &kwSet{words: words, class: token, built: &pl.work.automata}
		if token != "" {
			var err error
			if set.token, err = byteClass(token); err != nil {
				return nil, fmt.Errorf("token: %w", err)
			}
		}
		return set, nil
	})
	if err != nil {
		return nil, err
	}
	return x.(*kwSet), nil
}

// pushScanValue pushes what scan compiled as a userdata with the
// metatable scanMTs[mt], or raises err naming fn.
func (v *vm) pushScanValue(L *lua.LState, fn string, x any, err error, mt int) int {
	if err != nil {
		L.RaiseError("%s: %s", fn, err.Error())
	}
	ud := L.NewUserData()
	ud.Value = x
	ud.Metatable = v.scanMTs[mt]
	L.Push(ud)
	return 1
}

// scanText runs m over text[from:] block by block, polling the stop flag
// between blocks (raising it).
func (v *vm) scanText(L *lua.LState, m *ahocorasick.Matcher, text string, from int, emit func(start, k int) bool) {
	if scanBlocks(m, text, from, v.blockPoll, emit) {
		L.RaiseError("%s", errStopped.Error())
	}
}

// blockPoll counts a block of n bytes the scan module is about to search
// and reports whether the call must stop.
func (v *vm) blockPoll(n int) bool {
	if v.ctx.stopped() {
		return true
	}
	v.pl.work.scanBytes.Add(int64(n))
	return false
}

// scanBlocks runs m over text[from:] block by block, asking stop (with the
// size of the block) before each: it reports whether stop said to stop.
func scanBlocks(m *ahocorasick.Matcher, text string, from int, stop func(n int) bool, emit func(start, k int) bool) (stopped bool) {
	state := int32(0)
	for lo := from; lo < len(text); lo += scanBlock {
		hi := min(lo+scanBlock, len(text))
		if stop(hi - lo) {
			return true
		}
		var done bool
		state, done = m.Scan(text, lo, hi, state, emit)
		if !done {
			return false
		}
	}
	return false
}

// A set's first searches of a short text look for each keyword with
// strings.Index instead of building the automaton: a one-shot `monad-hooks
// run` searches each prefilter set once or twice in a command of a few
// dozen bytes, which costs microseconds that way and up to a millisecond
// per set to build the automaton (BenchmarkCLIRun). Past naiveSearches
// searches (a long-lived engine), or for a longer text, or once the bytes
// searched reach naiveBudget, the automaton runs; both give the same
// occurrence (TestNaiveFirstIsTheAutomatons).
const (
	naiveSearches = 8
	naiveMaxText  = 512
	naiveBudget   = 1 << 17
)

// first returns where the first occurrence of a keyword of set begins in
// text from from on (see set:find) and its index, or -1; stopped reports
// that stop said to stop (see scanBlocks).
func (set *kwSet) first(text string, from int, stop func(n int) bool) (start, word int, stopped bool, err error) {
	if len(set.words) == 0 { // scan.config_names() without guard rails
		return -1, -1, false, nil
	}
	if n := len(text) - from; n <= naiveMaxText && set.searches.Load() < naiveSearches && set.searches.Add(1) <= naiveSearches {
		if n <= 0 {
			return -1, -1, false, nil
		}
		if stop(n) { // one block, as scanBlocks would ask
			return -1, -1, true, nil
		}
		if start, word, ok := set.firstNaive(text, from); ok {
			return start, word, false, nil
		}
		return set.firstAutomaton(text, from, func(int) bool { return false })
	}
	return set.firstAutomaton(text, from, stop)
}

// firstAutomaton is first by the set's automaton.
func (set *kwSet) firstAutomaton(text string, from int, stop func(n int) bool) (start, word int, stopped bool, err error) {
	start, word = -1, -1
	m, err := set.matcher()
	if err != nil {
		return start, word, false, err
	}
	stopped = scanBlocks(m, text, from, stop, func(at, k int) bool {
		if set.token != nil && at > 0 && set.token[text[at-1]] {
			return true
		}
		start, word = at, k
		return false
	})
	return start, word, stopped, nil
}

// firstNaive is first by strings.Index, keyword by keyword: the
// occurrence (counted where it may begin, see token) that ends first, the
// longest of those, the lowest index of equal keywords, as the automaton
// reports it. ok is false when the bytes searched would pass naiveBudget.
func (set *kwSet) firstNaive(text string, from int) (start, word int, ok bool) {
	start, word = -1, -1
	bestEnd, bestLen, work := len(text)+1, 0, 0
	for k, w := range set.words {
		for off := from; off < len(text); {
			if work += len(text) - off; work > naiveBudget {
				return -1, -1, false
			}
			i := strings.Index(text[off:], w)
			if i < 0 {
				break
			}
			at := off + i
			end := at + len(w)
			if end > bestEnd {
				break // a later occurrence ends later still
			}
			if set.token == nil || at == 0 || !set.token[text[at-1]] {
				if end < bestEnd || len(w) > bestLen {
					start, word, bestEnd, bestLen = at, k, end, len(w)
				}
				break
			}
			off = at + 1
		}
	}
	return start, word, true
}

// lowerText is strings.ToLower(s) (string.lower), block by block at rune
// boundaries (the same result: Go lowercases rune by rune), polling the
// stop flag between blocks (raising it).
func (v *vm) lowerText(L *lua.LState, s string) string {
	var b strings.Builder
	for lo := 0; lo < len(s); {
		if v.ctx.stopped() {
			L.RaiseError("%s", errStopped.Error())
		}
		hi := min(lo+scanBlock, len(s))
		for k := 0; k < utf8.UTFMax && hi < len(s) && !utf8.RuneStart(s[hi]); k++ {
			hi--
		}
		block := s[lo:hi]
		low := strings.ToLower(block)
		if b.Len() == 0 && low != block {
			b.Grow(len(s))
			b.WriteString(s[:lo])
		}
		if b.Len() > 0 || low != block {
			b.WriteString(low)
		}
		v.pl.work.scanBytes.Add(int64(hi - lo))
		lo = hi
	}
	if b.Len() == 0 && len(s) > 0 {
		return s
	}
	return b.String()
}

// set:find(s [, init]) -> start, end, keyword | nil
func (v *vm) scanFind(L *lua.LState) int {
	set, ok := L.CheckUserData(1).Value.(*kwSet)
	if !ok {
		L.ArgError(1, "want a scan.keywords set")
	}
	s := L.CheckString(2)
	init := L.OptInt(3, 1)
	if init < 0 {
		init = len(s) + init + 1
	}
	init = max(init, 1)
	start, word, stopped, err := set.first(s, init-1, v.blockPoll)
	switch {
	case err != nil:
		L.RaiseError("set:find: %s", err.Error())
	case stopped:
		L.RaiseError("%s", errStopped.Error())
	case start < 0:
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LNumber(start + 1))
	L.Push(lua.LNumber(start + len(set.words[word])))
	L.Push(lua.LString(set.words[word]))
	return 3
}

// maxTestDepth bounds the nesting of scan.any tests, maxDropBytes the
// bytes of its drop option.
const (
	maxTestDepth = 16
	maxDropBytes = 32
)

// dropBytes returns s without the bytes drop holds (s itself when it has
// none).
func dropBytes(s string, drop *[256]bool) string {
	i := 0
	for i < len(s) && !drop[s[i]] {
		i++
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, i, len(s))
	copy(b, s[:i])
	for ; i < len(s); i++ {
		if !drop[s[i]] {
			b = append(b, s[i])
		}
	}
	return string(b)
}

// A scanTest is a compiled scan.any test: its items in the order given,
// each a keyword set, an RE2 expression or a nested test. It is immutable,
// so a hook's prefilter is shared by the pool's VMs and searched without
// one (see Hook.skips).
type scanTest struct {
	lower bool
	drop  *[256]bool // bytes removed from the text before searching; nil: none
	items []testItem
	depth int // 1 + the depth of the deepest nested test
}

type testItem struct {
	set  *kwSet
	re   *regexpEntry
	test *scanTest
}

// A tester is how a scanTest searches: in a handler, polling the call's
// stop flag (raising it), or outside any call (a hook's prefilter).
type tester interface {
	lower(s string) string
	find(set *kwSet, s string) bool
	match(e *regexpEntry, s string) bool
}

// test reports whether an item of t finds something in s.
func (t *scanTest) test(s string, by tester) bool {
	if t.lower {
		s = by.lower(s)
	}
	if t.drop != nil {
		s = dropBytes(s, t.drop)
	}
	for _, it := range t.items {
		switch {
		case it.set != nil && by.find(it.set, s),
			it.re != nil && by.match(it.re, s),
			it.test != nil && it.test.test(s, by):
			return true
		}
	}
	return false
}

// scan.any(list [, opts]) -> test
func (v *vm) scanAny(L *lua.LState) int {
	list := v.unwrap(L.CheckTable(1))
	t := &scanTest{depth: 1}
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		opts := v.unwrap(L.CheckTable(2))
		opts.ForEach(func(k, val lua.LValue) {
			if k != lua.LString("lower") && k != lua.LString("drop") {
				L.ArgError(2, fmt.Sprintf("unknown option %s", k.String()))
			}
		})
		t.lower = lua.LVAsBool(opts.RawGetString("lower"))
		switch d := opts.RawGetString("drop").(type) {
		case *lua.LNilType:
		case lua.LString:
			if d == "" || len(d) > maxDropBytes {
				L.ArgError(2, fmt.Sprintf("drop: want from 1 to %d bytes", maxDropBytes))
			}
			t.drop = new([256]bool)
			for i := 0; i < len(d); i++ {
				t.drop[d[i]] = true
			}
		default:
			L.ArgError(2, "drop: want a string of the bytes to remove")
		}
	}
	n := list.Len()
	if n == 0 || n > maxScanItems {
		L.RaiseError("scan.any: want from 1 to %d items", maxScanItems)
	}
	for i := 1; i <= n; i++ {
		switch x := list.RawGetInt(i).(type) {
		case lua.LString:
			e := v.pl.recach.get(string(x))
			if e.err != nil {
				L.RaiseError("scan.any: item %d: %s", i, e.err.Error())
			}
			t.items = append(t.items, testItem{re: e})
		case *lua.LUserData:
			switch y := x.Value.(type) {
			case *kwSet:
				t.items = append(t.items, testItem{set: y})
				continue
			case *scanTest:
				if y.depth >= maxTestDepth {
					L.RaiseError("scan.any: item %d: tests nested deeper than %d", i, maxTestDepth)
				}
				t.depth = max(t.depth, y.depth+1)
				t.items = append(t.items, testItem{test: y})
				continue
			}
			L.RaiseError("scan.any: item %d: want a keyword set, an RE2 expression or a test, got userdata", i)
		default:
			L.RaiseError("scan.any: item %d: want a keyword set, an RE2 expression or a test, got %s", i, x.Type())
		}
	}
	return v.pushScanValue(L, "scan.any", t, nil, scanAnyIdx)
}

// test:test(s) -> boolean
func (v *vm) scanTest(L *lua.LState) int {
	t, ok := L.CheckUserData(1).Value.(*scanTest)
	if !ok {
		L.ArgError(1, "want a scan.any test")
	}
	L.Push(lua.LBool(t.test(L.CheckString(2), vmTester{v, L})))
	return 1
}

// vmTester searches in a handler (or a script's top level), polling the
// call's stop flag and raising it.
type vmTester struct {
	v *vm
	L *lua.LState
}

func (t vmTester) lower(s string) string { return t.v.lowerText(t.L, s) }

func (t vmTester) find(set *kwSet, s string) bool {
	start, _, stopped, err := set.first(s, 0, t.v.blockPoll)
	switch {
	case err != nil:
		t.L.RaiseError("test:test: %s", err.Error())
	case stopped:
		t.L.RaiseError("%s", errStopped.Error())
	}
	return start >= 0
}

func (t vmTester) match(e *regexpEntry, s string) bool { return t.v.matchString(t.L, e, s) }

// maxPrefilterText bounds the command a hook's prefilter searches outside
// a VM: one block of lowerText and set.first, which then do exactly what
// goTester does. A longer command runs the handler.
const maxPrefilterText = scanBlock

// goTester searches a hook's prefilter outside any VM (see Hook.skips), in
// a text of at most maxPrefilterText bytes: lowerText and the handler's
// searches of such a text are strings.ToLower, one Scan and MatchString.
type goTester struct{}

func (goTester) lower(s string) string { return strings.ToLower(s) }

// find fails closed: a set whose automaton cannot be built (never, see
// kwSet) finds something, so that the handler runs and fails.
func (goTester) find(set *kwSet, s string) bool {
	start, _, _, err := set.first(s, 0, func(int) bool { return false })
	return start >= 0 || err != nil
}

func (goTester) match(e *regexpEntry, s string) bool { return e.re.MatchString(s) }

// How a redaction rule runs (see ruleSet.run).
const (
	ruleKeywords = iota // kw/ikw: at each keyword (at) or in windows around them, else over the text
	ruleFull            // no keywords: over the whole text
	ruleCustom          // a user's expression over the whole text: its first group is the value
	ruleAssign          // NAME = VALUE around each of words
	ruleLua             // run by Lua when one of its words occurs
)

// A scanRule is one rule of scan.rules; the fields mirror the rule tables
// of stdlib's monad.redact.
type scanRule struct {
	mode       int
	kw, iw     []string // keywords of the text and of the lowercased text (ikw, or words)
	hasKw      bool     // kw given (even empty)
	hasIkw     bool     // ikw given (even empty)
	hasWords   bool
	rx, at     *regexpEntry
	bound      bool
	back       int
	ahead      int
	gate       *scanGate    // rx runs only at candidates (nil: over the text)
	lit        string       // a literal every match of rx holds ("": none known)
	name       *regexpEntry // ruleAssign
	value      *regexpEntry
	valueRun   *byteSet // the bytes of value's matches when it is anchored (see anchoredRun)
	always     bool     // no prefilter: custom, or no keyword list
	usesLower  bool     // ikw keywords: positions in the lowercased text
	kwEntries  []int
	iwEntries  []int
	assignWord []int // ruleAssign: its words' indexes in the set's iw list

	// The expressions (rx, at, name, value) and what is derived from them
	// (gate, lit, valueRun) are compiled the first time a text needs the
	// rule (see prepare): one AfterTool's text reaches a few of the
	// stdlib's rules, and compiling them all was two thirds of
	// `monad-hooks run AfterTool` (BenchmarkCLIRun). scan.rules checked
	// them (checkPattern).
	pats     rulePatterns
	once     sync.Once
	err      error
	compiled *atomic.Int64 // the pool's count of compiled rules
}

// rulePatterns are the expressions of a scan.rules rule, as given.
type rulePatterns struct{ rx, at, name, value string }

// A ruleSet is a compiled scan.rules list.
type ruleSet struct {
	rules    []scanRule
	kw, iw   []string // the distinct keywords of all rules
	kwM, iwM *ahocorasick.Matcher
	// byKw[k]: the rules (with one entry per occurrence in a rule's list)
	// that collect the positions of keyword k; likewise byIw for iw.
	byKw, byIw [][]int
	// assignOf[k]: the (rule, word) pairs of the assignment rules whose
	// words include iw keyword k.
	assignOf [][][2]int
	luaOf    [][]int // the Lua rules whose words include iw keyword k
	// iwFold finds the iw keywords in the text itself, ignoring ASCII
	// case (nil when a keyword has a capital or a non-ASCII byte);
	// needLower: some rule depends on the lowercase (iw keywords, an ikw
	// list, a Lua rule).
	iwFold    *ahocorasick.Matcher
	needLower bool
}

// scan.rules(list) -> rules
func (v *vm) scanRules(L *lua.LState) int {
	list := v.unwrap(L.CheckTable(1))
	n := list.Len()
	if n > maxScanItems {
		L.RaiseError("scan.rules: more than %d rules", maxScanItems)
	}
	var key strings.Builder
	key.WriteString("r")
	specs := make([]*lua.LTable, n)
	for i := 1; i <= n; i++ {
		t, ok := list.RawGetInt(i).(*lua.LTable)
		if !ok {
			L.RaiseError("scan.rules: rule %d: want a table", i)
		}
		specs[i-1] = v.unwrap(t)
		v.ruleKey(&key, specs[i-1])
	}
	x, err := v.pl.scans.get(key.String(), func() (any, error) { return v.compileRules(L, specs) })
	return v.pushScanValue(L, "scan.rules", x, err, scanRulesIdx)
}

// scanRuleFields are the fields of a rule table scan.rules reads; others
// (kind, check, find, pre, val, ...) are the Lua side's.
var scanRuleFields = []string{"kw", "ikw", "words", "rx", "at", "bound", "back", "ahead", "custom", "name", "value", "lua"}

// ruleKey appends what scan.rules reads of a rule table to the cache key.
func (v *vm) ruleKey(b *strings.Builder, t *lua.LTable) {
	for _, f := range scanRuleFields {
		switch x := t.RawGetString(f).(type) {
		case *lua.LTable:
			x = v.unwrap(x)
			b.WriteString(f + "{")
			for i := 1; i <= x.Len(); i++ {
				cacheKey(b, x.RawGetInt(i).String())
			}
			b.WriteString("}")
		case *lua.LNilType:
		default:
			b.WriteString(f + "=" + x.Type().String())
			cacheKey(b, x.String())
		}
	}
	b.WriteString(";")
}

// compileRules reads the rule tables; a bad field raises a Lua error
// naming the rule.
func (v *vm) compileRules(L *lua.LState, specs []*lua.LTable) (*ruleSet, error) {
	rs := &ruleSet{rules: make([]scanRule, len(specs))}
	kwIdx, iwIdx := map[string]int{}, map[string]int{}
	intern := func(list *[]string, idx map[string]int, k string) int {
		i, ok := idx[k]
		if !ok {
			i = len(*list)
			idx[k] = i
			*list = append(*list, k)
		}
		return i
	}
	for i, t := range specs {
		what := fmt.Sprintf("rule %d", i+1)
		r := &rs.rules[i]
		list := func(f string) ([]string, bool) {
			switch x := t.RawGetString(f).(type) {
			case *lua.LNilType:
				return nil, false
			case *lua.LTable:
				return v.luaStrings(L, x, what+"."+f), true
			default:
				L.RaiseError("scan.rules: %s.%s: want a list of strings", what, f)
				return nil, false
			}
		}
		str := func(f string) string {
			switch x := t.RawGetString(f).(type) {
			case *lua.LNilType:
				return ""
			case lua.LString:
				return string(x)
			default:
				L.RaiseError("scan.rules: %s.%s: want a string", what, f)
				return ""
			}
		}
		num := func(f string, def int) int {
			switch x := t.RawGetString(f).(type) {
			case *lua.LNilType:
				return def
			case lua.LNumber:
				if x < 0 || x > lua.LNumber(MaxArrayIndex) {
					L.RaiseError("scan.rules: %s.%s: out of range", what, f)
				}
				return int(x)
			default:
				L.RaiseError("scan.rules: %s.%s: want a number", what, f)
				return 0
			}
		}
		// rx checks the expression of field f and returns it with its
		// number of groups (-1: none given).
		rx := func(f string) (string, int) {
			p := str(f)
			if p == "" {
				return "", -1
			}
			groups, err := checkPattern(p)
			if err != nil {
				L.RaiseError("scan.rules: %s.%s: %s", what, f, err.Error())
			}
			return p, groups
		}
		var ikw, words []string
		r.kw, r.hasKw = list("kw")
		ikw, r.hasIkw = list("ikw")
		words, r.hasWords = list("words")
		r.iw = ikw
		if !r.hasIkw {
			r.iw = words
		}
		r.bound = lua.LVAsBool(t.RawGetString("bound"))
		r.back, r.ahead = num("back", defaultBack), num("ahead", defaultAhead)
		custom := lua.LVAsBool(t.RawGetString("custom"))
		r.always = custom || !r.hasKw && !r.hasIkw && !r.hasWords
		switch {
		case lua.LVAsBool(t.RawGetString("lua")):
			r.mode = ruleLua
		case str("name") != "" || str("value") != "":
			r.mode = ruleAssign
			var nameGroups, valueGroups int
			r.pats.name, nameGroups = rx("name")
			r.pats.value, valueGroups = rx("value")
			if nameGroups < 0 || valueGroups < 1 || !r.hasWords {
				L.RaiseError("scan.rules: %s: an assignment rule needs words, name and value (with a group)", what)
			}
		default:
			var rxGroups, atGroups int
			r.pats.rx, rxGroups = rx("rx")
			r.pats.at, atGroups = rx("at")
			if rxGroups < 0 {
				L.RaiseError("scan.rules: %s: no rx", what)
			}
			switch {
			case custom:
				r.mode = ruleCustom
			case !r.hasKw && !r.hasIkw:
				r.mode = ruleFull
			default:
				r.mode = ruleKeywords
				if rxGroups < 2 || r.pats.at != "" && atGroups < 2 {
					L.RaiseError("scan.rules: %s: rx and at need two groups, the context before the value and the value", what)
				}
			}
		}
		r.compiled = &v.pl.work.ruleCompiles
		for _, k := range r.kw {
			r.kwEntries = append(r.kwEntries, intern(&rs.kw, kwIdx, k))
		}
		for _, k := range r.iw {
			r.iwEntries = append(r.iwEntries, intern(&rs.iw, iwIdx, k))
		}
	}
	rs.byKw = make([][]int, len(rs.kw))
	rs.byIw = make([][]int, len(rs.iw))
	rs.assignOf = make([][][2]int, len(rs.iw))
	rs.luaOf = make([][]int, len(rs.iw))
	for i := range rs.rules {
		r := &rs.rules[i]
		for _, k := range r.kwEntries {
			rs.byKw[k] = append(rs.byKw[k], i)
		}
		for w, k := range r.iwEntries {
			switch r.mode {
			case ruleKeywords:
				rs.byIw[k] = append(rs.byIw[k], i)
			case ruleAssign:
				rs.assignOf[k] = append(rs.assignOf[k], [2]int{i, w})
			case ruleLua:
				if !slices.Contains(rs.luaOf[k], i) {
					rs.luaOf[k] = append(rs.luaOf[k], i)
				}
			}
		}
	}
	var err error
	if len(rs.kw) > 0 {
		if rs.kwM, err = ahocorasick.New(rs.kw); err != nil {
			return nil, err
		}
	}
	if len(rs.iw) > 0 {
		if rs.iwM, err = ahocorasick.New(rs.iw); err != nil {
			return nil, err
		}
		if rs.iwFold, err = foldedMatcher(rs.iw); err != nil {
			return nil, err
		}
	}
	rs.needLower = rs.iwM != nil
	for i := range rs.rules {
		rs.needLower = rs.needLower || rs.rules[i].hasIkw || rs.rules[i].mode == ruleLua
	}
	return rs, nil
}

// checkPattern checks an RE2 expression as the reCache's newRegexpEntry
// would, with the same error, by parsing it only (a long pattern is also
// compiled, see ctxError), and returns its number of groups: a parsed
// expression always compiles (regexp.Compile fails only where
// syntax.Parse does).
func checkPattern(pat string) (groups int, err error) {
	if len(pat) > MaxPatternSize {
		return 0, fmt.Errorf("pattern of %d bytes is longer than %d", len(pat), MaxPatternSize)
	}
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return 0, fmt.Errorf("bad RE2 pattern: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	if len(pat) >= ctxCheckSize {
		if prog, err := syntax.Compile(re.Simplify()); err != nil || looksBack(prog) {
			if err := ctxError(pat); err != nil {
				return 0, err
			}
		}
	}
	return re.MaxCap(), nil
}

// prepare compiles rule i's expressions and what derives from them, once
// for the pool (the first VM to need the rule does it; sync.Once orders
// it before every other reader; nothing in it raises, so that it never
// ends half done). An error (never, after checkPattern) is raised: the
// hook fails, and its onError decides, never a text let through
// unsearched.
func (r *ruleRun) prepare(i int) *scanRule {
	rule, v := &r.rs.rules[i], r.v
	if v.ctx.stopped() {
		// the call stops before compiling another rule (SECURITY.md's slack)
		r.L.RaiseError("%s", errStopped.Error())
	}
	rule.once.Do(func() {
		get := func(p string) *regexpEntry {
			if p == "" || rule.err != nil {
				return nil
			}
			e := v.pl.recach.get(p)
			if e.err != nil {
				rule.err = e.err
				return nil
			}
			return e
		}
		switch rule.mode {
		case ruleLua:
			return
		case ruleAssign:
			rule.name, rule.value = get(rule.pats.name), get(rule.pats.value)
			if rule.err == nil {
				rule.valueRun = anchoredRun(rule.value)
			}
		default:
			rule.rx, rule.at = get(rule.pats.rx), get(rule.pats.at)
			if rule.err == nil {
				if rule.mode != ruleCustom {
					rule.gate = v.newGate(rule.rx)
				}
				rule.lit = ruleLiteral(rule.rx)
			}
		}
		rule.compiled.Add(1)
	})
	if rule.err != nil {
		r.L.RaiseError("rules:candidates: rule %d: %s", i+1, rule.err.Error())
	}
	return rule
}

// ruleRun is the state of one rules:candidates call.
type ruleRun struct {
	v       *vm
	L       *lua.LState
	rs      *ruleSet
	s       string
	found   []bool // per rule: a keyword of its lists occurs
	pos     [][]int
	over    []bool  // more than maxHits positions
	done    [][]int // ruleAssign: per word, the end of the last identifier read
	cands   [][]int // per rule: start, end pairs (1-based, inclusive)
	names   map[nameKey]bool
	work    int
	lowered bool // the lowercased text has the text's length
	fold    bool // the lowercase is the text ASCII-lowercased: iwFold runs on the text
}

type nameKey struct {
	rule  int
	ident string
}

// rules:candidates(s) -> spans, wanted
func (v *vm) scanCandidates(L *lua.LState) int {
	rs, ok := L.CheckUserData(1).Value.(*ruleSet)
	if !ok {
		L.ArgError(1, "want a scan.rules value")
	}
	s := L.CheckString(2)
	run := &ruleRun{v: v, L: L, rs: rs, s: s,
		found: make([]bool, len(rs.rules)), pos: make([][]int, len(rs.rules)), over: make([]bool, len(rs.rules)),
		done: make([][]int, len(rs.rules)), cands: make([][]int, len(rs.rules))}
	run.run()
	n := 0
	for _, c := range run.cands {
		n += len(c) / 2 * 3
	}
	if n >= MaxArrayIndex {
		L.RaiseError("rules:candidates: more than %d values found", MaxArrayIndex/3)
	}
	spans := L.CreateTable(n, 0)
	spans.Metatable = v.arrayMT
	k := 0
	for i, c := range run.cands {
		for j := 0; j+1 < len(c); j += 2 {
			spans.RawSetInt(k+1, lua.LNumber(c[j]))
			spans.RawSetInt(k+2, lua.LNumber(c[j+1]))
			spans.RawSetInt(k+3, lua.LNumber(i+1))
			k += 3
		}
	}
	wanted := L.CreateTable(0, 0)
	wanted.Metatable = v.arrayMT
	for i := range rs.rules {
		if rs.rules[i].mode == ruleLua && (run.found[i] || rs.rules[i].always || !run.lowered) {
			wanted.Append(lua.LNumber(i + 1))
		}
	}
	L.Push(spans)
	L.Push(wanted)
	return 2
}

// poll counts a unit of work and polls the stop flag every stopCheckEvery.
func (r *ruleRun) poll() {
	r.work++
	if r.work%stopCheckEvery == 0 && r.v.ctx.stopped() {
		r.L.RaiseError("%s", errStopped.Error())
	}
}

// run finds the candidates of every rule, as stdlib's monad.redact did in
// Lua: keywords are searched once (the literal ones in the text, the
// others in its lowercase), a rule runs only when one of its keywords
// occurs, at each keyword (at), in windows around them, or over the whole
// text (no keywords, too many occurrences, or a lowercase of another
// length); in a window or the text, a gated rule's expression runs only
// at its candidates (see scanRange).
func (r *ruleRun) run() {
	rs, s := r.rs, r.s
	lower, iwM := s, rs.iwM
	r.lowered = true
	switch {
	case !rs.needLower:
		// nothing reads the lowercase (BenchmarkRedactPII)
	case rs.iwFold != nil && r.v.foldable(r.L, s):
		// no copy of the text: the folded automaton reads it (BenchmarkRedactSecrets)
		r.fold, iwM = true, rs.iwFold
	default:
		lower = r.v.lowerText(r.L, s)
		r.lowered = len(lower) == len(s)
		if !r.lowered {
			lower = s // offsets must agree: assignment words are searched in the text
		}
	}
	collect := func(i, p int) {
		r.found[i] = true
		if len(r.pos[i]) < maxHits {
			r.pos[i] = append(r.pos[i], p)
		} else {
			r.over[i] = true
		}
	}
	if rs.kwM != nil {
		r.v.scanText(r.L, rs.kwM, s, 0, func(start, k int) bool {
			for _, i := range rs.byKw[k] {
				collect(i, start+1)
			}
			return true
		})
	}
	if iwM != nil {
		r.v.scanText(r.L, iwM, lower, 0, func(start, k int) bool {
			for _, i := range rs.byIw[k] {
				collect(i, start+1)
			}
			for _, rw := range rs.assignOf[k] {
				r.found[rw[0]] = true
				r.assignAt(rw[0], rw[1], start+1, lower)
			}
			for _, i := range rs.luaOf[k] {
				r.found[i] = true
			}
			return true
		})
	}
	for i := range rs.rules {
		rule := &rs.rules[i]
		if !(rule.always || r.found[i] || !r.lowered) {
			continue
		}
		r.prepare(i)
		switch rule.mode {
		case ruleFull, ruleCustom:
			r.scanRange(i, 1, len(s))
		case ruleKeywords:
			r.keywordRule(i)
		}
	}
}

// keywordRule runs a rule with keywords at or around their positions.
func (r *ruleRun) keywordRule(i int) {
	rule, s, n := &r.rs.rules[i], r.s, len(r.s)
	pos := r.pos[i]
	switch {
	case rule.hasIkw && !r.lowered, r.over[i]:
		r.scanRange(i, 1, n)
		return
	case len(pos) == 0:
		return
	}
	slices.Sort(pos)
	if rule.at != nil {
		done := 0
		for _, p := range pos {
			if p <= done || rule.bound && wordByteAt(s, p-1) {
				continue
			}
			r.poll()
			loc := r.search(rule.at, s[p-1:])
			if loc == nil || loc[4] < 0 {
				continue
			}
			a := p + loc[0]
			r.cands[i] = append(r.cands[i], a, a+loc[5]-loc[4]-1)
			done = p - 1 + loc[1]
		}
		return
	}
	if len(pos) >= maxWindowHits {
		r.scanRange(i, 1, n)
		return
	}
	wa, wb := -1, -1
	for _, p := range pos {
		a, b := max(p-rule.back, 1), min(p+rule.ahead, n)
		if wa >= 0 && a <= wb+1 {
			wb = max(wb, b)
			continue
		}
		if wa >= 0 {
			r.scanRange(i, wa, wb)
		}
		wa, wb = a, b
	}
	r.scanRange(i, wa, wb)
}

// wordByteAt reports whether the byte at 1-based position p of s is a
// letter, digit or underscore (false outside s).
func wordByteAt(s string, p int) bool {
	if p < 1 || p > len(s) {
		return false
	}
	c := s[p-1]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// search runs e on s (its start the text's start for ^), raising the stop.
func (r *ruleRun) search(e *regexpEntry, s string) []int {
	return r.v.searchOrRaise(r.L, e, s, 0)
}

// scanRange finds rule i's values in s[a0..b0] (1-based, inclusive), each
// search starting after the last value (or match) as a new text. A gated
// rule's search tries only its candidates (gatedSearch), and a search is
// skipped where the literal every match holds is missing: both give what
// the search of the rest gives.
func (r *ruleRun) scanRange(i, a0, b0 int) {
	rule, s := &r.rs.rules[i], r.s
	sub, off := s[a0-1:b0], a0-1
	n := len(sub)
	gate, gr, litAt := rule.gate, gateRun{budget: gateBudget*n + scanBlock}, -1
	if gate != nil {
		// the expression runs at candidates only, unless they are dense (BenchmarkRedactPII)
		if gr.cands = gate.candidates(sub); len(gr.cands) > n/gateDensity {
			gate = nil
		}
	}
	for init := 1; init <= n; {
		r.poll()
		var loc []int
		if gate != nil {
			var ok bool
			if loc, ok = r.gatedSearch(gate, &gr, sub, init-1); !ok {
				gate = nil
			}
		}
		if gate == nil {
			// no search where the literal every match holds is missing (BenchmarkRedactSecrets)
			if rule.lit != "" && litAt < init-1 {
				k := strings.Index(sub[init-1:], rule.lit)
				if k < 0 {
					break
				}
				litAt = init - 1 + k
			}
			r.v.pl.work.scanSearches.Add(1)
			loc = r.search(rule.rx, sub[init-1:])
		}
		if loc == nil {
			break
		}
		a, b := init+loc[0], init-1+loc[1]
		group := func(g int) (string, bool) {
			if 2*g+1 >= len(loc) || loc[2*g] < 0 {
				return "", false
			}
			return sub[init-1+loc[2*g] : init-1+loc[2*g+1]], true
		}
		va, vb := a, b
		if rule.mode == ruleCustom {
			if c1, ok := group(1); ok && c1 != "" {
				if k := strings.Index(sub[a-1:], c1); k >= 0 {
					va, vb = a+k, a+k+len(c1)-1
				}
			}
		} else {
			c1, _ := group(1)
			c2, _ := group(2)
			va = a + len(c1)
			vb = va + len(c2) - 1
		}
		if vb >= va && !(rule.bound && wordByteAt(s, va+off-1)) {
			r.cands[i] = append(r.cands[i], va+off, vb+off)
		}
		switch {
		case vb >= va && vb+1 > init:
			init = vb + 1
		case b >= init:
			init = b + 1
		default:
			init++
		}
	}
}

// assignByte reports whether c may be part of an assignment's identifier.
func assignByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// assignAt reads the assignment around word w of rule i at 1-based p (in
// lower, the lowercased text or the text): the identifier around it (at
// most identReach bytes on either side), which must match the rule's
// name, and the value after it, the first group of the rule's value
// expression.
func (r *ruleRun) assignAt(i, w, p int, lower string) {
	rule, s, n := r.prepare(i), r.s, len(r.s)
	if r.done[i] == nil {
		r.done[i] = make([]int, len(rule.iw))
	}
	if p <= r.done[i][w] {
		return
	}
	r.poll()
	a := p
	for a > 1 && p-a < identReach && assignByte(s[a-2]) {
		a--
	}
	e := p
	for e <= n && e-p < identReach && assignByte(s[e-1]) {
		e++
	}
	r.done[i][w] = e
	ident := lower[a-1 : e-1]
	if r.fold {
		ident = lowerASCII(ident)
	}
	k := nameKey{i, ident}
	ok, seen := r.names[k]
	if !seen {
		ok = r.v.matchString(r.L, rule.name, ident)
		if r.names == nil {
			r.names = map[nameKey]bool{}
		}
		if len(r.names) < maxHits {
			r.names[k] = ok
		}
	}
	if !ok {
		return
	}
	loc := r.search(rule.value, valueWindow(rule.valueRun, s[e-1:]))
	if loc == nil || loc[2] < 0 || loc[3] == loc[2] {
		return
	}
	va := e + loc[0]
	val := s[e-1+loc[2] : e-1+loc[3]]
	if k := strings.Index(s[va-1:], val); k >= 0 {
		r.cands[i] = append(r.cands[i], va+k, va+k+len(val)-1)
	}
}

// matchString is re.match: whether e matches anywhere in s.
func (v *vm) matchString(L *lua.LState, e *regexpEntry, s string) bool {
	if e.complete || v.direct(e, len(s)) {
		return e.re.MatchString(s)
	}
	return v.searchOrRaise(L, e, s, 0) != nil
}
