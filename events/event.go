package events

import (
	"fmt"
	"strconv"
)

// An Event identifies one lifecycle juncture of an agent. The zero value is
// [Invalid]; the valid events are numbered in firing order, so an Event can
// index an array of length [Count].
type Event uint8

// The thirteen lifecycle events, in firing order.
const (
	Invalid Event = iota
	SessionStart
	BeforeTurn
	BeforeModel
	BeforeTool
	ApprovalRequest
	AfterTool
	AfterModel
	BeforeCompact
	AfterCompact
	BeforeSubagent
	AfterSubagent
	AfterTurn
	SessionEnd
)

// Count is one more than the largest Event, the length of an array indexed by
// Event.
const Count = int(SessionEnd) + 1

var eventNames = [Count]string{
	Invalid:         "",
	SessionStart:    "SessionStart",
	BeforeTurn:      "BeforeTurn",
	BeforeModel:     "BeforeModel",
	BeforeTool:      "BeforeTool",
	ApprovalRequest: "ApprovalRequest",
	AfterTool:       "AfterTool",
	AfterModel:      "AfterModel",
	BeforeCompact:   "BeforeCompact",
	AfterCompact:    "AfterCompact",
	BeforeSubagent:  "BeforeSubagent",
	AfterSubagent:   "AfterSubagent",
	AfterTurn:       "AfterTurn",
	SessionEnd:      "SessionEnd",
}

// All returns the thirteen valid events in firing order. The caller owns the
// returned slice.
func All() []Event {
	out := make([]Event, 0, Count-1)
	for e := SessionStart; e <= SessionEnd; e++ {
		out = append(out, e)
	}
	return out
}

// Valid reports whether e is one of the thirteen events.
func (e Event) Valid() bool { return e > Invalid && int(e) < Count }

// String returns the event's PascalCase name ("BeforeTool"), or
// "Event(N)" for a value that is not a valid event.
func (e Event) String() string {
	if e.Valid() {
		return eventNames[e]
	}
	// not fmt: luaapi names every event at package initialisation, part of
	// every start of the CLI (BenchmarkCLIRunNoStdlib)
	return "Event(" + strconv.Itoa(int(e)) + ")"
}

// ParseEvent returns the event named s. Names are case-sensitive, exactly as
// the contract spells them. An unknown or empty name returns [Invalid] and an
// error that names it.
func ParseEvent(s string) (Event, error) {
	for e := SessionStart; e <= SessionEnd; e++ {
		if eventNames[e] == s {
			return e, nil
		}
	}
	if s == "" {
		return Invalid, fmt.Errorf("missing event name")
	}
	return Invalid, fmt.Errorf("unknown event %q", s)
}

// MarshalText encodes e as its name. It fails for an invalid event.
func (e Event) MarshalText() ([]byte, error) {
	if !e.Valid() {
		return nil, fmt.Errorf("cannot marshal invalid event %d", uint8(e))
	}
	return []byte(eventNames[e]), nil
}

// UnmarshalText decodes an event name; an unknown name is an error.
func (e *Event) UnmarshalText(b []byte) error {
	v, err := ParseEvent(string(b))
	if err != nil {
		return err
	}
	*e = v
	return nil
}
