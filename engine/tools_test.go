package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/tools"
)

// TestToolsListsCoverage: Tools and Tool say which hooks cover each tool,
// by kind and by matcher, and who declared it.
func TestToolsListsCoverage(t *testing.T) {
	nop := engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) { return events.Output{}, nil })
	e, err := engine.New(t.Context(),
		engine.WithTools(tools.Spec{Name: "run_it", Kind: events.ToolShell}, tools.Spec{Name: "jot", Kind: events.ToolOther}),
		engine.WithHook(engine.GoHook{Name: "shell", Event: events.BeforeTool, Kinds: []events.ToolKind{events.ToolShell}, Handler: nop}),
		engine.WithHook(engine.GoHook{Name: "gate", Event: events.ApprovalRequest, Matcher: "^run_", Handler: nop}),
		engine.WithHook(engine.GoHook{Name: "all", Event: events.AfterTool, Handler: nop}),
	)
	require.NoError(t, err)
	defer e.Close()

	declared := e.Tools(t.Context(), true)
	require.Len(t, declared, 2)
	assert.Equal(t, "jot", declared[0].Name)
	assert.Equal(t, map[events.Event][]string{events.AfterTool: {"go:all"}}, declared[0].Hooks)
	assert.Equal(t, "run_it", declared[1].Name)
	assert.Equal(t, "WithTools", declared[1].DeclaredBy)
	assert.Equal(t, map[events.Event][]string{
		events.BeforeTool: {"go:shell"}, events.ApprovalRequest: {"go:gate"}, events.AfterTool: {"go:all"},
	}, declared[1].Hooks)

	bash, ok := e.Tool(t.Context(), "Bash")
	require.True(t, ok)
	assert.Equal(t, events.ToolShell, bash.Kind)
	assert.Empty(t, bash.DeclaredBy)
	assert.Contains(t, bash.Agents, "claude-code")
	assert.Equal(t, []string{"go:shell"}, bash.Hooks[events.BeforeTool])

	_, ok = e.Tool(t.Context(), "frobnicate")
	assert.False(t, ok)
	assert.Greater(t, len(e.Tools(t.Context(), false)), 100, "the whole built-in table")
}

// TestKnownToolFastPathAllocatesNothing: the unguarded check costs the fast
// path no allocation for a known tool.
func TestKnownToolFastPathAllocatesNothing(t *testing.T) {
	e, err := engine.New(t.Context(), engine.WithHook(engine.GoHook{Name: "w", Event: events.BeforeTool, Kinds: []events.ToolKind{events.ToolWrite},
		Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) { return events.Output{}, nil })}))
	require.NoError(t, err)
	defer e.Close()
	in := events.Input{Event: events.BeforeTool, ToolName: "Bash", ToolInput: map[string]any{"command": "ls"}}
	assert.Zero(t, testing.AllocsPerRun(200, func() { e.Dispatch(context.Background(), in) }))
}

// TestToolViewAllocatesNothing: the view of a shell call adds no allocation
// to a dispatch with one hook (the call and its record are the one).
func TestToolViewAllocatesNothing(t *testing.T) {
	e, err := engine.New(t.Context(), engine.WithHook(engine.GoHook{Name: "h", Event: events.BeforeTool, Kinds: []events.ToolKind{events.ToolShell},
		Handler: engine.HandlerFunc(func(_ context.Context, in *events.Input) (events.Output, error) {
			if in.Tool == nil || in.Tool.Command != "ls -la" {
				return events.Output{}, errors.New("no view")
			}
			return events.Output{}, nil
		})}))
	require.NoError(t, err)
	defer e.Close()
	in := events.Input{Event: events.BeforeTool, ToolName: "shell", ToolInput: map[string]any{"command": []any{"ls", "-la"}}}
	res, err := e.Dispatch(context.Background(), in)
	require.NoError(t, err)
	require.Equal(t, engine.OutcomeOK, res.Audit[0].Outcome, res.Audit[0].Error)
	in.ToolInput = map[string]any{"command": "ls -la"}
	assert.LessOrEqual(t, testing.AllocsPerRun(200, func() { e.Dispatch(context.Background(), in) }), 1.0)
}
