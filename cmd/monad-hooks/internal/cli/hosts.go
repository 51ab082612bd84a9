package cli

import (
	"bytes"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/engine/hosts"
	"github.com/monad-hooks/monad-hooks/events"
)

// hostOptions are the engine options of a --host: a host whose SessionStart
// hook hands context to the model gets it at SessionStart.
func hostOptions(h *hosts.Host, extra ...engine.Option) []engine.Option {
	if h.ContextAtStart {
		extra = append(extra, engine.WithSessionContextAtStart())
	}
	return extra
}

// hostSeed is the session state a host payload vouches for: at AfterTurn,
// the host's own count of continuations so far (Claude Code's
// stop_hook_active, Cursor's loop_count), so that the bound holds across
// one-shot runs even without --state, or with a state that lost count.
func hostSeed(in events.Input) map[string]engine.SessionState {
	if in.Event != events.AfterTurn || in.StopContinues <= 0 {
		return nil
	}
	return map[string]engine.SessionState{in.SessionID: {StopContinues: in.StopContinues}}
}

// mergeSeed adds seed to st: a session's continuation count is the larger
// of the two.
func mergeSeed(st, seed map[string]engine.SessionState) map[string]engine.SessionState {
	if len(seed) == 0 {
		return st
	}
	if st == nil {
		st = map[string]engine.SessionState{}
	}
	for id, s := range seed {
		cur := st[id]
		cur.StopContinues = max(cur.StopContinues, s.StopContinues)
		st[id] = cur
	}
	return st
}

// resultLine is a Result as one line of JSON.
func resultLine(res engine.Result) []byte {
	var b bytes.Buffer
	if err := writeJSONLine(&b, res); err != nil {
		return []byte(`{"error":"cannot encode the result"}` + "\n")
	}
	return b.Bytes()
}
