package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/monad-hooks/monad-hooks/engine"
)

// recorders fans each audit Record out to several engine.Recorders, in
// order.
type recorders []engine.Recorder

// Record passes r to each recorder.
func (rs recorders) Record(ctx context.Context, r engine.Record) {
	for _, x := range rs {
		x.Record(ctx, r)
	}
}

// beforeHooks is an engine.DispatchRecorder that calls itself as a dispatch
// is about to run hooks (see engine.DispatchRecorder: a dispatch that runs
// none does not call it) and records nothing.
type beforeHooks func()

func (f beforeHooks) Record(context.Context, engine.Record) {}

func (f beforeHooks) StartDispatch(ctx context.Context, _ engine.DispatchInfo) context.Context {
	f()
	return ctx
}

func (f beforeHooks) EndDispatch(context.Context, engine.Result) {}

// maxFailureLine bounds the cause printed for one failed hook.
const maxFailureLine = 1024

// failureLog is the engine.Recorder of run and serve that prints one line on
// stderr for every hook that failed (an error, a panic, a timeout, an
// invalid output such as decision = "block"), naming the hook, the event,
// what its failure meant and the cause: a failure is otherwise visible
// only in the audit. It is safe for concurrent use: a line is one write.
type failureLog struct {
	name string // the command, for the "monad-hooks CMD:" prefix
	mu   sync.Mutex
	w    io.Writer
}

// Record prints r when its hook failed, and the engine's record of a tool
// no table knows (no guard knows what it does: with --host the Result that
// says unguardedTool is not shown).
func (f *failureLog) Record(_ context.Context, r engine.Record) {
	if r.Tier == engine.TierEngine && r.Hook == "unguardedTool" {
		f.write(fmt.Sprintf("monad-hooks %s: %s: %s\n", f.name, r.Event, r.Reason))
		return
	}
	if r.Outcome == engine.OutcomeOK || r.Kind == "config" {
		// A configuration that failed to load is reported when it
		// loads, not at every dispatch.
		return
	}
	what := "failed"
	if r.Outcome == engine.OutcomeTimeout {
		what = "timed out"
	}
	meant := "skipped"
	if r.FailedClosed {
		meant = "onError: deny"
	}
	cause, _, cut := strings.Cut(r.Error, "\n")
	if cut || len(cause) > maxFailureLine {
		cause = strings.ToValidUTF8(cause[:min(len(cause), maxFailureLine)], "") + " …"
	}
	f.write(fmt.Sprintf("monad-hooks %s: hook %s %s at %s (%s): %s\n", f.name, r.Hook, what, r.Event, meant, cause))
}

func (f *failureLog) write(line string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	io.WriteString(f.w, line)
}
