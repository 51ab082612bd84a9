package luaapi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
)

// A Record is what one Source registered when it loaded, as data: its
// hooks (event, name, matcher, kinds, prefilter, onError, timeoutMs, script
// and line), the Params it was loaded with, and whether its top level
// called path.config(). Given as Source.Record, it lets [NewPool] plan the
// pool without running the source, so that a pool whose every Source has a
// Record that applies builds no VM until a call has to run a handler: a
// call that a hook's prefilter answers never builds one (a one-shot
// `monad-hooks run`, BenchmarkCLIRun).
//
// A Record is made by [Pool.Record] (from a pool that loaded the source)
// and kept as bytes ([Record.MarshalBinary], [UnmarshalRecord]), for
// example at build time for embedded scripts. It applies to a Source of
// the same Script (by name) and equal Params (compared as JSON), and, when
// the source read path.config() while it loaded, only to a pool without
// Options.ConfigPaths. It does not capture what the top level reads of
// Options.Home, Options.Root, the clock or a host module: a script whose
// registrations depend on them must not be given a Record (the owner of
// the Record proves that its scripts' do not). Every VM the pool builds
// checks that the scripts register exactly the recorded hooks; a VM that
// does not is not used, and the call that needed it fails (FailVM), as
// every later one does: a stale Record fails closed where onError says so,
// and loudly everywhere.
//
// A Record is immutable and safe for concurrent use.
type Record struct {
	script string
	params []byte // JSON of the Params it was made with
	config bool   // the source called path.config() while it loaded
	hooks  []recHook
}

// recHook is one hook of a Record.
type recHook struct {
	Event     string
	Name      string
	Matcher   string
	Kinds     []string
	Prefilter *recTest
	OnError   string
	TimeoutMs int64
	Line      int
}

// recTest is a scan.any test of a Record.
type recTest struct {
	Lower bool
	Drop  string
	Items []recItem
}

// recItem is one item of a recTest: a keyword set (Words, Token), an RE2
// expression (RE) or a nested test.
type recItem struct {
	Words  []string
	Token  string
	RE     string
	Test   *recTest
	Config bool // scan.config_names(), made from the pool's ConfigPaths
}

// Record returns the Record of source i of the pool: what it registered
// (see [Record]). An i out of range, or Params that do not encode as
// JSON, is an error. It is safe for concurrent use.
func (p *Pool) Record(i int) (*Record, error) {
	pl := p.plan
	if i < 0 || i >= len(pl.srcs) {
		return nil, fmt.Errorf("luaapi: no source %d (the pool has %d)", i, len(pl.srcs))
	}
	params, err := paramsJSON(pl.srcs[i].params)
	if err != nil {
		return nil, fmt.Errorf("luaapi: source %d: params: %w", i, err)
	}
	r := &Record{script: pl.srcs[i].script.name, params: params, config: pl.configRead[i]}
	for _, h := range pl.hooks {
		if h.Source != i {
			continue
		}
		r.hooks = append(r.hooks, recordHook(&h))
	}
	return r, nil
}

// Script returns the name of the script the Record was made from.
func (r *Record) Script() string { return r.script }

// ReadsConfig reports whether the source called path.config() while it
// loaded: the Record then applies only to a pool without
// Options.ConfigPaths.
func (r *Record) ReadsConfig() bool { return r.config }

// recordMagic starts an encoded Record; its last byte is the layout's
// version.
const recordMagic = "MHR\x01"

// MarshalBinary encodes the Record (UnmarshalRecord decodes it): a compact
// binary form, decoded without reflection at every start of a process
// that plans a pool from it (BenchmarkCLIRun).
func (r *Record) MarshalBinary() ([]byte, error) {
	w := recWriter{b: []byte(recordMagic)}
	w.str(r.script)
	w.str(string(r.params))
	w.flag(r.config)
	w.uint(uint64(len(r.hooks)))
	for i := range r.hooks {
		h := &r.hooks[i]
		w.str(h.Event)
		w.str(h.Name)
		w.str(h.Matcher)
		w.uint(uint64(len(h.Kinds)))
		for _, k := range h.Kinds {
			w.str(k)
		}
		w.str(h.OnError)
		w.uint(uint64(h.TimeoutMs))
		w.uint(uint64(h.Line))
		w.flag(h.Prefilter != nil)
		if h.Prefilter != nil {
			w.test(h.Prefilter)
		}
	}
	return w.b, nil
}

// UnmarshalRecord decodes what Record.MarshalBinary encoded; anything else
// is an error.
func UnmarshalRecord(data []byte) (*Record, error) {
	if !bytes.HasPrefix(data, []byte(recordMagic)) {
		return nil, errors.New("luaapi: not a Record")
	}
	rd := recReader{s: string(data), pos: len(recordMagic)}
	r := &Record{script: rd.str(), params: []byte(rd.str()), config: rd.flag()}
	for n := rd.count(); n > 0 && rd.err == nil; n-- {
		h := recHook{Event: rd.str(), Name: rd.str(), Matcher: rd.str()}
		for k := rd.count(); k > 0 && rd.err == nil; k-- {
			h.Kinds = append(h.Kinds, rd.str())
		}
		h.OnError = rd.str()
		h.TimeoutMs = int64(rd.uint())
		h.Line = int(rd.uint())
		if rd.flag() {
			h.Prefilter = rd.test(1)
		}
		r.hooks = append(r.hooks, h)
	}
	switch {
	case rd.err == nil && rd.pos != len(rd.s):
		rd.err = errors.New("trailing bytes")
	case rd.err == nil && (r.script == "" || len(r.params) == 0):
		rd.err = errors.New("no script or params")
	}
	if rd.err != nil {
		return nil, fmt.Errorf("luaapi: not a Record: %w", rd.err)
	}
	return r, nil
}

// recWriter appends a Record's encoding.
type recWriter struct{ b []byte }

func (w *recWriter) uint(x uint64) { w.b = binary.AppendUvarint(w.b, x) }

func (w *recWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *recWriter) flag(f bool) {
	if f {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

// Items of a test.
const (
	recItemSet = 1 + iota
	recItemRE
	recItemTest
	recItemConfig
)

func (w *recWriter) test(t *recTest) {
	w.flag(t.Lower)
	w.str(t.Drop)
	w.uint(uint64(len(t.Items)))
	for _, it := range t.Items {
		switch {
		case it.Test != nil:
			w.b = append(w.b, recItemTest)
			w.test(it.Test)
		case it.Config:
			w.b = append(w.b, recItemConfig)
		case it.Words != nil:
			w.b = append(w.b, recItemSet)
			w.uint(uint64(len(it.Words)))
			for _, word := range it.Words {
				w.str(word)
			}
			w.str(it.Token)
		default:
			w.b = append(w.b, recItemRE)
			w.str(it.RE)
		}
	}
}

// recReader decodes a Record; its strings share the one copy of the data.
type recReader struct {
	s   string
	pos int
	err error
}

func (r *recReader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	var x uint64
	for shift := 0; shift < 64; shift += 7 {
		if r.pos >= len(r.s) {
			break
		}
		c := r.s[r.pos]
		r.pos++
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x
		}
	}
	r.err = errors.New("malformed number")
	return 0
}

// count reads a number of items, each at least a byte long.
func (r *recReader) count() int {
	n := r.uint()
	if r.err == nil && n > uint64(len(r.s)-r.pos) {
		r.err = errors.New("malformed count")
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

func (r *recReader) str() string {
	n := r.count()
	if r.err != nil {
		return ""
	}
	s := r.s[r.pos : r.pos+n]
	r.pos += n
	return s
}

func (r *recReader) flag() bool {
	if r.err == nil && r.pos >= len(r.s) {
		r.err = errors.New("malformed flag")
	}
	if r.err != nil {
		return false
	}
	f := r.s[r.pos]
	r.pos++
	if f > 1 {
		r.err = errors.New("malformed flag")
	}
	return f == 1
}

// test reads a test nested at depth.
func (r *recReader) test(depth int) *recTest {
	if depth > maxTestDepth {
		r.err = errors.New("tests nested too deep")
		return nil
	}
	t := &recTest{Lower: r.flag(), Drop: r.str()}
	for n := r.count(); n > 0 && r.err == nil; n-- {
		kind := r.str1()
		switch kind {
		case recItemSet:
			var it recItem
			it.Words = make([]string, 0, r.count())
			for k := cap(it.Words); k > 0 && r.err == nil; k-- {
				it.Words = append(it.Words, r.str())
			}
			it.Token = r.str()
			t.Items = append(t.Items, it)
		case recItemRE:
			t.Items = append(t.Items, recItem{RE: r.str()})
		case recItemTest:
			t.Items = append(t.Items, recItem{Test: r.test(depth + 1)})
		case recItemConfig:
			t.Items = append(t.Items, recItem{Config: true})
		default:
			if r.err == nil {
				r.err = errors.New("malformed test item")
			}
		}
	}
	return t
}

// str1 reads one byte.
func (r *recReader) str1() byte {
	if r.err == nil && r.pos >= len(r.s) {
		r.err = errors.New("malformed item")
	}
	if r.err != nil {
		return 0
	}
	c := r.s[r.pos]
	r.pos++
	return c
}

// paramsJSON is the JSON of a Source's Params that a Record is compared
// by: nil and an empty map are the same.
func paramsJSON(params map[string]any) ([]byte, error) {
	if len(params) == 0 {
		return []byte("{}"), nil
	}
	return json.Marshal(params)
}

// applies reports whether r describes src in a pool with opts (see
// Record).
func (r *Record) applies(src Source, opts *Options) bool {
	if r == nil || src.Script == nil || src.Script.name != r.script || (r.config && len(opts.ConfigPaths) > 0) {
		return false
	}
	params, err := paramsJSON(src.Params)
	return err == nil && bytes.Equal(params, r.params)
}

// recordHook is h as a Record keeps it.
func recordHook(h *Hook) recHook {
	rh := recHook{Event: h.Event.String(), Name: h.Name, Matcher: h.Matcher, OnError: h.OnError, Line: h.Line}
	for _, k := range h.Kinds {
		rh.Kinds = append(rh.Kinds, string(k))
	}
	if h.timeoutSet {
		rh.TimeoutMs = h.Timeout.Milliseconds()
	}
	if h.prefilter != nil {
		rh.Prefilter = recordTest(h.prefilter)
	}
	return rh
}

func recordTest(t *scanTest) *recTest {
	rt := &recTest{Lower: t.lower}
	if t.drop != nil {
		var d []byte
		for b := range 256 {
			if t.drop[b] {
				d = append(d, byte(b))
			}
		}
		rt.Drop = string(d)
	}
	for _, it := range t.items {
		switch {
		case it.set != nil && it.set.config:
			rt.Items = append(rt.Items, recItem{Config: true})
		case it.set != nil:
			rt.Items = append(rt.Items, recItem{Words: it.set.words, Token: it.set.class})
		case it.re != nil:
			rt.Items = append(rt.Items, recItem{RE: it.re.re.String()})
		case it.test != nil:
			rt.Items = append(rt.Items, recItem{Test: recordTest(it.test)})
		}
	}
	return rt
}

// recordedHooks plans pl's hooks from the Records of srcs, compiling
// matchers and prefilters as the VM does (the prefilters' keyword sets
// in the pool's scan cache, so that the VMs later share them).
func recordedHooks(pl *plan, srcs []Source) ([]Hook, error) {
	var hooks []Hook
	pl.configRead = make([]bool, len(srcs))
	for i, src := range srcs {
		r := src.Record
		pl.configRead[i] = r.config
		for _, rh := range r.hooks {
			h, err := pl.hookOf(&rh)
			if err != nil {
				return nil, fmt.Errorf("luaapi: the Record of %s: hook at line %d: %w", r.script, rh.Line, err)
			}
			h.Script, h.Source = r.script, i
			hooks = append(hooks, h)
		}
	}
	return hooks, nil
}

// hookOf is the Hook a Record's hook describes (without Script and
// Source).
func (pl *plan) hookOf(rh *recHook) (Hook, error) {
	ev, err := events.ParseEvent(rh.Event)
	if err != nil {
		return Hook{}, err
	}
	h := Hook{Event: ev, Name: rh.Name, Matcher: rh.Matcher, OnError: rh.OnError, Line: rh.Line, Timeout: pl.opts.DefaultTimeout}
	if rh.Matcher != "" {
		if h.re, err = compileRegexp(rh.Matcher); err != nil {
			return Hook{}, err
		}
	}
	for _, k := range rh.Kinds {
		kind, err := events.ParseToolKind(k)
		if err != nil {
			return Hook{}, err
		}
		h.Kinds = append(h.Kinds, kind)
	}
	if rh.TimeoutMs > 0 {
		h.Timeout, h.timeoutSet = time.Duration(rh.TimeoutMs)*time.Millisecond, true
	}
	if rh.Prefilter != nil {
		if h.prefilter, err = pl.testOf(rh.Prefilter, 1); err != nil {
			return Hook{}, fmt.Errorf("prefilter: %w", err)
		}
	}
	return h, nil
}

// testOf compiles a Record's test, at nesting depth.
func (pl *plan) testOf(rt *recTest, depth int) (*scanTest, error) {
	if depth > maxTestDepth || len(rt.Items) == 0 {
		return nil, errors.New("malformed test")
	}
	t := &scanTest{lower: rt.Lower, depth: 1}
	if rt.Drop != "" {
		t.drop = new([256]bool)
		for i := 0; i < len(rt.Drop); i++ {
			t.drop[rt.Drop[i]] = true
		}
	}
	for _, it := range rt.Items {
		switch {
		case it.Test != nil:
			sub, err := pl.testOf(it.Test, depth+1)
			if err != nil {
				return nil, err
			}
			t.depth = max(t.depth, sub.depth+1)
			t.items = append(t.items, testItem{test: sub})
		case it.Config:
			set, err := pl.configNames()
			if err != nil {
				return nil, err
			}
			t.items = append(t.items, testItem{set: set})
		case it.Words != nil:
			set, err := pl.keywordSet(it.Words, it.Token)
			if err != nil {
				return nil, err
			}
			t.items = append(t.items, testItem{set: set})
		default:
			e := pl.recach.get(it.RE)
			if e.err != nil {
				return nil, e.err
			}
			t.items = append(t.items, testItem{re: e})
		}
	}
	return t, nil
}

// hookDiff names what differs between h (registered by a VM) and w (the
// plan's), or returns "".
func hookDiff(h, w *Hook) string {
	switch {
	case h.Event != w.Event || h.Script != w.Script || h.Line != w.Line || h.Source != w.Source:
		return "event or position"
	case h.Name != w.Name:
		return "name"
	case h.Matcher != w.Matcher:
		return "matcher"
	case !slices.Equal(h.Kinds, w.Kinds):
		return "kind"
	case h.OnError != w.OnError:
		return "onError"
	case h.Timeout != w.Timeout || h.timeoutSet != w.timeoutSet:
		return "timeoutMs"
	case !sameTest(h.prefilter, w.prefilter):
		return "prefilter"
	}
	return ""
}

// sameTest reports whether two prefilters search the same way.
func sameTest(a, b *scanTest) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.lower != b.lower || (a.drop == nil) != (b.drop == nil) ||
		(a.drop != nil && *a.drop != *b.drop) || len(a.items) != len(b.items) {
		return false
	}
	for i, x := range a.items {
		y := b.items[i]
		switch {
		case x.set != nil:
			if y.set == nil || (x.set != y.set && (x.set.class != y.set.class || x.set.config != y.set.config || !slices.Equal(x.set.words, y.set.words))) {
				return false
			}
		case x.re != nil:
			if y.re == nil || x.re.re.String() != y.re.re.String() {
				return false
			}
		default:
			if y.test == nil || !sameTest(x.test, y.test) {
				return false
			}
		}
	}
	return true
}
