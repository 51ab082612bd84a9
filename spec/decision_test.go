package spec

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// TestDecisionMismatchReadsProceed: a failing case says "proceed" for the
// absent decision, never "".
func TestDecisionMismatchReadsProceed(t *testing.T) {
	deny, none := "deny", ""
	ms := check(0, &Want{Decision: &deny, Audit: []WantRecord{{Decision: &deny}}},
		engine.Result{Audit: []engine.Record{{Decision: events.Proceed}}}, nil, 0)
	if assert.Len(t, ms, 2) {
		assert.Equal(t, "step 1: decision: want deny, got proceed", ms[0].String())
		assert.Equal(t, "step 1: audit[0].decision: want deny, got proceed", ms[1].String())
	}
	ms = check(0, &Want{Decision: &none}, engine.Result{Decision: events.Ask}, nil, 0)
	if assert.Len(t, ms, 1) {
		assert.Equal(t, "step 1: decision: want proceed, got ask", ms[0].String())
	}
}
