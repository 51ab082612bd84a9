package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// luaEngine builds an engine with one Lua script, embedded as
// guards/<name>.
func luaEngine(t *testing.T, name, src string, opts ...engine.Option) *engine.Engine {
	t.Helper()
	scripts := fstest.MapFS{"guards/" + name: {Data: []byte(src)}}
	eng, err := engine.New(t.Context(), append([]engine.Option{engine.WithFiles(engine.Files{LuaFS: []engine.ScriptFS{{FS: scripts, Dir: "guards"}}}), testLuaPool}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	return eng
}

// TestLogFieldsInAudit: log.info(msg, fields) keeps its fields in the
// audit record (issue 14.13), as the log does.
func TestLogFieldsInAudit(t *testing.T) {
	eng := luaEngine(t, "log.lua", `local log = require("log")
hook{ event = "BeforeTool", handler = function(input)
  log.info("checked", { tool = input.toolName, n = 2, list = {1, "a"} })
  log.warn("plain")
end }`)
	res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash"})
	require.NoError(t, err)
	require.Len(t, res.Audit, 1)
	require.Len(t, res.Audit[0].Logs, 2)
	assert.Regexp(t, `^info \S+log.lua:3: checked {"list":\[1,"a"\],"n":2,"tool":"bash"}$`, res.Audit[0].Logs[0])
	assert.Regexp(t, `^warn \S+log.lua:4: plain$`, res.Audit[0].Logs[1])
}

// TestDegradedStartFailsClosedOnHostPack: at a degraded start, a stdlib
// pack the host chose that cannot load (protect-paths without the home
// directory) makes the engine deny at the events that can deny, naming the
// problem, rather than run the default set without it; the other events
// run what loaded.
func TestDegradedStartFailsClosedOnHostPack(t *testing.T) {
	root := t.TempDir()
	eng, err := engine.New(t.Context(), testLuaPool, engine.WithDegradedStart(), engine.WithStdlib("default"),
		engine.WithFiles(engine.Files{Root: root}))
	require.NoError(t, err)
	defer eng.Close()
	res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "Read", ToolInput: map[string]any{"file_path": "src/main.go"}})
	require.NoError(t, err)
	assert.Equal(t, events.Deny, res.Decision)
	assert.Contains(t, res.Reason, "the host's stdlib pack protect-paths failed to load, so this dispatch fails closed")
	assert.Contains(t, res.Reason, "Files.Home")
	assert.Contains(t, res.ConfigError, "unmet_need")
	require.Len(t, res.Audit, 1)
	assert.Equal(t, engine.TierAtom, res.Audit[0].Tier)
	assert.True(t, res.Audit[0].FailedClosed)

	// AfterTool cannot deny: the packs that loaded run (redact-secrets).
	res, err = eng.Dispatch(t.Context(), events.Input{Event: events.AfterTool, ToolName: "Read", ToolInput: map[string]any{"file_path": "x"},
		ToolResult: "key AKIAZ7QXK3WPLM2NHB4T"})
	require.NoError(t, err)
	assert.Equal(t, "key [REDACTED:aws-access-key-id]", res.UpdatedToolOutput)
}

// TestLuaHookIdentity: a Lua hook is named by hook{ name = } or by its
// script, relative to the configuration file (or the root, or
// stdlib:<pack>), and its index in the script; never by a line inside an
// embedded file (issue 14.4).
func TestLuaHookIdentity(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "guards"), 0o755))
	writeConfig(t, filepath.Join(dir, "guards", "a.lua"), `-- two hooks
hook{ event = "BeforeTool", handler = function() end }
hook{ event = "BeforeTool", name = "block-curl", handler = function() end }`)
	writeConfig(t, filepath.Join(dir, "b.lua"), `hook{ event = "AfterTool", handler = function() end }`)
	writeConfig(t, filepath.Join(dir, "agents.json"), `{"atoms": ["guards/a.lua"]}`)
	eng, err := engine.New(t.Context(), testLuaPool, engine.WithStdlib("deny-destructive"), engine.WithFiles(engine.Files{
		User: []string{filepath.Join(dir, "agents.json")}, Lua: []string{filepath.Join(dir, "b.lua")}, Root: dir, Home: dir}))
	require.NoError(t, err)
	defer eng.Close()
	type row struct{ id, source, registeredBy string }
	var got []row
	for _, h := range eng.Plan(t.Context()) {
		got = append(got, row{h.ID, h.Source, strings.TrimPrefix(h.RegisteredBy, dir+"/")})
	}
	assert.Equal(t, []row{
		{"lua:stdlib:deny-destructive#1", "stdlib:deny-destructive", "stdlib deny-destructive"},
		{"lua:stdlib:deny-destructive#2", "stdlib:deny-destructive", "stdlib deny-destructive"}, // database tools (kind query)
		{"lua:guards/a.lua#1", filepath.Join(dir, "guards", "a.lua") + ":2", "agents.json:1:12"},
		{"lua:guards/a.lua#block-curl", filepath.Join(dir, "guards", "a.lua") + ":3", "agents.json:1:12"},
		{"lua:b.lua#1", filepath.Join(dir, "b.lua") + ":1", "b.lua"},
	}, got)
}

// TestStatsForHealthAndMetrics: Stats numbers the plan generations, counts
// reloads and their failures, says what Result.ConfigError says, and keeps
// Lua counters over generations (issue 14.11, 14.12).
func TestStatsForHealthAndMetrics(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "g.lua")
	writeConfig(t, script, `hook{ event = "BeforeTool", handler = function() return { decision = "deny", reason = "v1" } end }`)
	eng, err := engine.New(t.Context(), engine.WithFiles(engine.Files{Lua: []string{script}, Root: dir}), engine.WithLuaPool(3, testLuaTimeout))
	require.NoError(t, err)
	defer eng.Close()
	in := events.Input{Event: events.BeforeTool, ToolName: "bash"}
	_, err = eng.Dispatch(t.Context(), in)
	require.NoError(t, err)
	s := eng.Stats()
	assert.Equal(t, int64(1), s.Generation)
	assert.Zero(t, s.Reloads+s.ReloadFailures)
	assert.Empty(t, s.ConfigError)
	assert.Equal(t, 3, s.Lua.Size)
	assert.Equal(t, int64(1), s.Lua.Calls)

	writeConfig(t, script, `hook{ event = "BeforeTool", handler = function() return { decision = "deny", reason = "v2" } end }`)
	require.NoError(t, eng.Reload(t.Context()))
	_, err = eng.Dispatch(t.Context(), in)
	require.NoError(t, err)
	writeConfig(t, script, `hook{ event = "BeforeTool", handler = `)
	require.Error(t, eng.Reload(t.Context()))
	s = eng.Stats()
	assert.Equal(t, int64(2), s.Generation)
	assert.Equal(t, int64(1), s.Reloads)
	assert.Equal(t, int64(1), s.ReloadFailures)
	assert.Contains(t, s.ConfigError, "lua_syntax")
	assert.Equal(t, int64(1), s.Lua.Calls, "this generation's")
	assert.Equal(t, int64(2), s.LuaTotal.Calls, "every generation's")
	assert.GreaterOrEqual(t, s.LuaTotal.Discarded, int64(1), "the first pool was closed")
}

// spanRecorder is a DispatchRecorder that notes what it is told.
type spanRecorder struct {
	mu    sync.Mutex
	notes []string
}

type spanKey struct{}

func (r *spanRecorder) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes = append(r.notes, s)
}

func (r *spanRecorder) StartDispatch(ctx context.Context, d engine.DispatchInfo) context.Context {
	r.note("start " + d.Event.String() + " " + d.ToolName + " " + d.SessionID)
	return context.WithValue(ctx, spanKey{}, d.Event.String())
}

func (r *spanRecorder) Record(ctx context.Context, rec engine.Record) {
	r.note(fmt.Sprintf("record %s in %v", rec.Hook, ctx.Value(spanKey{})))
}

func (r *spanRecorder) EndDispatch(ctx context.Context, res engine.Result) {
	r.note(fmt.Sprintf("end %s in %v", res.Decision, ctx.Value(spanKey{})))
}

// TestDispatchRecorder: a DispatchRecorder hears each dispatch that runs
// hooks as a whole, and its context reaches the hooks and their records;
// MultiRecorder passes everything on (issue 14.12).
func TestDispatchRecorder(t *testing.T) {
	var sr spanRecorder
	var plain []string
	var seen any
	eng, err := engine.New(t.Context(), engine.WithRecorder(engine.MultiRecorder(
		&sr, nil, engine.RecorderFunc(func(_ context.Context, r engine.Record) { plain = append(plain, r.Hook) }))),
		engine.WithHook(engine.GoHook{Name: "g", Event: events.BeforeTool, Matcher: "^bash$", Handler: engine.HandlerFunc(
			func(ctx context.Context, in *events.Input) (events.Output, error) {
				seen = ctx.Value(spanKey{})
				return events.Output{Decision: events.Deny, Reason: "no"}, nil
			})}))
	require.NoError(t, err)
	defer eng.Close()
	_, err = eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash", SessionID: "s1"})
	require.NoError(t, err)
	_, err = eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "Read"}) // the fast path
	require.NoError(t, err)
	assert.Equal(t, []string{"start BeforeTool bash s1", "record go:g in BeforeTool", "end deny in BeforeTool"}, sr.notes)
	assert.Equal(t, []string{"go:g"}, plain)
	assert.Equal(t, "BeforeTool", seen, "the hook runs in the recorder's context")
}

// TestOptionsSharedByConcurrentNews: one Option value given to several New
// calls at once (monad-hooks test's base options, run by parallel cases) is
// not a data race (-race found WithFiles writing its captured Files).
func TestOptionsSharedByConcurrentNews(t *testing.T) {
	dir := t.TempDir()
	opts := []engine.Option{testLuaPool, engine.WithFiles(engine.Files{Root: dir, Home: dir}), engine.WithStdlib("deny-destructive")}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			eng, err := engine.New(t.Context(), opts...)
			if assert.NoError(t, err) {
				eng.Close()
			}
		})
	}
	wg.Wait()
}

// TestLuaEventAlias: a script written with another agent's event names
// gets the did-you-mean of the hosts' tables (hosts.Alias), the one home of
// those names.
func TestLuaEventAlias(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, filepath.Join(dir, "a.lua"), `hook{ event = "beforeShellExecution", handler = function() end }`)
	_, err := engine.New(t.Context(), engine.WithFiles(engine.Files{Lua: []string{filepath.Join(dir, "a.lua")}, Root: dir, Home: dir}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown event "beforeShellExecution" (did you mean "BeforeTool"?)`)
}
