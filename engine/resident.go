package engine

import (
	"strconv"
	"strings"
	"sync"

	"github.com/monad-hooks/monad-hooks/shell"
)

// Resident command hooks ("persistent": true in a hook entry) run as one
// long-lived process per hook spec speaking JSON lines (shell.Resident):
// started by the first call, restarted after a crash or a timeout, ended
// when the engine closes or when a reload drops or changes the spec. A
// reload that keeps the spec keeps the process. Calls to one process take
// turns; a call in flight on a plan that a reload replaced still gets an
// answer (from a process started for it, see shell.Resident.Close).

// residentSet holds the processes of a file source's persistent hooks by
// spec, across plan generations.
type residentSet struct {
	mu sync.Mutex
	m  map[string]*shell.Resident
}

// residentKey is the identity of a resident process: what the process is
// started with, and the timeout of its calls.
func residentKey(c shell.Command) string {
	return c.Line + "\x00" + c.Dir + "\x00" + strconv.FormatInt(int64(c.Timeout), 10) + "\x00" + strings.Join(c.Env, "\x00")
}

// get returns the Resident of c, made (not started) when the set has none.
func (rs *residentSet) get(c shell.Command) (*shell.Resident, string) {
	key := residentKey(c)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.m == nil {
		rs.m = map[string]*shell.Resident{}
	}
	r, ok := rs.m[key]
	if !ok {
		r = shell.NewResident(c)
		rs.m[key] = r
	}
	return r, key
}

// keep closes the residents of every spec g does not have: g is the plan
// now in force.
func (rs *residentSet) keep(g *generation) {
	used := map[string]bool{}
	for _, hooks := range g.byEvent {
		for _, h := range hooks {
			if h.resident != "" {
				used[h.resident] = true
			}
		}
	}
	rs.mu.Lock()
	var gone []*shell.Resident
	for key, r := range rs.m {
		if !used[key] {
			gone = append(gone, r)
			delete(rs.m, key)
		}
	}
	rs.mu.Unlock()
	for _, r := range gone {
		r.Close()
	}
}

// closeAll closes every resident (Engine.Close).
func (rs *residentSet) closeAll() {
	rs.mu.Lock()
	all := rs.m
	rs.m = nil
	rs.mu.Unlock()
	for _, r := range all {
		r.Close()
	}
}
