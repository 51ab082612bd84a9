package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// barrierHook returns out once n calls have arrived, so that n dispatches
// reach the session rules together.
func barrierHook(ev events.Event, n int, out events.Output) engine.GoHook {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	return engine.GoHook{Name: "barrier", Event: ev, Handler: engine.HandlerFunc(func(ctx context.Context, _ *events.Input) (events.Output, error) {
		mu.Lock()
		arrived++
		if arrived == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-ctx.Done():
		}
		return out, nil
	})}
}

// TestSessionStateIsUpdatedAtomically: concurrent dispatches of one session
// inject the SessionStart stash exactly once and never lose a continuation
// count (issue 11.13).
func TestSessionStateIsUpdatedAtomically(t *testing.T) {
	const n = 32
	eng, err := engine.New(t.Context(),
		engine.WithMaxStopContinues(1000),
		engine.WithHook(engine.GoHook{Name: "start", Event: events.SessionStart, Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) {
			return events.Output{AdditionalContext: "stashed"}, nil
		})}),
		engine.WithHook(barrierHook(events.BeforeTurn, n, events.Output{})),
		engine.WithHook(barrierHook(events.AfterTurn, n, events.Output{ContinueWork: &events.ContinueWork{Reason: "more"}})))
	require.NoError(t, err)
	defer eng.Close()
	_, err = eng.Dispatch(t.Context(), events.Input{Event: events.SessionStart, SessionID: "s"})
	require.NoError(t, err)

	var wg sync.WaitGroup
	results := make([]engine.Result, n)
	for i := range n {
		wg.Go(func() {
			results[i], _ = eng.Dispatch(context.Background(), events.Input{Event: events.BeforeTurn, SessionID: "s", Prompt: "p"})
		})
	}
	wg.Wait()
	injected := 0
	for _, r := range results {
		injected += strings.Count(r.AdditionalContext, "stashed")
	}
	assert.Equal(t, 1, injected, "the stash is injected exactly once")

	for i := range n {
		wg.Go(func() {
			results[i], _ = eng.Dispatch(context.Background(), events.Input{Event: events.AfterTurn, SessionID: "s", Reason: "completed"})
		})
	}
	wg.Wait()
	for _, r := range results {
		require.NotNil(t, r.ContinueWork)
	}
	assert.Equal(t, n, eng.SessionState()["s"].StopContinues, "no continuation is lost")
}

// TestRecordCarriesSessionID: every audit record names its session (issue
// 11.13).
func TestRecordCarriesSessionID(t *testing.T) {
	var got []string
	var mu sync.Mutex
	eng, err := engine.New(t.Context(),
		engine.WithHook(engine.GoHook{Name: "h", Event: events.BeforeTool, Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) {
			return events.Output{}, nil
		})}),
		engine.WithRecorder(engine.RecorderFunc(func(_ context.Context, r engine.Record) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, r.SessionID)
		})))
	require.NoError(t, err)
	defer eng.Close()
	res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash", SessionID: "s-42"})
	require.NoError(t, err)
	require.Len(t, res.Audit, 1)
	assert.Equal(t, "s-42", res.Audit[0].SessionID)
	assert.Equal(t, []string{"s-42"}, got)
}

// TestSessionContextAtStart: a host that takes SessionStart's context itself
// gets it in the SessionStart Result, and the first BeforeTurn does not get
// it a second time; without the option it is stashed for that BeforeTurn.
func TestSessionContextAtStart(t *testing.T) {
	start := engine.WithHook(engine.GoHook{Name: "start", Event: events.SessionStart, Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) {
		return events.Output{AdditionalContext: "branch: main"}, nil
	})})
	for _, atStart := range []bool{true, false} {
		opts := []engine.Option{start}
		if atStart {
			opts = append(opts, engine.WithSessionContextAtStart())
		}
		eng, err := engine.New(t.Context(), opts...)
		require.NoError(t, err)
		res, err := eng.Dispatch(t.Context(), events.Input{Event: events.SessionStart, SessionID: "s"})
		require.NoError(t, err)
		turn, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTurn, SessionID: "s", Prompt: "p"})
		require.NoError(t, err)
		if atStart {
			assert.Equal(t, "branch: main", res.AdditionalContext)
			assert.Empty(t, turn.AdditionalContext, "not injected twice")
			assert.Empty(t, eng.SessionState(), "nothing stashed")
		} else {
			assert.Empty(t, res.AdditionalContext)
			assert.Equal(t, "branch: main", turn.AdditionalContext)
		}
		eng.Close()
	}
}

// TestResultOutput: a Result as a HookOutput carries its decision, context
// and every honoured rewrite.
func TestResultOutput(t *testing.T) {
	p, txt := "p2", "t2"
	res := engine.Result{Event: events.BeforeTool, Decision: events.Ask, Reason: "r", AdditionalContext: "c",
		MutatedPrompt: &p, ModelOverride: "m", MutatedToolInput: map[string]any{"a": 1}, UpdatedToolOutput: "o",
		MutatedRequest: []any{1}, MutatedText: &txt, ContinueWork: &events.ContinueWork{Reason: "w"}, ConfigError: "x"}
	assert.Equal(t, events.Output{Decision: events.Ask, Reason: "r", AdditionalContext: "c", MutatedPrompt: &p, ModelOverride: "m",
		MutatedToolInput: map[string]any{"a": 1}, UpdatedToolOutput: "o", MutatedRequest: []any{1}, MutatedText: &txt,
		ContinueWork: &events.ContinueWork{Reason: "w"}}, res.Output())
}
