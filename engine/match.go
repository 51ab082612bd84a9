package engine

import (
	"sync"
	"sync/atomic"

	"github.com/monad-hooks/monad-hooks/events"
)

// maxMatchCache bounds how many tool names a generation remembers the
// matching hooks of, per event. Agents use a small, fixed set of tools; past
// the bound matchers simply run on every call.
const maxMatchCache = 512

// matchSlots is the size of a matchCache's direct-mapped front (a power of
// two).
const matchSlots = 64

// matchCache remembers, per tool name, which hooks of a tool-scoped event
// run for it (matched, then deduplicated), so that the dispatch path runs no
// regular expression for a tool it has seen.
type matchCache struct {
	// slots is a direct-mapped front: a lookup is one atomic load and one
	// string comparison, with no hashing and no lock
	// (BenchmarkDispatchFastPath, BenchmarkParallelFastPath).
	slots [matchSlots]atomic.Pointer[matchEntry]
	mu    sync.RWMutex
	all   map[string]*matchEntry // every name remembered, slots included
}

// matchEntry is the immutable answer for one tool name.
type matchEntry struct {
	name  string
	hooks []*hook
}

// slotOf is a cheap hash of a tool name: its length and its first and last
// bytes, which tell apart most of the few names an agent uses.
func slotOf(name string) int {
	n := len(name)
	if n == 0 {
		return 0
	}
	return (n*31 + int(name[0])*7 + int(name[n-1])) & (matchSlots - 1)
}

// toolScoped[ev] is ev.Spec().Matcher, read on the dispatch path without
// copying the Spec.
var toolScoped = func() (t [events.Count]bool) {
	for _, s := range events.Specs() {
		t[s.Event] = s.Matcher
	}
	return t
}()

// match returns the hooks of ev that run for toolName, in plan order: those
// whose matcher matches, with identical command specs once, in the place of
// the first that matched. The returned slice is shared and must not be
// modified.
func (g *generation) match(ev events.Event, toolName string) []*hook {
	if !toolScoped[ev] {
		return g.always[ev]
	}
	if len(g.byEvent[ev]) == 0 {
		return nil
	}
	c := &g.cache[ev]
	if e := c.slots[slotOf(toolName)].Load(); e != nil && e.name == toolName {
		return e.hooks
	}
	c.mu.RLock()
	e := c.all[toolName]
	c.mu.RUnlock()
	if e != nil {
		return e.hooks
	}
	return g.miss(ev, toolName)
}

// miss runs the matchers of ev's hooks on toolName and remembers the result
// (while fewer than maxMatchCache names are remembered).
func (g *generation) miss(ev events.Event, toolName string) []*hook {
	spec := ev.Spec()
	var hs []*hook
	for _, h := range g.byEvent[ev] {
		if h.matches(spec, toolName) {
			hs = append(hs, h)
		}
	}
	hs = dedup(hs, g.groups[ev])
	c := &g.cache[ev]
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.all[toolName]; e != nil {
		return e.hooks // remembered by a concurrent miss
	}
	if len(c.all) >= maxMatchCache {
		return hs
	}
	if c.all == nil {
		c.all = make(map[string]*matchEntry)
	}
	e := &matchEntry{name: toolName, hooks: hs}
	c.all[toolName] = e
	c.slots[slotOf(toolName)].CompareAndSwap(nil, e)
	return hs
}
