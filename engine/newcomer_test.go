package engine_test

import (
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
