package luaapi

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
)

// recordedScript registers hooks of every shape a Record keeps: a name, a
// matcher, kinds, nested prefilters (keyword sets with and without a token
// class, an expression, lower and drop), onError and timeoutMs, one of
// them from a library function.
const recordedScript = `local scan = require("scan")
local lib = require("lib.reg")
local words = scan.keywords({ "rm", "dd" }, { token = "[a-z]" })
local test = scan.any({ words, [[\(\s*\)]], scan.any({ scan.keywords({ "$(" }) }, { lower = true, drop = "'\"" }) })
hook{ event = "BeforeTool", name = "shell", kind = "shell", prefilter = test, onError = "deny",
  handler = function(input) return { decision = "deny", reason = "ran " .. (params.tag or "") } end }
hook{ event = "BeforeTool", matcher = "^Bash$", timeoutMs = 1500, handler = function() return nil end }
hook{ event = "AfterTool", kind = { "read", "write" }, handler = function() return nil end }
lib.register()
`

const recordedLib = `return { register = function()
  hook{ event = "SessionStart", onError = "skip", handler = function() return nil end }
end }`

// recordTestOptions are the options of the pools of these tests.
func recordTestOptions(t *testing.T) Options {
	lib, err := Compile("lib.reg", []byte(recordedLib))
	require.NoError(t, err)
	return Options{Libraries: map[string]*Script{"lib.reg": lib}, PoolSize: 2, OnDemand: true, DefaultTimeout: MaxTimeout, LoadTimeout: MaxTimeout}
}

// recordOf loads src as name in a pool and returns the Record of it, after
// a round trip through its encoding.
func recordOf(t *testing.T, opts Options, name, src string, params map[string]any) *Record {
	t.Helper()
	s, err := Compile(name, []byte(src))
	require.NoError(t, err)
	p, err := NewPool(context.Background(), []Source{{Script: s, Params: params}}, opts)
	require.NoError(t, err)
	defer p.Close()
	r, err := p.Record(0)
	require.NoError(t, err)
	data, err := r.MarshalBinary()
	require.NoError(t, err)
	back, err := UnmarshalRecord(data)
	require.NoError(t, err)
	again, err := back.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, string(data), string(again))
	return back
}

// requireSameHooks fails unless a and b are the same registrations.
func requireSameHooks(t *testing.T, a, b []Hook) {
	t.Helper()
	require.Len(t, a, len(b))
	for i := range a {
		require.Empty(t, hookDiff(&a[i], &b[i]), "hook %d", i)
		require.Equal(t, a[i].Kinds, b[i].Kinds)
		require.Equal(t, a[i].Timeout, b[i].Timeout)
	}
}

// TestRecordPlansWithoutVM: a pool of sources with Records builds no VM and
// runs no top level until a handler has to run; its hooks are those of
// the eager pool, its calls answer as the eager pool's do, and the VM it
// builds later registers the recorded hooks.
func TestRecordPlansWithoutVM(t *testing.T) {
	ctx := context.Background()
	opts := recordTestOptions(t)
	params := map[string]any{"tag": "x"}
	rec := recordOf(t, opts, "r.lua", recordedScript, params)
	require.Equal(t, "r.lua", rec.Script())
	s, err := Compile("r.lua", []byte(recordedScript))
	require.NoError(t, err)
	eager, err := NewPool(ctx, []Source{{Script: s, Params: params}}, opts)
	require.NoError(t, err)
	defer eager.Close()
	lazy, err := NewPool(ctx, []Source{{Script: s, Params: params, Record: rec}}, opts)
	require.NoError(t, err)
	defer lazy.Close()
	require.Zero(t, lazy.Stats().Created, "VMs built")
	require.Zero(t, lazy.topLevels(), "top levels run")
	require.Equal(t, int64(1), eager.topLevels())
	requireSameHooks(t, lazy.Hooks(), eager.Hooks())
	require.Len(t, lazy.Hooks(), 4)

	// The prefilter finds nothing: answered without a VM.
	for _, cmd := range []string{"ls -la", "echo ok", "form x"} {
		out, err := lazy.Call(ctx, 0, shellCall(cmd))
		require.NoError(t, err)
		require.Equal(t, events.Output{}, out, cmd)
		want, err := eager.Call(ctx, 0, shellCall(cmd))
		require.NoError(t, err)
		require.Equal(t, want, out, cmd)
	}
	require.Zero(t, lazy.Stats().Created, "VMs built")
	require.Zero(t, lazy.topLevels(), "top levels run")
	require.Equal(t, int64(3), lazy.Stats().Skipped)

	// Found (a keyword, the expression, the nested lowered test with
	// its dropped quotes): the handler runs in the first VM.
	for _, cmd := range []string{"sudo rm x", "f ( ) { :; }", "echo $'('x)", "ECHO $(X)"} {
		out, err := lazy.Call(ctx, 0, shellCall(cmd))
		require.NoError(t, err, cmd)
		want, err := eager.Call(ctx, 0, shellCall(cmd))
		require.NoError(t, err)
		require.Equal(t, want, out, cmd)
		require.Equal(t, events.Deny, out.Decision, cmd)
	}
	require.Equal(t, int64(1), lazy.Stats().Created, "one VM built")
	require.Equal(t, int64(1), lazy.topLevels(), "its one top level")
	require.Zero(t, lazy.Stats().Failures)
}

// TestRecordApplies: a Record applies only to its script with equal Params,
// and a source that read path.config() only in a pool without
// ConfigPaths; otherwise NewPool loads the sources (a VM at once).
func TestRecordApplies(t *testing.T) {
	ctx := context.Background()
	opts := recordTestOptions(t)
	rec := recordOf(t, opts, "r.lua", recordedScript, nil)
	s, err := Compile("r.lua", []byte(recordedScript))
	require.NoError(t, err)
	other, err := Compile("other.lua", []byte(recordedScript))
	require.NoError(t, err)
	created := func(srcs ...Source) int64 {
		p, err := NewPool(ctx, srcs, opts)
		require.NoError(t, err)
		defer p.Close()
		return p.Stats().Created
	}
	require.Zero(t, created(Source{Script: s, Record: rec}))
	require.Zero(t, created(Source{Script: s, Params: map[string]any{}, Record: rec}), "no params and empty params are the same")
	require.Equal(t, int64(1), created(Source{Script: s, Params: map[string]any{"tag": "y"}, Record: rec}), "other params")
	require.Equal(t, int64(1), created(Source{Script: other, Record: rec}), "another script")
	require.Equal(t, int64(1), created(Source{Script: s, Record: rec}, Source{Script: other}), "a source without a Record")

	const configScript = `local n = #require("path").config()
hook{ event = "SessionStart", handler = function() return nil end }`
	crec := recordOf(t, opts, "c.lua", configScript, nil)
	require.True(t, crec.ReadsConfig())
	require.False(t, rec.ReadsConfig())
	c, err := Compile("c.lua", []byte(configScript))
	require.NoError(t, err)
	require.Zero(t, created(Source{Script: c, Record: crec}))
	withConfig := opts
	withConfig.ConfigPaths = []string{"/p/agents.json"}
	p, err := NewPool(ctx, []Source{{Script: c, Record: crec}}, withConfig)
	require.NoError(t, err)
	defer p.Close()
	require.Equal(t, int64(1), p.Stats().Created, "a source that read path.config() is loaded when there are ConfigPaths")
	// rec's script never read it: its Record applies with ConfigPaths.
	p2, err := NewPool(ctx, []Source{{Script: s, Record: rec}}, withConfig)
	require.NoError(t, err)
	defer p2.Close()
	require.Zero(t, p2.Stats().Created)
}

// TestRecordStaleFailsLoudly: a Record that is not what the script
// registers plans the pool, but the VM built for the first handler does
// not register the recorded hooks: that call and every later one fail
// (FailVM, naming the difference), and none runs a handler.
func TestRecordStaleFailsLoudly(t *testing.T) {
	ctx := context.Background()
	opts := recordTestOptions(t)
	for name, edited := range map[string]string{
		"prefilter": `local scan = require("scan")
hook{ event = "BeforeTool", kind = "shell", prefilter = scan.keywords({ "rmdir" }), handler = function() return { decision = "deny" } end }`,
		"onError": `local scan = require("scan")
hook{ event = "BeforeTool", kind = "shell", prefilter = scan.keywords({ "rm" }), onError = "skip", handler = function() return { decision = "deny" } end }`,
		"count": `local scan = require("scan")
hook{ event = "BeforeTool", kind = "shell", prefilter = scan.keywords({ "rm" }), handler = function() return { decision = "deny" } end }
hook{ event = "SessionStart", handler = function() return nil end }`,
		"load error": `local scan = require("scan")
error("broken at load")`,
	} {
		t.Run(name, func(t *testing.T) {
			rec := recordOf(t, opts, "s.lua", `local scan = require("scan")
hook{ event = "BeforeTool", kind = "shell", prefilter = scan.keywords({ "rm" }), handler = function() return { decision = "deny" } end }`, nil)
			s, err := Compile("s.lua", []byte(edited))
			require.NoError(t, err)
			p, err := NewPool(ctx, []Source{{Script: s, Record: rec}}, opts)
			require.NoError(t, err)
			defer p.Close()
			out, err := callReturns(t, ctx, p, 0, shellCall("ls"))
			require.NoError(t, err)
			require.Equal(t, events.Output{}, out, "the recorded prefilter answers")
			for range 2 {
				_, err = callReturns(t, ctx, p, 0, shellCall("rm -rf x"))
				var he *HookError
				require.True(t, errors.As(err, &he), "%v", err)
				require.Equal(t, FailVM, he.Kind)
				require.Equal(t, "s.lua", he.Script)
				if name == "load error" {
					require.Contains(t, he.Msg, "broken at load")
				} else {
					require.Contains(t, he.Msg, "Record")
				}
			}
			require.Zero(t, p.Stats().Created, "no VM is kept")
			require.Equal(t, int64(2), p.Stats().Failures)
		})
	}
}

func TestUnmarshalRecordRefusesOtherData(t *testing.T) {
	opts := recordTestOptions(t)
	good, err := recordOf(t, opts, "r.lua", recordedScript, nil).MarshalBinary()
	require.NoError(t, err)
	for i := range len(good) {
		_, err := UnmarshalRecord(good[:i])
		require.Error(t, err, "cut at %d", i)
	}
	for _, data := range []string{"", "{}", `{"script":"a.lua","params":{},"hooks":[]}`, string(good) + "x"} {
		_, err := UnmarshalRecord([]byte(data))
		require.Error(t, err, data)
	}
	p := newTestPool(t, Options{})
	_, err = p.Record(0)
	require.Error(t, err, "no source 0")
}

// TestRecordKeepsAnyBytes: a keyword that is not UTF-8, and an empty
// expression, survive a Record.
func TestRecordKeepsAnyBytes(t *testing.T) {
	const src = `local scan = require("scan")
hook{ event = "BeforeTool", kind = "shell", prefilter = scan.any({ scan.keywords({ "a\255" }), "" }), handler = function() return { decision = "deny" } end }`
	opts := recordTestOptions(t)
	rec := recordOf(t, opts, "b.lua", src, nil)
	s, err := Compile("b.lua", []byte(src))
	require.NoError(t, err)
	eager, err := NewPool(context.Background(), []Source{{Script: s}}, opts)
	require.NoError(t, err)
	defer eager.Close()
	lazy, err := NewPool(context.Background(), []Source{{Script: s, Record: rec}}, opts)
	require.NoError(t, err)
	defer lazy.Close()
	require.Zero(t, lazy.Stats().Created)
	requireSameHooks(t, lazy.Hooks(), eager.Hooks())
	out, err := lazy.Call(context.Background(), 0, shellCall("x a\xff y"))
	require.NoError(t, err)
	require.Equal(t, events.Deny, out.Decision)
	require.Equal(t, int64(1), lazy.Stats().Created, "the VM registered the recorded hooks")
}

// TestConfigNames: scan.config_names() is the set of the guard rails'
// names, and a Record keeps it as such: a pool planned from a Record made
// without ConfigPaths searches its own.
func TestConfigNames(t *testing.T) {
	ctx := context.Background()
	const src = `local scan = require("scan")
local names = scan.config_names()
hook{ event = "BeforeTool", kind = "shell", prefilter = scan.any({ scan.keywords({ "zz" }), names }, { lower = true }),
  handler = function(input) return { decision = "deny", reason = tostring(names:find(string.lower(input.tool.command))) } end }`
	opts := recordTestOptions(t)
	rec := recordOf(t, opts, "n.lua", src, nil)
	require.False(t, rec.ReadsConfig())
	s, err := Compile("n.lua", []byte(src))
	require.NoError(t, err)
	withConfig := opts
	withConfig.ConfigPaths = []string{"/P/Agents.JSON", "/p/hooks/", "/x/policy.toml", "/q/hooks/"}
	for _, c := range []struct {
		opts Options
		cmd  string
		deny bool
	}{
		{opts, "cat agents.json", false}, // no guard rails: nothing but zz
		{opts, "echo zz", true},
		{withConfig, "vi AGENTS.json", true},
		{withConfig, "cat hooks/x", true},
		{withConfig, "cp evil.lua somewhere", true},
		{withConfig, "cat policy.toml", true},
		{withConfig, "ls -la", false},
	} {
		eager, err := NewPool(ctx, []Source{{Script: s}}, c.opts)
		require.NoError(t, err)
		lazy, err := NewPool(ctx, []Source{{Script: s, Record: rec}}, c.opts)
		require.NoError(t, err)
		require.Zero(t, lazy.Stats().Created, "the Record applies with ConfigPaths")
		requireSameHooks(t, lazy.Hooks(), eager.Hooks())
		want, err := eager.Call(ctx, 0, shellCall(c.cmd))
		require.NoError(t, err)
		got, err := lazy.Call(ctx, 0, shellCall(c.cmd))
		require.NoError(t, err, c.cmd)
		require.Equal(t, want, got, c.cmd)
		require.Equal(t, c.deny, got.Decision == events.Deny, c.cmd)
		wantVMs := int64(0)
		if c.deny {
			wantVMs = 1
		}
		require.Equal(t, wantVMs, lazy.Stats().Created, c.cmd)
		eager.Close()
		lazy.Close()
	}
}

// TestRecordedFirstBuildNotCharged: a pool planned from Records builds its
// first VM when a call first needs it. That build is the load NewPool
// deferred: bounded by LoadTimeout, not charged to the call's own timeout.
// Before, a first call on a loaded machine failed "waiting for a VM" (the
// stdlib's redact-secrets withheld a tool's output in the e2e tests under
// two CPU burners). Here the top level blocks until the call has waited
// well past its timeout; the call must still run its handler.
func TestRecordedFirstBuildNotCharged(t *testing.T) {
	t.Parallel()
	var block atomic.Bool
	release := make(chan struct{})
	opts := Options{PoolSize: 1, LoadTimeout: MaxTimeout, Modules: map[string]any{
		"gate": func() {
			if block.Load() {
				<-release
			}
		},
	}}
	const src = `require("gate")()
hook{ event = "BeforeTool", timeoutMs = 300, handler = function() return { decision = "deny", reason = "ran" } end }`
	rec := recordOf(t, opts, "slow.lua", src, nil)
	s, err := Compile("slow.lua", []byte(src))
	require.NoError(t, err)
	block.Store(true)
	p, err := NewPool(context.Background(), []Source{{Script: s, Record: rec}}, opts)
	require.NoError(t, err)
	defer p.Close()
	require.Zero(t, p.Stats().Created, "planned from the record, no VM at load")

	type answer struct {
		out events.Output
		err error
	}
	done := make(chan answer, 1)
	go func() {
		out, err := p.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: "bash"})
		done <- answer{out, err}
	}()
	for p.waiting.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	// Past the hook's 300 ms: without the fix the call has timed out by now.
	time.Sleep(600 * time.Millisecond)
	close(release)
	a := <-done
	require.NoError(t, a.err)
	require.Equal(t, events.Deny, a.out.Decision)
	require.Equal(t, "ran", a.out.Reason)
	require.EqualValues(t, 1, p.Stats().Created)
}
