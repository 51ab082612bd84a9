package luaapi

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
)

func TestHandlerReturns(t *testing.T) {
	cases := []struct {
		name, body string
		want       events.Output
	}{
		{"nil", "return nil", events.Output{}},
		{"nothing", "", events.Output{}},
		{"json.null", "return json.null", events.Output{}},
		{"empty table", "return {}", events.Output{}},
		{"deny", `return { decision = "deny", reason = "no" }`, events.Output{Decision: events.Deny, Reason: "no"}},
		{"ask", `return { decision = "ask" }`, events.Output{Decision: events.Ask}},
		{"allow", `return { decision = "allow" }`, events.Output{Decision: events.Allow}},
		{"all strings", `return { additionalContext = "c", mutatedPrompt = "p", modelOverride = "m", mutatedText = "t" }`,
			events.Output{AdditionalContext: "c", MutatedPrompt: ptr("p"), ModelOverride: "m", MutatedText: ptr("t")}},
		{"empty mutated prompt", `return { mutatedPrompt = "" }`, events.Output{MutatedPrompt: ptr("")}},
		{"continueWork", `return { continueWork = { reason = "again" } }`, events.Output{ContinueWork: &events.ContinueWork{Reason: "again"}}},
		{"unknown keys ignored", `return { decision = "deny", whatever = function() end, [1] = 2 }`, events.Output{Decision: events.Deny}},
		{"null fields are absent", `return { decision = json.null, mutatedToolInput = json.null }`, events.Output{}},
		{"mutatedToolInput", `local t = input.toolInput; t.command = "ls -la"; return { mutatedToolInput = t }`,
			events.Output{MutatedToolInput: map[string]any{"command": "ls -la"}}},
		{"new object", `return { mutatedToolInput = { command = "x", n = 2, f = 1.5, list = {1, "a", true} } }`,
			events.Output{MutatedToolInput: map[string]any{"command": "x", "n": json.Number("2"), "f": json.Number("1.5"), "list": []any{json.Number("1"), "a", true}}}},
		{"empty table is an object", `return { mutatedToolInput = {}, updatedToolOutput = {} }`,
			events.Output{MutatedToolInput: map[string]any{}, UpdatedToolOutput: map[string]any{}}},
		{"json.array", `return { updatedToolOutput = json.array{} }`, events.Output{UpdatedToolOutput: []any{}}},
		{"json.object", `return { updatedToolOutput = json.object{} }`, events.Output{UpdatedToolOutput: map[string]any{}}},
		{"string output", `return { updatedToolOutput = "text" }`, events.Output{UpdatedToolOutput: "text"}},
		{"more entries than are listed", `local t = { decision = "deny" } for i = 1, 40 do t["k" .. i] = i end t.reason = "r" t[1] = 1 return t`,
			events.Output{Decision: events.Deny, Reason: "r"}},
		{"a field set then cleared", `local t = { decision = "deny", reason = "r" } t.reason = nil t.modelOverride = "m" return t`,
			events.Output{Decision: events.Deny, ModelOverride: "m"}},
		{"an array part besides", `return { "x", "y", decision = "ask", reason = "r" }`, events.Output{Decision: events.Ask, Reason: "r"}},
		{"multiple returns: first counts", `return { decision = "ask" }, { decision = "deny" }`, events.Output{Decision: events.Ask}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := handlerPool(t, c.body)
			out, err := p.Call(context.Background(), 0, bashInput("ls"))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(out, c.want) {
				t.Fatalf("out = %#v\nwant  %#v", out, c.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestOutputKeyIndex: outputKeyIndex, which readOutput uses on the fields it
// lists, is the index of each key of outputKeys.
func TestOutputKeyIndex(t *testing.T) {
	for i, k := range outputKeys {
		assert.Equal(t, i, outputKeyIndex(k), k)
	}
	assert.Equal(t, -1, outputKeyIndex("Decision"))
}

func TestHandlerFailures(t *testing.T) {
	cases := []struct {
		name, body string
		kind       FailureKind
		msg        string
	}{
		{"error string", `error("boom")`, FailError, "h.lua:3: boom"},
		{"error string level 0", `error("boom", 0)`, FailError, "boom"},
		{"error table", `error({ code = 7 })`, FailError, `error called with a table: {"code":7}`},
		{"error nil", `error(nil)`, FailError, "error called with nil"},
		{"error number", `error(42)`, FailError, "42"},
		{"runtime error", `local t = nil; return t.x`, FailError, "attempt to index"},
		{"arith on nil", `return input.nothing + 1`, FailError, "cannot perform add"},
		{"decision wrong type", `return { decision = 5 }`, FailOutput, "field decision: want a string, got a number"},
		{"reason wrong type", `return { decision = "deny", reason = {} }`, FailOutput, "field reason: want a string, got a table"},
		{"unknown decision", `return { decision = "block" }`, FailOutput, `unknown decision "block"`},
		{"string return", `return "deny"`, FailOutput, "handler returned a string"},
		{"boolean return", `return false`, FailOutput, "handler returned a boolean"},
		{"function return", `return function() end`, FailOutput, "handler returned a function"},
		{"mutatedToolInput array", `return { mutatedToolInput = {1, 2} }`, FailOutput, "mutatedToolInput: want an object"},
		{"mutatedToolInput string", `return { mutatedToolInput = "x" }`, FailOutput, "mutatedToolInput: want an object"},
		{"cyclic", `local t = {}; t.self = t; return { mutatedToolInput = t }`, FailOutput, "cyclic"},
		{"cyclic wide", `local t = {}; t.a = t; t.b = t; t.c = {t, t}; return { updatedToolOutput = t }`, FailOutput, "cyclic"},
		{"dag bomb", `local t = {1} for i = 1, 40 do t = {t, t} end return { updatedToolOutput = t }`, FailOutput, "more than"},
		{"mixed keys", `return { updatedToolOutput = { 1, a = 2 } }`, FailOutput, "mixes array and object keys"},
		{"sparse", `return { updatedToolOutput = { [1] = 1, [3] = 3 } }`, FailOutput, "sparse array: integer keys up to 3 but only 2 of them (no key 2)"},
		{"sparse from 2", `return { updatedToolOutput = { [2] = 1 } }`, FailOutput, "sparse array: integer keys up to 2 but only 1 of them (no key 1)"},
		{"sparse nested", `return { updatedToolOutput = { a = { [1] = 1, [5] = 5 } } }`, FailOutput, "sparse array"},
		{"function value", `return { updatedToolOutput = { f = print } }`, FailOutput, "cannot convert a function"},
		{"nan", `return { updatedToolOutput = 0/0 }`, FailOutput, "cannot convert NaN"},
		{"inf", `return { updatedToolOutput = 1/0 }`, FailOutput, "cannot convert +Inf"},
		{"continueWork without reason", `return { continueWork = {} }`, FailOutput, "continueWork.reason: missing reason"},
		{"continueWork wrong type", `return { continueWork = "x" }`, FailOutput, "continueWork: want a table"},
		// A class-style output: Lua sees decision = "deny" through
		// __index, the raw read would see none (a silent proceed).
		{"inherited decision", `return setmetatable({ reason = "r" }, { __index = { decision = "deny" } })`, FailOutput, "has a metatable"},
		{"inherited continueWork reason", `return { continueWork = setmetatable({}, { __index = { reason = "go on" } }) }`, FailOutput, "continueWork: has a metatable"},
		{"stack overflow", `local function f(n) return f(n + 1) + 1 end return f(1)`, FailError, "stack overflow"},
		{"huge rep", `local s = string.rep("x", 2e8) return { additionalContext = s }`, FailError, "string.rep"},
		{"huge rep method", `local s = ("x"):rep(2e8)`, FailError, "string.rep"},
		{"huge concat", `local t = {} for i = 1, 2000 do t[i] = ("x"):rep(10000) end return { additionalContext = table.concat(t) }`, FailError, "table.concat"},
		{"huge format", `return { reason = string.format("%999999999d", 1) }`, FailError, "invalid format"},
		{"unpack bomb", `local t = {} for i = 1, 1e5 do t[i] = i end return unpack(t)`, FailError, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := handlerPool(t, c.body)
			out, err := p.Call(context.Background(), 0, bashInput("ls"))
			var he *HookError
			if !errors.As(err, &he) {
				t.Fatalf("out = %+v, err = %v, want a HookError", out, err)
			}
			if c.kind != 0 && he.Kind != c.kind {
				t.Errorf("kind = %v, want %v (%v)", he.Kind, c.kind, err)
			}
			if !strings.Contains(he.Msg, c.msg) {
				t.Errorf("msg = %q, want it to contain %q", he.Msg, c.msg)
			}
			if he.Script != "h.lua" || he.Line != 2 || he.Event != events.BeforeTool {
				t.Errorf("hook identity: %+v", he)
			}
			if !reflect.DeepEqual(out, events.Output{}) {
				t.Errorf("out = %+v, want zero", out)
			}
		})
	}
}

func TestErrorTableValue(t *testing.T) {
	p := handlerPool(t, `error({ decision = "deny", list = {1, 2} })`)
	_, err := p.Call(context.Background(), 0, bashInput("ls"))
	var he *HookError
	if !errors.As(err, &he) {
		t.Fatal(err)
	}
	want := map[string]any{"decision": "deny", "list": []any{json.Number("1"), json.Number("2")}}
	if !reflect.DeepEqual(he.Value, want) {
		t.Fatalf("value = %#v", he.Value)
	}
}

func TestHugeSparseTable(t *testing.T) {
	// With MaxArrayIndex lowered, a huge index lands in the hash part:
	// cheap, and the host stays fine. Cheap is counted in bytes, not
	// seconds: an array part up to 6e7 would allocate about 1 GB.
	p := newTestPool(t, Options{}, "h.lua", "hook{event='BeforeTool', handler=function() local t = {}; t[6e7] = true; t[2^40] = 1; return { additionalContext = tostring(t[6e7]) .. #t } end}")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := p.Call(context.Background(), 0, bashInput("ls"))
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Equal(t, "true0", out.AdditionalContext)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated by the call")
}

func TestGoPanicIsAFailure(t *testing.T) {
	t.Run("host function", func(t *testing.T) {
		p := newTestPool(t, Options{PoolSize: 1}, "h.lua", `
hook{ event = "BeforeTool", handler = function(i) goPanic() end }
hook{ event = "BeforeTool", handler = function(i) local ok, err = pcall(goPanic) return { reason = tostring(ok) } end }
hook{ event = "BeforeTool", handler = function(i) return { decision = "allow" } end }`)
		for _, i := range []int{0, 1} {
			st := p.Stats()
			out, err := p.Call(context.Background(), i, bashInput("x"))
			var he *HookError
			switch i {
			case 0:
				if !errors.As(err, &he) || he.Kind != FailPanic || !strings.Contains(he.Msg, "assignment to entry in nil map") {
					t.Fatalf("err = %v", err)
				}
			case 1: // caught by pcall: the call succeeds, the VM is discarded
				if err != nil || out.Reason != "false" {
					t.Fatal(out, err)
				}
			}
			if p.Stats().Discarded != st.Discarded+1 {
				t.Errorf("hook %d: the VM was not discarded: %+v", i, p.Stats())
			}
			if out, err := p.Call(context.Background(), 2, bashInput("x")); err != nil || out.Decision != events.Allow {
				t.Fatal(out, err)
			}
		}
	})
	t.Run("gopher-lua issue 282", func(t *testing.T) {
		// Recursion that grows a vararg list ends in "index out of
		// range [-1]" escaping gopher-lua's own PCall, after ~1.5 s.
		if raceEnabled {
			t.Skip("too slow under the race detector")
		}
		p := newTestPool(t, Options{}, "h.lua",
			"hook{event='BeforeTool', handler=function() local function f(...) return f(1, 2, 3, ...) end f() end}")
		_, err := p.Call(context.Background(), 0, bashInput("x"))
		var he *HookError
		if !errors.As(err, &he) || he.Kind != FailPanic {
			t.Fatalf("err = %v", err)
		}
	})
}
