package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/shell"
)

// cutMark is the end of a text the engine cut to its bound.
const cutMark = "bound by monad-hooks]"

// returns is a Go hook at ev that returns out.
func returns(name string, ev events.Event, out events.Output) engine.Option {
	return engine.WithHook(engine.GoHook{Name: name, Event: ev,
		Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) { return out, nil })})
}

// hookOfKind builds an engine with one BeforeTool hook of the given kind
// (go, lua, command) that returns out; the Lua hook returns the Lua
// expression luaOut, which builds the same table (a script holding out
// itself would be over the script size bound).
func hookOfKind(t *testing.T, kind string, out events.Output, luaOut string, opts ...engine.Option) *engine.Engine {
	t.Helper()
	dir := t.TempDir()
	b, err := json.Marshal(out)
	require.NoError(t, err)
	switch kind {
	case "go":
		opts = append(opts, returns("big", events.BeforeTool, out))
	case "lua":
		script := filepath.Join(dir, "big.lua")
		writeConfig(t, script, `hook{ event = "BeforeTool", handler = function() return `+luaOut+` end }`)
		opts = append(opts, testLuaPool, engine.WithFiles(engine.Files{Lua: []string{script}, Root: dir}))
	case "command":
		cfg := filepath.Join(dir, "agents.json")
		writeConfig(t, cfg, `{"hooks":{"BeforeTool":[{"hooks":[{"command":"big"}]}]}}`)
		runner := shell.RunnerFunc(func(context.Context, shell.Command, []byte) (shell.Result, error) {
			return shell.Result{Stdout: b}, nil
		})
		opts = append(opts, engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir, Runner: runner}))
	}
	eng, err := engine.New(t.Context(), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	return eng
}

// TestHookTextsAreBounded: a reason or a context a hook returns, of any
// kind, reaches the Result cut to its bound with a marker, and the
// decision stands (a deny with a 900 KiB reason is a deny); the audit
// says which fields were cut. A model name over its bound is refused
// whole, even where the host vouches for every model.
func TestHookTextsAreBounded(t *testing.T) {
	big := strings.Repeat("é", 450<<10) // 900 KiB, two bytes a character
	for _, kind := range []string{"go", "lua", "command"} {
		t.Run(kind, func(t *testing.T) {
			eng := hookOfKind(t, kind, events.Output{Decision: events.Deny, Reason: big, AdditionalContext: big},
				`{ decision = "deny", reason = string.rep("é", 450 * 1024), additionalContext = string.rep("é", 450 * 1024) }`)
			res, err := eng.Dispatch(t.Context(), bash("ls"))
			require.NoError(t, err)
			assert.Equal(t, events.Deny, res.Decision)
			assert.LessOrEqual(t, len(res.Reason), events.MaxReasonSize)
			assert.Greater(t, len(res.Reason), events.MaxReasonSize-100, "cut to the bound, not below it")
			assert.True(t, strings.HasPrefix(res.Reason, "éé"))
			assert.True(t, strings.HasSuffix(res.Reason, cutMark), res.Reason[len(res.Reason)-60:])
			assert.LessOrEqual(t, len(res.AdditionalContext), events.MaxContextSize)
			assert.True(t, strings.HasSuffix(res.AdditionalContext, cutMark))
			require.Len(t, res.Audit, 1)
			assert.Equal(t, []string{"reason", "additionalContext"}, res.Audit[0].Truncated)
			assert.Equal(t, events.Deny, res.Audit[0].Decision)

			// A short text is left alone.
			eng = hookOfKind(t, kind, events.Output{Decision: events.Deny, Reason: "no"}, `{ decision = "deny", reason = "no" }`)
			res, err = eng.Dispatch(t.Context(), bash("ls"))
			require.NoError(t, err)
			assert.Equal(t, "no", res.Reason)
			assert.Empty(t, res.Audit[0].Truncated)
		})
	}

	t.Run("modelOverride", func(t *testing.T) {
		vouchAll := engine.WithModelVouch(func(string) bool { return true })
		long := strings.Repeat("m", events.MaxModelSize+1)
		eng, err := engine.New(t.Context(), vouchAll, engine.WithHook(engine.GoHook{Name: "model", Event: events.BeforeTurn,
			Handler: engine.HandlerFunc(func(_ context.Context, in *events.Input) (events.Output, error) {
				if in.Prompt == "short" {
					return events.Output{ModelOverride: "small-model"}, nil
				}
				return events.Output{ModelOverride: long}, nil
			})}))
		require.NoError(t, err)
		defer eng.Close()
		res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTurn, Prompt: "long"})
		require.NoError(t, err)
		assert.Empty(t, res.ModelOverride)
		assert.Equal(t, []string{"modelOverride"}, res.Audit[0].Ignored)
		res, err = eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTurn, Prompt: "short"})
		require.NoError(t, err)
		assert.Equal(t, "small-model", res.ModelOverride)
	})
}

// TestJoinedContextsAreBounded: the contexts of several hooks, each under
// its bound, are bounded in total; the first hooks' contexts come first,
// and the audit names the hook at which the bound was reached.
func TestJoinedContextsAreBounded(t *testing.T) {
	var opts []engine.Option
	for i := range 4 {
		opts = append(opts, returns(fmt.Sprint(i), events.BeforeTool, events.Output{AdditionalContext: strings.Repeat(string(rune('a'+i)), 30<<10)}))
	}
	eng, err := engine.New(t.Context(), opts...)
	require.NoError(t, err)
	defer eng.Close()
	res, err := eng.Dispatch(t.Context(), bash("ls"))
	require.NoError(t, err)
	assert.LessOrEqual(t, len(res.AdditionalContext), events.MaxContextSize)
	assert.True(t, strings.HasPrefix(res.AdditionalContext, strings.Repeat("a", 30<<10)+"\n\n"+strings.Repeat("b", 30<<10)+"\n\nccc"))
	assert.True(t, strings.HasSuffix(res.AdditionalContext, cutMark))
	assert.Equal(t, 1, strings.Count(res.AdditionalContext, cutMark), "one marker")
	var truncated [][]string
	for _, r := range res.Audit {
		truncated = append(truncated, r.Truncated)
	}
	assert.Equal(t, [][]string{nil, nil, {"additionalContext"}, {"additionalContext"}}, truncated)
}

// TestContinueWorkReasonIsBounded: the reason of a continuation, which an
// agent reads as its next prompt, is bounded as a deny's.
func TestContinueWorkReasonIsBounded(t *testing.T) {
	cw := &events.ContinueWork{Reason: strings.Repeat("w", 1<<20)}
	eng, err := engine.New(t.Context(), returns("more", events.AfterTurn, events.Output{ContinueWork: cw}))
	require.NoError(t, err)
	defer eng.Close()
	res, err := eng.Dispatch(t.Context(), events.Input{Event: events.AfterTurn, SessionID: "s"})
	require.NoError(t, err)
	require.NotNil(t, res.ContinueWork)
	assert.LessOrEqual(t, len(res.ContinueWork.Reason), events.MaxReasonSize)
	assert.True(t, strings.HasSuffix(res.ContinueWork.Reason, cutMark))
	assert.Equal(t, []string{"continueWork"}, res.Audit[0].Truncated)
	assert.Len(t, cw.Reason, 1<<20, "the hook's own value is not modified")
}

// TestSessionStashIsBounded: the contexts stashed at SessionStart for the
// first turn are bounded, however many SessionStart dispatches a session
// has (a host fires one at every resume): both the state the engine keeps
// and what the first turn gets.
func TestSessionStashIsBounded(t *testing.T) {
	eng, err := engine.New(t.Context(), returns("start", events.SessionStart, events.Output{AdditionalContext: strings.Repeat("s", 60<<10)}),
		returns("turn", events.BeforeTurn, events.Output{AdditionalContext: strings.Repeat("t", 60<<10)}))
	require.NoError(t, err)
	defer eng.Close()
	for range 20 {
		_, err := eng.Dispatch(t.Context(), events.Input{Event: events.SessionStart, SessionID: "s"})
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, len(eng.SessionState()["s"].Context), events.MaxContextSize)
	res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTurn, SessionID: "s", Prompt: "hi"})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(res.AdditionalContext), events.MaxContextSize)
	assert.True(t, strings.HasPrefix(res.AdditionalContext, "sss"), "the stash comes first")
	assert.True(t, strings.HasSuffix(res.AdditionalContext, cutMark))
	assert.Equal(t, 1, strings.Count(res.AdditionalContext, cutMark), "one marker")
}
