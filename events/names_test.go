package events

import "testing"

// TestNames: the thirteen events in firing order.
func TestNames(t *testing.T) {
	if got := Names(); len(got) != Count-1 || got[0] != "SessionStart" || got[len(got)-1] != "SessionEnd" {
		t.Errorf("Names() = %v", got)
	}
}

// TestInvalidEventString: a value that is no event prints as Event(n).
func TestInvalidEventString(t *testing.T) {
	for e, want := range map[Event]string{Invalid: "Event(0)", Event(200): "Event(200)", Event(255): "Event(255)"} {
		if got := e.String(); got != want {
			t.Errorf("Event(%d).String() = %q, want %q", uint8(e), got, want)
		}
	}
}
