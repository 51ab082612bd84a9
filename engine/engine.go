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
	monoBase time.Time // anchors monotonic latency readings (see runHook)

	// Reloads (see reload.go). Dispatch reads state and may start a load;
	// it never waits for one.
	state  atomic.Pointer[loadState] // what the last finished load found
	flight atomic.Pointer[flight]    // the load in progress; nil when none
	life   context.Context           // bounds every load; canceled by Close
	stop   context.CancelFunc
	loads  sync.WaitGroup // the load goroutine, for Close
	swapMu sync.Mutex     // orders a load's swap with Close
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
	// fileHooks counts the hooks each configuration file or script on disk
	// gave the plan, by path.
	fileHooks map[string]int
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
// initial load only; later loads run on the engine's own context (see
// [WithReloadTimeout]). A configuration problem is returned as [ConfigErrors]
// listing every problem found; nothing is dispatched from a configuration
// that failed to load.
func New(ctx context.Context, opts ...Option) (*Engine, error) {
	e := &Engine{opts: defaultOptions(), monoBase: time.Now()}
	for _, o := range opts {
		o(&e.opts)
	}
	e.sessions.init(e.opts.maxSessions, e.opts.sessions)
	if e.opts.files != nil {
		e.src = &fileSource{f: *e.opts.files, opts: &e.opts}
	}
	g, ld, err := e.build(ctx, nil)
	if err != nil {
		return nil, err
	}
	e.life, e.stop = context.WithCancel(context.WithoutCancel(ctx))
	e.gen.Store(g)
	e.state.Store(&loadState{version: ld.version})
	return e, nil
}

// build loads the configuration and compiles a plan from it. prev is the
// plan in force (nil at New): a file that gave it hooks may not give the new
// one none (see fileSource.load). ld is what the load found, also when it
// failed (its version says what was read).
func (e *Engine) build(ctx context.Context, prev *generation) (g *generation, ld loaded, err error) {
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
	if e.src != nil {
		ld = e.src.load(ctx, prev)
		if ld.transient != nil {
			return nil, ld, ld.transient
		}
		errs = append(errs, ld.errs...)
		specs = append(specs, ld.specs...)
	}
	g, cerrs := compile(specs)
	errs = append(errs, cerrs...)
	if len(errs) > 0 {
		ld.res.release()
		return nil, ld, errs
	}
	g.res, g.warnings, g.fileHooks = ld.res, ld.warnings, ld.fileHooks
	return g, ld, nil
}

// Warnings returns the warnings of the configuration in force: problems that
// did not stop it from loading, such as a matcher on an event that is not
// tool-scoped (CodeMatcherIgnored), in file order. A reload that compiles a
// plan with warnings also logs them (at New, the caller reads them here).
// The caller owns the slice.
func (e *Engine) Warnings() ConfigErrors {
	return slices.Clone(e.gen.Load().warnings)
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
