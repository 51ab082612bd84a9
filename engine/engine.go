package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/shell"
	"github.com/monad-hooks/monad-hooks/tools"
)

// Errors returned by [Engine.Dispatch].
var (
	ErrClosed       = errors.New("engine: closed")
	ErrInvalidInput = errors.New("engine: invalid input")
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
	src      source // nil: only the Go hooks of the options
	gen      atomic.Pointer[generation]
	sessions sessions
	closed   atomic.Bool

	monoBase  time.Time                  // anchors monotonic latency readings (see runHook)
	reloadMu  sync.Mutex                 // serialises reloads; never held by the dispatch fast path
	attempted atomic.Pointer[versionBox] // the configuration version last loaded, good or not
	cfgErr    atomic.Pointer[string]
}

// generation is one compiled plan and the resources it owns.
type generation struct {
	byEvent [events.Count][]*hook
	cache   [events.Count]matchCache
	dropped []dropped // duplicate command specs, for Plan
	res     resources
	// tools is the tool table of the generation: the built-in table, the
	// WithTools declarations and those of the configuration files.
	tools *tools.Table
	// declared says who declared each tool that is not (only) built in:
	// "WithTools", or the file:line:col of a tools entry.
	declared map[string]string
	kinds    [matchSlots]atomic.Pointer[kindEntry] // see toolKind
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

// source supplies the configured (non-Go) hooks and says cheaply whether they
// changed. Implementations live beside the config, Lua and shell glue.
type source interface {
	// load reads and compiles the configuration.
	load(ctx context.Context) loaded
	// unchanged reports whether the configuration is still the one that
	// produced version. It is called on the dispatch path and must be cheap.
	unchanged(version *fileVersion) bool
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
	if e.opts.files != nil || len(e.opts.stdlib) > 0 {
		f := Files{FS: osFS{}, Runner: shell.Exec{}}
		if e.opts.files != nil {
			f = *e.opts.files
		}
		e.src = &fileSource{f: f, opts: &e.opts}
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
	switch e.opts.unguarded {
	case events.Proceed, events.Ask, events.Deny:
	default:
		errs = append(errs, &ConfigError{Code: CodeBadOption, Source: "WithUnguardedTools",
			Msg: fmt.Sprintf("decision %q: want proceed (\"\"), ask or deny", e.opts.unguarded)})
	}
	for i, h := range e.opts.hooks {
		if !h.Event.Valid() {
			errs = append(errs, &ConfigError{Code: CodeUnknownEvent, Source: fmt.Sprintf("WithHook #%d (%s)", i, h.Name), Msg: fmt.Sprintf("invalid event %v", h.Event)})
			continue
		}
		if h.Handler == nil {
			errs = append(errs, &ConfigError{Code: CodeMissingHandler, Source: fmt.Sprintf("WithHook #%d (%s)", i, h.Name), Msg: "missing handler"})
			continue
		}
		specs = append(specs, hookSpec{
			tier: TierAtom, kind: "go", id: "go:" + h.Name, event: h.Event,
			matcher: h.Matcher, kinds: h.Kinds, onError: h.OnError, timeout: h.Timeout,
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
	tab, declared, terrs := buildTools(e.opts.tools, ld.tools)
	errs = append(errs, terrs...)
	g, cerrs := compile(specs, tab)
	errs = append(errs, cerrs...)
	if len(errs) > 0 {
		ld.res.release()
		return nil, version, errs
	}
	g.res, g.tools, g.declared = ld.res, tab, declared
	return g, version, nil
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
		msg := fmt.Sprintf("configuration reload failed, the last good configuration stays in force: %v", err)
		e.cfgErr.Store(&msg)
		e.opts.logger.Error("monad-hooks: configuration reload failed; keeping the last good configuration", "error", err)
		return g
	}
	e.cfgErr.Store(nil)
	e.gen.Store(ng)
	g.res.release()
	return ng
}

type versionBox struct{ v *fileVersion }

// Reload checks the configuration and compiles a new plan if it changed, as
// Dispatch does on its own. It returns the load error when the new
// configuration is broken (the last good plan stays in force).
func (e *Engine) Reload(ctx context.Context) error {
	if e.closed.Load() {
		return ErrClosed
	}
	e.current(ctx)
	if p := e.cfgErr.Load(); p != nil {
		return errors.New(*p)
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
	Lua luaapi.Stats
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
		s.Lua = g.res.lua.Stats()
	}
	return s
}
