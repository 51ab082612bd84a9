// Package hosts holds the command-hook contracts of agent runtimes, as
// data: how a host names its events and the fields of its hook payload, and
// how it reads a hook's answer (exit code, stdout, stderr). It serves both
// directions:
//
//   - monad-hooks as the host's hook (`run --host NAME`, `serve --host
//     NAME`): [Host.Decode] turns the host's payload into a HookInput, and
//     [Host.Encode] answers the dispatch's outcome in the host's convention;
//   - the host's own hook scripts under monad-hooks (a command hook with
//     "input": "NAME" in agents.json): [Host.Payload] gives such a script
//     the payload it was written for, and [Host.Interpret] reads its answer
//     as a HookOutput, so that scripts written for Claude Code, Gemini CLI,
//     Codex, Cursor or Crush run unchanged.
//
// The hosts are "monad" (the seed's contract, the default), "claude-code",
// "gemini-cli", "codex", "cursor" and "crush" ([Lookup], [Names]). A Host is
// a value: its events (each host event with its Monad event, or none), the
// payload fields of each, the agent whose tools the built-in tool table
// lists (package tools: the guards know the host's tool names, so nothing is
// renamed) and the functions that answer. [Host.Notes] says, a line each,
// what the host cannot express and how monad-hooks degrades it (`monad-hooks
// help hosts` prints them): an ask where the host has none becomes its deny
// with a reason, a rewrite it cannot apply a deny that says so, never a
// silent proceed.
//
// Whatever the host, a payload that cannot be decoded, or that names an
// event the host profile does not know, is refused ([Host.Refuse]): at an
// event that can deny, with a deny the host reads as such, never with an
// exit code it reads as "proceed". A host event that has no Monad
// equivalent (but is known) proceeds with nothing to say ([Ignored]).
//
// Everything here is immutable data and pure functions: safe for
// concurrent use.
package hosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/shell"
)

// An Answer is what a command hook gives its host: an exit code, stdout and
// stderr.
type Answer struct {
	Exit   int
	Stdout []byte
	Stderr string
}

// An Event is one hook event of a host.
type Event struct {
	// Name is the host's name of the event.
	Name string
	// Monad is the Monad event it maps to; events.Invalid for a host event
	// with no Monad equivalent (it proceeds with nothing to say).
	Monad events.Event
	// Note says what of the event does not carry over, if anything.
	Note string

	fields  []field // the event's payload fields, beyond the host's common ones
	tool    string  // the tool name of a payload that names none (Cursor's beforeShellExecution)
	failure bool    // the event reports a tool call that failed (Input.OK false)
}

// A Host is the command-hook contract of one agent runtime.
type Host struct {
	// Name is what --host and "input" select.
	Name string
	// Summary says which agent it is and how it calls hooks, in one line.
	Summary string
	// Agent names the host's tools in the built-in tool table
	// (tools.AgentTools); "" for the seed's contract.
	Agent string
	// EventKeys are the payload keys that may name the event, in order of
	// preference.
	EventKeys []string
	// Events are the host's events, in the order of its documentation. The
	// first one of a Monad event is the one a command hook of that event
	// gets (see [Host.EventFor]).
	Events []Event
	// FoldEvents matches event names case-insensitively and without '_'
	// and '-' ("pre_tool_use" is "PreToolUse"), as the host does.
	FoldEvents bool
	// Notes say, a line each, what the host's hooks cannot express and how
	// monad-hooks answers instead.
	Notes []string
	// JSONAnswers reports that every answer the host reads is JSON on stdout
	// with exit 0, but for the refusal of a payload naming no known event
	// (exit 2, a block every host reads, with the same block as JSON on
	// stdout): what serve --host answers with. Crush reads a deny from exit
	// 2 only.
	JSONAnswers bool
	// ContextAtStart reports that the host's SessionStart hook hands context
	// to the model itself (engine.WithSessionContextAtStart).
	ContextAtStart bool
	// Silence is what the host reads as "nothing to say": empty, or "{}"
	// for a host that may read an empty stdout as invalid JSON (Cursor,
	// whose failClosed blocks on invalid JSON).
	Silence []byte

	projectEnv []string // the variables that name the project folder to the host's hooks
	common     []field  // payload fields of every event
	raw        bool     // the payload is a HookInput as it is (monad)
	encode     func(c *Call, out events.Output) Answer
	block      func(reason string) map[string]any // a block at an unknown event, as JSON
	read       func(ev *Event, in *events.Input, exit int, stdout, stderr []byte) (events.Output, error)
	payload    func(ev *Event, in *events.Input, obj map[string]any)
	callEnv    func(ev *Event, in *events.Input) []string // variables that carry the call, beyond the payload
}

// Nothing is the answer that says nothing (exit 0, Silence on stdout): for
// a payload of an event with no Monad equivalent, and for no opinion.
func (h *Host) Nothing() Answer {
	return Answer{Stdout: h.Silence}
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

// A Call is a decoded payload.
type Call struct {
	Status Status
	// Event is the host's event; its Name is "" when the payload named no
	// event the host knows.
	Event Event
	// Input is the HookInput (Decoded); for Refused its Event is the event
	// to refuse at (events.Invalid when unknown). At AfterTurn its
	// StopContinues holds the host's own count of continuations, when the
	// payload gives one (Claude Code's stop_hook_active, Cursor's
	// loop_count): the engine replaces it with its own, which a one-shot
	// run may seed with it.
	Input events.Input
	// Raw is the payload object; nil when the payload was not one.
	Raw map[string]json.RawMessage
	// Err says why the payload was refused.
	Err error
}

// reencodes counts the raw payloads input encoded again (export_test.go).
var reencodes atomic.Int64

// rawEventIs reports whether raw is name as a JSON string without escapes.
func rawEventIs(raw json.RawMessage, name string) bool {
	return len(raw) == len(name)+2 && raw[0] == '"' && raw[len(raw)-1] == '"' && string(raw[1:len(raw)-1]) == name
}

// Decode turns a host payload into a HookInput. want, when valid, is the
// event the command line names: a payload without an event gets it (at the
// host's first event for it), and one naming another event is refused.
func (h *Host) Decode(payload []byte, want events.Event) Call {
	c := Call{Status: Refused, Input: events.Input{Event: want}}
	refuse := func(format string, args ...any) Call {
		c.Status, c.Err = Refused, fmt.Errorf(format, args...)
		return c
	}
	// Split by hand, and the event name too: a run pages in none of
	// encoding/json's decoder (BenchmarkCLIRunNoStdlib).
	raw, err := events.DecodeObject(payload)
	if err != nil {
		// Not an object: the error is the strict decoder's.
		return refuse("invalid input: %v", err)
	}
	c.Raw = raw
	name, found := "", false
	for _, k := range h.EventKeys {
		raw, ok := c.Raw[k]
		if !ok || isNull(raw) {
			continue
		}
		v, err := events.DecodeValue(raw)
		s, ok := v.(string)
		if err != nil || !ok {
			return refuse("invalid input: field %s: want a string", k)
		}
		name, found = s, true
		break
	}
	switch {
	case found:
		ev, ok := h.lookup(name)
		if !ok {
			return refuse("invalid input: unknown event %q for host %s (want one of %s)", name, h.Name, strings.Join(h.eventNames(), ", "))
		}
		c.Event = ev
		if ev.Monad == events.Invalid {
			c.Status = Ignored
			return c
		}
		if want.Valid() && ev.Monad != want {
			if name != ev.Monad.String() {
				name += " (" + ev.Monad.String() + ")"
			}
			return refuse("invalid input: its event is %s, but the command line says %s", name, want)
		}
		c.Input.Event = ev.Monad
	case want.Valid():
		ev, ok := h.EventFor(want, "")
		if !ok {
			return refuse("invalid input: host %s has no event for %s", h.Name, want)
		}
		c.Event = ev
	default:
		c.Input.Event = events.Invalid
		return refuse("invalid input: no event (the %s payload names it in %s)", h.Name, strings.Join(h.EventKeys, " or "))
	}
	in, err := h.input(&c.Event, c.Raw, payload)
	if err != nil {
		return refuse("invalid input: %v", err)
	}
	c.Status, c.Input = Decoded, in
	return c
}

// input builds the HookInput of a payload at ev; obj is payload's members.
func (h *Host) input(ev *Event, obj map[string]json.RawMessage, payload []byte) (events.Input, error) {
	if h.raw {
		if rawEventIs(obj["event"], ev.Monad.String()) {
			// The payload already names ev as the HookInput does: decoding it
			// again after re-encoding obj would decode the same members
			// (BenchmarkCLIRunNoStdlib).
			return events.DecodeInput(payload)
		}
		reencodes.Add(1)
		out := make(map[string]json.RawMessage, len(obj)+1)
		for k, v := range obj {
			out[k] = v
		}
		out["event"], _ = json.Marshal(ev.Monad.String())
		b, err := json.Marshal(out)
		if err != nil {
			return events.Input{}, err
		}
		return events.DecodeInput(b)
	}
	in := events.Input{Event: ev.Monad, ToolName: ev.tool}
	if ev.failure {
		failed := false
		in.OK = &failed
	}
	set := map[string]bool{}
	for _, fs := range [][]field{h.common, ev.fields} {
		for _, f := range fs {
			raw, ok := obj[f.key]
			if !ok || isNull(raw) || set[f.to] {
				continue
			}
			ok, err := f.decode(&in, raw)
			if err != nil {
				return in, fmt.Errorf("field %s: %w", f.key, err)
			}
			set[f.to] = ok
		}
	}
	if err := in.Validate(); err != nil {
		return in, err
	}
	return in, nil
}

// Encode answers the outcome of the dispatch of c (a Decoded Call) in the
// host's convention: out is the Result's decision, reason, context and
// honoured rewrites (engine.Result.Output).
func (h *Host) Encode(c Call, out events.Output) Answer {
	return h.encode(&c, out)
}

// Refuse answers a payload that was refused, or could not be dispatched
// (reason says why): at an event that can deny, and at an unknown event
// (which may be one), with a deny the host reads as such; elsewhere with
// exit 1 and the reason on stderr.
func (h *Host) Refuse(c Call, reason string) Answer {
	ev := c.Input.Event
	if ev.Valid() && !canDeny(ev) || h.raw && !ev.Valid() {
		return Answer{Exit: 1, Stderr: "monad-hooks: " + oneLine(reason) + "\n"}
	}
	why := "monad-hooks refused the hook input, so the call is blocked: " + oneLine(reason)
	if ev.Valid() && c.Event.Monad != ev {
		c.Event, _ = h.EventFor(ev, "")
	}
	if !ev.Valid() || c.Event.Monad != ev {
		// No host event to answer at: exit 2, which every host reads as a
		// block, and the same as JSON for the hosts that read it.
		a := Answer{Exit: 2, Stderr: why + "\n"}
		if h.block != nil {
			a.Stdout = jsonLine(h.block(why))
		}
		return a
	}
	a := h.encode(&c, events.Output{Decision: events.Deny, Reason: why})
	a.Stderr = "monad-hooks: " + oneLine(reason) + "\n"
	return a
}

// Env returns the environment variables the host gives its hooks, for a
// hook written for it at its event ev with the HookInput in: the project
// folder (CLAUDE_PROJECT_DIR=root, ...; none when root is "") and, for
// hosts that pass the call in variables too (Crush's CRUSH_TOOL_NAME,
// CRUSH_TOOL_INPUT_COMMAND, ...), those.
func (h *Host) Env(ev Event, in events.Input, root string) []string {
	var out []string
	if root != "" {
		for _, k := range h.projectEnv {
			out = append(out, k+"="+root)
		}
	}
	if h.callEnv != nil {
		out = append(out, h.callEnv(&ev, &in)...)
	}
	return out
}

// EventFor returns the host event a command hook of the Monad event ev
// gets: the one called name, which must map to ev, or for "" the host's
// first event for ev.
func (h *Host) EventFor(ev events.Event, name string) (Event, bool) {
	for _, e := range h.Events {
		if e.Monad == ev && (name == "" || e.Name == name) {
			return e, true
		}
	}
	return Event{}, false
}

// Payload returns the stdin of a command hook written for this host, at its
// event ev (from EventFor), for the HookInput in: the host's event name and
// payload fields, as far as in carries them (fields only the host knows,
// such as a transcript path, are absent).
func (h *Host) Payload(ev Event, in events.Input) ([]byte, error) {
	if h.raw {
		return json.Marshal(in)
	}
	obj := map[string]any{}
	if len(h.EventKeys) > 0 {
		obj[h.EventKeys[0]] = ev.Name
	}
	for _, fs := range [][]field{ev.fields, h.common} {
		for _, f := range fs {
			if _, done := obj[f.key]; done {
				continue
			}
			if v, ok := f.encode(&in); ok {
				obj[f.key] = v
			}
		}
	}
	if h.payload != nil {
		h.payload(&ev, &in, obj)
	}
	return json.Marshal(obj)
}

// Interpret reads what a command hook written for this host did, at its
// event ev for the HookInput in, as a HookOutput, by the host's rules. A
// hook that could not start, timed out, was killed, overran its output
// caps or exited with a code the host reads as a failure is an error, as
// for any command hook (shell.Interpret): whether it blocks is the engine's
// onError. The Output is validated.
func (h *Host) Interpret(ev Event, in events.Input, r shell.Result, runErr error) (events.Output, error) {
	if h.raw || h.read == nil {
		return shell.Interpret(r, runErr)
	}
	if runErr != nil || r.Signal != "" || r.ExitCode < 0 || r.ExitCode == 0 && (r.StdoutTruncated || r.StderrTruncated) {
		return shell.Interpret(r, runErr)
	}
	out, err := h.read(&ev, &in, r.ExitCode, r.Stdout, r.Stderr)
	if err != nil {
		return events.Output{}, err
	}
	if err := out.Validate(); err != nil {
		return events.Output{}, fmt.Errorf("%w: %w", shell.ErrInvalidOutput, err)
	}
	return out, nil
}

// errOtherExit reads an exit code the host takes for a failure, through
// shell.Interpret (an error matching shell.ErrExit that quotes stderr).
func errOtherExit(exit int, stderr []byte) error {
	_, err := shell.Interpret(shell.Result{ExitCode: exit, Stderr: stderr}, nil)
	if err == nil {
		err = fmt.Errorf("%w: exit status %d", shell.ErrExit, exit)
	}
	return err
}

// stderrReason is the reason of an exit-2 block: stderr, trimmed and
// bounded as shell.Interpret bounds it.
func stderrReason(stderr []byte) string {
	out, _ := shell.Interpret(shell.Result{ExitCode: 2, Stderr: stderr}, nil)
	return out.Reason
}

// Lookup finds the host event called name (case-insensitively and without
// '_' and '-' for a host that folds event names).
func (h *Host) Lookup(name string) (Event, bool) {
	return h.lookup(name)
}

// lookup finds the host event called name.
func (h *Host) lookup(name string) (Event, bool) {
	for _, e := range h.Events {
		if e.Name == name {
			return e, true
		}
	}
	if h.FoldEvents {
		for _, e := range h.Events {
			if fold(e.Name) == fold(name) {
				return e, true
			}
		}
	}
	return Event{}, false
}

func fold(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

func (h *Host) eventNames() []string {
	names := make([]string, 0, len(h.Events))
	for _, e := range h.Events {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	return names
}

// canDeny reports whether a refusal at ev must deny: at an event that can
// deny, and when the event is unknown (it may be one that can).
func canDeny(ev events.Event) bool {
	return !ev.Valid() || ev.Spec().Decisions.Has(events.Deny)
}

// table lists the hosts, in order. Each is built on its first lookup, so
// that a run builds the one it answers for and the package has no
// initialisation work (BenchmarkCLIRunNoStdlib).
var table = [...]lazyHost{
	{name: "monad", build: newMonad},
	{name: "claude-code", build: newClaudeCode},
	{name: "gemini-cli", build: newGeminiCLI},
	{name: "codex", build: newCodex},
	{name: "cursor", build: newCursor},
	{name: "crush", build: newCrush},
}

// A lazyHost is a host of the table, built once, on first use.
type lazyHost struct {
	name  string // the Name of what build returns
	build func() *Host
	once  sync.Once
	h     *Host
}

// hostsBuilt counts the hosts built (tests).
var hostsBuilt atomic.Int64

func (l *lazyHost) host() *Host {
	l.once.Do(func() {
		l.h = l.build()
		hostsBuilt.Add(1)
	})
	return l.h
}

// all returns every host, in table order.
func all() []*Host {
	out := make([]*Host, len(table))
	for i := range table {
		out[i] = table[i].host()
	}
	return out
}

// Lookup returns the host called name.
func Lookup(name string) (*Host, bool) {
	for i := range table {
		if table[i].name == name {
			return table[i].host(), true
		}
	}
	return nil, false
}

// Names returns the names of the hosts, in table order.
func Names() []string {
	out := make([]string, len(table))
	for i := range table {
		out[i] = table[i].name
	}
	return out
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

// answerJSON is the answer of a JSON host: m on stdout, or silence when m
// says nothing.
func answerJSON(m map[string]any) Answer {
	if len(m) == 0 {
		return Answer{}
	}
	return Answer{Stdout: jsonLine(m)}
}

// answerHSO is answerJSON with hso, when it says anything, as m's
// hookSpecificOutput for the host event named event.
func answerHSO(m, hso map[string]any, event string) Answer {
	if len(hso) > 0 {
		hso["hookEventName"] = event
		m["hookSpecificOutput"] = hso
	}
	return answerJSON(m)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// errNotJSON marks a stdout that is not one JSON object.
var errNotJSON = errors.New("stdout is not a JSON object")

// object decodes a hook's stdout as one JSON object; blank stdout is nil
// and no error.
func object(stdout []byte) (map[string]json.RawMessage, error) {
	b := bytes.TrimSpace(stdout)
	if len(b) == 0 {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if b[0] != '{' || json.Unmarshal(b, &m) != nil || m == nil {
		return nil, errNotJSON
	}
	return m, nil
}
