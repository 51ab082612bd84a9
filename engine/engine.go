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
	"github.com/monad-hooks/monad-hooks/shell"
	"github.com/monad-hooks/monad-hooks/tools"
)

// An Engine dispatches lifecycle events to hooks. It compiles its
// configuration into an immutable plan and dispatches against it; a changed
// configuration is compiled into a new plan that replaces the old one
// atomically (see [Engine.Dispatch] for when that is checked).
//
// An Engine is safe for concurrent use. Its zero value is not usable: build
// one with [New].
type Engine struct {
	opts        options
	dispatchRec DispatchRecorder // opts.recorder, when it is one
	src         *fileSource      // nil: only the Go hooks of the options
	links       *links           // resolves the links of file tools' paths; nil: none
	gen         atomic.Pointer[generation]
	sessions    sessions
	closed      atomic.Bool
	monoBase    time.Time // anchors monotonic latency readings (see runHook)

	// Reloads (see reload.go). Dispatch reads state and may start a load;
	// it never waits for one.
	state  atomic.Pointer[loadState] // what the last finished load found
	flight atomic.Pointer[flight]    // the load in progress; nil when none
	life   context.Context           // bounds every load; canceled by Close
	stop   context.CancelFunc
	loads  sync.WaitGroup // the load goroutine, for Close
	swapMu sync.Mutex     // orders a load's swap with Close

	// Counters of Stats.
	reloads, reloadFailures atomic.Int64
	luaMu                   sync.Mutex
	luaPast                 LuaStats // the Lua counters of the replaced generations
}

// generation is one compiled plan and the resources it owns.
type generation struct {
	// number is the generation's place in the engine's history: 1 for
	// New's plan (see Stats.Generation).
	number int64
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
	// failClosed, set at a degraded start when policy files or stdlib
	// packs the host chose failed to load, lists their problems:
	// dispatches at events that can deny are denied (see
	// WithDegradedStart).
	failClosed []closure
	// tools is the tool table of the generation: the built-in table, the
	// WithTools declarations and those of the configuration files.
	tools *tools.Table
	// declared says who declared each tool that is not (only) built in:
	// "WithTools", or the file:line:col of a tools entry.
	declared map[string]string
	kinds    [matchSlots]atomic.Pointer[kindEntry] // see toolKnown
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
	e.dispatchRec, _ = e.opts.recorder.(DispatchRecorder)
	if errs := checkLuaModules(e.opts.luaModules); len(errs) > 0 {
		return nil, errs
	}
	if e.opts.files != nil || len(e.opts.stdlib) > 0 {
		f := Files{FS: osFS{}, Runner: shell.Exec{}}
		if e.opts.files != nil {
			f = *e.opts.files
		}
		e.src = &fileSource{f: f, opts: &e.opts}
		e.links = newLinks(f)
	}
	g, ld, err := e.build(ctx, nil, e.opts.degradedStart)
	if err != nil {
		return nil, err
	}
	e.life, e.stop = context.WithCancel(context.WithoutCancel(ctx))
	g.number = 1
	e.gen.Store(g)
	st := &loadState{version: ld.version, retry: ld.retry}
	if len(ld.errs) > 0 { // a degraded start
		st.err = ld.errs
		how := "the engine runs without what failed"
		if g.failClosed != nil {
			how = "the engine runs without what failed, and denies where it can (" + g.failClosed[0].what + " failed)"
		}
		st.msg = fmt.Sprintf("configuration failed to load; %s: %v", how, ld.errs)
	}
	e.state.Store(st)
	return e, nil
}

// WithDegradedStart makes [New] start even when configuration files or
// scripts fail to load, for one-shot hosts that cannot tell a failed start
// from "no guard" (monad-hooks run). New then compiles everything that
// loaded: a user file or script that fails is left out (a stdlib pack it
// replaced loads instead), and every Result carries the problems in
// ConfigError ([Engine.Reload] returns them). A policy file that fails, or
// a stdlib pack of the host's choosing ([WithStdlib], Files.Stdlib) that
// cannot load (a pack that needs Files.Home without it), makes the engine
// fail closed: at the events that can deny, every dispatch is a deny whose
// reason names the problem, and no hook runs; other events run the hooks
// that loaded. A guard the host chose is never dropped for a weaker set. Problems of the options themselves (a Go hook
// without handler, an invalid WithTools spec) still fail New, and later reloads are not degraded: a
// broken change keeps the plan in force.
func WithDegradedStart() Option {
	return func(o *options) { o.degradedStart = true }
}

// build loads the configuration and compiles a plan from it. prev is the
// plan in force (nil at New): a file that gave it hooks may not give the new
// one none (see fileSource.load). ld is what the load found, also when it
// failed (its version says what was read).
//
// When degraded, problems of the files do not fail the build: they are in
// ld.errs, the plan has what loaded, and g.failClosed is set when a policy
// file or a host's stdlib pack failed.
func (e *Engine) build(ctx context.Context, prev *generation, degraded bool) (g *generation, ld loaded, err error) {
	specs := make([]hookSpec, 0, len(e.opts.hooks))
	var errs ConfigErrors
	switch e.opts.unguarded {
	case events.Proceed, events.Ask, events.Deny:
	default:
		errs = append(errs, &ConfigError{Code: CodeBadOption, Msg: fmt.Sprintf("WithUnguardedTools: decision %q: want proceed (\"\"), ask or deny", e.opts.unguarded)})
	}
	if _, err := StdlibPacks(e.opts.stdlib...); err != nil {
		errs = append(errs, &ConfigError{Code: CodeBadAtom, Msg: "WithStdlib: " + err.Error()})
	}
	errs = append(errs, checkWithTools(e.opts.tools)...)
	for i, h := range e.opts.hooks {
		if !h.Event.Valid() {
			errs = append(errs, &ConfigError{Code: CodeUnknownEvent, Msg: fmt.Sprintf("WithHook #%d (%s): invalid event %v", i, h.Name, h.Event)})
			continue
		}
		if h.Handler == nil {
			errs = append(errs, &ConfigError{Code: CodeMissingHandler, Msg: fmt.Sprintf("WithHook #%d (%s): missing handler", i, h.Name)})
			continue
		}
		if err := checkKinds(h.Event, h.Kinds); err != nil {
			errs = append(errs, &ConfigError{Code: CodeBadKind, Msg: fmt.Sprintf("WithHook #%d (%s): %v", i, h.Name, err)})
			continue
		}
		specs = append(specs, hookSpec{
			tier: TierAtom, kind: "go", id: "go:" + h.Name, registeredBy: "WithHook #" + strconv.Itoa(i), event: h.Event,
			matcher: h.Matcher, kinds: h.Kinds, onError: h.OnError, timeout: h.Timeout,
			run: goRun(h.Handler),
		})
	}
	if len(errs) > 0 { // the options themselves
		return nil, ld, errs
	}
	if e.src != nil {
		ld = e.src.load(ctx, prev, degraded)
		if ld.transient != nil {
			return nil, ld, ld.transient
		}
		specs = append(specs, ld.specs...)
	}
	tab, declared, err := buildTools(e.opts.tools, ld.tools)
	if err != nil { // the specs were checked: a defect of the built-in table
		ld.res.release()
		return nil, ld, ConfigErrors{{Code: CodeBadTool, Msg: err.Error()}}
	}
	g, cerrs := compile(specs, tab)
	ld.errs = append(ld.errs, cerrs...)
	if len(ld.errs) > 0 && !degraded {
		ld.res.release()
		return nil, ld, ld.errs
	}
	g.res, g.warnings, g.fileHooks, g.tools, g.declared = ld.res, ld.warnings, ld.fileHooks, tab, declared
	if len(ld.closed) > 0 {
		g.failClosed = ld.closed
	}
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

// Stats are counters of the engine and of its current plan generation, for
// tests, health checks and metrics.
type Stats struct {
	// Hooks is the number of hooks in the plan.
	Hooks int
	// Generation numbers the plan in force: 1 for the plan New compiled,
	// one more for each reload swapped in.
	Generation int64
	// Reloads counts the loads after New that were swapped in,
	// ReloadFailures those that failed (the plan in force stayed).
	Reloads, ReloadFailures int64
	// ConfigError is what Result.ConfigError says: why the configuration
	// on disk is not (all) in force, "" when it is.
	ConfigError string
	// Lua are the counters of the generation's Lua VM pool (zero without
	// Lua hooks); they start again at each reload.
	Lua LuaStats
	// LuaTotal are the Lua counters since New, over every generation
	// (Size is the current pool's); a replaced generation's counts are
	// added when it is replaced, so calls still finishing on its VMs
	// after that are not counted.
	LuaTotal LuaStats
}

// LuaStats are the counters of a pool of Lua VMs.
type LuaStats struct {
	Size      int   // the most VMs the pool keeps
	Calls     int64 // calls that ran a handler (or tried to)
	Created   int64 // VMs built
	Discarded int64 // VMs closed after a failure, after their maximum number of uses, or at a reload
	Failures  int64 // calls that returned an error
}

func (s *LuaStats) add(o LuaStats) {
	s.Calls += o.Calls
	s.Created += o.Created
	s.Discarded += o.Discarded
	s.Failures += o.Failures
}

// luaStats returns the counters of r's pool (zero without one).
func (r resources) luaStats() LuaStats {
	if r.lua == nil {
		return LuaStats{}
	}
	ls := r.lua.Stats()
	return LuaStats{Size: ls.Size, Calls: ls.Calls, Created: ls.Created, Discarded: ls.Discarded, Failures: ls.Failures}
}

// Stats returns the counters of the engine and of its current plan
// generation. It does not reload, and is safe for concurrent use.
func (e *Engine) Stats() Stats {
	g := e.gen.Load()
	s := Stats{Generation: g.number, Reloads: e.reloads.Load(), ReloadFailures: e.reloadFailures.Load()}
	if st := e.state.Load(); st != nil {
		s.ConfigError = st.msg
	}
	for _, hs := range g.byEvent {
		s.Hooks += len(hs)
	}
	s.Lua = g.res.luaStats()
	e.luaMu.Lock()
	s.LuaTotal = e.luaPast
	e.luaMu.Unlock()
	s.LuaTotal.add(s.Lua)
	s.LuaTotal.Size = s.Lua.Size
	return s
}
