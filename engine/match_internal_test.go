package engine

import (
	"fmt"
	"sync"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

// TestMatchCache: the direct-mapped front of the match cache and its map
// agree with the matchers and the per-dispatch dedup, for names that share a
// slot, the empty name, and past maxMatchCache names, in any order and
// concurrently.
func TestMatchCache(t *testing.T) {
	specs := []hookSpec{
		{tier: TierAtom, kind: "go", id: "go:a", event: events.BeforeTool, matcher: "^tool_1[0-9]*$"},
		{tier: TierAtom, kind: "go", id: "go:b", event: events.BeforeTool, matcher: "5$"},
		{tier: TierAtom, kind: "go", id: "go:c", event: events.BeforeTool, matcher: ""},
		{tier: TierUser, kind: "command", id: "x1", event: events.BeforeTool, matcher: "^tool_2", dedup: "x"},
		{tier: TierUser, kind: "command", id: "x2", event: events.BeforeTool, matcher: "^tool_[23]", dedup: "x"},
		{tier: TierAtom, kind: "go", id: "go:d", event: events.AfterModel, matcher: "^never$"},
	}
	g, errs := compile(specs, nil)
	if errs != nil {
		t.Fatal(errs)
	}
	names := []string{"", "a", "b", "ab", "ba", "bash", "Bash", "hsab", "tool_1", "tool_15", "tool_5"}
	for i := range maxMatchCache + 50 {
		names = append(names, fmt.Sprintf("tool_%d", i))
	}
	want := func(name string) []string {
		var ids []string
		x := false
		for _, h := range g.byEvent[events.BeforeTool] {
			if h.re == nil || h.re.MatchString(name) {
				if h.dedup == "x" {
					if x {
						continue // x1 ran
					}
					x = true
				}
				ids = append(ids, h.id)
			}
		}
		return ids
	}
	check := func(name string) error {
		got := g.match(events.BeforeTool, name)
		w := want(name)
		if len(got) != len(w) {
			return fmt.Errorf("match(%q) = %d hooks, want %v", name, len(got), w)
		}
		for i, h := range got {
			if h.id != w[i] {
				return fmt.Errorf("match(%q)[%d] = %s, want %s", name, i, h.id, w[i])
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	errc := make(chan error, 4)
	for w := range 4 {
		wg.Go(func() {
			for round := range 3 {
				for i := range names {
					name := names[(i*(w+1)+round)%len(names)]
					if err := check(name); err != nil {
						select {
						case errc <- err:
						default:
						}
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	if n := len(g.cache[events.BeforeTool].all); n != maxMatchCache {
		t.Errorf("the cache remembers %d names, want the bound %d", n, maxMatchCache)
	}
	// Events that are not tool-scoped ignore matchers and the cache.
	if got := g.match(events.AfterModel, "x"); len(got) != 1 || g.cache[events.AfterModel].all != nil {
		t.Errorf("AfterModel: %d hooks, cache %v", len(got), g.cache[events.AfterModel].all != nil)
	}
}
