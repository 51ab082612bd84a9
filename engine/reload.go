package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Hot reload. Dispatch checks cheaply whether the files changed (a stat per
// file, or nothing within WithReloadInterval); when they did, it starts a
// load in the background, at most one at a time, and goes on with the plan
// in force. The load runs on the engine's own context, bounded by
// WithReloadTimeout, never on the context of the dispatch that noticed the
// change: a caller that hangs up cannot cancel it. A new plan is swapped in
// atomically when it is complete; a configuration that fails to load never
// replaces the plan in force. Reload, Plan and Explain wait for the load.

// DefaultReloadTimeout bounds one load of the configuration after New (see
// [WithReloadTimeout]).
const DefaultReloadTimeout = time.Minute

// WithReloadTimeout bounds each load of the configuration after New: reading
// the files and compiling the scripts. A load that takes longer fails, keeps
// the plan in force and is tried again at the next dispatch. The default is
// [DefaultReloadTimeout]; d <= 0 means the default.
func WithReloadTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.reloadTimeout = d
		}
	}
}

// loadState is what the last finished load found. It is immutable.
type loadState struct {
	// version fingerprints the files the last load read, good or not.
	version *fileVersion
	// retry: the last load failed for a reason other than the files'
	// content (an I/O error, a file that kept changing while it was read,
	// the load's bound): load again without waiting for a change.
	retry bool
	// err is why the configuration on disk is not in force (nil when it
	// is): ConfigErrors, or the transient failure; msg is its text for
	// Result.ConfigError.
	err error
	msg string
}

// flight is one load in progress; done is closed when it has finished and
// its outcome is in Engine.state.
type flight struct{ done chan struct{} }

// stale reports whether the files may differ from the plan in force: they
// changed since the last load, or it must be retried. It is called on the
// dispatch path and is cheap (see fileSource.unchanged).
func (e *Engine) stale(st *loadState) bool {
	return st.retry || !e.src.unchanged(st.version)
}

// refresh starts a load in the background when the files may have changed
// and none is running. It never waits.
func (e *Engine) refresh() {
	if e.flight.Load() == nil && e.stale(e.state.Load()) {
		e.startLoad()
	}
}

// startLoad returns the load in progress, starting one if there is none.
func (e *Engine) startLoad() *flight {
	f := &flight{done: make(chan struct{})}
	if !e.flight.CompareAndSwap(nil, f) {
		if cur := e.flight.Load(); cur != nil {
			return cur
		}
		return e.startLoad() // it just finished: start another
	}
	e.loads.Add(1)
	go e.load(f)
	return f
}

// load runs one load: it reads and compiles the configuration and, if it
// loads, swaps the new plan in and releases the old one.
func (e *Engine) load(f *flight) {
	defer e.loads.Done()
	defer close(f.done)
	defer e.flight.Store(nil)
	ctx, cancel := context.WithTimeout(e.life, e.opts.reloadTimeout)
	defer cancel()
	prev := e.gen.Load()
	g, ld, err := e.build(ctx, prev, false)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
		g.res.release()
	}
	st := &loadState{version: ld.version}
	if err != nil {
		st.err = err
		var ce ConfigErrors
		if !errors.As(err, &ce) || ctx.Err() != nil {
			// Not the files' content: try again at the next dispatch.
			st.retry = true
			if ctx.Err() != nil {
				st.err = fmt.Errorf("configuration load: %w", context.Cause(ctx))
			}
		}
		st.msg = fmt.Sprintf("configuration reload failed, the last good configuration stays in force: %v", st.err)
		e.opts.logger.Error("monad-hooks: configuration reload failed; keeping the last good configuration", "error", st.err, "retry", st.retry)
		e.reloadFailures.Add(1)
		e.state.Store(st)
		return
	}
	e.swapMu.Lock()
	defer e.swapMu.Unlock()
	if e.closed.Load() {
		g.res.release()
		return
	}
	if len(g.warnings) > 0 {
		e.opts.logger.Warn("monad-hooks: the reloaded configuration has warnings", "warnings", g.warnings.Error())
	}
	g.number = prev.number + 1
	e.gen.Store(g)
	e.state.Store(st)
	e.reloads.Add(1)
	prev.res.release()
	past := prev.res.luaStats() // after the release: its discards count
	e.luaMu.Lock()
	e.luaPast.add(past)
	e.luaMu.Unlock()
	e.src.residents.keep(g)
}

// sync waits until the plan in force reflects the files as they are now, or
// the last load of them failed: it starts a load when they may have changed
// and waits for it (and for one already running). It returns the failure of
// the last load, or ctx's error.
func (e *Engine) sync(ctx context.Context) error {
	if e.src == nil {
		return nil
	}
	for {
		f := e.flight.Load()
		st := e.state.Load()
		if f == nil {
			if !e.stale(st) || e.closed.Load() {
				return st.err
			}
			f = e.startLoad()
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if st := e.state.Load(); st.err != nil && !st.retry {
			if e.src.unchanged(st.version) {
				return st.err
			}
		} else if st.retry {
			return st.err
		}
	}
}

// Reload makes the plan in force reflect the configuration files as they are
// now: when they changed since the last load (or the last load failed for a
// reason other than their content), it loads them and waits for the load,
// as a dispatch would start it in the background. It returns nil when the
// plan in force is the files' current content; the [ConfigErrors] of the
// files when they failed to load (the last good plan stays in force); the
// transient failure of the load (tried again by the next dispatch or
// Reload); ctx's error when ctx ended first (the load goes on); or
// [ErrClosed] after Close.
func (e *Engine) Reload(ctx context.Context) error {
	if e.closed.Load() {
		return ErrClosed
	}
	return e.sync(ctx)
}

// Close releases the plan's resources (pooled Lua VMs) after canceling and
// waiting for a load in progress. Dispatches in flight finish on the plan
// they started with; later dispatches return [ErrClosed]. Close is safe to
// call more than once.
func (e *Engine) Close() error {
	if e.closed.Swap(true) {
		return nil
	}
	e.stop()
	e.loads.Wait()
	e.swapMu.Lock()
	defer e.swapMu.Unlock()
	e.gen.Load().res.release()
	if e.src != nil {
		e.src.residents.closeAll()
	}
	return nil
}
