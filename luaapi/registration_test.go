package luaapi

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
)

func loadErr(t *testing.T, src string, params map[string]any) error {
	t.Helper()
	s, err := Compile("reg.lua", []byte(src))
	if err != nil {
		return err
	}
	// The engine gives hosts.Alias; this one proves the plumbing.
	alias := func(name string) string {
		if name == "PreToolUse" {
			return "BeforeTool"
		}
		return ""
	}
	p, err := NewPool(context.Background(), []Source{{Script: s, Params: params}}, Options{EventAlias: alias})
	if err == nil {
		p.Close()
	}
	return err
}

func TestRegistrationErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
		line            int
	}{
		{"unknown event", "\nhook{ event = 'PreToolUse', handler = function() end }", `unknown event "PreToolUse"`, 2},
		{"missing event", "hook{ handler = function() end }", "missing event", 1},
		{"bad matcher", "\n\nhook{ event = 'BeforeTool', matcher = '^(', handler = function() end }", "matcher: bad RE2 pattern", 3},
		{"missing handler", "hook{ event = 'BeforeTool' }", "missing handler", 1},
		{"handler not a function", "hook{ event = 'BeforeTool', handler = 'x' }", "handler: want a function, got string", 1},
		{"unknown key", "hook{ event = 'BeforeTool', handler = function() end, matchr = 'x' }", `unknown key "matchr"`, 1},
		{"numeric key", "hook{ event = 'BeforeTool', handler = function() end, 1 }", `unknown key "1"`, 1},
		{"event wrong type", "hook{ event = 5, handler = function() end }", "event: want a string, got number", 1},
		{"matcher wrong type", "hook{ event = 'BeforeTool', matcher = {}, handler = function() end }", "matcher: want a string, got table", 1},
		{"bad onError", "hook{ event = 'BeforeTool', onError = 'allow', handler = function() end }", `onError: want "deny" or "skip"`, 1},
		{"onError wrong type", "hook{ event = 'BeforeTool', onError = true, handler = function() end }", "onError: want a string", 1},
		{"timeout zero", "hook{ event = 'BeforeTool', timeoutMs = 0, handler = function() end }", "timeoutMs: want an integer from 1 to 60000", 1},
		{"timeout fraction", "hook{ event = 'BeforeTool', timeoutMs = 1.5, handler = function() end }", "timeoutMs: want an integer", 1},
		{"timeout too big", "hook{ event = 'BeforeTool', timeoutMs = 1e9, handler = function() end }", "timeoutMs: want an integer", 1},
		{"timeout wrong type", "hook{ event = 'BeforeTool', timeoutMs = '50', handler = function() end }", "timeoutMs: want a number, got string", 1},
		{"unknown kind", "hook{ event = 'BeforeTool', kind = 'bash', handler = function() end }", `kind: unknown tool kind "bash" (want one of shell, read`, 1},
		{"kind wrong type", "hook{ event = 'BeforeTool', kind = 3, handler = function() end }", "kind: want a string or a list of strings, got number", 1},
		{"kind list of numbers", "hook{ event = 'BeforeTool', kind = { 'shell', 3 }, handler = function() end }", "got a list holding number", 1},
		{"kind empty list", "hook{ event = 'BeforeTool', kind = {}, handler = function() end }", "non-empty list", 1},
		{"kind not tool-scoped", "hook{ event = 'AfterModel', kind = 'shell', handler = function() end }", "AfterModel is not tool-scoped", 1},
		{"empty name", "hook{ event = 'BeforeTool', name = '', handler = function() end }", `name "": want a non-empty string`, 1},
		{"name wrong type", "hook{ event = 'BeforeTool', name = 1, handler = function() end }", "name: want a string, got number", 1},
		{"long name", "hook{ event = 'BeforeTool', name = string.rep('n', 101), handler = function() end }", "longer than 100 bytes", 1},
		{"control in name", "hook{ event = 'BeforeTool', name = 'a\\tb', handler = function() end }", "control character", 1},
		{"name twice", "hook{ event = 'BeforeTool', name = 'x', handler = function() end }\nhook{ event = 'AfterTool', name = 'x', handler = function() end }", `name "x" is already the name of the hook at line 1`, 2},
		{"not a table", "hook('BeforeTool')", "want one table argument, got string", 1},
		{"two arguments", "hook({event='BeforeTool', handler=function() end}, 1)", "want one table argument", 1},
		{"load-time error", "local x = nil\n\nx.y = 1", "attempt to index", 3},
		{"error in a helper", "local function reg()\n  hook{ event = 'Nope', handler = function() end }\nend\nreg()", `unknown event "Nope"`, 2},
		{"syntax error", "hook{ event = 'BeforeTool', handler = function() return { end }", "syntax error", 1},
		{"global write at load time is fine, at runtime not", "x = 1\nhook{ event = 'BeforeTool', handler = function() end }\nerror('late', 0)", "late", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := loadErr(t, c.src, nil)
			var se *ScriptError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want a *ScriptError", err, err)
			}
			if se.Script != "reg.lua" || !strings.Contains(se.Msg, c.want) || se.Line != c.line {
				t.Fatalf("err = %q (line %d), want %q at line %d", se.Error(), se.Line, c.want, c.line)
			}
		})
	}
}

func TestRegistrationOK(t *testing.T) {
	p := newTestPool(t, Options{DefaultTimeout: 300 * time.Millisecond}, "a.lua", `
hook{ event = "BeforeTool", matcher = "^(bash|shell_exec)$", handler = function() end }
hook{ event = "AfterModel", handler = function() end }
hook{ event = "ApprovalRequest", kind = "shell", handler = function() end }
hook{ event = "AfterTool", kind = { "write", "edit" }, matcher = "^x", handler = function() end }
`, "b.lua", `
hook{ event = "SessionStart", name = "greet", onError = "skip", timeoutMs = 20, handler = function() end }
hook{ event = "SessionEnd", name = "bye now", handler = function() end }
`, "c.lua", `
hook{ event = "SessionEnd", name = "bye now", handler = function() end }
`)
	hs := p.Hooks()
	want := []Hook{
		{Event: events.BeforeTool, Matcher: "^(bash|shell_exec)$", Timeout: 300 * time.Millisecond, Script: "a.lua", Line: 2, Source: 0},
		{Event: events.AfterModel, Timeout: 300 * time.Millisecond, Script: "a.lua", Line: 3, Source: 0},
		{Event: events.ApprovalRequest, Kinds: []events.ToolKind{events.ToolShell}, Timeout: 300 * time.Millisecond, Script: "a.lua", Line: 4, Source: 0},
		{Event: events.AfterTool, Matcher: "^x", Kinds: []events.ToolKind{events.ToolWrite, events.ToolEdit}, Timeout: 300 * time.Millisecond, Script: "a.lua", Line: 5, Source: 0},
		{Event: events.SessionStart, Name: "greet", OnError: "skip", Timeout: 20 * time.Millisecond, Script: "b.lua", Line: 2, Source: 1, timeoutSet: true},
		{Event: events.SessionEnd, Name: "bye now", Timeout: 300 * time.Millisecond, Script: "b.lua", Line: 3, Source: 1},
		{Event: events.SessionEnd, Name: "bye now", Timeout: 300 * time.Millisecond, Script: "c.lua", Line: 2, Source: 2}, // names are per script
	}
	if len(hs) != len(want) {
		t.Fatalf("hooks = %+v", hs)
	}
	for i := range want {
		got := hs[i]
		got.re = nil
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("hook %d = %+v, want %+v", i, got, want[i])
		}
	}
	if !hs[0].Matches("bash") || hs[0].Matches("read_file") || !hs[1].Matches("anything") {
		t.Error("Matches")
	}
}

func TestHookFromHandlerFails(t *testing.T) {
	p := handlerPool(t, `hook{ event = "AfterTool", handler = function() end }`)
	_, err := p.Call(context.Background(), 0, bashInput("ls"))
	var he *HookError
	if !errors.As(err, &he) || he.Kind != FailError || !strings.Contains(he.Msg, "only be called while the script loads") {
		t.Fatalf("err = %v", err)
	}
}

func TestParams(t *testing.T) {
	src := `
hook{ event = "BeforeTool", handler = function(i)
  local out = {}
  for _, b in ipairs(params.protectedBranches) do out[#out+1] = b end
  local keys = {}
  for k in pairs(params) do keys[#keys+1] = k end
  table.sort(keys)
  return { additionalContext = table.concat(out, ",") .. "|" .. #params.protectedBranches .. "|" .. table.concat(keys, ",") .. "|" .. tostring(params.n) .. "|" .. tostring(params.nested.deep) ..
    "|" .. tostring(getmetatable(params)) .. "," .. tostring(getmetatable(params.protectedBranches)) .. "," .. tostring(getmetatable(params.nested)) }
end }
hook{ event = "AfterTool", handler = function(i)
  if i.toolName == "top" then params.x = 1 end
  if i.toolName == "nested" then params.protectedBranches[1] = "x" end
  if i.toolName == "insert" then table.insert(params.protectedBranches, "x") end
  if i.toolName == "setmt" then setmetatable(params, nil) end
end }
`
	s := MustCompile("p.lua", []byte(src))
	p, err := NewPool(context.Background(), []Source{
		{Script: s, Params: map[string]any{"protectedBranches": []any{"main", "release"}, "n": 3, "nested": map[string]any{"deep": true}}},
		{Script: s},
	}, Options{DefaultTimeout: MaxTimeout}) // far above a call's cost
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	out, err := p.Call(context.Background(), 0, bashInput("ls"))
	if err != nil || out.AdditionalContext != "main,release|2|n,nested,protectedBranches|3|true|json.object,json.array,json.object" {
		t.Fatalf("out=%+v err=%v", out, err)
	}
	for _, tool := range []string{"top", "nested", "insert", "setmt"} {
		_, err := p.Call(context.Background(), 1, &events.Input{Event: events.AfterTool, ToolName: tool})
		if err == nil || !strings.Contains(err.Error(), "read-only") && !strings.Contains(err.Error(), "protected") {
			t.Errorf("%s: err = %v, want read-only", tool, err)
		}
	}
	out, err = p.Call(context.Background(), 0, bashInput("ls"))
	if err != nil || out.AdditionalContext != "main,release|2|n,nested,protectedBranches|3|true|json.object,json.array,json.object" {
		t.Fatalf("after writes: out=%+v err=%v", out, err)
	}
	// The second instance has an empty params table.
	hs := p.Hooks()
	if len(hs) != 4 || hs[2].Source != 1 {
		t.Fatalf("hooks %+v", hs)
	}
	_, err = p.Call(context.Background(), 2, bashInput("ls"))
	if err == nil || !strings.Contains(err.Error(), "params.protectedBranches") && !strings.Contains(err.Error(), "bad argument") {
		t.Fatalf("empty params: err = %v", err)
	}
}

func TestParamsUnsupported(t *testing.T) {
	err := loadErr(t, "hook{event='BeforeTool', handler=function() end}", map[string]any{"f": func() {}})
	var se *ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "params") {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadTimeoutAndPanic(t *testing.T) {
	s := MustCompile("loop.lua", []byte("while true do end"))
	err := returns(t, func() error {
		_, err := NewPool(context.Background(), []Source{{Script: s}}, Options{LoadTimeout: 50 * time.Millisecond})
		return err
	})
	var se *ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "load timeout") {
		t.Fatalf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewPool(ctx, []Source{{Script: s}}, Options{}); err == nil {
		t.Fatal("a canceled context loaded an endless script")
	}
	s = MustCompile("panic.lua", []byte("goPanic()"))
	if _, err := NewPool(context.Background(), []Source{{Script: s}}, Options{}); err == nil || !strings.Contains(err.Error(), "go panic") {
		t.Fatalf("err = %v", err)
	}
	if _, err := NewPool(context.Background(), []Source{{}}, Options{}); err == nil {
		t.Fatal("nil script accepted")
	}
}

func TestRegistrationsMustNotChange(t *testing.T) {
	// Every load after the first registers one more hook: every build of
	// the pool's second VM fails.
	p := newTestPool(t, Options{PoolSize: 2}, "flaky.lua", `
hook{ event = "BeforeTool", handler = function() end }
if not firstLoad("`+fmt.Sprint(t.Name(), loadCounter.Add(1))+`") then hook{ event = "AfterTool", handler = function() end } end`)
	v, _, err := p.get(context.Background(), time.Second) // hold the only VM
	if err != nil {
		t.Fatal(err)
	}
	defer p.put(v, true)
	_, err = p.Call(context.Background(), 0, bashInput("x"))
	var he *HookError
	if !errors.As(err, &he) || he.Kind != FailVM || !strings.Contains(he.Msg, "registered") {
		t.Fatalf("err = %v", err)
	}
}

func TestCallArguments(t *testing.T) {
	p := handlerPool(t, "return nil")
	for _, i := range []int{-1, 1} {
		if _, err := p.Call(context.Background(), i, bashInput("x")); err == nil {
			t.Errorf("hook %d: no error", i)
		}
	}
	if _, err := p.Call(context.Background(), 0, nil); err == nil {
		t.Error("nil input: no error")
	}
}
