package luaapi

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/stretchr/testify/require"
)

// canonical decodes JSON with float64 numbers, for comparing documents
// that differ only in how numbers are written (1.0 and 1).
func canonical(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

const echoScript = `
hook{ event = "BeforeTool", handler = function(i) return { mutatedToolInput = i.toolInput } end }
hook{ event = "AfterTool", handler = function(i) return { updatedToolOutput = i.toolResult } end }
hook{ event = "BeforeModel", handler = function(i) return { mutatedRequest = i.request } end }
hook{ event = "AfterTool", handler = function(i) return { updatedToolOutput = require("json").decode(require("json").encode(i.toolResult)) } end }
`

func TestFidelityRoundTrip(t *testing.T) {
	p := newTestPool(t, Options{}, "echo.lua", echoScript)
	docs := []string{
		`{"command":"ls","opts":{},"list":[],"nothing":null,"nested":[{"a":[]},{}],"n":1.5}`,
		`{"a":[null,null],"b":[[]],"c":[{}],"d":{"e":{"f":null}},"g":[1,"x",true,false,null,{},[]]}`,
		`{"big":9007199254740991,"neg":-12,"exp":1e21,"small":1e-7,"zero":0,"frac":0.1}`,
		`{"unicode":"é✓\u0000\ud83d\ude00","empty":"","quote":"\"\\/"}`,
		`{"1":"numeric key","":"empty key"}`,
	}
	for _, doc := range docs {
		in, err := events.DecodeInput([]byte(`{"event":"BeforeTool","toolInput":` + doc + `}`))
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.Call(context.Background(), 0, &in)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		got, _ := json.Marshal(out.MutatedToolInput)
		if !reflect.DeepEqual(canonical(t, got), canonical(t, []byte(doc))) {
			t.Errorf("round trip\n got %s\nwant %s", got, doc)
		}
	}
	// Any JSON value as a tool result, directly and through json.encode/decode.
	for _, doc := range append(docs, `[]`, `{}`, `[null]`, `"text"`, `42`, `true`, `[[[[]]]]`) {
		v, err := events.DecodeValue([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{1, 3} {
			out, err := p.Call(context.Background(), i, &events.Input{Event: events.AfterTool, ToolResult: v})
			if err != nil {
				t.Fatalf("%s: %v", doc, err)
			}
			got, _ := json.Marshal(out.UpdatedToolOutput)
			if !reflect.DeepEqual(canonical(t, got), canonical(t, []byte(doc))) {
				t.Errorf("hook %d round trip\n got %s\nwant %s", i, got, doc)
			}
		}
	}
	// A rewritten request keeps arrays as arrays.
	in, err := events.DecodeInput([]byte(`{"event":"BeforeModel","caller":{"kind":"main"},"request":{"messages":[{"role":"user","content":"hi"}],"tools":[]}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Call(context.Background(), 2, &in)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(out.MutatedRequest); string(got) != `{"messages":[{"content":"hi","role":"user"}],"tools":[]}` {
		t.Errorf("request: %s", got)
	}
}

func TestInputTableShape(t *testing.T) {
	p := handlerPool(t, `
local keys = {}
for k, v in pairs(input) do keys[#keys + 1] = k .. "=" .. (type(v) == "table" and json.encode(v) or tostring(v)) end
table.sort(keys)
return { additionalContext = table.concat(keys, " ") }`)
	ok := false
	cost := 0.25
	in := &events.Input{Event: events.AfterTurn, SessionID: "s", Cwd: "/w", Timestamp: "2024-01-01T00:00:00Z", Prompt: "p",
		ToolName: "t", ToolInput: map[string]any{"a": 1}, ToolResult: "r", OK: &ok, Error: "e", Reason: "error",
		Usage: map[string]any{"tokens": json.Number("10")}, Cost: &cost, Caller: &events.Caller{Kind: "subagent", AgentName: "x"},
		Request: []any{}, Response: "resp", Compaction: &events.Compaction{Trigger: "auto", Tokens: 5},
		SubagentName: "sub", SubagentResult: "res", StopContinues: 2, ToolCallID: "c1",
		Tool: &events.ToolView{Kind: events.ToolWrite, Paths: []string{"a", "b"}, Contents: []string{"x"}}}
	out, err := p.Call(context.Background(), 0, in)
	if err != nil {
		t.Fatal(err)
	}
	want := `caller={"agentName":"x","kind":"subagent"} compaction={"tokens":5,"trigger":"auto"} cost=0.25 cwd=/w error=e event=AfterTurn ok=false prompt=p reason=error request=[] response=resp sessionId=s stopContinues=2 subagentName=sub subagentResult=res timestamp=2024-01-01T00:00:00Z tool={"contents":["x"],"kind":"write","paths":["a","b"],"urls":[]} toolCallId=c1 toolInput={"a":1} toolName=t toolResult=r usage={"tokens":10}`
	if out.AdditionalContext != want {
		t.Fatalf("got  %s\nwant %s", out.AdditionalContext, want)
	}
	// The reused input table: fields of the previous call are gone, and a
	// key a handler added does not survive.
	p = handlerPool(t, `
local seen = tostring(input.prompt) .. " " .. tostring(input.extra)
input.extra = "x"
input.toolName = nil
return { additionalContext = seen }`)
	for i, c := range []struct {
		in   *events.Input
		want string
	}{
		{&events.Input{Event: events.BeforeTurn, Prompt: "hello"}, "hello nil"},
		{&events.Input{Event: events.BeforeTool, ToolName: "x"}, "nil nil"},
		{&events.Input{Event: events.BeforeTool, ToolName: "x"}, "nil nil"},
	} {
		out, err := p.Call(context.Background(), 0, c.in)
		if err != nil || out.AdditionalContext != c.want {
			t.Fatalf("call %d: %+v %v", i, out, err)
		}
	}
}

func TestInputConversionFailure(t *testing.T) {
	p := handlerPool(t, `return { decision = "deny" }`)
	deep := any("x")
	for i := 0; i < events.MaxDepth+5; i++ {
		deep = []any{deep}
	}
	_, err := p.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolInput: map[string]any{"d": deep}})
	var he *HookError
	if !asHookError(err, &he) || he.Kind != FailInput {
		t.Fatalf("err = %v", err)
	}
	_, err = p.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolInput: map[string]any{"c": make(chan int)}})
	if !asHookError(err, &he) || he.Kind != FailInput {
		t.Fatalf("err = %v", err)
	}
	out, err := p.Call(context.Background(), 0, bashInput("ls"))
	if err != nil || out.Decision != events.Deny {
		t.Fatal(out, err)
	}
}

// TestPredictedInputConversionFailure: a payload the VM converts ahead of
// a handler that read it in earlier calls (see predictReads) fails the call
// as one checked before the handler runs, with the same message, and
// leaves nothing behind for the next call.
func TestPredictedInputConversionFailure(t *testing.T) {
	deep := any("x")
	for i := 0; i < events.MaxDepth+5; i++ {
		deep = []any{deep}
	}
	bad := []map[string]any{
		{"command": "ls", "d": deep},
		{"c": make(chan int), "command": "ls"},
		{"a": map[string]any{"n": json.Number("1e999")}},
	}
	unpredicted := newTestPool(t, Options{PoolSize: 1}, "h.lua", `hook{ event = "BeforeTool", handler = function(input)
  return { reason = tostring(input.toolName) } -- never reads toolInput
end }`)
	predicted := newTestPool(t, Options{PoolSize: 1}, "h.lua", `hook{ event = "BeforeTool", handler = function(input)
  return { reason = tostring(input.toolInput.command) }
end }`)
	for _, ti := range bad {
		_, want := unpredicted.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: ti})
		require.Error(t, want)
		out, err := predicted.Call(context.Background(), 0, bashInput("ls"))
		require.NoError(t, err)
		require.Equal(t, "ls", out.Reason)
		reads := predicted.plan.work.inputIndex.Load()
		_, err = predicted.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: ti})
		require.Equal(t, reads, predicted.plan.work.inputIndex.Load(), "toolInput was predicted")
		var he *HookError
		require.True(t, asHookError(err, &he), "%v", err)
		require.Equal(t, FailInput, he.Kind)
		require.Equal(t, want.Error(), err.Error())
		out, err = predicted.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "pwd"}})
		require.NoError(t, err)
		require.Equal(t, "pwd", out.Reason)
	}
}

func asHookError(err error, he **HookError) bool {
	e, ok := err.(*HookError)
	if ok {
		*he = e
	}
	return ok
}

// FuzzRoundTrip converts any JSON value to Lua and back through a handler
// (and through json.encode/json.decode) and requires the same JSON.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{
		`{"command":"ls","opts":{},"list":[],"nothing":null,"nested":[{"a":[]},{}],"n":1.5}`,
		`[]`, `{}`, `[null,[],{}]`, `"x"`, `0`, `-0`, `1e300`, `0.1`, `9007199254740993`, `{"":{"":[]}}`,
		`{"a":"\u00e9\u0000"}`, `[true,false]`, `[[[[[[[[[[1]]]]]]]]]]`,
	} {
		f.Add([]byte(s))
	}
	p, err := NewPool(context.Background(), []Source{{Script: MustCompile("echo.lua", []byte(echoScript))}}, Options{DefaultTimeout: MaxTimeout}) // far above a call's cost
	if err != nil {
		f.Fatal(err)
	}
	defer p.Close()
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := events.DecodeValue(data)
		if err != nil || v == nil || !finiteNumbers(v, 0) {
			return
		}
		want, err := json.Marshal(v)
		if err != nil {
			return
		}
		for _, i := range []int{1, 3} {
			out, err := p.Call(context.Background(), i, &events.Input{Event: events.AfterTool, ToolResult: v})
			if err != nil {
				t.Fatalf("hook %d: %s: %v", i, data, err)
			}
			got, err := json.Marshal(out.UpdatedToolOutput)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) && !reflect.DeepEqual(canonical(t, got), canonical(t, want)) {
				t.Fatalf("hook %d round trip\n got %s\nwant %s", i, got, want)
			}
		}
	})
}

// finiteNumbers reports whether every number in v fits a float64.
func finiteNumbers(v any, depth int) bool {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return err == nil && !math.IsInf(f, 0)
	case map[string]any:
		for _, e := range x {
			if !finiteNumbers(e, depth+1) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !finiteNumbers(e, depth+1) {
				return false
			}
		}
	}
	return true
}

// TestFidelityBitIdentical: numbers a hook returns unchanged keep their
// input text, whatever a float64 makes of them, through a direct return,
// a partly rewritten table and json.encode/json.decode; numbers a hook
// computes follow the documented rules.
func TestFidelityBitIdentical(t *testing.T) {
	const doc = `{"a":12345678901234567890,"b":9007199254740993,"c":1.0,"d":1e21,"e":-0.0,"f":[1.50,2E3,1e-400],"g":{"h":0.1,"i":[[123456789012345678901234567890]]}}`
	p := newTestPool(t, Options{}, "echo.lua", `
local json = require("json")
hook{ event = "BeforeTool", handler = function(i) return { mutatedToolInput = i.toolInput } end }
hook{ event = "BeforeTool", handler = function(i) i.toolInput.z = "new"; return { mutatedToolInput = i.toolInput } end }
hook{ event = "BeforeTool", handler = function(i) return { mutatedToolInput = json.decode(json.encode(i.toolInput)) } end }
hook{ event = "BeforeTool", handler = function(i) return { reason = json.encode(i.toolInput) } end }
hook{ event = "BeforeTool", handler = function(i) local t = i.toolInput; t.a = t.a + 1; t.b = t.b * 1; t.c = 2; t.g.h = t.g.h + 0.2; t.f = { t.f[1], 3 / 2, 2^53 + 1, 1e300 * 1e300, -0.0 }; return { mutatedToolInput = t } end }
`)
	in, err := events.DecodeInput([]byte(`{"event":"BeforeTool","toolInput":` + doc + `}`))
	require.NoError(t, err)
	want, err := json.Marshal(in.ToolInput) // the decoded value, keys sorted
	require.NoError(t, err)
	require.Contains(t, string(want), `"a":12345678901234567890,"b":9007199254740993,"c":1.0,`)
	for i, extra := range []string{"", `,"z":"new"`, ""} {
		out, err := p.Call(context.Background(), i, &in)
		require.NoError(t, err)
		got, err := json.Marshal(out.MutatedToolInput)
		require.NoError(t, err)
		require.Equal(t, string(want[:len(want)-1])+extra+"}", string(got), "hook %d", i)
	}
	out, err := p.Call(context.Background(), 3, &in)
	require.NoError(t, err)
	require.Equal(t, string(want), out.Reason)
	// Computed numbers: float64 arithmetic, integral values without a
	// fraction, others in the shortest form that reads back the same; -0
	// stays -0; 1e600 overflows to infinity, which JSON cannot carry. A
	// result equal as a float64 to the input number at the same place of
	// the same table keeps the input's text (a + 1 is a at that
	// magnitude); a new table has no input numbers.
	out, err = p.Call(context.Background(), 4, &in)
	require.ErrorContains(t, err, "cannot convert +Inf to JSON")
	p = newTestPool(t, Options{}, "calc.lua", `
hook{ event = "BeforeTool", handler = function(i) local t = i.toolInput; t.a = t.a + 1; t.b = t.b * 1; t.c = 2; t.g.h = t.g.h + 0.2; t.f = { t.f[1], 3 / 2, 2^53 + 1, -0.0, 1e21 }; return { mutatedToolInput = t } end }
`)
	out, err = p.Call(context.Background(), 0, &in)
	require.NoError(t, err)
	got, err := json.Marshal(out.MutatedToolInput)
	require.NoError(t, err)
	require.Equal(t, `{"a":12345678901234567890,"b":9007199254740993,"c":2,"d":1e21,"e":-0.0,"f":[1.5,1.5,9007199254740992,-0,1e+21],"g":{"h":0.30000000000000004,"i":[[123456789012345678901234567890]]}}`, string(got))
}

// TestNumbersOutOfRange: json.decode and Go inputs reject numbers no
// float64 can hold.
func TestNumbersOutOfRange(t *testing.T) {
	p := handlerPool(t, `local ok, err = pcall(json.decode, "[1, 1e400]") return { reason = tostring(ok) .. " " .. tostring(err) }`)
	out, err := p.Call(context.Background(), 0, bashInput("ls"))
	require.NoError(t, err)
	require.Contains(t, out.Reason, "false")
	require.Contains(t, out.Reason, "out of the range of a 64-bit float")
	_, err = p.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolInput: map[string]any{"n": json.Number("-1e999")}})
	var he *HookError
	require.ErrorAs(t, err, &he)
	require.Equal(t, FailInput, he.Kind)
	require.Contains(t, he.Msg, "number -1e999 is out of the range")
}

// TestPredictedInputErrorNamesTheFirstField: when two payloads do not
// convert, a call whose handler's reads are predicted names the first one
// in field order, as a call without predictions does.
func TestPredictedInputErrorNamesTheFirstField(t *testing.T) {
	pool := func(body string) *Pool {
		return newTestPool(t, Options{PoolSize: 1}, "h.lua", `hook{ event = "AfterTool", handler = function(input) `+body+` end }`)
	}
	bad := &events.Input{Event: events.AfterTool, ToolName: "bash", ToolInput: map[string]any{"c": make(chan int)}, ToolResult: map[string]any{"r": make(chan int)}}
	good := &events.Input{Event: events.AfterTool, ToolName: "bash", ToolInput: map[string]any{"c": "x"}, ToolResult: map[string]any{"r": "y"}}
	_, want := pool(`return nil`).Call(context.Background(), 0, bad)
	require.ErrorContains(t, want, "field toolInput")
	for _, body := range []string{`local _ = input.toolInput.c`, `local _ = input.toolResult.r`, `local _ = input.toolInput.c .. input.toolResult.r`} {
		p := pool(body)
		for range 3 {
			_, err := p.Call(context.Background(), 0, good)
			require.NoError(t, err)
		}
		_, err := p.Call(context.Background(), 0, bad)
		require.Equal(t, want.Error(), err.Error(), body)
	}
}

// TestLargePayloadNotPredicted: a handler that read toolInput in earlier
// calls and decides this one without reading it does not have a large
// payload built ahead (which could cost it its timeout: 17 times the
// check for 300,000 objects); a small one is built ahead as before.
func TestLargePayloadNotPredicted(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "h.lua", `hook{ event = "BeforeTool", handler = function(input)
  if input.toolName == "X" then return { decision = "deny" } end
  local _ = input.toolInput
end }`)
	for range 3 { // learn that the handler reads toolInput
		_, err := p.Call(context.Background(), 0, bashInput("ls"))
		require.NoError(t, err)
	}
	list := make([]any, maxPredictedValues)
	for i := range list {
		list[i] = map[string]any{"k": "v"}
	}
	for _, tc := range []struct {
		ti    any
		built int64
	}{{map[string]any{"l": list}, 0}, {map[string]any{"command": "ls", "n": []any{1.0, "x"}}, 1}} {
		tables := p.plan.work.inputTables.Load()
		out, err := p.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: "X", ToolInput: tc.ti})
		require.NoError(t, err)
		require.Equal(t, events.Deny, out.Decision)
		require.Equal(t, tc.built, p.plan.work.inputTables.Load()-tables)
	}
	require.True(t, smallPayload(map[string]any{"s": strings.Repeat("x", 1<<20)}), "a string is one value")
}
