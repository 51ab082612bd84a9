package engine_test

import (
	"context"
	"errors"
	"path/filepath"
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

// TestToolDeclarationsAreCheckedPerFile: a file's tool declarations are part
// of the file: one that a file may not make (a user file redeclaring a tool
// the host, a policy file or another user file declared) fails that file;
// at a degraded start the file is left out, hooks and all, and a policy
// file with a bad declaration fails closed.
func TestToolDeclarationsAreCheckedPerFile(t *testing.T) {
	dir := t.TempDir()
	pol, a, b := filepath.Join(dir, "policy.json"), filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	writeConfig(t, pol, `{"tools":{"run_it":{"kind":"shell"}}}`)
	writeConfig(t, a, `{"tools":{"jot":{"kind":"other"}}}`)
	writeConfig(t, b, `{"tools":{"jot":{"kind":"other"},"run_it":{"kind":"other"},"host_tool":{"kind":"other"}},
		"hooks":{"AfterModel":[{"hooks":[{"command":"b"}]}]}}`)
	files := engine.Files{Policy: []string{pol}, User: []string{a, b}, Root: dir, Runner: fakeRunner}
	host := engine.WithTools(tools.Spec{Name: "host_tool", Kind: events.ToolShell})
	_, err := engine.New(t.Context(), engine.WithFiles(files), host)
	assertCodes(t, err, engine.CodeBadTool, engine.CodeBadTool, engine.CodeBadTool)
	assert.ErrorContains(t, err, b+`:1:11: bad_tool: tool "jot" is already declared by `+a+":1:11")
	assert.ErrorContains(t, err, `tool "run_it" is already declared by `+pol+":1:11")
	assert.ErrorContains(t, err, `tool "host_tool" is already declared by WithTools`)

	e, err := engine.New(t.Context(), engine.WithFiles(files), host, engine.WithDegradedStart())
	require.NoError(t, err)
	defer e.Close()
	assert.Empty(t, e.Plan(t.Context()), "b.json is left out, hooks and all")
	run, ok := e.Tool(t.Context(), "run_it")
	require.True(t, ok)
	assert.Equal(t, events.ToolShell, run.Kind, "the policy's declaration stands")
	jot, ok := e.Tool(t.Context(), "jot")
	require.True(t, ok)
	assert.Equal(t, a+":1:11", jot.DeclaredBy)

	writeConfig(t, pol, `{"tools":{"run_it":{"kind":"shell","command":"a[]b"}}}`)
	e2, err := engine.New(t.Context(), engine.WithFiles(engine.Files{Policy: []string{pol}, Root: dir, Runner: fakeRunner}), engine.WithDegradedStart())
	require.NoError(t, err)
	defer e2.Close()
	res, err := e2.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "Bash", SessionID: "s1", ToolCallID: "c1"})
	require.NoError(t, err)
	assert.Equal(t, events.Deny, res.Decision, "a policy file with a bad declaration fails closed")
	assert.Contains(t, res.Reason, "bad_tool")
	require.Len(t, res.Audit, 1)
	assert.Equal(t, "s1", res.Audit[0].SessionID)
	assert.Equal(t, "c1", res.Audit[0].ToolCallID)
}

// TestUnguardedRecordCarriesTheSession: the engine's unguardedTool record
// carries the dispatch's sessionId and toolCallId, as every record does.
func TestUnguardedRecordCarriesTheSession(t *testing.T) {
	var got []engine.Record
	e, err := engine.New(t.Context(), engine.WithRecorder(engine.RecorderFunc(func(_ context.Context, r engine.Record) { got = append(got, r) })))
	require.NoError(t, err)
	defer e.Close()
	res, err := e.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "frobnicate", SessionID: "s1", ToolCallID: "c1"})
	require.NoError(t, err)
	require.Len(t, res.Audit, 1)
	assert.Equal(t, "unguardedTool", res.Audit[0].Hook)
	assert.Equal(t, "s1", res.Audit[0].SessionID)
	assert.Equal(t, "c1", res.Audit[0].ToolCallID)
	assert.Equal(t, res.Audit, got)
}

// TestMCPToolsByInput: a tool of an MCP server is guarded by kind when its
// input holds the fields its entry of the MCP table reads, and is
// unguarded (its record first, no view) when it does not; a declared
// tool of the same name wins. The fast path of an MCP tool that fits
// allocates nothing either.
func TestMCPToolsByInput(t *testing.T) {
	var views []*events.ToolView
	e, err := engine.New(t.Context(),
		engine.WithTools(tools.Spec{Name: "mcp__mine__query", Kind: events.ToolOther}),
		engine.WithHook(engine.GoHook{Name: "q", Event: events.BeforeTool, Kinds: []events.ToolKind{events.ToolQuery},
			Handler: engine.HandlerFunc(func(_ context.Context, in *events.Input) (events.Output, error) {
				views = append(views, in.Tool)
				return events.Output{}, nil
			})}))
	require.NoError(t, err)
	defer e.Close()
	dispatch := func(name string, input any) engine.Result {
		res, err := e.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: name, ToolInput: input})
		require.NoError(t, err)
		return res
	}
	res := dispatch("mcp__postgres__query", map[string]any{"sql": "DROP TABLE users"})
	assert.False(t, res.UnguardedTool)
	require.Len(t, views, 1)
	assert.Equal(t, &events.ToolView{Kind: events.ToolQuery, Contents: []string{"DROP TABLE users"}}, views[0])
	for range 2 { // the second from the remembered kind
		res = dispatch("mcp__search__query", map[string]any{"query": "drop table"})
		assert.True(t, res.UnguardedTool)
		require.Len(t, res.Audit, 2)
		assert.Equal(t, "unguardedTool", res.Audit[0].Hook)
		assert.Nil(t, views[len(views)-1])
	}
	res = dispatch("mcp__mine__query", map[string]any{"query": "x"})
	assert.False(t, res.UnguardedTool, "declared")
	assert.Empty(t, res.Audit)
	in := events.Input{Event: events.BeforeTool, ToolName: "mcp__fs__read_file", ToolInput: map[string]any{"path": "/a"}}
	assert.Zero(t, testing.AllocsPerRun(200, func() { e.Dispatch(context.Background(), in) }))
}
