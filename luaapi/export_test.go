package luaapi

import (
	"hash/crc32"
	"sync"
	"sync/atomic"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
	lua "github.com/yuin/gopher-lua"
)

var (
	loadCounter atomic.Int64
	firstLoads  sync.Map
)

func init() {
	testHostFuncs = map[string]lua.LGFunction{
		// goPanic panics in Go, as a buggy host function or a gopher-lua
		// internal error would.
		"goPanic": func(L *lua.LState) int {
			var m map[string]int
			m["x"] = 1
			return 0
		},
		// firstLoad(key) is true the first time it is called with key
		// in the process, false afterwards.
		"firstLoad": func(L *lua.LState) int {
			_, loaded := firstLoads.LoadOrStore(L.CheckString(1), true)
			L.Push(lua.LBool(!loaded))
			return 1
		},
		// nextCount returns 1, 2, 3... across the process.
		"nextCount": func(L *lua.LState) int {
			L.Push(lua.LNumber(loadCounter.Add(1)))
			return 1
		},
	}
}

var eventsInputLoop = events.Input{Event: events.BeforeTool, ToolName: "loop"}

// waitWarm waits until the pool's builder has nothing left to build.
func (p *Pool) waitWarm() {
	for {
		p.mu.Lock()
		building := p.building
		p.mu.Unlock()
		if !building {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// holdDeadlines makes the deadline of p's calls start at the first stop
// poll of a host function their handler runs (see watchdog.holdDeadlines).
func (p *Pool) holdDeadlines() { p.plan.wd.holdDeadlines.Store(true) }

func crc32Of(b []byte) uint32 { return crc32.ChecksumIEEE(b) }

// ranLong reports what finish would report as long, without ending the
// call.
func (c *vmCtx) ranLong() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ticks >= 2
}

// topLevels is how many scripts' top levels p's VMs ran.
func (p *Pool) topLevels() int64 { return p.plan.work.loads.Load() }
