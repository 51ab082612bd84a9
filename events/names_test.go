package events

import "testing"

// TestNames: the thirteen events in firing order.
func TestNames(t *testing.T) {
	if got := Names(); len(got) != Count-1 || got[0] != "SessionStart" || got[len(got)-1] != "SessionEnd" {
		t.Errorf("Names() = %v", got)
	}
}
