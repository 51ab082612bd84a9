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
