package engine_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// TestDispatchValidatesInput: Dispatch refuses an input that fails
// events.Input.Validate with an error wrapping ErrInvalidInput before any
// hook sees it, and an unknown event always (issue 11.4).
func TestDispatchValidatesInput(t *testing.T) {
	ran := 0
	eng, err := engine.New(t.Context(), engine.WithHook(engine.GoHook{Name: "h", Event: events.BeforeTool, Matcher: "^bash$",
		Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) {
			ran++
			return events.Output{}, nil
		})}))
	require.NoError(t, err)
	defer eng.Close()
	cost := math.NaN()
	for _, in := range []events.Input{
		{Event: events.BeforeTool, ToolName: "bash", Timestamp: "yesterday"},
		{Event: events.AfterTurn, Reason: "bored"},
		{Event: events.BeforeTool, ToolName: "bash", Caller: &events.Caller{Kind: "robot"}},
		{Event: events.AfterTurn, Cost: &cost}, // no hook, but a session event
		{Event: events.Event(200)},
		{},
	} {
		res, err := eng.Dispatch(t.Context(), in)
		assert.ErrorIs(t, err, engine.ErrInvalidInput, "%+v", in)
		assert.Empty(t, res.Audit)
	}
	assert.Zero(t, ran, "a hook ran for an invalid input")
	cost = 0.5
	_, err = eng.Dispatch(t.Context(), events.Input{Event: events.AfterModel, Cost: &cost, Timestamp: "2026-01-02T03:04:05Z"})
	assert.NoError(t, err)
}

// TestReloadReturnsConfigErrors: a broken reload is returned as the
// structured ConfigErrors, each with its file, line and column (issue 11.4).
func TestReloadReturnsConfigErrors(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agents.json")
	writeConfig(t, cfg, config("v1"))
	eng, err := engine.New(t.Context(), engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir, Runner: fakeRunner}))
	require.NoError(t, err)
	defer eng.Close()
	writeConfig(t, cfg, "{\n  \"hooks\": {\"BeforeTool\": [{\"hooks\": [{\"command\": \"x\", \"timeoutMs\": -1}]}]}\n}")
	err = eng.Reload(t.Context())
	var ce engine.ConfigErrors
	require.True(t, errors.As(err, &ce), "Reload returned %T %v", err, err)
	require.Len(t, ce, 1)
	assert.Equal(t, engine.CodeBadTimeout, ce[0].Code)
	assert.Equal(t, cfg, ce[0].File)
	assert.Equal(t, 2, ce[0].Line)
	assert.Equal(t, 69, ce[0].Col) // the value -1
	var one *engine.ConfigError
	require.True(t, errors.As(err, &one))
	assert.Same(t, ce[0], one)

	// The last good plan stays in force, and the error is in the Result.
	res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash"})
	require.NoError(t, err)
	assert.Equal(t, events.Deny, res.Decision)
	assert.Contains(t, res.ConfigError, "bad_timeout")
}

// TestDuplicatePackNamesBothPositions: the same stdlib pack named twice in
// user files is refused with both positions (issue 11.2).
func TestDuplicatePackNamesBothPositions(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "agents.json"), filepath.Join(dir, "more.toml")
	writeConfig(t, a, `{"atoms":[{"stdlib":"protect-paths"}]}`)
	writeConfig(t, b, "atoms = [{ stdlib = \"protect-paths\" }]\n")
	_, err := engine.New(t.Context(), engine.WithFiles(engine.Files{User: []string{a, b}, Root: dir, Home: dir, Runner: fakeRunner}))
	var ce engine.ConfigErrors
	require.True(t, errors.As(err, &ce), "%v", err)
	require.Len(t, ce, 1, "%v", err)
	assert.Equal(t, engine.CodeDuplicatePack, ce[0].Code)
	assert.Equal(t, b+`:1:10: duplicate_pack: stdlib pack "protect-paths" is already named at `+a+`:1:11: a pack loads once, with one set of parameters`, ce[0].Error())
}

// TestDegradedStart: with WithDegradedStart, New leaves out what fails to
// load and keeps the rest: a pack whose user parameters are refused falls
// back to the copy of Files.Stdlib it replaced, a script that fails at load
// is left out while the others load; the problems are in Reload and every
// Result (issue 11.8).
func TestDegradedStart(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agents.json")
	bad, good := filepath.Join(dir, "bad.lua"), filepath.Join(dir, "good.lua")
	writeConfig(t, cfg, `{"atoms":[{"stdlib":"deny-destructive","with":{"protectedBranch":["main"]}}]}`)
	writeConfig(t, bad, `error("boom")`)
	writeConfig(t, good, `hook{ event = "AfterModel", handler = function() return { mutatedText = "good" } end }`)
	files := engine.Files{User: []string{cfg}, Lua: []string{bad, good}, Stdlib: []engine.Pack{{Name: "deny-destructive"}}, Root: dir, Runner: fakeRunner}
	_, err := engine.New(t.Context(), engine.WithFiles(files))
	require.Error(t, err, "without WithDegradedStart, New refuses")

	eng, err := engine.New(t.Context(), engine.WithFiles(files), engine.WithDegradedStart())
	require.NoError(t, err)
	defer eng.Close()
	var ce engine.ConfigErrors
	require.True(t, errors.As(eng.Reload(t.Context()), &ce))
	var codes []string
	for _, e := range ce {
		codes = append(codes, e.Code)
	}
	assert.ElementsMatch(t, []string{engine.CodeBadAtom, engine.CodeLuaLoad}, codes, "%v", ce)

	res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "rm -rf /"}})
	require.NoError(t, err)
	assert.Equal(t, events.Deny, res.Decision)
	require.Len(t, res.Audit, 1)
	assert.Equal(t, "stdlib deny-destructive", res.Audit[0].RegisteredBy, "the default copy runs in place of the refused one")
	assert.Contains(t, res.ConfigError, "protectedBranch")

	res, err = eng.Dispatch(t.Context(), events.Input{Event: events.AfterModel, Response: "x"})
	require.NoError(t, err)
	require.NotNil(t, res.MutatedText)
	assert.Equal(t, "good", *res.MutatedText)
	assert.Contains(t, res.ConfigError, "boom")
}
