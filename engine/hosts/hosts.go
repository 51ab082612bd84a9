// Package hosts holds the command-hook contracts of agent runtimes, as
// data: how a host names its events and the fields of its hook payload, and
// how it reads a hook's answer (exit code, stdout, stderr). The monad-hooks
// CLI uses it for `run --host NAME`, so that an agent calls monad-hooks as
// one of its own command hooks and gets its guards, audit and fail-closed
// rules in the agent's own convention.
//
// The hosts are "monad" (the seed's contract, the default) and "crush"
// (Charm's Crush). A Host is a value: adding a host is adding one to the
// table ([Lookup], [Names]), with its event names, payload fields, the
// agent whose tools the built-in tool table lists (package tools) and the
// functions that answer.
//
// Whatever the host, a payload that cannot be decoded, or that names an
// event the host profile does not know, is refused ([Host.Refuse]): at an
// event that can deny, with a deny the host reads as such, never with an
// exit code it reads as "proceed". A host event that has no Monad
// equivalent (but is known) proceeds with nothing to say.
//
// Everything here is immutable data and pure functions: safe for
// concurrent use.
package hosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// An Answer is what a command hook gives its host: an exit code, stdout and
// stderr.
type Answer struct {
	Exit   int
	Stdout []byte
	Stderr string
}

// A Host is the command-hook contract of one agent runtime.
type Host struct {
	// Name is what --host selects.
	Name string
	// Summary says which agent it is and what it reads, in one line.
	Summary string
	// Agent names the host's tools in the built-in tool table
	// (tools.AgentTools); "" for the seed's contract.
	Agent string
	// EventKeys are the payload keys that may name the event, in order of
	// preference.
	EventKeys []string
	// Events maps the host's event names to Monad events.
	Events map[string]events.Event
	// FoldEvents matches event names case-insensitively and without '_'
	// and '-' ("pre_tool_use" is "PreToolUse"), as the host does.
	FoldEvents bool
	// Ignored are host events with no Monad equivalent: they proceed with
	// nothing to say.
	Ignored []string
	// Fields maps payload keys to the HookInput's JSON keys
	// ("session_id" -> "sessionId"); keys not listed are dropped. Nil
	// means the payload is a HookInput as it is.
	Fields map[string]string
	// Encode answers the Result of a dispatch at ev.
	Encode func(ev events.Event, in events.Input, res engine.Result) Answer
	// Refuse answers a payload that was refused (reason says why) at ev,
	// events.Invalid when the event is unknown.
	Refuse func(ev events.Event, reason string) Answer
}

// Status says what Decode made of a payload.
type Status uint8

// The statuses of Decode.
const (
	// Decoded: the payload is a HookInput to dispatch.
	Decoded Status = iota
	// Ignored: a host event with no Monad equivalent; answer nothing.
	Ignored
	// Refused: the payload cannot be decoded or names an unknown event;
	// answer with Refuse.
	Refused
)

// Decode turns a host payload into a HookInput. want, when valid, is the
// event the command line names: a payload without an event gets it, and
// one naming another event is refused. It returns the status, the input
// (Decoded) or the event to refuse at (Refused: want, or the payload's
// event when known), and for Refused the reason.
func (h *Host) Decode(payload []byte, want events.Event) (Status, events.Input, error) {
	refuse := func(ev events.Event, format string, args ...any) (Status, events.Input, error) {
		return Refused, events.Input{Event: ev}, fmt.Errorf(format, args...)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(payload, &obj); err != nil || obj == nil {
		// Not an object: the strict decoder says what is wrong.
		_, derr := events.DecodeInput(payload)
		if derr == nil {
			derr = err
		}
		return refuse(want, "invalid input: %v", derr)
	}
	ev, name, found := want, "", false
	for _, k := range h.EventKeys {
		raw, ok := obj[k]
		if !ok || string(bytes.TrimSpace(raw)) == "null" {
			continue
		}
		if err := json.Unmarshal(raw, &name); err != nil {
			return refuse(want, "invalid input: field %s: want a string", k)
		}
		found = true
		break
	}
	if found {
		if slices.ContainsFunc(h.Ignored, func(s string) bool { return h.same(s, name) }) {
			return Ignored, events.Input{}, nil
		}
		got, ok := h.event(name)
		if !ok {
			return refuse(want, "invalid input: unknown event %q for host %s (want one of %s)", name, h.Name, strings.Join(h.eventNames(), ", "))
		}
		if want.Valid() && got != want {
			if name != got.String() {
				name += " (" + got.String() + ")"
			}
			return refuse(want, "invalid input: its event is %s, but the command line says %s", name, want)
		}
		ev = got
	}
	if !ev.Valid() {
		return refuse(events.Invalid, "invalid input: no event (the %s payload names it in %s)", h.Name, strings.Join(h.EventKeys, " or "))
	}
	out := make(map[string]json.RawMessage, len(obj)+1)
	if h.Fields == nil {
		for k, v := range obj {
			out[k] = v
		}
	} else {
		for from, to := range h.Fields {
			if v, ok := obj[from]; ok {
				out[to] = v
			}
		}
	}
	out["event"], _ = json.Marshal(ev.String())
	b, err := json.Marshal(out)
	if err != nil {
		return refuse(ev, "invalid input: %v", err)
	}
	in, err := events.DecodeInput(b)
	if err != nil {
		return refuse(ev, "invalid input: %v", err)
	}
	return Decoded, in, nil
}

func (h *Host) same(a, b string) bool {
	return a == b || h.FoldEvents && fold(a) == fold(b)
}

func fold(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

func (h *Host) event(name string) (events.Event, bool) {
	if ev, ok := h.Events[name]; ok {
		return ev, true
	}
	if h.FoldEvents {
		for n, ev := range h.Events {
			if fold(n) == fold(name) {
				return ev, true
			}
		}
	}
	return events.Invalid, false
}

func (h *Host) eventNames() []string {
	names := make([]string, 0, len(h.Events))
	for n := range h.Events {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// canDeny reports whether a refusal at ev must deny: at an event that can
// deny, and when the event is unknown (it may be one that can).
func canDeny(ev events.Event) bool {
	return !ev.Valid() || ev.Spec().Decisions.Has(events.Deny)
}

var table = []*Host{monad, crush}

// Lookup returns the host called name.
func Lookup(name string) (*Host, bool) {
	for _, h := range table {
		if h.Name == name {
			return h, true
		}
	}
	return nil, false
}

// Names returns the names of the hosts, in table order.
func Names() []string {
	out := make([]string, len(table))
	for i, h := range table {
		out[i] = h.Name
	}
	return out
}
