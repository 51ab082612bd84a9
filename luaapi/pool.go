package luaapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
)

// Defaults and bounds of [Options].
const (
	// DefaultTimeout is the timeout of a hook that sets no timeoutMs when
	// Options.DefaultTimeout is zero.
	DefaultTimeout = time.Second
	// MaxTimeout bounds timeoutMs and Options.DefaultTimeout.
	MaxTimeout = 60 * time.Second
	// DefaultLoadTimeout bounds the top-level run of one script when a VM
	// is built, when Options.LoadTimeout is zero.
	DefaultLoadTimeout = 5 * time.Second
	// DefaultMaxStringSize bounds the strings that string.rep, string.gsub,
	// string.format, table.concat, re.gsub and json.encode may build, when
	// Options.MaxStringSize is zero.
	DefaultMaxStringSize = 8 << 20
	// DefaultMaxCallAlloc is the allocation budget of one call when
	// Options.MaxCallAlloc is zero.
	DefaultMaxCallAlloc = 256 << 20
	// DefaultMaxUses is how many calls a VM serves before it is replaced,
	// when Options.MaxUses is zero.
	DefaultMaxUses = 1 << 20
	// DefaultMaxRetained bounds what a VM's scripts keep between calls
	// when Options.MaxRetained is zero.
	DefaultMaxRetained = 16 << 20
	// MaxLogEntries bounds the log entries kept per call; further entries
	// still go to the Logger but are not returned by CallLogs.
	MaxLogEntries = 64
)

// Options configure a [Pool]. The zero value is valid: every field has a
// documented default.
type Options struct {
	// PoolSize is the number of VMs, hence of concurrent calls: NewPool
	// builds them all (the first before it returns, the others in the
	// background; see OnDemand). Calls beyond it wait for a VM (bounded
	// by their context and hook timeout). Default: 2*GOMAXPROCS, at
	// least 4.
	PoolSize int
	// OnDemand makes the pool build a VM only when a call finds every
	// VM busy (the call waits for that build, within its timeout), up
	// to PoolSize, and not replace a discarded VM ahead of the next
	// call: for a process that makes one call or a few and exits
	// (monad-hooks run), which then builds one VM where the default
	// builds PoolSize, one after the other in the background, and Close
	// waits for none of them (BenchmarkCLIRun).
	OnDemand bool
	// DefaultTimeout is the timeout of a hook that sets no timeoutMs.
	// Default [DefaultTimeout]; at most [MaxTimeout].
	DefaultTimeout time.Duration
	// LoadTimeout bounds the top-level run of each script when a VM is
	// built. Default [DefaultLoadTimeout].
	LoadTimeout time.Duration
	// Logger receives what scripts log (log.info/warn/error and print),
	// with the attributes script and line. Default: discard.
	Logger *slog.Logger
	// Home is the home directory path.expand substitutes for "~" and
	// $HOME. Default "" (then "~" is left alone). It is never read from
	// the environment.
	Home string
	// Root is the project (sandbox) root path.root() returns. Default "".
	Root string
	// ConfigPaths are the files and folders the host's guards are
	// configured by (configuration files, scripts, folders of scripts,
	// which end in a separator: their *.lua files are scripts), absolute:
	// path.config() returns them, so that a guard can keep the
	// agent from rewriting its own guard rails. NewPool copies the slice.
	// Default: none.
	ConfigPaths []string
	// EventAlias names our event that another agent runtime calls name,
	// or returns "", for the "did you mean" of an unknown event in
	// hook{event = ...} (the engine gives hosts.Alias). Default: none.
	EventAlias func(name string) string
	// Now is the clock of os.time and os.date. Default time.Now.
	Now func() time.Time
	// MaxStringSize bounds the strings builtins may build (see
	// [DefaultMaxStringSize]).
	MaxStringSize int
	// MaxCallAlloc is the allocation budget of one call in bytes; a
	// handler that allocates more fails with [ErrMemory]. It is measured
	// on the process-wide allocation counter every few thousand
	// instructions, so concurrent activity elsewhere in the process
	// counts too: it is a safety net against allocation bombs, not an
	// accounting tool. Default [DefaultMaxCallAlloc]; negative disables.
	MaxCallAlloc int64
	// MaxUses is how many calls a VM serves before it is closed and
	// replaced (bounding state that accumulates in a VM). Default
	// [DefaultMaxUses]; negative means never.
	MaxUses int
	// Libraries are Lua modules every script of the pool may load with
	// require(name), by name: dotted identifiers ("monad.params") other
	// than a host module's. Each is a [Script] compiled once by its owner
	// (by [Compile]; the same Script may serve any number of pools) whose
	// chunk returns a table. A VM runs a library the first time one of its
	// scripts (or another library) requires it, in an environment of its
	// own over the sandbox (no params, and assigning a global is an
	// error), and caches the result: every script of the VM gets the same
	// table, read-only down to every table reachable from it, so that no
	// script can change what another sees. A library that raises, does not
	// return a table, or requires itself is an error of the require call;
	// calling hook{} while a library loads is an error, but a library
	// function a script calls while it loads may register hooks for that
	// script. NewPool copies the map. Default: none.
	Libraries map[string]*Script
	// Modules are Go values every script can require by name (host
	// modules, converted by gopher-luar): functions, maps of functions and
	// values, or values whose exported fields and methods scripts may
	// read and call. See the package doc, "Host modules", for what is
	// refused ([ValidateModule]) and how calls are bounded. NewPool
	// returns an error for a module ValidateModule refuses.
	Modules map[string]any
	// MaxRetained bounds the bytes a VM's scripts keep between calls
	// (module-level state: globals, upvalues and what they reach,
	// estimated by a walk after a call once the process's live heap grew
	// by MaxRetained, after calls that ran a millisecond or more, and
	// every 1024 calls; see retained.go). A call
	// after which its VM holds more fails with [ErrRetained] and the VM
	// is discarded. Default [DefaultMaxRetained]; negative disables. The
	// pool's VMs together may retain PoolSize times this.
	MaxRetained int64
	// IgnorePrefilters runs every call's handler, even when the hook's
	// prefilter (hook{ prefilter = ... }) finds nothing: for tests that
	// compare the decisions made with and without the prefilters.
	IgnorePrefilters bool
}

func (o Options) normalized() Options {
	if o.PoolSize <= 0 {
		o.PoolSize = max(4, 2*runtime.GOMAXPROCS(0))
	}
	if o.DefaultTimeout <= 0 {
		o.DefaultTimeout = DefaultTimeout
	}
	o.DefaultTimeout = min(o.DefaultTimeout, MaxTimeout)
	if o.LoadTimeout <= 0 {
		o.LoadTimeout = DefaultLoadTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxStringSize <= 0 {
		o.MaxStringSize = DefaultMaxStringSize
	}
	if o.MaxCallAlloc == 0 {
		o.MaxCallAlloc = DefaultMaxCallAlloc
	}
	if o.MaxUses == 0 {
		o.MaxUses = DefaultMaxUses
	}
	if o.MaxRetained == 0 {
		o.MaxRetained = DefaultMaxRetained
	}
	return o
}

// A Source is one script instance of a pool: a compiled script and the
// parameters its `params` global holds. The same Script may appear in
// several Sources with different Params; each is a separate instance with
// its own globals.
type Source struct {
	Script *Script
	// Params become the script's read-only `params` table. Values may be
	// nil, bool, string, any Go number type, json.Number, map[string]any,
	// map[string]string, []any, []string (nested to events.MaxDepth).
	// nil means an empty table. NewPool copies them.
	Params map[string]any
	// Record, when set, is what this source registers when it loads (see
	// [Record]): when every Source has a Record that applies, NewPool
	// plans the pool from them and builds no VM; the first call that has
	// to run a handler builds one. Otherwise (a Source without one, or
	// one that does not apply) NewPool loads every source in a VM, as
	// without Records.
	Record *Record
}

// A Hook is one hook{} registration, in load order: scripts in the order of
// the Sources, registrations in the order the script made them.
type Hook struct {
	Event events.Event
	// Name is the hook's name, hook{ name = ... }: "" when the script gave
	// none. It is unique among the hooks of its script.
	Name string
	// Matcher is the RE2 regular expression on the tool name, "" for none.
	// It only applies at events whose Spec has Matcher set; see Matches.
	Matcher string
	// Kinds are the tool kinds of hook{ kind = ... }: when set, the hook
	// applies only to tools of one of these kinds (and whose name the
	// Matcher, if any, matches too). luaapi does not know the host's tools:
	// the caller (the engine) matches kinds through its tool table;
	// Matches does not look at them.
	Kinds []events.ToolKind
	// OnError is "" (the default: a failure is skipped), "skip" or "deny".
	OnError string
	// Timeout is the effective timeout of the handler: its timeoutMs or
	// Options.DefaultTimeout.
	Timeout time.Duration
	// Script is the name of the script that registered the hook, and Line
	// the line of the hook{} call (of the call into a library, when a
	// library function made the hook{} call).
	Script string
	Line   int
	// Source is the index of the Source in the slice given to NewPool.
	Source int

	re         *regexp.Regexp
	prefilter  *scanTest // hook{ prefilter = ... }; see skips
	timeoutSet bool      // Timeout is the hook's timeoutMs
}

// skips reports whether the call in need not run h's handler: h has a
// prefilter, in is a shell call (the engine's view, of at most
// maxPrefilterText bytes of command), and the prefilter finds nothing in
// its command. A hook with a prefilter promises that its handler then
// proceeds, so the call answers that without a VM
// (BenchmarkDefaultSetBeforeTool).
func (h *Hook) skips(in *events.Input, view ToolViewer) bool {
	if h.prefilter == nil {
		return false
	}
	tool := in.Tool
	if tool == nil && view != nil {
		tool = view.ToolView()
	}
	if tool == nil || tool.Kind != events.ToolShell || len(tool.Command) > maxPrefilterText {
		return false
	}
	return !h.prefilter.test(tool.Command, goTester{})
}

// Matches reports whether the hook applies to a call of toolName: always at
// events whose Spec has no Matcher and for hooks without a matcher,
// otherwise when the matcher matches the tool name. It is safe for
// concurrent use.
func (h *Hook) Matches(toolName string) bool {
	if h.re == nil || !h.Event.Spec().Matcher {
		return true
	}
	return h.re.MatchString(toolName)
}

// A LogEntry is one message a script logged during a call (log.info, warn,
// error, or print).
type LogEntry struct {
	Level  slog.Level
	Msg    string
	Fields map[string]any // nil when none were given
	// Script is the script whose load or hook logged, and Line its line
	// (of the call into a library, when a library function logged; the
	// hook's line, when the handler itself is a library's).
	Script string
	Line   int
}

// Stats are counters of a pool, for tests and metrics.
type Stats struct {
	Size      int   // the most VMs the pool keeps (Options.PoolSize)
	Calls     int64 // calls that ran a handler (or tried to)
	Skipped   int64 // calls answered "proceed" by the hook's prefilter, without a handler
	Created   int64 // VMs built, including the first one built by NewPool
	Discarded int64 // VMs closed after a failure, at MaxUses, or because the pool was closed
	Failures  int64 // calls that returned an error
}

// plan is what every VM of a pool is built from. Immutable after NewPool.
type plan struct {
	srcs  []source
	libs  map[string]*Script
	hooks []Hook
	// recorded: hooks come from the sources' Records, and no VM was
	// built to learn them (see Source.Record).
	recorded bool
	// configRead[i]: source i called path.config() while the first VM
	// loaded it (nil when recorded).
	configRead []bool
	opts       Options
	mods       []hostModule // Options.Modules, by name
	recach     *reCache
	scans      scanCache // what the scan module compiled
	wd         *watchdog

	// work counts what host functions that poll the stop flag did:
	// tests prove with it that a stopped call stopped early.
	work workCounters
}

// workCounters count the work of host functions (see plan.work).
type workCounters struct {
	reBytes      atomic.Int64 // bytes read by polled regexp searches
	reSearches   atomic.Int64 // searches of re.gsub, re.split and re.findall
	jsonValues   atomic.Int64 // values json.decode decoded
	shellPolls   atomic.Int64 // polls of the stop flag by the shell parser
	listItems    atomic.Int64 // items put in result lists
	sortCompares atomic.Int64 // comparisons of table.sort
	retainWalks  atomic.Int64 // measurements of retained memory
	inputTables  atomic.Int64 // input fields built as tables (see inputTable)
	inputFields  atomic.Int64 // input fields set in the input table (see inputTable)
	inputIndex   atomic.Int64 // reads of a pending input field through __index (see predictReads)
	scanBytes    atomic.Int64 // bytes the scan module lowercased or searched
	scanRuns     atomic.Int64 // rule expressions rules:candidates ran at a candidate (see scanGate)
	scanSearches atomic.Int64 // rule expressions rules:candidates ran over the rest of a text or window
	automata     atomic.Int64 // keyword automata of scan.keywords sets built (see kwSet)
	ruleCompiles atomic.Int64 // scan.rules rules whose expressions were compiled (see ruleRun.prepare)
	directOuts   atomic.Int64 // rewritten returns read without a table (see outreturn.go)
	loads        atomic.Int64 // scripts' top levels run (one per source per VM built)
}

type source struct {
	script *Script
	params map[string]any
}

// A Pool runs the hooks of a set of script instances in a bounded pool of
// gopher-lua VMs. Every VM has all scripts loaded, each in its own sealed
// environment, and serves one call at a time.
//
// A Pool is safe for concurrent use. It is immutable: to change scripts or
// parameters, build a new Pool and Close the old one.
type Pool struct {
	plan *plan
	// avail holds one token per idle VM (capacity PoolSize): a call takes
	// a token, then the most recently used idle VM (LIFO: the warmest).
	avail chan struct{}
	// hot holds the VM the last call returned, when no call waited and
	// the pool was open: the next call takes it with one atomic swap, not
	// a channel receive and two mutex sections (BenchmarkLuaGuardPeers).
	// It is no idle VM (no token in avail): a call that finds neither
	// waits in get, counted in waiting, and put hands a VM over through
	// avail when one waits (see put).
	hot     atomic.Pointer[vm]
	waiting atomic.Int32
	shut    atomic.Bool // closed, for put's hot path

	mu       sync.Mutex
	idle     []*vm         // VMs ready for a call, most recently used last
	live     int           // VMs that exist or are being built, at most PoolSize
	pending  int           // VMs the builder still has to build
	building bool          // the builder goroutine runs
	buildErr error         // the last build's error, nil after a success
	failed   chan struct{} // closed (and replaced) when a build fails
	closed   bool

	buildCtx    context.Context // canceled by Close
	cancelBuild context.CancelFunc
	builder     sync.WaitGroup

	calls, skipped, created, discarded, failures atomic.Int64
}

// NewPool loads every source in a fresh VM, collects the hook{}
// registrations, and returns a pool holding that VM. The pool's other VMs
// (up to Options.PoolSize) are built in the background right away, each
// loading the scripts again (so scripts must register the same hooks every
// time they load), and rebuilt in the background when one is discarded: a
// call waits for a build only when every VM is busy or being built.
//
// ctx bounds the loading of the first VM; Close stops the background
// builds. Every error naming a script is a *[ScriptError] with the script
// and line: an error raised while the script runs at load time, a bad
// registration (unknown event, bad RE2 matcher, missing or non-function
// handler, unknown key, wrong type, bad onError, bad timeoutMs), a load
// that exceeds Options.LoadTimeout, a library that fails as the script
// requires it; other errors concern the sources themselves (a nil Script,
// unsupported Params) or the options (a library without a script or with
// an invalid name).
func NewPool(ctx context.Context, srcs []Source, opts Options) (*Pool, error) {
	opts = opts.normalized()
	opts.ConfigPaths = slices.Clone(opts.ConfigPaths)
	libs, err := checkLibraries(opts.Libraries)
	if err != nil {
		return nil, err
	}
	pl := &plan{opts: opts, libs: libs, recach: newReCache(reCacheSize), wd: newWatchdog(uint64(max(opts.MaxRetained, 0)))}
	for i, s := range srcs {
		if s.Script == nil {
			return nil, fmt.Errorf("luaapi: source %d has no script", i)
		}
		pl.srcs = append(pl.srcs, source{script: s.Script, params: s.Params})
	}
	names := make([]string, 0, len(opts.Modules))
	for name := range opts.Modules {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		m, err := checkModule(name, opts.Modules[name])
		if err != nil {
			return nil, fmt.Errorf("luaapi: host module: %w", err)
		}
		if _, ok := libs[name]; ok {
			return nil, fmt.Errorf("luaapi: host module %q has the name of a library", name)
		}
		pl.mods = append(pl.mods, m)
	}
	if recorded(srcs, &opts) {
		// Planned from the Records: no VM until a handler has to run
		// (BenchmarkCLIRun).
		if pl.hooks, err = recordedHooks(pl, srcs); err != nil {
			return nil, err
		}
		pl.recorded = true
		p := &Pool{plan: pl, avail: make(chan struct{}, opts.PoolSize), failed: make(chan struct{})}
		p.buildCtx, p.cancelBuild = context.WithCancel(context.WithoutCancel(ctx))
		return p, nil
	}
	v, hooks, err := newVM(ctx, pl, true)
	if err != nil {
		return nil, err
	}
	pl.hooks = hooks
	p := &Pool{plan: pl, avail: make(chan struct{}, opts.PoolSize), live: 1, failed: make(chan struct{})}
	// The builds outlive NewPool's ctx (they are the pool's); only its
	// values are kept.
	p.buildCtx, p.cancelBuild = context.WithCancel(context.WithoutCancel(ctx))
	p.created.Add(1)
	p.idle = append(p.idle, v)
	p.avail <- struct{}{}
	if !opts.OnDemand {
		p.fill()
	}
	return p, nil
}

// recorded reports whether every source has a Record that applies in a
// pool with opts (and there is a source).
func recorded(srcs []Source, opts *Options) bool {
	for _, s := range srcs {
		if !s.Record.applies(s, opts) {
			return false
		}
	}
	return len(srcs) > 0
}

// Hooks returns the registrations in load order; index i is the i of
// [Pool.Call]. The caller owns the returned slice.
func (p *Pool) Hooks() []Hook {
	return append([]Hook(nil), p.plan.hooks...)
}

// Stats returns the pool's counters. It is safe for concurrent use.
func (p *Pool) Stats() Stats {
	return Stats{Size: cap(p.avail), Calls: p.calls.Load(), Skipped: p.skipped.Load(), Created: p.created.Load(), Discarded: p.discarded.Load(), Failures: p.failures.Load()}
}

// Call runs the handler of hook i with in and returns its Output. It is
// safe for concurrent use; it borrows a VM for the duration of the call,
// waiting for one when all Options.PoolSize VMs are busy.
//
// The call is bounded by ctx and by the hook's Timeout (both the wait for
// a VM and the run). Outcomes:
//
//   - the handler returned nil, or the hook's prefilter found nothing in
//     the command of a shell call (see hook{ prefilter } in the package
//     doc: the handler does not run): the zero Output ("proceed"), nil
//     error;
//   - it returned a valid HookOutput table: that Output (validated with
//     [events.Output.Validate]; fields the event does not honour are kept,
//     the engine filters them), nil error;
//   - anything else is a *[HookError] with its [FailureKind]: a Lua error
//     (FailError), the timeout or ctx deadline (FailTimeout, matches
//     context.DeadlineExceeded), ctx canceled (FailCanceled), a Go panic
//     inside the VM (FailPanic), an invalid return value (FailOutput), an
//     Input that cannot be converted (FailInput), the allocation budget or
//     the retained-memory bound (FailMemory), or a VM that could not be
//     built (FailVM).
//
// Call does not apply the hook's matcher or onError: that is the caller's
// policy. in is not modified. Calling Call after Close still works (see
// Close). An i out of range or a nil in returns an error that is not a
// HookError.
func (p *Pool) Call(ctx context.Context, i int, in *events.Input) (events.Output, error) {
	out, _, err := p.call(ctx, i, in, nil, false)
	return out, err
}

// CallLogs is Call that also returns what the handler logged (at most
// [MaxLogEntries] entries), for the audit. Entries are returned on failure
// too.
func (p *Pool) CallLogs(ctx context.Context, i int, in *events.Input) (events.Output, []LogEntry, error) {
	return p.call(ctx, i, in, nil, true)
}

// A ToolViewer computes the view of a call's tool ([events.Input.Tool])
// when a hook first needs it. ToolView should return a view that is not
// nil (a nil view reads as no tool); it is called at most from the
// goroutine of the call it was given to.
type ToolViewer interface {
	ToolView() *events.ToolView
}

// CallView is CallLogs for an input whose Tool is left nil and computed by
// view only if the hook's prefilter or handler reads it: the hook sees the
// input as if in.Tool were view.ToolView(). A nil view means no view (the
// tool is unknown), as a nil in.Tool does. Computing a view nobody reads
// was 8% of a Lua guard's dispatch (BenchmarkLuaGuardPeers).
func (p *Pool) CallView(ctx context.Context, i int, in *events.Input, view ToolViewer) (events.Output, []LogEntry, error) {
	return p.call(ctx, i, in, view, true)
}

func (p *Pool) call(ctx context.Context, i int, in *events.Input, view ToolViewer, withLogs bool) (out events.Output, logs []LogEntry, err error) {
	if i < 0 || i >= len(p.plan.hooks) {
		return out, nil, fmt.Errorf("luaapi: no hook %d (the pool has %d)", i, len(p.plan.hooks))
	}
	if in == nil {
		return out, nil, errors.New("luaapi: nil input")
	}
	h := &p.plan.hooks[i]
	if ctx.Err() == nil && !p.plan.opts.IgnorePrefilters && h.skips(in, view) {
		p.skipped.Add(1)
		return out, nil, nil
	}
	p.calls.Add(1)
	defer func() {
		if err != nil {
			p.failures.Add(1)
		}
	}()
	if err := ctx.Err(); err != nil {
		return out, nil, h.fail(kindOfCtxErr(err), err.Error(), err)
	}
	v, waited, err := p.get(ctx, h.Timeout)
	if err != nil {
		if he, ok := err.(*HookError); ok {
			he.Script, he.Line, he.Event = h.Script, h.Line, h.Event
			return out, nil, he
		}
		return out, nil, h.fail(kindOfCtxErr(err), "waiting for a VM: "+err.Error(), err)
	}
	v.callView = view
	out, logs, healthy, err := v.call(ctx, i, h.Timeout-waited, in, withLogs)
	v.callView = nil
	p.put(v, healthy)
	return out, logs, err
}

func (h *Hook) fail(kind FailureKind, msg string, err error) *HookError {
	return &HookError{Script: h.Script, Line: h.Line, Event: h.Event, Kind: kind, Msg: msg, Err: err}
}

// get borrows a VM: an idle one, or the first that becomes idle (built by
// the builder, or returned by another call) within timeout. waited is how
// long it waited (0 on the fast path, which reads no clock): the call's
// run gets what is left of its timeout, so a call never waits for a build
// beyond its own timeout, except for the first VM of a pool planned from
// Records, whose build is the deferred load: a call waits for it up to
// Options.LoadTimeout more, and that wait is not charged to it. On a closed pool it builds a temporary VM, within
// timeout too.
func (p *Pool) get(ctx context.Context, timeout time.Duration) (v *vm, waited time.Duration, err error) {
	if v := p.hot.Swap(nil); v != nil {
		return v, 0, nil
	}
	select {
	case <-p.avail:
		return p.pop(), 0, nil
	default:
	}
	// Counted before looking at hot again: put parks a VM in hot and then
	// reads waiting, so either it sees this call or this call sees its VM.
	p.waiting.Add(1)
	defer p.waiting.Add(-1)
	if v := p.hot.Swap(nil); v != nil {
		return v, 0, nil
	}
	start := time.Now()
	p.mu.Lock()
	closed, failed := p.closed, p.failed
	p.mu.Unlock()
	if closed {
		return p.temporary(ctx, timeout)
	}
	p.fill()
	// A pool planned from Records built no VM at load: its first build is
	// the load NewPool deferred, bounded by LoadTimeout as a load is, and
	// not charged to the calls that wait for it (a first call on a loaded
	// machine timed out waiting for it; TestRecordedFirstBuildNotCharged).
	var deferred time.Duration
	if p.plan.recorded && p.created.Load() == 0 {
		deferred = p.plan.opts.LoadTimeout
	}
	t := time.NewTimer(timeout + deferred)
	defer t.Stop()
	select {
	case <-p.avail:
		v = p.pop()
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	case <-t.C:
		return nil, 0, context.DeadlineExceeded
	case <-failed:
		p.mu.Lock()
		err := p.buildErr
		p.mu.Unlock()
		return nil, 0, &HookError{Kind: FailVM, Msg: "building a VM: " + err.Error(), Err: err}
	}
	if waited = max(time.Since(start)-deferred, 0); waited >= timeout {
		p.put(v, true)
		return nil, 0, context.DeadlineExceeded
	}
	return v, waited, nil
}

// temporary builds a VM for a call on a closed pool, within timeout.
func (p *Pool) temporary(ctx context.Context, timeout time.Duration) (*vm, time.Duration, error) {
	start := time.Now()
	bctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, _, err := newVM(bctx, p.plan, false)
	if err != nil {
		return nil, 0, &HookError{Kind: FailVM, Msg: "building a VM: " + err.Error(), Err: err}
	}
	p.created.Add(1)
	p.mu.Lock()
	p.live++
	p.mu.Unlock()
	waited := time.Since(start)
	if waited >= timeout {
		p.put(v, false)
		return nil, 0, context.DeadlineExceeded
	}
	return v, waited, nil
}

// fill has the builder build VMs until PoolSize exist (with OnDemand, one
// more than exist or are being built), unless the pool is closed.
func (p *Pool) fill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.live >= p.plan.opts.PoolSize {
		return
	}
	n := p.plan.opts.PoolSize - p.live
	if p.plan.opts.OnDemand {
		n = 1
	}
	p.live += n
	p.pending += n
	if !p.building {
		p.building = true
		p.builder.Add(1)
		go p.build()
	}
}

// build is the builder goroutine: it builds the pending VMs one by one,
// under Options.LoadTimeout each, and exits when none is left, when the
// pool is closed, or after a failed build (the next call that finds no
// idle VM tries again).
func (p *Pool) build() {
	defer p.builder.Done()
	for {
		p.mu.Lock()
		if p.pending == 0 || p.closed {
			p.live -= p.pending
			p.pending = 0
			p.building = false
			p.mu.Unlock()
			return
		}
		p.pending--
		p.mu.Unlock()
		v, _, err := newVM(p.buildCtx, p.plan, false)
		p.mu.Lock()
		if err != nil {
			p.live -= 1 + p.pending
			p.pending = 0
			p.building = false
			p.buildErr = err
			close(p.failed)
			p.failed = make(chan struct{})
			p.mu.Unlock()
			return
		}
		p.buildErr = nil
		p.created.Add(1)
		if !p.closed {
			p.push(v)
			v = nil
		}
		p.mu.Unlock()
		if v != nil {
			p.discard(v)
		}
	}
}

// put returns a VM to the pool, or closes it when it is unhealthy, used up
// or the pool is closed; a closed VM is replaced in the background.
func (p *Pool) put(v *vm, healthy bool) {
	if healthy && (p.plan.opts.MaxUses < 0 || v.uses < p.plan.opts.MaxUses) {
		if p.hot.CompareAndSwap(nil, v) {
			if p.waiting.Load() == 0 && !p.shut.Load() {
				return
			}
			// A call waits in get, or the pool closed meanwhile: take
			// the VM back, unless a call took it already, and make it
			// idle (which wakes the waiting call) or close it.
			if v = p.hot.Swap(nil); v == nil {
				return
			}
		}
		p.mu.Lock()
		if !p.closed {
			// Under mu, so that Close cannot miss it.
			p.push(v)
			v = nil
		}
		p.mu.Unlock()
		if v == nil {
			return
		}
	}
	p.discard(v)
	if !p.plan.opts.OnDemand {
		p.fill()
	}
}

// push makes v idle; mu must be held. It never blocks: at most PoolSize
// VMs exist, so avail has room.
func (p *Pool) push(v *vm) {
	p.idle = append(p.idle, v)
	p.avail <- struct{}{}
}

// pop takes the most recently used idle VM, after its token was taken
// from avail (a push happens before its token is sent, so there is one).
func (p *Pool) pop() *vm {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.idle)
	v := p.idle[n-1]
	p.idle[n-1] = nil
	p.idle = p.idle[:n-1]
	return v
}

// discard closes a VM that exists no more in the pool.
func (p *Pool) discard(v *vm) {
	v.close()
	p.discarded.Add(1)
	p.mu.Lock()
	p.live--
	p.mu.Unlock()
}

// Close stops the background builds, closes the idle VMs and marks the
// pool closed. Calls in flight finish normally and their VMs are closed
// when they return. Calls made after Close still work: each builds a VM,
// within its timeout, and closes it afterwards (about 0.1-1 ms per call
// plus the scripts' top level), so an engine that loaded a hook from the
// old pool just before swapping in a new one still gets an answer. Close
// is idempotent and safe for concurrent use; it waits for a build in
// progress to stop and always returns nil.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	// Set before hot is emptied: put parks a VM in hot and then reads
	// shut, so either it closes its VM or this swap finds it.
	p.shut.Store(true)
	if v := p.hot.Swap(nil); v != nil {
		p.discard(v)
	}
	p.cancelBuild()
	p.builder.Wait()
	for {
		select {
		case <-p.avail:
			p.discard(p.pop())
			continue
		default:
		}
		break
	}
	p.plan.wd.closed.Store(true)
	return nil
}
