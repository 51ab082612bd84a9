package engine

import (
	"sync"

	"github.com/monad-hooks/monad-hooks/events"
)

// SessionState is what the engine keeps per session between dispatches: the
// context stashed at SessionStart for the first BeforeTurn, and the number of
// consecutive AfterTurn continuations so far.
type SessionState struct {
	Context       string `json:"context,omitempty"`
	StopContinues int    `json:"stopContinues,omitempty"`
}

func (s SessionState) empty() bool { return s.Context == "" && s.StopContinues == 0 }

// sessions holds SessionState by session id, bounded: past max, the oldest
// session's state is dropped. Only the session events touch it.
type sessions struct {
	mu  sync.Mutex
	m   map[string]*sessionEntry
	seq uint64
	max int
}

type sessionEntry struct {
	SessionState
	seq uint64
}

func (s *sessions) init(max int, seed map[string]SessionState) {
	s.max = max
	s.m = make(map[string]*sessionEntry, len(seed))
	for id, st := range seed {
		if !st.empty() {
			s.set(id, st)
		}
	}
}

func (s *sessions) get(id string) SessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.m[id]; e != nil {
		return e.SessionState
	}
	return SessionState{}
}

// update applies fn to the state of id and stores the result; an empty state
// is deleted.
func (s *sessions) update(id string, fn func(*SessionState)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st SessionState
	if e := s.m[id]; e != nil {
		st = e.SessionState
	}
	fn(&st)
	s.setLocked(id, st)
}

// takeContext returns the context stashed for id and clears it, at once.
func (s *sessions) takeContext(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.m[id]
	if e == nil || e.Context == "" {
		return ""
	}
	st := e.SessionState
	stash := st.Context
	st.Context = ""
	s.setLocked(id, st)
	return stash
}

// continueOnce counts one more continuation of id and reports true, or, when
// id has reached max, resets its count and reports false (the continuation
// is capped), at once.
func (s *sessions) continueOnce(id string, max int) (ok bool) {
	s.update(id, func(st *SessionState) {
		if ok = st.StopContinues < max; ok {
			st.StopContinues++
		} else {
			st.StopContinues = 0
		}
	})
	return ok
}

// resetContinues sets the continuation count of id to 0.
func (s *sessions) resetContinues(id string) {
	s.update(id, func(st *SessionState) { st.StopContinues = 0 })
}

func (s *sessions) set(id string, st SessionState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setLocked(id, st)
}

func (s *sessions) setLocked(id string, st SessionState) {
	e := s.m[id]
	if st.empty() {
		if e != nil {
			delete(s.m, id)
		}
		return
	}
	if e == nil {
		if len(s.m) >= s.max {
			s.evictOldestLocked()
		}
		s.seq++
		e = &sessionEntry{seq: s.seq}
		s.m[id] = e
	}
	e.SessionState = st
}

func (s *sessions) evictOldestLocked() {
	var oldest string
	var min uint64
	first := true
	for id, e := range s.m {
		if first || e.seq < min {
			oldest, min, first = id, e.seq, false
		}
	}
	if !first {
		delete(s.m, oldest)
	}
}

func (s *sessions) drop(id string) {
	s.set(id, SessionState{})
}

func (s *sessions) snapshot() map[string]SessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]SessionState, len(s.m))
	for id, e := range s.m {
		out[id] = e.SessionState
	}
	return out
}

// SessionState returns a copy of the state the engine keeps for every session,
// for hosts that persist it across processes (see [WithSessionState]). The
// caller owns the map.
func (e *Engine) SessionState() map[string]SessionState {
	return e.sessions.snapshot()
}

// before sets what the hooks of in see of its session: at AfterTurn, the
// number of continuations so far.
func (s *sessions) before(in *events.Input) {
	if in.Event == events.AfterTurn {
		in.StopContinues = s.get(in.SessionID).StopContinues
	}
}

// after applies the session rules once the hooks of in ran: the
// SessionStart stash (unless the host takes the context at SessionStart:
// atStart), its injection into the first BeforeTurn, the maxStopContinues
// bound and the SessionEnd cleanup. Each rule reads and writes the session's
// state at once, under the lock.
func (s *sessions) after(in *events.Input, res *Result, maxStopContinues int, atStart bool) {
	switch in.Event {
	case events.SessionStart:
		if res.AdditionalContext != "" && !atStart {
			ctx := res.AdditionalContext
			res.AdditionalContext = ""
			s.update(in.SessionID, func(st *SessionState) { st.Context, _ = joinContext(st.Context, ctx) })
		}
	case events.BeforeTurn:
		if res.Decision == events.Deny {
			return // the stash waits for the first turn that runs
		}
		// Taken and cleared at once: of concurrent turns, one gets it.
		if stash := s.takeContext(in.SessionID); stash != "" {
			res.AdditionalContext, _ = joinContext(stash, res.AdditionalContext)
		}
	case events.AfterTurn:
		if res.ContinueWork == nil {
			s.resetContinues(in.SessionID)
			return
		}
		// The count is read and bumped at once, so that concurrent turns
		// of a session never lose one; the hooks saw it as it was when
		// the dispatch started.
		if !s.continueOnce(in.SessionID, maxStopContinues) {
			res.ContinueWork = nil
			for i := len(res.Audit) - 1; i >= 0; i-- {
				if r := &res.Audit[i]; hasField(r.Fields, "continueWork") && !hasField(r.Ignored, "continueWork") {
					r.Capped = true
					r.Ignored = append(r.Ignored, "continueWork")
					break
				}
			}
		}
	case events.SessionEnd:
		s.drop(in.SessionID)
	}
}

// sessionEvents are the events whose dispatch touches session state even
// without a hook.
var sessionEvents = [events.Count]bool{
	events.SessionStart: true, events.BeforeTurn: true, events.AfterTurn: true, events.SessionEnd: true,
}

func sessionEvent(ev events.Event) bool { return int(ev) < len(sessionEvents) && sessionEvents[ev] }

// ChangesSessionState reports whether a dispatch of ev may read or change the
// state the engine keeps per session (SessionStart, BeforeTurn, AfterTurn and
// SessionEnd do): a host that persists [Engine.SessionState] across processes
// needs to load it before, and save it after, only those dispatches.
func ChangesSessionState(ev events.Event) bool { return sessionEvent(ev) }
