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

// matchCache remembers, per tool name, which hooks of a tool-scoped event
// match it, so that the dispatch path runs no regular expression for a tool
// it has seen. Reads are one atomic load and a map lookup; a miss builds a
// new map (copy on write, rare).
type matchCache struct {
	m  atomic.Pointer[map[string][]*hook]
	mu sync.Mutex
}

// match returns the hooks of ev that match toolName, in plan order. The
// returned slice is shared and must not be modified.
func (g *generation) match(ev events.Event, toolName string) []*hook {
	hooks := g.byEvent[ev]
	if len(hooks) == 0 || !ev.Spec().Matcher {
		return hooks
	}
	c := &g.cache[ev]
	if m := c.m.Load(); m != nil {
		if hs, ok := (*m)[toolName]; ok {
			return hs
		}
	}
	spec := ev.Spec()
	var hs []*hook
	for _, h := range hooks {
		if h.matches(spec, toolName) {
			hs = append(hs, h)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	if old == nil || len(*old) < maxMatchCache {
		next := make(map[string][]*hook, 1)
		if old != nil {
			next = maps.Clone(*old)
		}
		next[toolName] = hs
		c.m.Store(&next)
	}
	return hs
}
