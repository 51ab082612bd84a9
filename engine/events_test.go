package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

// testLuaTimeout is the timeout of the test engines' Lua hooks and stdlib
// packs that set no timeoutMs: far above any call's cost, since the
// engine's default (1 s) is not for a pack under -race on a loaded
// machine (the stdlib tests timed out at it).
const testLuaTimeout = luaapi.MaxTimeout

// testLuaPool is the option of every test engine whose Lua hooks or stdlib
// packs run: the default pool, with testLuaTimeout for the hooks that set
// no timeoutMs. A test whose point is a timeout sets a small timeoutMs on
// the hook that must time out, never on the engine.
var testLuaPool = engine.WithLuaPool(0, testLuaTimeout)

// allPacksEngine builds an engine with every stdlib pack.
func allPacksEngine(t *testing.T, opts ...engine.Option) *engine.Engine {
	t.Helper()
	e, err := engine.New(context.Background(), append([]engine.Option{
		engine.WithStdlib(stdlib.Names()...),
		engine.WithFiles(engine.Files{Root: t.TempDir(), Home: "/home/agent"}),
		testLuaPool,
	}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	return e
}

// TestWithEventsKeepsWhatCanFire: an engine restricted to one event has
// exactly the hooks of that event an unrestricted engine has, in the same
// order: a stdlib pack it leaves out (one whose header does not list the
// event) has no hook that could fire there. And it leaves such packs out.
func TestWithEventsKeepsWhatCanFire(t *testing.T) {
	all := allPacksEngine(t)
	want := map[events.Event][]string{}
	for _, h := range all.Plan(t.Context()) {
		want[h.Event] = append(want[h.Event], h.ID)
	}
	for _, ev := range events.All() {
		e := allPacksEngine(t, engine.WithEvents(ev))
		var got []string
		loaded := map[string]bool{}
		for _, h := range e.Plan(t.Context()) {
			if h.Event == ev {
				got = append(got, h.ID)
			}
		}
		for _, p := range packsOf(t, e) {
			loaded[p] = true
		}
		require.Equal(t, want[ev], got, "%s: the hooks that fire", ev)
		for _, p := range stdlib.Packs() {
			lists := false
			for _, pe := range p.Events {
				lists = lists || pe == ev.String()
			}
			require.Equal(t, lists, loaded[p.Name], "%s: pack %s loaded", ev, p.Name)
		}
	}
}

// TestWithEventsRefusesOtherEvents: a dispatch of an event the engine was
// not built for is an error, not a dispatch without guards.
func TestWithEventsRefusesOtherEvents(t *testing.T) {
	e := allPacksEngine(t, engine.WithEvents(events.BeforeTool), engine.WithLuaPoolOnDemand())
	_, err := e.Dispatch(t.Context(), events.Input{Event: events.AfterTool, ToolName: "bash", ToolResult: "AKIAIOSFODNN7EXAMPLE"})
	require.ErrorIs(t, err, engine.ErrInvalidInput)
	res, err := e.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "rm -rf /"}})
	require.NoError(t, err)
	require.Equal(t, events.Deny, res.Decision)
}

// TestWithEventsValidatesLeftOutPacks: the parameters of a pack left out
// are checked all the same.
func TestWithEventsValidatesLeftOutPacks(t *testing.T) {
	_, err := engine.New(context.Background(), engine.WithEvents(events.BeforeTool), engine.WithFiles(engine.Files{
		Root: t.TempDir(), Home: "/home/agent",
		Stdlib: []engine.Pack{{Name: "redact-secrets", With: map[string]any{"no-such-param": true}}},
	}))
	var ce engine.ConfigErrors
	require.ErrorAs(t, err, &ce)
	require.Equal(t, engine.CodeBadAtom, ce[0].Code)
}

// TestOneShotBuildsOneVM: an engine built the way monad-hooks run builds it
// (WithEvents, WithLuaPoolOnDemand) builds one Lua VM for its dispatch,
// not a pool (BenchmarkCLIRun).
func TestOneShotBuildsOneVM(t *testing.T) {
	e := allPacksEngine(t, engine.WithEvents(events.BeforeTool), engine.WithLuaPoolOnDemand())
	for range 3 {
		_, err := e.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "ls"}})
		require.NoError(t, err)
	}
	s := e.Stats()
	require.Equal(t, int64(1), s.LuaTotal.Created, "VMs built")
	require.Positive(t, s.LuaTotal.Calls)
}
