package hostkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/engine/hostkit"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/tools"
)

// fakeResult is the fake agent's result type: not the seed's shape, with
// metadata nested in maps and lists, and an unexported field that only
// survives when the value is handed back untouched.
type fakeResult struct {
	Content  string         `json:"content"`
	Metadata map[string]any `json:"metadata"`
	ran      int
}

// fakeAgent is an agent with its own tool names (run, cat, save) wired
// exactly as the package Example wires its agent.
type fakeAgent struct {
	guard *hostkit.Guard
	ran   []string // the tools that actually ran
}

func newFakeAgent(t *testing.T, opts ...engine.Option) (*fakeAgent, *engine.Engine) {
	t.Helper()
	dir := t.TempDir()
	// The packs' timeout is far above any call's cost: the engine's
	// default (1 s) is not for a pack under -race on a loaded machine.
	eng, err := engine.New(t.Context(), append([]engine.Option{engine.WithStdlib("default"), engine.WithLuaPool(0, luaapi.MaxTimeout),
		engine.WithFiles(engine.Files{Root: dir, Home: "/home/agent"}),
		engine.WithTools(
			tools.Spec{Name: "run", Kind: events.ToolShell, Command: []string{"argv"}},
			tools.Spec{Name: "cat", Kind: events.ToolRead, Paths: []string{"file"}},
			tools.Spec{Name: "save", Kind: events.ToolWrite, Paths: []string{"dest"}, Contents: []string{"text"}})}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	return &fakeAgent{guard: hostkit.New(eng)}, eng
}

func (a *fakeAgent) tool(name string, input json.RawMessage) fakeResult {
	a.ran = append(a.ran, name)
	return fakeResult{Content: "output of " + name + ": " + fakeKey,
		Metadata: map[string]any{"exit": 0, "env": []any{map[string]any{"name": "AWS_ACCESS_KEY_ID", "value": fakeKey}}}, ran: 1}
}

func (a *fakeAgent) call(ctx context.Context, c hostkit.Call) fakeResult {
	v, _ := a.guard.Before(ctx, c)
	if v.Blocked(false) {
		return fakeResult{Content: "blocked: " + v.Reason}
	}
	out, _ := a.guard.After(ctx, c, a.tool(c.Tool, v.Input))
	res, _ := out.(fakeResult)
	return res
}

// TestFakeAgent: issue 20's proof, with an agent whose tool names and
// result type are not the seed's.
func TestFakeAgent(t *testing.T) {
	var mu sync.Mutex
	var audit []engine.Record
	a, _ := newFakeAgent(t, engine.WithRecorder(engine.RecorderFunc(func(_ context.Context, r engine.Record) {
		mu.Lock()
		audit = append(audit, r)
		mu.Unlock()
	})))
	ctx := t.Context()
	call := func(id, tool, input string) fakeResult {
		return a.call(ctx, hostkit.Call{SessionID: "s", Cwd: "/work/p", Tool: tool, Input: json.RawMessage(input), ID: id})
	}

	// rm -rf ~ is denied before the tool runs, also as an argv.
	r := call("1", "run", `{"argv":["bash","-lc","rm -rf ~"]}`)
	assert.True(t, strings.HasPrefix(r.Content, "blocked: deny-destructive"), r.Content)
	r = call("2", "run", `{"argv":["rm","-rf","~/"]}`)
	assert.True(t, strings.HasPrefix(r.Content, "blocked: deny-destructive"), r.Content)
	// A write to ~/.ssh/id_rsa and a read of it are denied.
	r = call("3", "save", `{"dest":"~/.ssh/id_rsa","text":"ssh-rsa x"}`)
	assert.True(t, strings.HasPrefix(r.Content, "blocked: protect-paths"), r.Content)
	r = call("4", "cat", `{"file":"/home/agent/.ssh/id_rsa"}`)
	assert.True(t, strings.HasPrefix(r.Content, "blocked: protect-paths"), r.Content)
	assert.Empty(t, a.ran, "no blocked tool ran")

	// A fake cloud key is redacted from the content and the metadata.
	r = call("5", "run", `{"argv":["env"]}`)
	assert.Equal(t, "output of run: [REDACTED:aws-access-key-id]", r.Content)
	b, err := json.Marshal(r.Metadata)
	require.NoError(t, err)
	assert.NotContains(t, string(b), fakeKey)
	assert.JSONEq(t, `{"exit":0,"env":[{"name":"AWS_ACCESS_KEY_ID","value":"[REDACTED:aws-access-key-id]"}]}`, string(b))
	assert.Zero(t, r.ran, "a rewritten output is a new value")

	// ls is untouched: it runs, and its output comes back as it was.
	a.ran = nil
	lsOut := fakeResult{Content: "a.go b.go", Metadata: map[string]any{"exit": 0}, ran: 7}
	c := hostkit.Call{SessionID: "s", Tool: "run", Input: json.RawMessage(`{"argv":["ls"]}`), ID: "6"}
	v, err := a.guard.Before(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, events.Proceed, v.Decision)
	assert.Equal(t, c.Input, v.Input)
	assert.False(t, v.Result.UnguardedTool)
	out, err := a.guard.After(ctx, c, lsOut)
	require.NoError(t, err)
	assert.Equal(t, lsOut, out)

	// The records of one call carry its id, at both events.
	var ids []string
	for _, rec := range audit {
		if rec.ToolCallID == "6" {
			ids = append(ids, rec.Event.String())
		}
	}
	assert.Contains(t, ids, "BeforeTool")
	assert.Contains(t, ids, "AfterTool")

	// A tool the agent did not declare is reported.
	v, err = a.guard.Before(ctx, hostkit.Call{Tool: "mystery", Input: json.RawMessage(`{}`)})
	require.NoError(t, err)
	assert.True(t, v.Result.UnguardedTool)
}

func TestRewritesAndApproval(t *testing.T) {
	a, _ := newFakeAgent(t,
		engine.WithHook(engine.GoHook{Name: "force", Event: events.BeforeTool, Kinds: []events.ToolKind{events.ToolShell},
			Handler: engine.HandlerFunc(func(_ context.Context, in *events.Input) (events.Output, error) {
				return events.Output{MutatedToolInput: map[string]any{"argv": []any{"ls", "-la"}, "n": json.Number("12345678901234567890")}, AdditionalContext: "listed"}, nil
			})}),
		engine.WithHook(engine.GoHook{Name: "gate", Event: events.ApprovalRequest, Kinds: []events.ToolKind{events.ToolRead},
			Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) {
				return events.Output{Decision: events.Allow}, nil
			})}),
		engine.WithHook(engine.GoHook{Name: "failure", Event: events.AfterTool,
			Handler: engine.HandlerFunc(func(_ context.Context, in *events.Input) (events.Output, error) {
				return events.Output{UpdatedToolOutput: map[string]any{"content": "failed: " + in.Error, "metadata": map[string]any{"ok": *in.OK}}}, nil
			})}))
	ctx := t.Context()
	v, err := a.guard.Before(ctx, hostkit.Call{Tool: "run", Input: json.RawMessage(`{"argv":["ls"]}`)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"argv":["ls","-la"],"n":12345678901234567890}`, string(v.Input))
	assert.Equal(t, "listed", v.Context)

	v, err = a.guard.Approve(ctx, hostkit.Call{Tool: "cat", Input: json.RawMessage(`{"file":"a.go"}`)})
	require.NoError(t, err)
	assert.Equal(t, events.Allow, v.Decision)

	out, err := a.guard.After(ctx, hostkit.Call{Tool: "run", Err: errors.New("exit 1")}, &fakeResult{Content: "x"})
	require.NoError(t, err)
	assert.Equal(t, &fakeResult{Content: "failed: exit 1", Metadata: map[string]any{"ok": false}}, out)
}

// TestFailurePolicy: a dispatch error blocks the call and withholds the
// output, unless the Guard fails open.
func TestFailurePolicy(t *testing.T) {
	_, eng := newFakeAgent(t)
	closed := hostkit.New(eng)
	open := hostkit.New(eng, hostkit.FailOpen())
	c := hostkit.Call{Tool: "run", Input: json.RawMessage(`{"argv":["ls"]}`)}
	bad := hostkit.Call{Tool: "run", Input: json.RawMessage(`{"argv":`)}

	v, err := closed.Before(t.Context(), bad)
	assert.Error(t, err)
	assert.True(t, v.Blocked(true), "an input that is not JSON is blocked")
	assert.Contains(t, v.Reason, "could not check this call")

	require.NoError(t, eng.Close())
	v, err = closed.Before(t.Context(), c)
	assert.ErrorIs(t, err, engine.ErrClosed)
	assert.Equal(t, events.Deny, v.Decision)
	v, err = closed.Approve(t.Context(), c)
	assert.ErrorIs(t, err, engine.ErrClosed)
	assert.Equal(t, events.Deny, v.Decision)
	out, err := closed.After(t.Context(), c, fakeResult{Content: "secret"})
	assert.ErrorIs(t, err, engine.ErrClosed)
	assert.Nil(t, out, "the output is withheld")

	v, err = open.Before(t.Context(), c)
	assert.ErrorIs(t, err, engine.ErrClosed)
	assert.Equal(t, events.Proceed, v.Decision)
	assert.Equal(t, c.Input, v.Input)
	out, err = open.After(t.Context(), c, fakeResult{Content: "x"})
	assert.ErrorIs(t, err, engine.ErrClosed)
	assert.Equal(t, fakeResult{Content: "x"}, out)
}

func TestVerdictBlocked(t *testing.T) {
	for d, want := range map[events.Decision][2]bool{
		events.Deny: {true, true}, events.Ask: {true, false}, events.Allow: {false, false}, events.Proceed: {false, false},
	} {
		v := hostkit.Verdict{Decision: d}
		assert.Equal(t, want[0], v.Blocked(false), "%s without a prompt", d)
		assert.Equal(t, want[1], v.Blocked(true), "%s with a prompt", d)
	}
}
