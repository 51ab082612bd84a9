package engine_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

// packsOf returns the stdlib packs whose hooks are in the engine's plan.
func packsOf(t *testing.T, e *engine.Engine) []string {
	t.Helper()
	var out []string
	for _, h := range e.Plan(t.Context()) {
		if name, ok := strings.CutPrefix(h.ID, "lua:stdlib:"); ok {
			name = name[:strings.IndexByte(name, '#')]
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestWithStdlibDefault: one option gives the default set; without it no
// pack runs.
func TestWithStdlibDefault(t *testing.T) {
	dir := t.TempDir()
	e, err := engine.New(t.Context(), testLuaPool, engine.WithStdlib("default"), engine.WithFiles(engine.Files{Root: dir, Home: dir}))
	require.NoError(t, err)
	defer e.Close()
	want := slices.Sorted(slices.Values(stdlib.Default()))
	assert.Equal(t, want, packsOf(t, e))
	res, err := e.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "Bash", ToolInput: map[string]any{"command": "rm -rf ~"}})
	require.NoError(t, err)
	assert.Equal(t, events.Deny, res.Decision)

	bare, err := engine.New(t.Context())
	require.NoError(t, err)
	defer bare.Close()
	assert.Empty(t, bare.Plan(t.Context()), "no option: no stdlib")

	// Names resolve as the CLI resolves --stdlib: default expands, a name
	// twice loads once, a pack also in Files.Stdlib keeps that entry.
	names, err := engine.StdlibPacks("redact-pii", "default", "redact-pii")
	require.NoError(t, err)
	assert.Equal(t, append([]string{"redact-pii"}, stdlib.Default()...), names)
	e2, err := engine.New(t.Context(), testLuaPool, engine.WithStdlib("deny-destructive", "deny-destructive"),
		engine.WithFiles(engine.Files{Root: dir, Home: dir, Stdlib: []engine.Pack{{Name: "deny-destructive", With: map[string]any{"exempt": []any{"^rm -rf ~$"}}}}}))
	require.NoError(t, err)
	defer e2.Close()
	res, err = e2.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "Bash", ToolInput: map[string]any{"command": "rm -rf ~"}})
	require.NoError(t, err)
	assert.Equal(t, events.Proceed, res.Decision, "the Files.Stdlib entry and its parameters are in force")
	assert.Len(t, res.Audit, 1, "one copy of the pack")

	_, err = engine.New(t.Context(), engine.WithStdlib("default", "nope"), engine.WithFiles(engine.Files{Root: dir, Home: dir}))
	assertCodes(t, err, engine.CodeBadAtom)
	assert.ErrorContains(t, err, `unknown stdlib pack "nope"`)
}

func assertCodes(t *testing.T, err error, codes ...string) {
	t.Helper()
	var ce engine.ConfigErrors
	require.True(t, errors.As(err, &ce), "err = %v", err)
	var got []string
	for _, e := range ce {
		got = append(got, e.Code)
	}
	assert.Equal(t, codes, got, "%v", err)
}

// TestStdlibNeedsAreMet: a pack whose home or root rules would silently
// weaken refuses to load, naming the option to set.
func TestStdlibNeedsAreMet(t *testing.T) {
	dir := t.TempDir()
	_, err := engine.New(t.Context(), engine.WithStdlib("default"))
	assertCodes(t, err, engine.CodeUnmetNeed, engine.CodeUnmetNeed)
	assert.ErrorContains(t, err, "protect-paths needs the home directory for its ~ and $HOME rules: set Files.Home")
	assert.ErrorContains(t, err, "protect-paths needs the project root for calls without a cwd: set Files.Root")

	_, err = engine.New(t.Context(), engine.WithFiles(engine.Files{Root: dir, Stdlib: []engine.Pack{{Name: "protect-paths"}}}))
	assertCodes(t, err, engine.CodeUnmetNeed)
	assert.ErrorContains(t, err, "Files.Home")

	cfg := filepath.Join(dir, "agents.json")
	writeConfig(t, cfg, `{"atoms": [{"stdlib": "protect-paths"}]}`)
	_, err = engine.New(t.Context(), engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir}))
	assertCodes(t, err, engine.CodeUnmetNeed)
	assert.ErrorContains(t, err, cfg+":1:")

	// Packs without needs load without them.
	e, err := engine.New(t.Context(), testLuaPool, engine.WithStdlib("deny-destructive", "redact-secrets"))
	require.NoError(t, err)
	e.Close()
}

// TestProtectPathsUsesTheRootForCallsWithoutCwd: with Files.Root, a write
// outside the project is caught even when the input carries no cwd.
func TestProtectPathsUsesTheRootForCallsWithoutCwd(t *testing.T) {
	dir := t.TempDir()
	e, err := engine.New(t.Context(), testLuaPool, engine.WithStdlib("protect-paths"), engine.WithFiles(engine.Files{Root: dir, Home: "/home/agent"}))
	require.NoError(t, err)
	defer e.Close()
	for path, want := range map[string]events.Decision{
		"/opt/elsewhere/x.txt":            events.Deny,
		filepath.Join(dir, "src", "a.go"): events.Proceed,
		"src/a.go":                        events.Proceed,
	} {
		res, err := e.Dispatch(context.Background(), events.Input{Event: events.BeforeTool, ToolName: "write",
			ToolInput: map[string]any{"file_path": path, "content": "x"}})
		require.NoError(t, err)
		assert.Equal(t, want, res.Decision, "%s: %s", path, res.Reason)
	}
}

// An engine with the default guard set, the one the monad-hooks CLI runs.
func ExampleWithStdlib() {
	ctx := context.Background()
	eng, err := engine.New(ctx, testLuaPool,
		engine.WithStdlib("default"),
		engine.WithFiles(engine.Files{Root: "/work/project", Home: "/home/me"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	res, _ := eng.Dispatch(ctx, events.Input{Event: events.BeforeTool, ToolName: "Read",
		ToolInput: map[string]any{"file_path": "/home/me/.ssh/id_ed25519"}})
	fmt.Println(res.Decision)
	// Output: deny
}

// TestWithStdlibPackReplacedByAtoms: a pack of WithStdlib that a user file
// names in its atoms is replaced by the user's, in its place, with the
// user's parameters: one copy per plan, registered by the user file.
func TestWithStdlibPackReplacedByAtoms(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agents.json")
	writeConfig(t, cfg, `{"atoms":[{"stdlib":"deny-destructive","with":{"protectedBranches":["staging"]}}]}`)
	e, err := engine.New(t.Context(), testLuaPool, engine.WithStdlib("deny-destructive"), engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir, Home: dir}))
	require.NoError(t, err)
	defer e.Close()
	by := map[string]int{}
	for _, h := range e.Plan(t.Context()) {
		by[h.RegisteredBy]++
	}
	assert.Equal(t, []string{cfg + ":1:11"}, slices.Collect(maps.Keys(by)), "every hook of the one copy is the user's")

	push := func(branch string) engine.Result {
		res, err := e.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "Bash",
			ToolInput: map[string]any{"command": "git push -f origin " + branch}})
		require.NoError(t, err)
		return res
	}
	assert.Equal(t, events.Proceed, push("main").Decision, "the default parameters are not in force")
	res := push("staging")
	assert.Equal(t, events.Deny, res.Decision)
	assert.Len(t, res.Audit, 1, "one copy of the pack ran")
}
