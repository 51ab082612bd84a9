package luaapi

import (
	"context"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Stopping a running handler.
//
// gopher-lua checks ctx.Done() before every instruction of a VM that has a
// context, and nowhere else. A context.WithTimeout per call costs a timer
// and several allocations, and time.Now costs ~0.3 µs on some hosts, so
// neither is read per call. Instead every VM runs with its own vmCtx whose
// Done method is an atomic load of a stop reason, and one watchdog
// goroutine per pool sets that reason: every tick (1 ms) it reads the clock
// once, gives each newly started call its deadline (the first time it sees
// it: at most one tick late), and stops the calls whose deadline passed,
// whose caller's context is done, or that exceeded the allocation budget.
// So a handler is stopped within its timeout plus about two ticks, however
// few instructions it runs (`s = s .. s` doubles a string per instruction)
// and whatever they cost, and a call costs two uncontended mutex
// operations and no clock reads. The watchdog sleeps when no call has run
// for a while (or at once when the pool is closed) and is restarted by the
// next call, so an idle or closed pool has no goroutine.

const (
	watchTick      = time.Millisecond
	watchIdleTicks = 200 // exit after this many ticks without a call
	allocTicks     = 4   // probe the allocation counter every 4 ticks
)

// Stop reasons.
const (
	reasonNone uint32 = iota
	reasonDeadline
	reasonCanceled
	reasonMemory
)

// closedChan is returned by vmCtx.Done once the call must stop.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

const allocMetric = "/gc/heap/allocs:bytes"

// vmCtx is the context.Context a VM runs with during one call (or one
// script load).
type vmCtx struct {
	reason atomic.Uint32 // set by the watchdog, read per instruction

	// Owned by the VM goroutine.
	done   chan struct{}
	err    error
	own    context.Context // the caller's context, for Value and Err
	L      *lua.LState
	hooked bool // L.Panic is raise (see Done)

	// Shared with the watchdog, guarded by mu.
	mu         sync.Mutex
	active     bool
	parent     context.Context
	parentDone <-chan struct{}
	timeout    time.Duration
	maxAlloc   uint64
	held       bool      // the deadline waits for the handler's first stop poll (tests: watchdog.holdDeadlines)
	seen       bool      // the watchdog initialised the fields below
	ticks      int       // the watchdog's scans that found the call running
	deadline   time.Time // watchdog's
	allocStart uint64    // watchdog's
}

// begin starts a call bounded by timeout, parent and maxAlloc (0: none).
func (c *vmCtx) begin(w *watchdog, parent context.Context, timeout time.Duration, maxAlloc uint64) {
	c.reason.Store(reasonNone)
	c.done = nil
	c.err = nil
	c.own = parent
	c.hooked = false
	c.mu.Lock()
	c.active = true
	c.parent = parent
	c.parentDone = parent.Done()
	c.timeout = timeout
	c.maxAlloc = maxAlloc
	c.seen = false
	c.held = w.holdDeadlines.Load()
	c.ticks = 0
	c.mu.Unlock()
	w.ensureRunning()
}

// end finishes the call and returns why it was stopped, if it was.
func (c *vmCtx) end() error {
	err, _ := c.finish()
	return err
}

// finish is end that also reports whether the call ran a tick (1 ms) or
// more: the watchdog found it running at two scans. One scan is not
// enough: it finds a call of 0.2 ms running one time in five, and the
// retained-memory walk that follows a long call was a sixth of the default
// set's dispatch (BenchmarkDefaultSet). (One lock for both:
// BenchmarkLuaGuardPeers.)
func (c *vmCtx) finish() (err error, long bool) {
	c.mu.Lock()
	long = c.ticks >= 2
	c.active = false
	c.parent = nil
	c.parentDone = nil
	c.mu.Unlock()
	err = c.stopErr()
	c.own = nil
	return err, long
}

// stopErr returns the error of the stop reason, nil when not stopped.
func (c *vmCtx) stopErr() error {
	switch c.reason.Load() {
	case reasonDeadline:
		return context.DeadlineExceeded
	case reasonCanceled:
		if c.own != nil {
			if err := c.own.Err(); err != nil {
				return err
			}
		}
		return context.Canceled
	case reasonMemory:
		return ErrMemory
	}
	return nil
}

func (c *vmCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done is called by gopher-lua before every instruction. Before the first
// one of a call it also installs raise as the error function: PCall installs
// its own on entry (one that leaves the traceback to be built later), so
// this is the first moment ours can be installed without a trampoline
// frame.
func (c *vmCtx) Done() <-chan struct{} {
	if !c.hooked {
		c.hooked = true
		c.L.Panic = raise
	}
	if c.reason.Load() != reasonNone && c.done == nil {
		c.err = c.stopErr()
		c.done = closedChan
	}
	return c.done
}

func (c *vmCtx) Err() error { return c.err }

func (c *vmCtx) Value(key any) any {
	if c.own == nil {
		return nil
	}
	return c.own.Value(key)
}

// stopped reports whether the call must stop (for host functions with
// loops of their own).
func (c *vmCtx) stopped() bool {
	if c.held && c.hooked {
		// Tests only: the handler runs a host function, whose first poll
		// starts the call's deadline (see watchdog.holdDeadlines).
		c.mu.Lock()
		c.held = false
		c.mu.Unlock()
	}
	return c.reason.Load() != reasonNone
}

// remaining returns how long the current call may still run: until its
// deadline once the watchdog has seen it, else (the call began less than a
// tick ago) its timeout, bounded by the caller's deadline. It reads the
// clock: host functions call it only before expensive work.
func (c *vmCtx) remaining() time.Duration {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case !c.active || c.reason.Load() != reasonNone:
		return 0
	case c.seen:
		return c.deadline.Sub(now)
	}
	d := c.timeout
	if pd, ok := c.parent.Deadline(); ok {
		d = min(d, pd.Sub(now))
	}
	return d
}

// A watchdog stops the calls of one pool's VMs (see above).
type watchdog struct {
	mu      sync.Mutex
	ctxs    map[*vmCtx]struct{}
	running atomic.Bool
	closed  atomic.Bool       // the pool is closed: exit as soon as idle
	sample  [1]metrics.Sample // used by the watchdog goroutine only

	// The live heap, probed every liveTicks while calls run: when it grew
	// by liveStep since the last mark, walkEpoch moves on, and every VM
	// measures what it retains after its next call (see retained.go).
	liveStep  uint64
	liveMark  uint64 // watchdog goroutine only
	walkEpoch atomic.Uint64

	// holdDeadlines (tests only) starts a call's deadline, and its other
	// checks, at the first stop poll of a host function the handler runs
	// instead of at the call's start: a test that proves host functions
	// stop at the deadline then knows that the work started, however
	// long a loaded machine took to get there.
	holdDeadlines atomic.Bool
}

// liveTicks is how often (in ticks) the watchdog probes the live heap.
const liveTicks = 16

const liveMetric = "/gc/heap/live:bytes"

func newWatchdog(liveStep uint64) *watchdog {
	return &watchdog{ctxs: map[*vmCtx]struct{}{}, liveStep: liveStep}
}

// probeLive reads the live heap and moves walkEpoch on when it grew by
// liveStep since the last mark.
func (w *watchdog) probeLive() {
	if w.liveStep == 0 {
		return
	}
	w.sample[0].Name = liveMetric
	metrics.Read(w.sample[:])
	if w.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	live := w.sample[0].Value.Uint64()
	switch {
	case live < w.liveMark:
		w.liveMark = live
	case live-w.liveMark >= w.liveStep:
		w.liveMark = live
		w.walkEpoch.Add(1)
	}
}

func (w *watchdog) add(c *vmCtx) {
	w.mu.Lock()
	w.ctxs[c] = struct{}{}
	w.mu.Unlock()
}

func (w *watchdog) remove(c *vmCtx) {
	w.mu.Lock()
	delete(w.ctxs, c)
	w.mu.Unlock()
}

// ensureRunning starts the watchdog goroutine unless it runs. Callers set
// their ctx active before calling it; the goroutine clears running before
// its final scan for active ctxs, so one of the two always sees the other.
func (w *watchdog) ensureRunning() {
	if w.running.Load() {
		return
	}
	if w.running.CompareAndSwap(false, true) {
		go w.loop()
	}
}

func (w *watchdog) loop() {
	t := time.NewTicker(watchTick)
	defer t.Stop()
	idle := 0
	for tick := 0; ; tick++ {
		<-t.C
		if w.scan(tick%allocTicks == 0) {
			if tick%liveTicks == 0 {
				w.probeLive()
			}
			idle = 0
			continue
		}
		idle++
		if idle < watchIdleTicks && !w.closed.Load() {
			continue
		}
		w.running.Store(false)
		if !w.scan(false) {
			return
		}
		// A call started meanwhile: keep running, unless another
		// goroutine already took over.
		if !w.running.CompareAndSwap(false, true) {
			return
		}
		idle = 0
	}
}

// scan checks every active call once and reports whether any was active.
func (w *watchdog) scan(probeAlloc bool) bool {
	now := time.Now()
	var alloc uint64
	allocRead := false
	readAlloc := func() uint64 {
		if !allocRead {
			w.sample[0].Name = allocMetric
			metrics.Read(w.sample[:])
			if w.sample[0].Value.Kind() == metrics.KindUint64 {
				alloc = w.sample[0].Value.Uint64()
			}
			allocRead = true
		}
		return alloc
	}
	any := false
	w.mu.Lock()
	defer w.mu.Unlock()
	for c := range w.ctxs {
		c.mu.Lock()
		if !c.active {
			c.mu.Unlock()
			continue
		}
		any = true
		c.ticks++
		if c.held {
			c.mu.Unlock()
			continue
		}
		if !c.seen {
			c.seen = true
			c.deadline = now.Add(c.timeout)
			if d, ok := c.parent.Deadline(); ok && d.Before(c.deadline) {
				c.deadline = d
			}
			if c.maxAlloc > 0 {
				c.allocStart = readAlloc()
			}
		}
		switch {
		case c.reason.Load() != reasonNone:
		case !now.Before(c.deadline):
			c.reason.Store(reasonDeadline)
		case c.parentDone != nil && chanClosed(c.parentDone):
			if c.parent.Err() == context.DeadlineExceeded {
				c.reason.Store(reasonDeadline)
			} else {
				c.reason.Store(reasonCanceled)
			}
		case probeAlloc && c.maxAlloc > 0 && readAlloc()-c.allocStart > c.maxAlloc:
			c.reason.Store(reasonMemory)
		}
		c.mu.Unlock()
	}
	return any
}

func chanClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
