package luaapi

import (
	"context"
	"runtime/metrics"
	"time"
)

// checkEvery is how many VM instructions run between two checks of the
// deadline and the caller's context; every allocEvery-th check also probes
// the allocation budget. gopher-lua calls Done on every instruction of a VM
// that has a context; a check costs ~20-50 ns (time.Now) and the probe
// ~0.6 µs, so a check per 256 instructions (~3-8 µs of Lua) and a probe per
// 4096 are invisible, while a run of expensive instructions (each copying a
// long vararg list, say) still stops promptly.
const (
	checkEvery = 256
	allocEvery = 16
)

// closedChan is returned by vmCtx.Done once the call must stop.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

const allocMetric = "/gc/heap/allocs:bytes"

// vmCtx is the context.Context a VM runs with during one call. It replaces
// context.WithTimeout + SetContext(ctx): gopher-lua's interpreter selects on
// ctx.Done() before every instruction, so Done is our instruction hook. It
// returns a nil channel (the select falls through at the cost of an
// interface call) until a periodic check finds the deadline passed, the
// caller's context done or the allocation budget exhausted; from then on it
// returns a closed channel, and gopher-lua raises Err() as a Lua error at
// every further instruction (so pcall cannot swallow it).
//
// A vmCtx belongs to one VM and is only used by the goroutine running that
// VM, so it needs no locking. It allocates nothing per call.
type vmCtx struct {
	parent     context.Context
	parentDone <-chan struct{}
	deadline   time.Time
	done       chan struct{}
	err        error
	n          uint32
	checks     uint32

	maxAlloc   uint64
	allocStart uint64
	sample     [1]metrics.Sample
}

// reset prepares c for a call bounded by deadline and parent.
func (c *vmCtx) reset(parent context.Context, deadline time.Time, maxAlloc uint64) {
	c.parent = parent
	c.parentDone = parent.Done()
	if d, ok := parent.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c.deadline = deadline
	c.done = nil
	c.err = nil
	c.n = 0
	c.checks = 0
	c.maxAlloc = maxAlloc
	if maxAlloc > 0 {
		c.allocStart = c.readAlloc()
	}
}

// clear drops the references to the caller's context.
func (c *vmCtx) clear() {
	c.parent = nil
	c.parentDone = nil
}

func (c *vmCtx) readAlloc() uint64 {
	c.sample[0].Name = allocMetric
	metrics.Read(c.sample[:])
	if c.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return c.sample[0].Value.Uint64()
}

func (c *vmCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *vmCtx) Done() <-chan struct{} {
	c.n++
	if c.n%checkEvery == 0 && c.err == nil {
		c.check()
	}
	return c.done
}

func (c *vmCtx) Err() error { return c.err }

func (c *vmCtx) Value(key any) any {
	if c.parent == nil {
		return nil
	}
	return c.parent.Value(key)
}

// charge makes the next instruction run a check. Host functions that did a
// lot of work in one call (a long regexp scan, a big JSON document) call it
// so that a loop of expensive builtins is stopped as promptly as a loop of
// instructions.
func (c *vmCtx) charge() {
	if c.n%checkEvery != 0 {
		c.n |= checkEvery - 1
	}
}

// check stops the call when its deadline passed, the caller's context is
// done or the allocation budget is exhausted.
func (c *vmCtx) check() {
	if c.err != nil {
		return
	}
	if !time.Now().Before(c.deadline) {
		c.stop(context.DeadlineExceeded)
		return
	}
	if c.parentDone != nil {
		select {
		case <-c.parentDone:
			err := c.parent.Err()
			if err == nil {
				err = context.Canceled
			}
			c.stop(err)
			return
		default:
		}
	}
	c.checks++
	if c.maxAlloc > 0 && c.checks%allocEvery == 0 && c.readAlloc()-c.allocStart > c.maxAlloc {
		c.stop(ErrMemory)
	}
}

func (c *vmCtx) stop(err error) {
	c.err = err
	c.done = closedChan
}
