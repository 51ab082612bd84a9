package hosts

import (
	"github.com/monad-hooks/monad-hooks/events"
)

// newMonad builds the host of the seed's contract: the payload is a HookInput, the answer the
// Result as one line of JSON on stdout with exit 0 (the Result is also a
// valid HookOutput). A refused payload at an event that can deny is a deny
// Result (exit 0, the reason also on stderr); elsewhere it is exit 1.
func newMonad() *Host {
	h := &Host{
		Name:      "monad",
		Summary:   "the seed's contract: a HookInput on stdin, the Result (a valid HookOutput) on stdout",
		EventKeys: []string{"event"},
		Events: func() []Event {
			var out []Event
			for _, ev := range events.All() {
				out = append(out, Event{Name: ev.String(), Monad: ev})
			}
			return out
		}(),
		raw: true,
	}
	// The monad host answers with the whole Result, which the CLI prints
	// itself; Encode and Refuse give the HookOutput part.
	h.encode = func(c *Call, out events.Output) Answer {
		return Answer{Stdout: jsonLine(monadResult{Event: c.Input.Event, Output: out})}
	}
	return h
}

// monadResult is the leading part of an engine Result.
type monadResult struct {
	Event events.Event `json:"event"`
	events.Output
}
