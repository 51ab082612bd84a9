package luaapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

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

// recHook is one hook of a Record, as JSON.
type recHook struct {
	Event     string   `json:"event"`
	Name      string   `json:"name,omitempty"`
	Matcher   string   `json:"matcher,omitempty"`
	Kinds     []string `json:"kinds,omitempty"`
	Prefilter *recTest `json:"prefilter,omitempty"`
	OnError   string   `json:"onError,omitempty"`
	TimeoutMs int64    `json:"timeoutMs,omitempty"`
	Line      int      `json:"line"`
}

// recTest is a scan.any test of a Record, as JSON.
type recTest struct {
	Lower bool      `json:"lower,omitempty"`
	Drop  string    `json:"drop,omitempty"`
	Items []recItem `json:"items"`
}

// recItem is one item of a recTest: a keyword set (Words, Token), an RE2
// expression (RE) or a nested test.
type recItem struct {
	Words []string `json:"words,omitempty"`
	Token string   `json:"token,omitempty"`
	RE    string   `json:"re,omitempty"`
	Test  *recTest `json:"test,omitempty"`
}

// recordJSON is the encoding of a Record.
type recordJSON struct {
	Script string          `json:"script"`
	Params json.RawMessage `json:"params"`
	Config bool            `json:"config,omitempty"`
	Hooks  []recHook       `json:"hooks"`
}

// Record returns the Record of source i of the pool: what it registered
// (see [Record]). An i out of range, or a registration that cannot be
// recorded (a string that is not UTF-8), is an error. It is safe for
// concurrent use.
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
		rh := recordHook(&h)
		if !validRecHook(&rh) {
			return nil, fmt.Errorf("luaapi: hook of %s at line %d: holds a string that is not UTF-8, which a Record cannot keep", h.Script, h.Line)
		}
		r.hooks = append(r.hooks, rh)
	}
	return r, nil
}

// Script returns the name of the script the Record was made from.
func (r *Record) Script() string { return r.script }

// MarshalBinary encodes the Record (UnmarshalRecord decodes it).
func (r *Record) MarshalBinary() ([]byte, error) {
	return json.Marshal(recordJSON{Script: r.script, Params: r.params, Config: r.config, Hooks: r.hooks})
}

// UnmarshalRecord decodes what Record.MarshalBinary encoded; anything else
// is an error.
func UnmarshalRecord(data []byte) (*Record, error) {
	var j recordJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("luaapi: not a Record: %w", err)
	}
	if j.Script == "" || len(j.Params) == 0 {
		return nil, errors.New("luaapi: not a Record: no script or params")
	}
	return &Record{script: j.Script, params: j.Params, config: j.Config, hooks: j.Hooks}, nil
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

// validRecHook reports whether every string of h survives JSON (UTF-8).
func validRecHook(h *recHook) bool {
	ok := utf8.ValidString(h.Name) && utf8.ValidString(h.Matcher)
	var walk func(t *recTest)
	walk = func(t *recTest) {
		if t == nil {
			return
		}
		ok = ok && utf8.ValidString(t.Drop)
		for _, it := range t.Items {
			ok = ok && utf8.ValidString(it.Token) && utf8.ValidString(it.RE)
			for _, w := range it.Words {
				ok = ok && utf8.ValidString(w)
			}
			walk(it.Test)
		}
	}
	walk(h.Prefilter)
	return ok
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
		case it.Words != nil:
			set, err := pl.keywordSet(it.Words, it.Token)
			if err != nil {
				return nil, err
			}
			t.items = append(t.items, testItem{set: set})
		case it.RE != "":
			e := pl.recach.get(it.RE)
			if e.err != nil {
				return nil, e.err
			}
			t.items = append(t.items, testItem{re: e})
		case it.Test != nil:
			sub, err := pl.testOf(it.Test, depth+1)
			if err != nil {
				return nil, err
			}
			t.depth = max(t.depth, sub.depth+1)
			t.items = append(t.items, testItem{test: sub})
		default:
			return nil, errors.New("malformed test item")
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
			if y.set == nil || (x.set != y.set && (x.set.class != y.set.class || !slices.Equal(x.set.words, y.set.words))) {
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
