package luaapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"

	"github.com/monad-hooks/monad-hooks/events"
	lua "github.com/yuin/gopher-lua"
)

// Conversion between Go's free-form JSON values and Lua values.
//
// Go -> Lua: map[string]any becomes a table marked as a JSON object, []any
// a table marked as a JSON array (both marks are protected metatables, so
// getmetatable(t) returns "json.object" or "json.array"), nil inside a
// container becomes json.null (so keys and array positions survive), a
// number becomes a Lua number (float64), strings and booleans map directly.
//
// Lua -> Go: a marked table converts to its kind; an unmarked table is an
// array when its keys are exactly 1..n (n >= 1), an object when they are all
// strings, an empty object when it is empty; anything else (mixed keys,
// integer keys with holes (a sparse array),
// non-string object keys, functions, userdata other than json.null, NaN or
// infinite numbers) is an error. json.null becomes nil. Numbers become
// json.Number: an unchanged input number its input text (see "Number
// fidelity" below), others from their float64 (numberValue).

// budget limits one Lua -> Go conversion: the values it produces (counting
// a table reachable twice twice, as JSON would) and their string bytes.
// Tables met again are not converted again but charged their size again, so
// a DAG that would expand exponentially fails fast.
//
// A budget also polls the call's stop flag (set by the watchdog, see
// vmctx.go) every stopCheckEvery values, so that a conversion running when
// the call's time is up stops with errStopped.
type budget struct {
	nodes, bytes       int
	maxNodes, maxBytes int
	memo               map[*lua.LTable]memoEntry
	stop               *vmCtx // nil: never stopped
	nextPoll           int    // nodes at which to poll stop next
}

type memoEntry struct {
	val          any
	nodes, bytes int
}

// defaultMaxNodes bounds the values of one converted output (or one
// json.encode).
const defaultMaxNodes = 1 << 18

// Bounds of the conversion of an error value (error() with a table) and of
// log fields: they end up in messages, not payloads.
const (
	errorMaxNodes = 1 << 10
	errorMaxBytes = 64 << 10
)

// stopCheckEvery is how many values a conversion converts between two
// polls of the stop flag.
const stopCheckEvery = 256

// errStopped is the error of a conversion stopped by the watchdog; the
// call's outcome is then the stop reason (timeout, cancellation, memory).
var errStopped = errors.New("stopped: the call ran out of time or budget")

func (v *vm) newBudget() *budget {
	return &budget{maxNodes: defaultMaxNodes, maxBytes: 4 * v.pl.opts.MaxStringSize, stop: &v.ctx}
}

// newBudgetOf returns a budget of the given bounds polling v's stop flag.
func (v *vm) newBudgetOf(maxNodes, maxBytes int) *budget {
	return &budget{maxNodes: maxNodes, maxBytes: maxBytes, stop: &v.ctx}
}

func (b *budget) node() error {
	b.nodes++
	if b.maxNodes > 0 && b.nodes > b.maxNodes {
		return fmt.Errorf("more than %d values", b.maxNodes)
	}
	if b.nodes >= b.nextPoll && b.stop != nil {
		b.nextPoll = b.nodes + stopCheckEvery
		if b.stop.stopped() {
			return errStopped
		}
	}
	return nil
}

func (b *budget) str(n int) error {
	b.bytes += n
	if b.maxBytes > 0 && b.bytes > b.maxBytes {
		return fmt.Errorf("more than %d bytes of strings", b.maxBytes)
	}
	return nil
}

// pollConvert counts one converted value and, every stopCheckEvery, polls
// the stop flag.
func (v *vm) pollConvert() error {
	v.converted++
	if v.converted%stopCheckEvery == 0 && v.ctx.stopped() {
		return errStopped
	}
	return nil
}

// boxedInts are the Lua values of the integers 0 to len-1, boxed once:
// boxing a number in an LValue allocates, and small integers (a tool
// input's timeout, the positions re.find returns) are most of the numbers
// a call converts (BenchmarkLuaGuardPeers). A literal, which the compiler
// lays out, rather than 256 allocations as every process starts
// (BenchmarkCLIRunNoStdlib); TestBoxedInts checks it.
var boxedInts = [256]lua.LValue{
	lua.LNumber(0), lua.LNumber(1), lua.LNumber(2), lua.LNumber(3), lua.LNumber(4), lua.LNumber(5), lua.LNumber(6), lua.LNumber(7),
	lua.LNumber(8), lua.LNumber(9), lua.LNumber(10), lua.LNumber(11), lua.LNumber(12), lua.LNumber(13), lua.LNumber(14), lua.LNumber(15),
	lua.LNumber(16), lua.LNumber(17), lua.LNumber(18), lua.LNumber(19), lua.LNumber(20), lua.LNumber(21), lua.LNumber(22), lua.LNumber(23),
	lua.LNumber(24), lua.LNumber(25), lua.LNumber(26), lua.LNumber(27), lua.LNumber(28), lua.LNumber(29), lua.LNumber(30), lua.LNumber(31),
	lua.LNumber(32), lua.LNumber(33), lua.LNumber(34), lua.LNumber(35), lua.LNumber(36), lua.LNumber(37), lua.LNumber(38), lua.LNumber(39),
	lua.LNumber(40), lua.LNumber(41), lua.LNumber(42), lua.LNumber(43), lua.LNumber(44), lua.LNumber(45), lua.LNumber(46), lua.LNumber(47),
	lua.LNumber(48), lua.LNumber(49), lua.LNumber(50), lua.LNumber(51), lua.LNumber(52), lua.LNumber(53), lua.LNumber(54), lua.LNumber(55),
	lua.LNumber(56), lua.LNumber(57), lua.LNumber(58), lua.LNumber(59), lua.LNumber(60), lua.LNumber(61), lua.LNumber(62), lua.LNumber(63),
	lua.LNumber(64), lua.LNumber(65), lua.LNumber(66), lua.LNumber(67), lua.LNumber(68), lua.LNumber(69), lua.LNumber(70), lua.LNumber(71),
	lua.LNumber(72), lua.LNumber(73), lua.LNumber(74), lua.LNumber(75), lua.LNumber(76), lua.LNumber(77), lua.LNumber(78), lua.LNumber(79),
	lua.LNumber(80), lua.LNumber(81), lua.LNumber(82), lua.LNumber(83), lua.LNumber(84), lua.LNumber(85), lua.LNumber(86), lua.LNumber(87),
	lua.LNumber(88), lua.LNumber(89), lua.LNumber(90), lua.LNumber(91), lua.LNumber(92), lua.LNumber(93), lua.LNumber(94), lua.LNumber(95),
	lua.LNumber(96), lua.LNumber(97), lua.LNumber(98), lua.LNumber(99), lua.LNumber(100), lua.LNumber(101), lua.LNumber(102), lua.LNumber(103),
	lua.LNumber(104), lua.LNumber(105), lua.LNumber(106), lua.LNumber(107), lua.LNumber(108), lua.LNumber(109), lua.LNumber(110), lua.LNumber(111),
	lua.LNumber(112), lua.LNumber(113), lua.LNumber(114), lua.LNumber(115), lua.LNumber(116), lua.LNumber(117), lua.LNumber(118), lua.LNumber(119),
	lua.LNumber(120), lua.LNumber(121), lua.LNumber(122), lua.LNumber(123), lua.LNumber(124), lua.LNumber(125), lua.LNumber(126), lua.LNumber(127),
	lua.LNumber(128), lua.LNumber(129), lua.LNumber(130), lua.LNumber(131), lua.LNumber(132), lua.LNumber(133), lua.LNumber(134), lua.LNumber(135),
	lua.LNumber(136), lua.LNumber(137), lua.LNumber(138), lua.LNumber(139), lua.LNumber(140), lua.LNumber(141), lua.LNumber(142), lua.LNumber(143),
	lua.LNumber(144), lua.LNumber(145), lua.LNumber(146), lua.LNumber(147), lua.LNumber(148), lua.LNumber(149), lua.LNumber(150), lua.LNumber(151),
	lua.LNumber(152), lua.LNumber(153), lua.LNumber(154), lua.LNumber(155), lua.LNumber(156), lua.LNumber(157), lua.LNumber(158), lua.LNumber(159),
	lua.LNumber(160), lua.LNumber(161), lua.LNumber(162), lua.LNumber(163), lua.LNumber(164), lua.LNumber(165), lua.LNumber(166), lua.LNumber(167),
	lua.LNumber(168), lua.LNumber(169), lua.LNumber(170), lua.LNumber(171), lua.LNumber(172), lua.LNumber(173), lua.LNumber(174), lua.LNumber(175),
	lua.LNumber(176), lua.LNumber(177), lua.LNumber(178), lua.LNumber(179), lua.LNumber(180), lua.LNumber(181), lua.LNumber(182), lua.LNumber(183),
	lua.LNumber(184), lua.LNumber(185), lua.LNumber(186), lua.LNumber(187), lua.LNumber(188), lua.LNumber(189), lua.LNumber(190), lua.LNumber(191),
	lua.LNumber(192), lua.LNumber(193), lua.LNumber(194), lua.LNumber(195), lua.LNumber(196), lua.LNumber(197), lua.LNumber(198), lua.LNumber(199),
	lua.LNumber(200), lua.LNumber(201), lua.LNumber(202), lua.LNumber(203), lua.LNumber(204), lua.LNumber(205), lua.LNumber(206), lua.LNumber(207),
	lua.LNumber(208), lua.LNumber(209), lua.LNumber(210), lua.LNumber(211), lua.LNumber(212), lua.LNumber(213), lua.LNumber(214), lua.LNumber(215),
	lua.LNumber(216), lua.LNumber(217), lua.LNumber(218), lua.LNumber(219), lua.LNumber(220), lua.LNumber(221), lua.LNumber(222), lua.LNumber(223),
	lua.LNumber(224), lua.LNumber(225), lua.LNumber(226), lua.LNumber(227), lua.LNumber(228), lua.LNumber(229), lua.LNumber(230), lua.LNumber(231),
	lua.LNumber(232), lua.LNumber(233), lua.LNumber(234), lua.LNumber(235), lua.LNumber(236), lua.LNumber(237), lua.LNumber(238), lua.LNumber(239),
	lua.LNumber(240), lua.LNumber(241), lua.LNumber(242), lua.LNumber(243), lua.LNumber(244), lua.LNumber(245), lua.LNumber(246), lua.LNumber(247),
	lua.LNumber(248), lua.LNumber(249), lua.LNumber(250), lua.LNumber(251), lua.LNumber(252), lua.LNumber(253), lua.LNumber(254), lua.LNumber(255),
}

// luaInt returns the Lua value of n, without allocating for a small n.
func luaInt(n int) lua.LValue {
	if uint(n) < uint(len(boxedInts)) {
		return boxedInts[n]
	}
	return lua.LNumber(n)
}

// luaNumber returns the Lua value of f, without allocating for a small
// integer (but -0, which prints as such).
func luaNumber(f float64) lua.LValue {
	if i := int(f); float64(i) == f && uint(i) < uint(len(boxedInts)) && (i != 0 || !math.Signbit(f)) {
		return boxedInts[i]
	}
	return lua.LNumber(f)
}

// toLua converts a free-form Go value. depth counts container levels. It
// polls the stop flag (pollConvert).
func (v *vm) toLua(x any, depth int) (lua.LValue, error) { return v.convert(x, depth, true) }

// checkLua returns the error toLua would return for x, building nothing:
// the input's payloads are checked before the handler runs and converted
// when it reads them (see inputTable).
func (v *vm) checkLua(x any, depth int) error {
	_, err := v.convert(x, depth, false)
	return err
}

// convert is toLua, or with build unset only its checks (the value is then
// nil).
func (v *vm) convert(x any, depth int, build bool) (lua.LValue, error) {
	if err := v.pollConvert(); err != nil {
		return nil, err
	}
	if !build {
		// Only the containers and json.Number can fail; boxing a scalar
		// allocates.
		switch x.(type) {
		case nil, string, bool, float64, float32, int, int64, int32, int16, int8, uint, uint64, uint32, uint16, uint8:
			return nil, nil
		}
	}
	switch x := x.(type) {
	case nil:
		return v.null, nil
	case string:
		return lua.LString(x), nil
	case bool:
		return lua.LBool(x), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return nil, fmt.Errorf("number %.40s is out of the range of a 64-bit float", string(x))
			}
			return nil, fmt.Errorf("%.40q is not a number", string(x))
		}
		if !build {
			return nil, nil
		}
		return luaNumber(f), nil
	case float64:
		return luaNumber(x), nil
	case float32:
		return luaNumber(float64(x)), nil
	case int:
		return luaNumber(float64(x)), nil
	case int64:
		return luaNumber(float64(x)), nil
	case int32:
		return luaNumber(float64(x)), nil
	case int16:
		return luaNumber(float64(x)), nil
	case int8:
		return luaNumber(float64(x)), nil
	case uint:
		return luaNumber(float64(x)), nil
	case uint64:
		return luaNumber(float64(x)), nil
	case uint32:
		return luaNumber(float64(x)), nil
	case uint16:
		return luaNumber(float64(x)), nil
	case uint8:
		return luaNumber(float64(x)), nil
	case map[string]any:
		if depth >= events.MaxDepth {
			return nil, fmt.Errorf("nested deeper than %d levels", events.MaxDepth)
		}
		if !build {
			for _, e := range x {
				if _, err := v.convert(e, depth+1, false); err != nil {
					return nil, v.firstError(x, depth, err)
				}
			}
			return nil, nil
		}
		t := v.L.CreateTable(0, len(x))
		t.Metatable = v.objectMT
		if len(x) == 1 {
			for k, e := range x {
				lv, err := v.convert(e, depth+1, true)
				if err != nil {
					return nil, err
				}
				t.RawSetString(k, lv)
				v.keepOrigin(t, x, e)
			}
			return t, nil
		}
		// Insert in key order: pairs() then iterates deterministically.
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			lv, err := v.convert(x[k], depth+1, true)
			if err != nil {
				return nil, err
			}
			t.RawSetString(k, lv)
			v.keepOrigin(t, x, x[k])
		}
		return t, nil
	case map[string]string:
		if depth >= events.MaxDepth {
			return nil, fmt.Errorf("nested deeper than %d levels", events.MaxDepth)
		}
		if !build {
			return nil, nil
		}
		t := v.L.CreateTable(0, len(x))
		t.Metatable = v.objectMT
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.RawSetString(k, lua.LString(x[k]))
		}
		return t, nil
	case []any:
		if depth >= events.MaxDepth {
			return nil, fmt.Errorf("nested deeper than %d levels", events.MaxDepth)
		}
		if len(x) >= MaxArrayIndex {
			return nil, fmt.Errorf("array of %d elements is longer than %d", len(x), MaxArrayIndex-1)
		}
		if !build {
			for _, e := range x {
				if _, err := v.convert(e, depth+1, false); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}
		t := v.L.CreateTable(len(x), 0)
		t.Metatable = v.arrayMT
		for i, e := range x {
			lv, err := v.convert(e, depth+1, true)
			if err != nil {
				return nil, err
			}
			t.RawSetInt(i+1, lv)
			v.keepOrigin(t, x, e)
		}
		return t, nil
	case []string:
		if len(x) >= MaxArrayIndex {
			return nil, fmt.Errorf("array of %d elements is longer than %d", len(x), MaxArrayIndex-1)
		}
		if !build {
			return nil, nil
		}
		t := v.L.CreateTable(len(x), 0)
		t.Metatable = v.arrayMT
		for i, e := range x {
			t.RawSetInt(i+1, lua.LString(e))
		}
		return t, nil
	}
	return nil, fmt.Errorf("cannot convert a Go %T to Lua", x)
}

// firstError returns the error toLua reports for x, whose check failed with
// err: that of the first entry in key order (toLua's), so that the message
// does not depend on map iteration order.
func (v *vm) firstError(x map[string]any, depth int, err error) error {
	if err == errStopped {
		return err
	}
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, err := v.convert(x[k], depth+1, false); err != nil {
			return err
		}
	}
	return err
}

// Number fidelity.
//
// A Lua number is a float64, so 12345678901234567890, 2^53+1 or 1.50 would
// come back from a hook that returns its input unchanged as
// 12345678901234567000, 2^53 or 1.5. toLua therefore remembers, for the
// duration of a call (v.origins, cleared by forgetOrigins), the Go
// container of every table it builds that holds a json.Number; fromLua,
// converting such a table back, gives an entry the original json.Number
// when the entry is still a number equal (as a float64) to it. So values a
// hook did not change keep their JSON text, and changed ones follow
// numberValue's rules.

// keepOrigin records container as the origin of t when elem is a number.
func (v *vm) keepOrigin(t *lua.LTable, container, elem any) {
	if _, ok := elem.(json.Number); !ok {
		return
	}
	if v.origins == nil {
		v.origins = map[*lua.LTable]any{}
	}
	v.origins[t] = container
}

// forgetOrigins drops the origins recorded by toLua, so that no host value
// is kept alive after a call.
func (v *vm) forgetOrigins() {
	if len(v.origins) > 0 {
		clear(v.origins)
	}
}

// originNumber returns the json.Number at key k of t's origin when it
// equals f.
func (v *vm) originNumber(t *lua.LTable, k lua.LValue, f float64) (json.Number, bool) {
	var n json.Number
	switch o := v.origins[t].(type) {
	case map[string]any:
		if ks, ok := k.(lua.LString); ok {
			n, _ = o[string(ks)].(json.Number)
		}
	case []any:
		if kn, ok := k.(lua.LNumber); ok && int(kn) >= 1 && int(kn) <= len(o) {
			n, _ = o[int(kn)-1].(json.Number)
		}
	}
	if n == "" {
		return "", false
	}
	if g, err := strconv.ParseFloat(string(n), 64); err != nil || g != f || math.Signbit(g) != math.Signbit(f) {
		return "", false
	}
	return n, true
}

// fromLua converts a Lua value to a free-form Go value.
func (v *vm) fromLua(lv lua.LValue, depth int, b *budget) (any, error) {
	if err := b.node(); err != nil {
		return nil, err
	}
	switch x := lv.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(x), nil
	case lua.LNumber:
		return numberValue(float64(x))
	case lua.LString:
		if err := b.str(len(x)); err != nil {
			return nil, err
		}
		return string(x), nil
	case *lua.LUserData:
		if x == v.null {
			return nil, nil
		}
		return nil, fmt.Errorf("cannot convert userdata to JSON")
	case *lua.LTable:
		if depth >= events.MaxDepth {
			return nil, fmt.Errorf("nested deeper than %d levels (a cyclic table?)", events.MaxDepth)
		}
		if e, ok := b.memo[x]; ok {
			b.nodes += e.nodes
			b.bytes += e.bytes
			if err := b.node(); err != nil {
				return nil, err
			}
			if err := b.str(0); err != nil {
				return nil, err
			}
			return e.val, nil
		}
		n0, b0 := b.nodes, b.bytes
		val, err := v.tableValue(x, depth, b)
		if err != nil {
			return nil, err
		}
		if b.nodes > 64 {
			if b.memo == nil {
				b.memo = map[*lua.LTable]memoEntry{}
			}
			b.memo[x] = memoEntry{val: val, nodes: b.nodes - n0, bytes: b.bytes - b0}
		}
		return val, nil
	}
	return nil, fmt.Errorf("cannot convert a %s to JSON", lv.Type())
}

// elemValue converts the value e at key k of table t (at depth), keeping
// an unchanged input number's text.
func (v *vm) elemValue(t *lua.LTable, k, e lua.LValue, depth int, b *budget) (any, error) {
	if f, ok := e.(lua.LNumber); ok && v.origins != nil {
		if n, ok := v.originNumber(t, k, float64(f)); ok {
			if err := b.node(); err != nil {
				return nil, err
			}
			return n, nil
		}
	}
	return v.fromLua(e, depth+1, b)
}

// numberValue formats a Lua number as a json.Number.
func numberValue(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("cannot convert %v to JSON", f)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return json.Number(strconv.FormatFloat(f, 'f', -1, 64)), nil
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

func (v *vm) tableValue(t *lua.LTable, depth int, b *budget) (any, error) {
	if info, ok := v.ro[t]; ok {
		t = info.target
	}
	if err := v.materializeAll(t); err != nil {
		return nil, err
	}
	const (
		auto = iota
		array
		object
	)
	kind := auto
	switch t.Metatable {
	case v.arrayMT:
		kind = array
	case v.objectMT, v.inputMT:
		kind = object
	}
	// First pass: classify the keys.
	var nInt, nStr, nOther, maxInt int
	var otherKey lua.LValue
	t.ForEach(func(k, _ lua.LValue) {
		switch k := k.(type) {
		case lua.LString:
			nStr++
		case lua.LNumber:
			if f := float64(k); f >= 1 && f == math.Trunc(f) && f < MaxArrayIndex {
				nInt++
				maxInt = max(maxInt, int(f))
				return
			}
			nOther++
			otherKey = k
		default:
			nOther++
			otherKey = k
		}
	})
	if kind == auto {
		switch {
		case nInt == 0 && nOther == 0:
			kind = object
		case nStr == 0 && nOther == 0 && maxInt == nInt:
			kind = array
		case nStr == 0 && nOther == 0:
			// The first missing index is at most nInt+1.
			hole := 1
			for t.RawGetInt(hole) != lua.LNil {
				hole++
			}
			return nil, fmt.Errorf("sparse array: integer keys up to %d but only %d of them (no key %d); JSON arrays have no holes: fill them with json.null, or use string keys for an object", maxInt, nInt, hole)
		default:
			return nil, fmt.Errorf("table mixes array and object keys (mark it with json.array or json.object, or use only keys 1..n or only string keys)")
		}
	}
	var err error
	if kind == array {
		if nStr > 0 || nOther > 0 {
			return nil, fmt.Errorf("json.array table has a non-index key")
		}
		if err := b.str(maxInt); err != nil { // holes become nulls: charge them
			return nil, err
		}
		arr := make([]any, maxInt)
		t.ForEach(func(k, e lua.LValue) {
			if err != nil {
				return
			}
			var x any
			x, err = v.elemValue(t, k, e, depth, b)
			arr[int(k.(lua.LNumber))-1] = x
		})
		if err != nil {
			return nil, err
		}
		return arr, nil
	}
	if nInt > 0 || nOther > 0 {
		if otherKey == nil {
			otherKey = lua.LNumber(maxInt)
		}
		return nil, fmt.Errorf("object key %s is not a string", otherKey.String())
	}
	m := make(map[string]any, nStr)
	t.ForEach(func(k, e lua.LValue) {
		if err != nil {
			return
		}
		ks := string(k.(lua.LString))
		if err = b.str(len(ks)); err != nil {
			return
		}
		var x any
		x, err = v.elemValue(t, k, e, depth, b)
		m[ks] = x
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// jsonString renders a converted value for messages.
func jsonString(x any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return fmt.Sprint(x)
	}
	s := bytes.TrimRight(buf.Bytes(), "\n")
	if len(s) > 1024 {
		return string(s[:1024]) + "..."
	}
	return string(s)
}

// eventNames holds the event names as Lua values, so that the input table
// does not box them on every call.
var eventValues = func() (out [events.Count]lua.LValue) {
	for i := range out {
		out[i] = lua.LString(events.Event(i).String())
	}
	return out
}()

// The top-level fields of the input table; a field's index is its bit in
// vm.inputSet.
const (
	inEvent = iota
	inSessionID
	inCwd
	inTimestamp
	inPrompt
	inToolName
	inToolInput
	inToolResult
	inOK
	inError
	inReason
	inUsage
	inCost
	inCaller
	inRequest
	inResponse
	inCompaction
	inSubagentName
	inSubagentResult
	inStopContinues
	inToolCallID
	inTool
	inFieldCount
)

// inputFields are the keys of the input table, the contract's JSON names of
// events.Input, indexed by the in* constants.
var inputFields = [inFieldCount]string{"event", "sessionId", "cwd", "timestamp", "prompt", "toolName", "toolInput",
	"toolResult", "ok", "error", "reason", "usage", "cost", "caller", "request", "response", "compaction",
	"subagentName", "subagentResult", "stopContinues", "toolCallId", "tool"}

// InputFields returns the keys of the table a handler receives: the
// contract's JSON names of the events.Input fields. The caller owns the
// slice.
func InputFields() []string { return append([]string(nil), inputFields[:]...) }

// lazyFields are the input fields whose values are tables: their tables are
// built when a handler first reads them, not before every call (most
// handlers read one or two; BenchmarkLuaGuard, the peer harness's
// hookengine-lua column). The other fields are set on first read too:
// setting and clearing every field of every call was a tenth of a
// one-guard call (the peer harness's hookengine-lua column).
const lazyFields = 1<<inToolInput | 1<<inToolResult | 1<<inUsage | 1<<inRequest | 1<<inCaller | 1<<inCompaction | 1<<inTool

// maxBoxed bounds the length of a string sameString keeps: the VM keeps no
// payload between calls.
const maxBoxed = 1 << 10

// sameString returns the Lua value of a string field that a session
// repeats call after call (sessionId, cwd, toolName), reusing the value of
// the previous call when the string is the same: boxing a string allocates
// (BenchmarkLuaGuard).
func (v *vm) sameString(f int, s string) lua.LValue {
	lv := v.boxed[f] // an LValue: kept boxed
	if prev, ok := lv.(lua.LString); !ok || string(prev) != s {
		lv = lua.LString(s)
		if len(s) <= maxBoxed {
			v.boxed[f] = lv
		}
	}
	return lv
}

// inputTable converts a HookInput to the table a handler receives: the
// contract's JSON field names, empty fields absent (nil), payloads as
// marked tables.
//
// The top-level table is reused from call to call on a VM (allocating a
// table with its key index is most of the cost of a call): releaseInput
// empties it after each call, or drops it when the handler added a key,
// however it got there (__newindex, table.insert, ...), or changed its
// metatable. Nested tables are fresh on every call. So a call sees nothing
// an earlier call put in its input, and a handler that keeps its input
// sees nothing of later calls in it.
//
// Every field is set when the handler first reads it (the input table's
// __index), lists the table (pairs, next) or converts it (json.encode,
// json.object): until then it is pending. The payloads are checked here
// all the same, so that an input that cannot be converted fails the call
// before its handler runs, whatever it reads.
//
// The small payloads in predicted (see predictReads) are not checked
// here: predictReads converts them before the handler runs, with the same
// errors (BenchmarkLuaGuardPeers). inputTable drops from predicted the
// payloads that are not small (smallPayload).
func (v *vm) inputTable(in *events.Input, predicted *uint32) (t *lua.LTable, err error) {
	if v.input == nil || v.inputDirty {
		v.input = v.L.CreateTable(0, inFieldCount)
		// Each key once, in field order: the table lists its fields in
		// that order whatever order a handler reads them in (a key keeps
		// its place in gopher-lua's iteration order once set).
		for _, k := range inputFields {
			v.input.RawSetString(k, lua.LTrue)
		}
		for _, k := range inputFields {
			v.input.RawSetString(k, lua.LNil)
		}
		v.input.Metatable = v.inputMT
		v.inputSet = 0
		v.inputDirty = false
	}
	defer func() {
		if err != nil {
			v.inputDirty = true
		}
	}()
	pending := uint32(1 << inEvent)
	payloads := [...]struct {
		f int
		x any
	}{{inToolInput, in.ToolInput}, {inToolResult, in.ToolResult}, {inUsage, in.Usage}, {inRequest, in.Request}}
	for i, p := range payloads {
		if p.x == nil {
			continue
		}
		if *predicted&(1<<p.f) != 0 {
			if smallPayload(p.x) {
				pending |= 1 << p.f
				continue
			}
			// A large payload is built only if this call reads it: a
			// handler that decides before reading it must not run out
			// of time converting it.
			*predicted &^= 1 << p.f
		}
		if err := v.checkLua(p.x, 0); err != nil {
			// The error of the first payload that does not convert, as
			// without predicted fields: a predicted one before it.
			for _, q := range payloads[:i] {
				if q.x != nil && *predicted&(1<<q.f) != 0 {
					if qerr := v.checkLua(q.x, 0); qerr != nil {
						return nil, &events.FieldError{Field: inputFields[q.f], Msg: qerr.Error()}
					}
				}
			}
			return nil, &events.FieldError{Field: inputFields[p.f], Msg: err.Error()}
		}
		pending |= 1 << p.f
	}
	for _, p := range [...]struct {
		f   int
		set bool
	}{
		{inSessionID, in.SessionID != ""}, {inCwd, in.Cwd != ""}, {inTimestamp, in.Timestamp != ""},
		{inPrompt, in.Prompt != ""}, {inToolName, in.ToolName != ""}, {inOK, in.OK != nil},
		{inError, in.Error != ""}, {inReason, in.Reason != ""}, {inCost, in.Cost != nil},
		{inCaller, in.Caller != nil}, {inResponse, in.Response != ""}, {inCompaction, in.Compaction != nil},
		{inSubagentName, in.SubagentName != ""}, {inSubagentResult, in.SubagentResult != ""},
		{inStopContinues, in.StopContinues != 0}, {inToolCallID, in.ToolCallID != ""}, {inTool, in.Tool != nil || v.callView != nil},
	} {
		if p.set {
			pending |= 1 << p.f
		}
	}
	v.callIn, v.pending = in, pending
	return v.input, nil
}

// scalarValue returns the value of the field f of in that is no table.
func (v *vm) scalarValue(f int, in *events.Input) lua.LValue {
	switch f {
	case inEvent:
		if in.Event.Valid() {
			return eventValues[in.Event]
		}
		return lua.LString(in.Event.String())
	case inSessionID:
		return v.sameString(f, in.SessionID)
	case inCwd:
		return v.sameString(f, in.Cwd)
	case inToolName:
		return v.sameString(f, in.ToolName)
	case inTimestamp:
		return lua.LString(in.Timestamp)
	case inPrompt:
		return lua.LString(in.Prompt)
	case inOK:
		return lua.LBool(*in.OK)
	case inError:
		return lua.LString(in.Error)
	case inReason:
		return lua.LString(in.Reason)
	case inCost:
		return lua.LNumber(*in.Cost)
	case inResponse:
		return lua.LString(in.Response)
	case inSubagentName:
		return lua.LString(in.SubagentName)
	case inSubagentResult:
		return lua.LString(in.SubagentResult)
	case inStopContinues:
		return lua.LNumber(in.StopContinues)
	case inToolCallID:
		return lua.LString(in.ToolCallID)
	}
	return lua.LNil
}

// lazyField returns the index of the pending field named k, or -1.
func (v *vm) lazyField(k lua.LValue) int {
	s, ok := k.(lua.LString)
	if !ok || v.pending == 0 {
		return -1
	}
	for set := v.pending; set != 0; set &= set - 1 {
		if f := bits.TrailingZeros32(set); inputFields[f] == string(s) {
			return f
		}
	}
	return -1
}

// materialize sets the pending field f in the input table, building its
// table for a lazyField. It fails for a stopped call (errStopped), and for
// a payload that does not convert when inputTable did not check it (see
// predictReads).
func (v *vm) materialize(f int) (lua.LValue, error) {
	v.pending &^= 1 << f
	v.pl.work.inputFields.Add(1)
	in := v.callIn
	if lazyFields&(1<<f) == 0 {
		lv := v.scalarValue(f, in)
		v.input.RawSetString(inputFields[f], lv)
		v.inputSet |= 1 << f
		return lv, nil
	}
	v.pl.work.inputTables.Add(1)
	var lv lua.LValue
	var err error
	switch f {
	case inToolInput:
		lv, err = v.payloadTable(&v.reused[0], in.ToolInput)
	case inToolResult:
		lv, err = v.payloadTable(&v.reused[1], in.ToolResult)
	case inUsage:
		lv, err = v.payloadTable(&v.reused[2], in.Usage)
	case inRequest:
		lv, err = v.payloadTable(&v.reused[3], in.Request)
	case inCaller:
		c := v.L.CreateTable(0, 2)
		c.Metatable = v.objectMT
		c.RawSetString("kind", lua.LString(in.Caller.Kind))
		if in.Caller.AgentName != "" {
			c.RawSetString("agentName", lua.LString(in.Caller.AgentName))
		}
		lv = c
	case inCompaction:
		c := v.L.CreateTable(0, 2)
		c.Metatable = v.objectMT
		if in.Compaction.Trigger != "" {
			c.RawSetString("trigger", lua.LString(in.Compaction.Trigger))
		}
		if in.Compaction.Tokens != 0 {
			c.RawSetString("tokens", lua.LNumber(in.Compaction.Tokens))
		}
		lv = c
	case inTool:
		tool := in.Tool
		if tool == nil {
			tool = v.callView.ToolView()
		}
		if tool == nil {
			// A viewer that finds no view after all: no tool, not a
			// nil dereference (out of CallView itself when predicted).
			lv = lua.LNil
			break
		}
		lv = v.toolTable(tool)
	}
	if err != nil {
		return nil, &events.FieldError{Field: inputFields[f], Msg: err.Error()}
	}
	v.input.RawSetString(inputFields[f], lv)
	v.inputSet |= 1 << f
	return lv, nil
}

// A reusedObject is the table of a payload field (toolInput, toolResult,
// usage, request) kept from call to call on a VM when the payload is an
// object: the next call whose payload has the same keys refills it rather
// than building a table with its key index again (BenchmarkLuaGuard, the
// peer harness's hookengine-lua column). releaseInput empties it after the
// call; a table the call tampered with (a key it did not set, another
// metatable) is dropped. So, as with the input table itself, a handler
// that keeps the table finds it empty between calls, and keys come in the
// same (sorted) order as in a fresh table.
type reusedObject struct {
	t    *lua.LTable
	keys []string // the keys the table holds during a call, sorted
	used bool     // filled for the current call
}

// maxReusedKeys bounds the keys of a reused table.
const maxReusedKeys = 32

// payloadTable converts the payload x of an input field, refilling r's
// table when x is an object with the keys of the last one.
func (v *vm) payloadTable(r *reusedObject, x any) (lua.LValue, error) {
	m, isObject := x.(map[string]any)
	if !isObject || len(m) > maxReusedKeys {
		return v.toLua(x, 0)
	}
	// The values by r.keys, each looked up once: the check that m has the
	// keys of the table and the refill (BenchmarkLuaGuardPeers).
	var vals [maxReusedKeys]any
	if r.t != nil && r.fits(m, &vals) && r.t.Metatable == v.objectMT {
		if k, _ := r.t.Next(lua.LNil); k != lua.LNil {
			// A handler that kept the table wrote into it since.
			emptyTable(r.t)
		} else {
			// Used from the first key on: a refill that fails half way
			// (a payload that predictReads converts unchecked, or a
			// stopped call) is emptied by release like a whole one, or
			// its values would wait in the table for a handler that
			// kept it.
			r.used = true
			for i, k := range r.keys {
				e := vals[i]
				lv, err := v.toLua(e, 1)
				if err != nil {
					return nil, err
				}
				r.t.RawSetString(k, lv)
				v.keepOrigin(r.t, m, e)
			}
			return r.t, nil
		}
	}
	lv, err := v.toLua(m, 0)
	if err != nil {
		return nil, err
	}
	r.t, r.used = lv.(*lua.LTable), true
	r.keys = r.keys[:0]
	for k := range m {
		r.keys = append(r.keys, k)
	}
	sort.Strings(r.keys)
	return lv, nil
}

// fits reports whether m has exactly the keys of r's table, setting
// vals[i] to the value of r.keys[i].
func (r *reusedObject) fits(m map[string]any, vals *[maxReusedKeys]any) bool {
	if len(m) != len(r.keys) {
		return false
	}
	for i, k := range r.keys {
		e, ok := m[k]
		if !ok {
			return false
		}
		vals[i] = e
	}
	return true
}

// release empties r's table after a call, or drops it when the call
// tampered with it.
func (r *reusedObject) release(v *vm) {
	if !r.used {
		return
	}
	r.used = false
	for _, k := range r.keys {
		r.t.RawSetString(k, lua.LNil)
	}
	if k, _ := r.t.Next(lua.LNil); k != lua.LNil || r.t.Metatable != v.objectMT {
		emptyTable(r.t)
		r.t, r.keys = nil, r.keys[:0]
	}
}

// emptyTable removes every key of t.
func emptyTable(t *lua.LTable) {
	var keys []lua.LValue
	t.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
	for _, k := range keys {
		t.RawSet(k, lua.LNil)
	}
}

// materializeAll builds every pending field of the input table t (when t
// is the current call's), before something lists or converts it.
func (v *vm) materializeAll(t *lua.LTable) error {
	if t != v.input {
		return nil
	}
	for v.pending != 0 {
		if _, err := v.materialize(bits.TrailingZeros32(v.pending)); err != nil {
			return err
		}
	}
	return nil
}

// fieldReads is what a VM learnt of the input fields a hook's handler
// reads: predictReads sets them before the handler runs, sparing the
// __index call (a Go function called through the Lua call protocol) of
// each read (BenchmarkLuaGuardPeers).
type fieldReads struct {
	mask  uint32 // the fields read since the last learning call
	calls uint8  // calls since, modulo learnEvery
}

// learnEvery: one call in learnEvery of a hook on a VM sets no field ahead
// and starts its mask afresh, so that a field a handler stopped reading
// is set for at most learnEvery calls more.
const learnEvery = 64

// predicted returns the fields hook i's handler read in its earlier calls
// on this VM, none on a learning call.
func (v *vm) predicted(i int) uint32 {
	v.readNow = 0
	if v.reads == nil {
		v.reads = make([]fieldReads, len(v.pl.hooks))
	}
	if r := &v.reads[i]; r.calls%learnEvery != 0 {
		return r.mask
	}
	return 0
}

// predictReads sets the pending fields of predicted, after inputTable.
// The values are those a read would build: only the work moves ahead of
// the handler. Its error is the conversion error of a payload (that
// inputTable left unchecked) or errStopped.
func (v *vm) predictReads(predicted uint32) error {
	for set := predicted & v.pending; set != 0; set &= set - 1 {
		if _, err := v.materialize(bits.TrailingZeros32(set)); err != nil {
			v.inputDirty = true
			return err
		}
	}
	return nil
}

// maxPredictedValues bounds the values of a payload predictReads builds
// ahead of the handler (see smallPayload).
const maxPredictedValues = 64

// smallPayload reports whether x holds at most maxPredictedValues values
// (containers and scalars; a string of any length is one): building it
// ahead costs about what reading it would. A larger payload is built
// only when the handler reads it: a handler that decides without reading
// it (a deny by tool name) would otherwise spend its time converting a
// payload it never looks at, seventeen times its check (300,000 objects:
// 0.6 s against 36 ms), and a call that a guard answers in time would
// fail on its timeout. The walk stops past the bound.
func smallPayload(x any) bool {
	n := maxPredictedValues
	return fewValues(x, &n)
}

// fewValues counts x's values down from *n; it reports false once *n goes
// below zero.
func fewValues(x any, n *int) bool {
	if *n--; *n < 0 {
		return false
	}
	switch x := x.(type) {
	case map[string]any:
		for _, e := range x {
			if !fewValues(e, n) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !fewValues(e, n) {
				return false
			}
		}
	}
	return true
}

// learnReads records the fields hook i's handler read in this call.
func (v *vm) learnReads(i int) {
	r := &v.reads[i]
	if r.calls%learnEvery == 0 {
		r.mask = 0
	}
	r.mask |= v.readNow
	r.calls++
}

// luaInputIndex is the __index of the input table: it builds a pending
// field on its first read.
func (v *vm) luaInputIndex(L *lua.LState) int {
	t := L.CheckTable(1)
	f := v.lazyField(L.Get(2))
	if t != v.input || f < 0 {
		L.Push(lua.LNil)
		return 1
	}
	lv, err := v.materialize(f)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	v.readNow |= 1 << f
	v.pl.work.inputIndex.Add(1)
	L.Push(lv)
	return 1
}

// toolTable converts the engine's view of a tool call to the table
// input.tool: kind, command and shell (absent when empty) and the lists paths,
// contents and urls (always present, possibly empty).
func (v *vm) toolTable(tv *events.ToolView) *lua.LTable {
	t := v.L.CreateTable(0, 5)
	t.Metatable = v.objectMT
	t.RawSetString("kind", lua.LString(tv.Kind))
	if tv.Command != "" {
		t.RawSetString("command", lua.LString(tv.Command))
	}
	if tv.Shell != "" {
		t.RawSetString("shell", lua.LString(tv.Shell))
	}
	for _, f := range [...]struct {
		key  string
		list []string
	}{{"paths", tv.Paths}, {"contents", tv.Contents}, {"urls", tv.URLs}} {
		a := v.L.CreateTable(len(f.list), 0)
		a.Metatable = v.arrayMT
		for _, s := range f.list {
			a.Append(lua.LString(s))
		}
		t.RawSetString(f.key, a)
	}
	return t
}

// releaseInput empties the input table after a call, so that between calls
// it holds nothing (no payload kept alive, nothing for a handler that kept
// the table to see later). A table the call tampered with (a key that is
// not a field it set, however it got there: __newindex, table.insert, ...;
// or another metatable) is emptied of every key and dropped: the next call
// gets a fresh one.
func (v *vm) releaseInput() {
	t := v.input
	if t == nil {
		return
	}
	for set := v.inputSet; set != 0; set &= set - 1 {
		t.RawSetString(inputFields[bits.TrailingZeros32(set)], lua.LNil)
	}
	v.inputSet = 0
	v.callIn, v.pending = nil, 0
	for i := range v.reused {
		v.reused[i].release(v)
	}
	// Without allocating: Next skips the keys whose value is nil.
	if k, _ := t.Next(lua.LNil); k == lua.LNil && !v.inputDirty && t.Metatable == v.inputMT {
		return
	}
	emptyTable(t)
	v.input = nil
}

// luaInputNewIndex is the __newindex of the input table: the handler may
// add keys, and the table is replaced before the next call.
func (v *vm) luaInputNewIndex(L *lua.LState) int {
	t := L.CheckTable(1)
	k := L.CheckAny(2)
	if t == v.input {
		if f := v.lazyField(k); f >= 0 {
			v.pending &^= 1 << f // the handler's value replaces the field
		}
		v.inputDirty = true
	}
	t.RawSet(k, L.Get(3))
	return 0
}

// metatableMsg refuses an output table with a metatable of the script's.
const metatableMsg = "has a metatable: its fields are read raw, so a field it inherits through __index would be lost; return a plain table"

// plainTable reports whether t's fields are what a raw read sees: it has
// no metatable but the input's or a JSON mark.
func (v *vm) plainTable(t *lua.LTable) bool {
	switch t.Metatable {
	case lua.LNil, v.objectMT, v.arrayMT, v.inputMT:
		return true
	}
	return false
}

// outputKeys are the HookOutput fields a handler's table may set.
var outputKeys = [...]string{"decision", "reason", "additionalContext", "mutatedPrompt", "modelOverride",
	"mutatedToolInput", "updatedToolOutput", "mutatedRequest", "mutatedText", "continueWork"}

// maxListedOutput bounds the entries outputFields lists.
const maxListedOutput = 16

// outputFields sets fields to the values of t's HookOutput fields by
// outputKeyIndex (nil: absent), listed from t's entries: a table holds
// a field or two, where looking each of the ten up costs ten hashes
// (BenchmarkLuaGuardPeers). It reports false for a table of more than
// maxListedOutput entries: the caller then looks the fields up.
func (v *vm) outputFields(t *lua.LTable, fields *[len(outputKeys)]lua.LValue) bool {
	n := 0
	for k, x := t.Next(lua.LNil); k != lua.LNil; k, x = t.Next(k) {
		if n++; n > maxListedOutput {
			return false
		}
		if ks, ok := k.(lua.LString); ok {
			if i := outputKeyIndex(string(ks)); i >= 0 {
				fields[i] = x
			}
		}
	}
	return true
}

// outputKeyIndex returns the index of k in outputKeys, or -1.
func outputKeyIndex(k string) int {
	switch k {
	case "decision":
		return 0
	case "reason":
		return 1
	case "additionalContext":
		return 2
	case "mutatedPrompt":
		return 3
	case "modelOverride":
		return 4
	case "mutatedToolInput":
		return 5
	case "updatedToolOutput":
		return 6
	case "mutatedRequest":
		return 7
	case "mutatedText":
		return 8
	case "continueWork":
		return 9
	}
	return -1
}

// readOutput converts a handler's return value. nil is "proceed"; a table
// is read field by field (raw, unknown keys ignored, json.null the same as
// absent); anything else is an error.
func (v *vm) readOutput(lv lua.LValue) (events.Output, error) {
	var o events.Output
	var t *lua.LTable
	var fields [len(outputKeys)]lua.LValue
	listed := true
	switch x := lv.(type) {
	case *lua.LNilType:
		return o, nil
	case *lua.LTable:
		t = x
		if info, ok := v.ro[t]; ok {
			t = info.target
		}
		if !v.plainTable(t) {
			return o, errors.New("the HookOutput table " + metatableMsg)
		}
		listed = v.outputFields(t, &fields)
	default:
		switch {
		case lv == v.null:
			return o, nil
		case lv == v.outToken && v.outSet:
			fields = v.outVals // a rewritten return (outreturn.go)
		default:
			return o, fmt.Errorf("handler returned a %s; want nil or a HookOutput table", lv.Type())
		}
	}
	get := func(k string) lua.LValue {
		var x lua.LValue
		if listed {
			x = fields[outputKeyIndex(k)]
		} else {
			x = t.RawGetString(k)
		}
		if x == nil || x == v.null {
			return lua.LNil
		}
		return x
	}
	str := func(k string) (string, bool, error) {
		switch x := get(k).(type) {
		case *lua.LNilType:
			return "", false, nil
		case lua.LString:
			return string(x), true, nil
		default:
			return "", false, &events.FieldError{Field: k, Msg: "want a string, got " + luaKind(x)}
		}
	}
	var err error
	var s string
	var ok bool
	if s, _, err = str("decision"); err != nil {
		return o, err
	}
	o.Decision = events.Decision(s)
	if o.Reason, _, err = str("reason"); err != nil {
		return o, err
	}
	if o.AdditionalContext, _, err = str("additionalContext"); err != nil {
		return o, err
	}
	if s, ok, err = str("mutatedPrompt"); err != nil {
		return o, err
	} else if ok {
		prompt := s
		o.MutatedPrompt = &prompt
	}
	if o.ModelOverride, _, err = str("modelOverride"); err != nil {
		return o, err
	}
	// The payloads share one budget, made for the first. (No pointers
	// into o: they would make it escape, an allocation per call.)
	var b *budget
	payload := func(k string) (any, error) {
		x := get(k)
		if x == lua.LNil {
			return nil, nil
		}
		if b == nil {
			b = v.newBudget()
		}
		val, err := v.fromLua(x, 0, b)
		if err != nil {
			return nil, &events.FieldError{Field: k, Msg: err.Error()}
		}
		return val, nil
	}
	if o.MutatedToolInput, err = payload("mutatedToolInput"); err != nil {
		return o, err
	}
	if o.UpdatedToolOutput, err = payload("updatedToolOutput"); err != nil {
		return o, err
	}
	if o.MutatedRequest, err = payload("mutatedRequest"); err != nil {
		return o, err
	}
	if s, ok, err = str("mutatedText"); err != nil {
		return o, err
	} else if ok {
		text := s
		o.MutatedText = &text
	}
	switch cw := get("continueWork").(type) {
	case *lua.LNilType:
	case *lua.LTable:
		if info, ok := v.ro[cw]; ok {
			cw = info.target
		}
		if !v.plainTable(cw) {
			return o, &events.FieldError{Field: "continueWork", Msg: metatableMsg}
		}
		switch r := cw.RawGetString("reason").(type) {
		case lua.LString:
			o.ContinueWork = &events.ContinueWork{Reason: string(r)}
		case *lua.LNilType:
			return o, &events.FieldError{Field: "continueWork.reason", Msg: "missing reason"}
		default:
			if r == v.null {
				return o, &events.FieldError{Field: "continueWork.reason", Msg: "missing reason"}
			}
			return o, &events.FieldError{Field: "continueWork.reason", Msg: "want a string, got " + luaKind(r)}
		}
	default:
		return o, &events.FieldError{Field: "continueWork", Msg: "want a table, got " + luaKind(cw)}
	}
	if err := o.Validate(); err != nil {
		return events.Output{}, err
	}
	return o, nil
}

// luaKind names a Lua value's type for messages ("a number").
func luaKind(x lua.LValue) string {
	switch x.Type() {
	case lua.LTNil:
		return "nil"
	case lua.LTBool:
		return "a boolean"
	case lua.LTNumber:
		return "a number"
	case lua.LTString:
		return "a string"
	case lua.LTTable:
		return "a table"
	case lua.LTFunction:
		return "a function"
	case lua.LTUserData:
		return "a userdata"
	}
	return "a " + x.Type().String()
}

// toLuaParams converts a Source's params to a deeply read-only table.
func (v *vm) toLuaParams(params map[string]any) (lua.LValue, error) {
	if params == nil {
		params = map[string]any{}
	}
	lv, err := v.toLua(params, 0)
	if err != nil {
		return nil, err
	}
	frozen, ok := v.freezeDeep(lv, "params", map[*lua.LTable]lua.LValue{}, 0)
	if !ok {
		return nil, fmt.Errorf("nested deeper than %d levels", events.MaxDepth)
	}
	return frozen, nil
}

// freezeDeep replaces every table reachable from lv through table values
// (not keys or metatables) by a read-only proxy, in place, and returns lv
// or its proxy. seen maps the tables already frozen to their proxies, so
// that a table reachable twice gets one proxy and cycles end; proxies stay
// as they are. ok is false when tables nest deeper than events.MaxDepth.
func (v *vm) freezeDeep(lv lua.LValue, name string, seen map[*lua.LTable]lua.LValue, depth int) (_ lua.LValue, ok bool) {
	t, isTable := lv.(*lua.LTable)
	if !isTable {
		return lv, true
	}
	if _, isProxy := v.ro[t]; isProxy {
		return t, true
	}
	if p, done := seen[t]; done {
		return p, true
	}
	if depth >= events.MaxDepth {
		return nil, false
	}
	p := v.readonly(t, name)
	seen[t] = p
	var keys, vals []lua.LValue
	t.ForEach(func(k, e lua.LValue) {
		if _, ok := e.(*lua.LTable); ok {
			keys = append(keys, k)
			vals = append(vals, e)
		}
	})
	for i, k := range keys {
		fv, ok := v.freezeDeep(vals[i], name+"."+lua.LVAsString(k), seen, depth+1)
		if !ok {
			return nil, false
		}
		t.RawSet(k, fv)
	}
	return p, true
}
