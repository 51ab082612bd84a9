package engine_test

import (
	"os"
	"path/filepath"
	"strings"
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
	eng, err := engine.New(t.Context(), append([]engine.Option{engine.WithFiles(engine.Files{LuaFS: []engine.ScriptFS{{FS: scripts, Dir: "guards"}}})}, opts...)...)
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
	eng, err := engine.New(t.Context(), engine.WithDegradedStart(), engine.WithStdlib("default"),
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
	eng, err := engine.New(t.Context(), engine.WithStdlib("deny-destructive"), engine.WithFiles(engine.Files{
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
		{"lua:guards/a.lua#1", filepath.Join(dir, "guards", "a.lua") + ":2", "agents.json:1:12"},
		{"lua:guards/a.lua#block-curl", filepath.Join(dir, "guards", "a.lua") + ":3", "agents.json:1:12"},
		{"lua:b.lua#1", filepath.Join(dir, "b.lua") + ":1", "b.lua"},
	}, got)
}
