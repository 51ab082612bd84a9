package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
)

// An Engine dispatches lifecycle events to hooks. It compiles its
// configuration into an immutable plan and dispatches against it; a changed
// configuration is compiled into a new plan that replaces the old one
// atomically (see [Engine.Dispatch] for when that is checked).
//
// An Engine is safe for concurrent use. Its zero value is not usable: build
// one with [New].
type Engine struct {
	opts     options
	src      *fileSource // nil: only the Go hooks of the options
	gen      atomic.Pointer[generation]
	sessions sessions
	closed   atomic.Bool

	monoBase  time.Time                   // anchors monotonic latency readings (see runHook)
	reloadMu  sync.Mutex                  // serialises reloads; never held by the dispatch fast path
	attempted atomic.Pointer[versionBox]  // the configuration version last loaded, good or not
	cfgErr    atomic.Pointer[loadFailure] // the last load's failure; nil when it succeeded
}

// loadFailure is why the last load failed: its error for Reload, its text
// for Result.ConfigError.
type loadFailure struct {
	err error
	msg string
}

// generation is one compiled plan and the resources it owns.
type generation struct {
	// byEvent lists every hook of each event in plan order, duplicate
	// command specs included.
	byEvent [events.Count][]*hook
	// groups counts the dedup groups of each event (see hook.group).
	groups [events.Count]int
	// always lists, for the events that are not tool-scoped, the hooks
	// that run at every dispatch: byEvent without duplicates.
	always [events.Count][]*hook
	cache  [events.Count]matchCache // tool-scoped events: the hooks that run per tool name
	res    resources
	// warnings are the problems of the configuration that did not stop it
	// from loading (CodeMatcherIgnored).
	warnings ConfigErrors
}

// resources are what a generation's hooks hold; they are released when the
// generation is replaced or the engine closes.
type resources struct {
	lua *luaapi.Pool // nil without Lua hooks
}

func (r resources) release() {
	if r.lua != nil {
		r.lua.Close()
	}
}

// New builds an Engine from opts and compiles its first plan. ctx bounds the
// initial load only. A configuration problem is returned as an error (a
// *ConfigError or [ConfigErrors] listing every problem found); nothing is
// dispatched from a configuration that failed to load.
func New(ctx context.Context, opts ...Option) (*Engine, error) {
	e := &Engine{opts: defaultOptions(), monoBase: time.Now()}
	for _, o := range opts {
		o(&e.opts)
	}
	e.sessions.init(e.opts.maxSessions, e.opts.sessions)
	if e.opts.files != nil {
		e.src = &fileSource{f: *e.opts.files, opts: &e.opts}
	}
	g, ver, err := e.build(ctx)
	if err != nil {
		return nil, err
	}
	e.gen.Store(g)
	e.attempted.Store(&versionBox{ver})
	return e, nil
}

// build loads the configuration and compiles a plan from it. version is the
// source's fingerprint of what it read, also when that failed to load.
func (e *Engine) build(ctx context.Context) (g *generation, version *fileVersion, err error) {
	specs := make([]hookSpec, 0, len(e.opts.hooks))
	var errs ConfigErrors
	for i, h := range e.opts.hooks {
		if !h.Event.Valid() {
			errs = append(errs, &ConfigError{Code: CodeUnknownEvent, Msg: fmt.Sprintf("WithHook #%d (%s): invalid event %v", i, h.Name, h.Event)})
			continue
		}
		if h.Handler == nil {
			errs = append(errs, &ConfigError{Code: CodeMissingHandler, Msg: fmt.Sprintf("WithHook #%d (%s): missing handler", i, h.Name)})
			continue
		}
		specs = append(specs, hookSpec{
			tier: TierAtom, kind: "go", id: "go:" + h.Name, registeredBy: "WithHook #" + strconv.Itoa(i), event: h.Event,
			matcher: h.Matcher, onError: h.OnError, timeout: h.Timeout,
			run: goRun(h.Handler),
		})
	}
	var ld loaded
	if e.src != nil {
		ld = e.src.load(ctx)
		version = ld.version
		errs = append(errs, ld.errs...)
		specs = append(specs, ld.specs...)
	}
	g, cerrs := compile(specs)
	errs = append(errs, cerrs...)
	if len(errs) > 0 {
		ld.res.release()
		return nil, version, errs
	}
	g.res, g.warnings = ld.res, ld.warnings
	return g, version, nil
}

// Warnings returns the warnings of the configuration in force: problems that
// did not stop it from loading, such as a matcher on an event that is not
// tool-scoped (CodeMatcherIgnored), in file order. A reload that compiles a
// plan with warnings also logs them (at New, the caller reads them here).
// The caller owns the slice.
func (e *Engine) Warnings() ConfigErrors {
	return slices.Clone(e.gen.Load().warnings)
}

// current returns the plan to dispatch against, reloading first when the
// configuration changed. A failed reload keeps the last good plan, is
// reported in the Result, and is not retried until the configuration changes
// again.
func (e *Engine) current(ctx context.Context) *generation {
	g := e.gen.Load()
	if e.src == nil || e.src.unchanged(e.attempted.Load().v) {
		return g
	}
	e.reloadMu.Lock()
	defer e.reloadMu.Unlock()
	g = e.gen.Load()
	if e.src.unchanged(e.attempted.Load().v) || e.closed.Load() {
		return g
	}
	ng, ver, err := e.build(ctx)
	e.attempted.Store(&versionBox{ver})
	if err != nil {
		e.cfgErr.Store(&loadFailure{err: err, msg: fmt.Sprintf("configuration reload failed, the last good configuration stays in force: %v", err)})
		e.opts.logger.Error("monad-hooks: configuration reload failed; keeping the last good configuration", "error", err)
		return g
	}
	e.cfgErr.Store(nil)
	if len(ng.warnings) > 0 {
		e.opts.logger.Warn("monad-hooks: the reloaded configuration has warnings", "warnings", ng.warnings.Error())
	}
	e.gen.Store(ng)
	g.res.release()
	return ng
}

type versionBox struct{ v *fileVersion }

// Reload checks the configuration and compiles a new plan if it changed, as
// Dispatch does on its own. When the configuration in force is not the one
// on disk because the latter failed to load, it returns that failure: a
// [ConfigErrors] listing every problem (the last good plan stays in force).
// It returns [ErrClosed] after Close.
func (e *Engine) Reload(ctx context.Context) error {
	if e.closed.Load() {
		return ErrClosed
	}
	e.current(ctx)
	if f := e.cfgErr.Load(); f != nil {
		return f.err
	}
	return nil
}

// Close releases the plan's resources (pooled Lua VMs). Dispatches in flight
// finish on the plan they started with; later dispatches return [ErrClosed].
// Close is safe to call more than once.
func (e *Engine) Close() error {
	if e.closed.Swap(true) {
		return nil
	}
	e.reloadMu.Lock()
	defer e.reloadMu.Unlock()
	e.gen.Load().res.release()
	return nil
}

func goRun(h Handler) func(context.Context, *call) (events.Output, []string, error) {
	return func(ctx context.Context, c *call) (events.Output, []string, error) {
		out, err := h.Handle(ctx, &c.in)
		return out, nil, err
	}
}

// Stats are counters of the engine's current plan generation, for tests and
// metrics.
type Stats struct {
	// Hooks is the number of hooks in the plan.
	Hooks int
	// Lua are the counters of the generation's Lua VM pool (zero without
	// Lua hooks); they start again at each reload.
	Lua LuaStats
}

// LuaStats are the counters of a plan generation's pool of Lua VMs.
type LuaStats struct {
	Calls     int64 // calls that ran a handler (or tried to)
	Created   int64 // VMs built
	Discarded int64 // VMs closed after a failure, after their maximum number of uses, or at a reload
	Failures  int64 // calls that returned an error
}

// Stats returns the counters of the current plan generation. It does not
// reload.
func (e *Engine) Stats() Stats {
	g := e.gen.Load()
	var s Stats
	for _, hs := range g.byEvent {
		s.Hooks += len(hs)
	}
	if g.res.lua != nil {
		ls := g.res.lua.Stats()
		s.Lua = LuaStats{Calls: ls.Calls, Created: ls.Created, Discarded: ls.Discarded, Failures: ls.Failures}
	}
	return s
}
