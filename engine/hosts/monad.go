package hosts

import (
	"bytes"
	"encoding/json"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// monad is the seed's contract: the payload is a HookInput, the answer the
// Result as one line of JSON on stdout with exit 0 (the Result is also a
// valid HookOutput). A refused payload at an event that can deny is a deny
// Result (exit 0, the reason also on stderr); elsewhere it is exit 1.
var monad = &Host{
	Name:      "monad",
	Summary:   "the seed's contract: a HookInput on stdin, the Result (a valid HookOutput) on stdout",
	EventKeys: []string{"event"},
	Events: func() map[string]events.Event {
		m := map[string]events.Event{}
		for _, ev := range events.All() {
			m[ev.String()] = ev
		}
		return m
	}(),
	Encode: func(_ events.Event, _ events.Input, res engine.Result) Answer {
		return Answer{Stdout: jsonLine(res)}
	},
	Refuse: func(ev events.Event, reason string) Answer {
		if !ev.Valid() || !canDeny(ev) {
			return Answer{Exit: 1, Stderr: "monad-hooks: " + reason}
		}
		res := engine.Result{Event: ev, Decision: events.Deny, Reason: "monad-hooks refused the input, so the call is denied: " + reason}
		return Answer{Stdout: jsonLine(res), Stderr: "monad-hooks: " + reason}
	},
}

// jsonLine encodes v as one line of JSON, without HTML escaping.
func jsonLine(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(`{"error":"cannot encode the answer"}` + "\n")
	}
	return b.Bytes()
}
