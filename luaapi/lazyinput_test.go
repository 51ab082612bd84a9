package luaapi

import (
	"context"
	"fmt"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/stretchr/testify/require"
)

// lazyInput is an input with every table-valued field set.
func lazyInput() *events.Input {
	ok := true
	return &events.Input{
		Event: events.BeforeTool, SessionID: "s", ToolName: "bash", OK: &ok,
		ToolInput:  map[string]any{"command": "ls", "n": []any{1.5, "x"}},
		ToolResult: map[string]any{"out": "y"},
		Usage:      map[string]any{"tokens": 3.0},
		Request:    []any{"m"},
		Caller:     &events.Caller{Kind: "agent", AgentName: "a"},
		Compaction: &events.Compaction{Trigger: "auto", Tokens: 9},
		Tool:       &events.ToolView{Kind: "shell", Command: "ls", Paths: []string{"/p"}},
	}
}

// checkCounted calls a pool of the handler body twice on lazyInput (a
// fresh input table, then the reused one) and requires its reason to be
// want and the work counter read by count to grow by n in each call.
func checkCounted(t *testing.T, body, want string, n int64, count func(*workCounters) int64) {
	t.Helper()
	p := handlerPool(t, body)
	for round := range 2 {
		before := count(&p.plan.work)
		out, err := p.Call(context.Background(), 0, lazyInput())
		require.NoError(t, err, body)
		require.Equal(t, want, out.Reason, body)
		require.Equal(t, n, count(&p.plan.work)-before, "%s (round %d)", body, round)
	}
}

// TestInputTablesBuiltOnRead: the table-valued fields of the input are
// built when a handler reads them, not before every call.
func TestInputTablesBuiltOnRead(t *testing.T) {
	for _, c := range []struct {
		body  string
		built int64
		want  string
	}{
		{`return { reason = input.toolName }`, 0, "bash"},
		{`return { reason = tostring(input.prompt) }`, 0, "nil"},
		{`return { reason = input.toolInput.command .. input.toolInput.command }`, 1, "lsls"},
		{`return { reason = input.tool.kind .. input.tool.paths[1] }`, 1, "shell/p"},
		{`local n = 0 for k in pairs(input) do n = n + 1 end return { reason = tostring(n) }`, 7, "11"},
		{`local k, n = next(input), 0 while k do n = n + 1; k = next(input, k) end return { reason = tostring(n) }`, 7, "11"},
		{`return { reason = json.encode(input) }`, 7, `{"caller":{"agentName":"a","kind":"agent"},"compaction":{"tokens":9,"trigger":"auto"},"event":"BeforeTool","ok":true,"request":["m"],"sessionId":"s","tool":{"command":"ls","contents":[],"kind":"shell","paths":["/p"],"urls":[]},"toolInput":{"command":"ls","n":[1.5,"x"]},"toolName":"bash","toolResult":{"out":"y"},"usage":{"tokens":3}}`},
		{`json.object(input) return { reason = input.caller.kind }`, 7, "agent"},
		// The handler's own value replaces a field it did not read.
		{`input.tool = "mine" return { reason = input.tool }`, 0, "mine"},
		{`input.toolInput = nil return { reason = tostring(input.toolInput) }`, 0, "nil"},
	} {
		checkCounted(t, c.body, c.want, c.built, func(w *workCounters) int64 { return w.inputTables.Load() })
	}
}

// TestLazyInputFieldsAreTheCallsOwn: a handler that keeps its input and
// reads a field it never read before, in a later call, gets that call's
// value; after a tampered call the next one gets its fields all the same.
func TestLazyInputFieldsAreTheCallsOwn(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "a.lua", `
local kept
hook{ event = "BeforeTool", handler = function(i)
  local seen = "none"
  if kept then seen = tostring(kept.toolInput and kept.toolInput.command) end
  kept = i
  return { reason = seen .. " " .. i.toolInput.command }
end }`, "b.lua", `hook{ event = "BeforeTool", handler = function(i) i.toolInput = "tampered" end }`)
	out, err := p.Call(context.Background(), 0, bashInput("one"))
	require.NoError(t, err)
	require.Equal(t, "none one", out.Reason)
	out, err = p.Call(context.Background(), 0, bashInput("two"))
	require.NoError(t, err)
	require.Equal(t, "two two", out.Reason, "the same table, refilled for this call")
	_, err = p.Call(context.Background(), 1, bashInput("three"))
	require.NoError(t, err)
	out, err = p.Call(context.Background(), 0, bashInput("four"))
	require.NoError(t, err)
	require.Equal(t, "nil four", out.Reason, "the tampered table was emptied and replaced")
}

// TestReusedPayloadTables: the toolInput table a VM refills from call to
// call holds only the current call's keys, in sorted order, whatever the
// calls before it held or a handler did to a table it kept.
func TestReusedPayloadTables(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "a.lua", `
local kept
hook{ event = "BeforeTool", handler = function(i)
  local ti = i.toolInput
  local keys = {}
  for k, v in pairs(ti) do keys[#keys + 1] = k .. "=" .. tostring(v) end
  local was = "none"
  if kept then
    local n = 0
    for _ in pairs(kept) do n = n + 1 end
    was = tostring(n) .. (kept == ti and " same" or " other")
  end
  kept = ti
  return { reason = table.concat(keys, ",") .. " | " .. was }
end }`, "b.lua", `
local kept
hook{ event = "BeforeTool", handler = function(i)
  if type(i.toolInput) == "table" then kept = i.toolInput
  elseif kept then kept.stale = "x" end -- writes into the table it kept, while it is not in use
end }`, "c.lua", `hook{ event = "BeforeTool", handler = function(i) i.toolInput.extra = 1 end }`)
	call := func(i int, x any) string {
		out, err := p.Call(context.Background(), i, &events.Input{Event: events.BeforeTool, ToolName: "t", ToolInput: x})
		require.NoError(t, err)
		return out.Reason
	}
	require.Equal(t, "a=1,b=2 | none", call(0, map[string]any{"b": "2", "a": "1"}))
	require.Equal(t, "a=3,b=4 | 2 same", call(0, map[string]any{"a": "3", "b": "4"}), "the same keys: the table is refilled")
	require.Equal(t, "a=5,c=6 | 0 other", call(0, map[string]any{"c": "6", "a": "5"}), "other keys: a fresh table; the kept one is empty")
	require.Equal(t, "a=7,c=8 | 2 same", call(0, map[string]any{"a": "7", "c": "8"}))
	// A handler added a key: the table is emptied and not reused.
	call(2, map[string]any{"a": "9", "c": "10"})
	require.Equal(t, "a=11,c=12 | 0 other", call(0, map[string]any{"a": "11", "c": "12"}))
	// b keeps the table, then writes into it while it is not in use: the
	// next call gets a fresh one.
	call(1, map[string]any{"a": "13", "c": "14"})
	call(1, "not an object")
	require.Equal(t, "a=15,c=16 | 0 other", call(0, map[string]any{"a": "15", "c": "16"}))
	require.Equal(t, "a=17,c=18 | 2 same", call(0, map[string]any{"a": "17", "c": "18"}))
}

// TestInputFieldsSetOnRead: no field of the input table is set before the
// handler reads it (the peer harness's hookengine-lua column), and a
// listing finds every field, in field order, whatever was read first.
func TestInputFieldsSetOnRead(t *testing.T) {
	const all = "event,sessionId,toolName,toolInput,toolResult,ok,usage,caller,request,compaction,tool"
	for _, c := range []struct {
		body string
		set  int64
		want string
	}{
		{`return nil`, 0, ""},
		{`return { reason = input.toolName .. input.toolName }`, 1, "bashbash"},
		{`return { reason = tostring(input.cwd) .. tostring(input.prompt) }`, 0, "nilnil"},
		{`return { reason = input.event .. tostring(input.ok) }`, 2, "BeforeTooltrue"},
		{`local _, _, _ = input.toolName, input.ok, input.toolInput.command
		  local ks = {} for k in pairs(input) do ks[#ks + 1] = k end
		  return { reason = table.concat(ks, ",") }`, 11, all},
	} {
		checkCounted(t, c.body, c.want, c.set, func(w *workCounters) int64 { return w.inputFields.Load() })
	}
}

// TestPredictedReads: a VM sets ahead the input fields a hook's handler
// read in its earlier calls, so that later calls read them without the
// input table's __index; one call in learnEvery sets nothing ahead and
// forgets the fields the handler no longer reads. What the handler sees
// is the same either way, a field the call's input lacks included.
func TestPredictedReads(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "a.lua", `
hook{ event = "BeforeTool", handler = function(i)
  if i.toolName == "quiet" then return nil end
  return { reason = tostring(i.toolInput and i.toolInput.command) }
end }`)
	call := func(in *events.Input) (reason string, indexReads, built int64) {
		r0, b0 := p.plan.work.inputIndex.Load(), p.plan.work.inputTables.Load()
		out, err := p.Call(context.Background(), 0, in)
		require.NoError(t, err)
		return out.Reason, p.plan.work.inputIndex.Load() - r0, p.plan.work.inputTables.Load() - b0
	}
	reason, reads, built := call(bashInput("one"))
	require.Equal(t, "one", reason)
	require.Equal(t, int64(2), reads, "the first call reads toolName and toolInput through __index")
	require.Equal(t, int64(1), built)
	for n := 2; n <= learnEvery; n++ {
		reason, reads, built = call(bashInput(fmt.Sprint(n)))
		require.Equal(t, fmt.Sprint(n), reason)
		require.Zero(t, reads, "call %d: the fields were set ahead", n)
		require.Equal(t, int64(1), built)
	}
	// A field the input lacks is not set, predicted or not.
	reason, reads, _ = call(&events.Input{Event: events.BeforeTool, ToolName: "bash"})
	require.Equal(t, "nil", reason)
	require.Equal(t, int64(1), reads, "a learning call: toolName through __index; toolInput is absent")
	// The handler stops reading toolInput: after the next learning call it
	// is no longer built.
	for n := 1; n < learnEvery; n++ {
		call(&events.Input{Event: events.BeforeTool, ToolName: "quiet", ToolInput: map[string]any{"command": "x"}})
	}
	_, reads, built = call(&events.Input{Event: events.BeforeTool, ToolName: "quiet", ToolInput: map[string]any{"command": "x"}})
	require.Equal(t, int64(1), reads, "a learning call")
	require.Zero(t, built)
	_, reads, built = call(&events.Input{Event: events.BeforeTool, ToolName: "quiet", ToolInput: map[string]any{"command": "x"}})
	require.Zero(t, reads)
	require.Zero(t, built, "toolInput is no longer set ahead")
}

// TestFailedRefillLeaksNothing: a reused payload table whose refill fails
// half way (a predicted payload that does not convert) keeps none of that
// call's values for a handler that kept the table from an earlier call.
func TestFailedRefillLeaksNothing(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "h.lua", `
local saved
hook{ event = "BeforeTool", handler = function(input)
  if input.toolName == "keep" then saved = input.toolInput; return end
  if input.toolName == "look" then return { reason = tostring(saved and saved.command) } end
  return { reason = tostring(input.toolInput.command) }
end }`)
	ctx := context.Background()
	call := func(tool string, ti any) (events.Output, error) {
		return p.Call(ctx, 0, &events.Input{Event: events.BeforeTool, ToolName: tool, ToolInput: ti})
	}
	_, err := call("keep", map[string]any{"command": "mine", "d": "x"})
	require.NoError(t, err)
	for i := range 3 { // learn that the handler reads toolInput
		out, err := call("other", map[string]any{"command": fmt.Sprintf("c%d", i), "d": "x"})
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("c%d", i), out.Reason)
	}
	_, err = call("other", map[string]any{"command": "secret", "d": make(chan int)})
	require.Error(t, err)
	out, err := call("look", nil)
	require.NoError(t, err)
	require.Equal(t, "nil", out.Reason, "a failed call's payload showed in a later call")
}

// nilViewer is a ToolViewer that finds no view after all.
type nilViewer struct{ calls int }

func (n *nilViewer) ToolView() *events.ToolView { n.calls++; return nil }

// TestCallViewNilView: a ToolViewer that returns no view (against its
// contract) gives the handler no tool, read through __index or predicted,
// and never a Go panic out of CallView.
func TestCallViewNilView(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "h.lua", `hook{ event = "BeforeTool", handler = function(input)
  return { reason = tostring(input.tool) }
end }`)
	for i := range 5 {
		nv := &nilViewer{}
		out, _, err := p.CallView(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: "bash"}, nv)
		require.NoError(t, err, i)
		require.Equal(t, "nil", out.Reason, i)
		require.Equal(t, 1, nv.calls, i)
	}
}

// panicViewer is a ToolViewer that panics.
type panicViewer struct{}

func (panicViewer) ToolView() *events.ToolView { panic("viewer broke") }

// TestCallViewPanickingViewer: a ToolViewer that panics fails the call as
// a panic whether the handler's read of input.tool is predicted or not,
// never out of CallView, and the pool keeps its VMs.
func TestCallViewPanickingViewer(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "h.lua", `hook{ event = "BeforeTool", handler = function(input)
  return { reason = tostring(input.tool) }
end }`)
	in := &events.Input{Event: events.BeforeTool, ToolName: "bash"}
	for i := range 4 {
		// learn that the handler reads input.tool
		out, _, err := p.CallView(context.Background(), 0, in, &nilViewer{})
		require.NoError(t, err, i)
		require.Equal(t, "nil", out.Reason)
		_, _, err = p.CallView(context.Background(), 0, in, panicViewer{})
		var he *HookError
		require.ErrorAs(t, err, &he, i)
		require.Equal(t, FailPanic, he.Kind)
		require.ErrorContains(t, err, "viewer broke")
	}
	s := p.Stats()
	require.LessOrEqual(t, s.Created-s.Discarded, int64(1))
}
