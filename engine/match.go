package engine

import (
	"maps"
	"sync"
	"sync/atomic"

	"github.com/monad-hooks/monad-hooks/events"
)

// maxMatchCache bounds how many tool names a generation remembers the
// matching hooks of, per event. Agents use a small, fixed set of tools; past
// the bound matchers simply run on every call.
const maxMatchCache = 512

// matchSlots is the size of a matchTable's direct-mapped front (a power of
// two).
const matchSlots = 64

// matchCache remembers, per tool name, which hooks of a tool-scoped event
// match it, so that the dispatch path runs no regular expression for a tool
// it has seen. Reads are one atomic load and, for most names, one slot of a
// direct-mapped table (no hashing of the name); a miss builds a new table
// (copy on write, rare).
type matchCache struct {
	t  atomic.Pointer[matchTable]
	mu sync.Mutex
}

// matchTable is one immutable version of a matchCache.
type matchTable struct {
	// slots holds, at slotOf(name), the first name remembered there: a
	// lookup compares one string instead of hashing it into all.
	slots [matchSlots]matchEntry
	// all holds every name remembered, slots included.
	all map[string][]*hook
}

type matchEntry struct {
	name  string
	hooks []*hook
	ok    bool
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

// match returns the hooks of ev that match toolName, in plan order. The
// returned slice is shared and must not be modified.
func (g *generation) match(ev events.Event, toolName string) []*hook {
	hooks := g.byEvent[ev]
	if len(hooks) == 0 || !toolScoped[ev] {
		return hooks
	}
	c := &g.cache[ev]
	if t := c.t.Load(); t != nil {
		if s := &t.slots[slotOf(toolName)]; s.ok && s.name == toolName {
			return s.hooks
		}
		if hs, ok := t.all[toolName]; ok {
			return hs
		}
	}
	return c.miss(ev, hooks, toolName)
}

// miss runs the matchers of hooks on toolName and remembers the result
// (while fewer than maxMatchCache names are remembered).
func (c *matchCache) miss(ev events.Event, hooks []*hook, toolName string) []*hook {
	spec := ev.Spec()
	var hs []*hook
	for _, h := range hooks {
		if h.matches(spec, toolName) {
			hs = append(hs, h)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.t.Load()
	next := &matchTable{all: make(map[string][]*hook, 1)}
	if old != nil {
		if known, ok := old.all[toolName]; ok {
			return known // remembered by a concurrent miss
		}
		if len(old.all) >= maxMatchCache {
			return hs
		}
		next.slots = old.slots
		next.all = maps.Clone(old.all)
	}
	next.all[toolName] = hs
	if s := &next.slots[slotOf(toolName)]; !s.ok {
		*s = matchEntry{name: toolName, hooks: hs, ok: true}
	}
	c.t.Store(next)
	return hs
}
