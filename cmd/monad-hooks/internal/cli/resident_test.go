package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// TestServeIsAResidentHook: monad-hooks serve (JSON lines on stdio) is a
// valid resident command hook: an engine whose persistent hook is `serve`
// with the default set gets its denies, its allows, from one process.
func TestServeIsAResidentHook(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agents.json")
	line := strconv.Quote(bin + " serve")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"hooks":{"BeforeTool":[{"hooks":[{"command":`+line+`,"persistent":true,"onError":"deny"}]}]}}`), 0o644))
	eng, err := engine.New(context.Background(), engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir, Env: procEnv(dir)}))
	require.NoError(t, err)
	defer eng.Close()
	for range 3 {
		res, err := eng.Dispatch(context.Background(), events.Input{Event: events.BeforeTool, SessionID: "s", Cwd: dir, ToolName: "bash", ToolInput: map[string]any{"command": "rm -rf /"}})
		require.NoError(t, err)
		require.Equal(t, events.Deny, res.Decision, "%+v", res)
		require.Contains(t, res.Reason, "deny-destructive")
		res, err = eng.Dispatch(context.Background(), events.Input{Event: events.BeforeTool, SessionID: "s", Cwd: dir, ToolName: "bash", ToolInput: map[string]any{"command": "go test ./..."}})
		require.NoError(t, err)
		require.Equal(t, events.Proceed, res.Decision, "%+v", res)
		require.Equal(t, engine.OutcomeOK, res.Audit[0].Outcome, "%+v", res.Audit[0])
	}
}
