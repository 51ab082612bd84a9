package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/engine/hosts"
	"github.com/monad-hooks/monad-hooks/events"
)

// hostOptions are the engine options of a --host: a host whose SessionStart
// hook hands context to the model gets it at SessionStart.
func hostOptions(h *hosts.Host, extra ...engine.Option) []engine.Option {
	if h.ContextAtStart {
		extra = append(extra, engine.WithSessionContextAtStart())
	}
	return extra
}

// hostSeed is the session state a host payload vouches for: at AfterTurn,
// the host's own count of continuations so far (Claude Code's
// stop_hook_active, Cursor's loop_count), so that the bound holds across
// one-shot runs even without --state, or with a state that lost count.
func hostSeed(in events.Input) map[string]engine.SessionState {
	if in.Event != events.AfterTurn || in.StopContinues <= 0 {
		return nil
	}
	return map[string]engine.SessionState{in.SessionID: {StopContinues: in.StopContinues}}
}

// mergeSeed adds seed to st: a session's continuation count is the larger
// of the two.
func mergeSeed(st, seed map[string]engine.SessionState) map[string]engine.SessionState {
	if len(seed) == 0 {
		return st
	}
	if st == nil {
		st = map[string]engine.SessionState{}
	}
	for id, s := range seed {
		cur := st[id]
		cur.StopContinues = max(cur.StopContinues, s.StopContinues)
		st[id] = cur
	}
	return st
}

// resultLine is a Result as one line of JSON, encoded by hand
// (BenchmarkCLIRunNoStdlib).
func resultLine(res engine.Result) []byte {
	b, err := res.AppendJSON(make([]byte, 0, 1024))
	if err != nil {
		return []byte(`{"error":"cannot encode the result"}` + "\n")
	}
	return append(b, '\n')
}

// serveHostFlag resolves serve's --host: a host whose answers are all JSON
// (Crush reads a deny from the exit code only).
func serveHostFlag(inv *invocation, name string) (*hosts.Host, int) {
	h, ok := hosts.Lookup(name)
	if !ok {
		return nil, inv.usageErr("--host: unknown host %q (have %s)", name, strings.Join(hosts.Names(), ", "))
	}
	if h.Name != "monad" && !h.JSONAnswers {
		return nil, inv.usageErr("--host %s: %s reads a deny from a hook's exit code, which serve cannot give; use run --host %s", name, name, name)
	}
	return h, -1
}

// hostAnswer dispatches one payload of host h and returns what serve
// answers with, and its HTTP status: the host's JSON answer (200), {} for
// no opinion (200; what an HTTP hook of Claude Code reads as "proceed"),
// or {"error": ...} when the host would read the answer from an exit code
// of 1, a refusal at an event that cannot deny (400).
func hostAnswer(ctx context.Context, eng *engine.Engine, h *hosts.Host, payload []byte) (any, int) {
	c := h.Decode(payload, events.Invalid)
	var a hosts.Answer
	switch c.Status {
	case hosts.Ignored:
		a = h.Nothing()
	case hosts.Refused:
		a = h.Refuse(c, c.Err.Error())
	default:
		res, err := eng.Dispatch(ctx, c.Input)
		if err != nil {
			a = h.Refuse(c, err.Error())
		} else {
			a = h.Encode(c, res.Output())
		}
	}
	return serveAnswer(a)
}

// hostRefusal is what serve answers a payload of host h that it could not
// even read (a line or a body over MaxInputSize, which the agent makes by
// writing a large file): the refusal at an unknown event, a block the host
// reads from a 2xx, never an error status it reads as "proceed".
func hostRefusal(h *hosts.Host, reason string) (any, int) {
	return serveAnswer(h.Refuse(hosts.Call{Status: hosts.Refused}, reason))
}

// serveAnswer is a host answer as serve gives it (see hostAnswer).
func serveAnswer(a hosts.Answer) (any, int) {
	switch {
	case len(bytes.TrimSpace(a.Stdout)) > 0:
		return json.RawMessage(bytes.TrimSpace(a.Stdout)), statusOK
	case a.Exit == 0:
		return json.RawMessage("{}"), statusOK
	}
	return errorBody{Error: strings.TrimSpace(a.Stderr)}, statusBadRequest
}

// explainInput reads explain's input: a HookInput for EVENT, or with
// --host a host payload, whose mapping it explains first. code is -1 when
// the input is to be explained; ExitOK after a host event with no Monad
// equivalent (explained, nothing runs).
func explainInput(inv *invocation, fs *flag.FlagSet, c *common, hostName *string, args []string) (events.Input, int) {
	if !slices.ContainsFunc(args, func(a string) bool {
		return a == "--host" || a == "-host" || strings.HasPrefix(a, "--host=") || strings.HasPrefix(a, "-host=")
	}) {
		return readEventInput(inv, fs, c, helpExplain, args)
	}
	pos, code := parseArgs(inv, fs, helpExplain, args)
	if code >= 0 {
		return events.Input{}, code
	}
	h, ok := hosts.Lookup(*hostName)
	if !ok {
		return events.Input{}, inv.usageErr("--host: unknown host %q (have %s)", *hostName, strings.Join(hosts.Names(), ", "))
	}
	ev := events.Invalid
	if len(pos) > 0 {
		if ev, code = eventArg(inv, pos); code >= 0 {
			return events.Input{}, code
		}
	}
	if _, err := c.stdlibList(); err != nil {
		return events.Input{}, reportErr(inv, err)
	}
	b, err := readLimited(inv.stdin)
	if err != nil {
		inv.errorf("%v", err)
		return events.Input{}, ExitFail
	}
	call := h.Decode(b, ev)
	w := inv.stdout
	switch call.Status {
	case hosts.Ignored:
		said := "no output"
		if out := strings.TrimSpace(string(h.Nothing().Stdout)); out != "" {
			said = out + " on stdout"
		}
		fmt.Fprintf(w, "%s event %q has no Monad equivalent: run --host %s proceeds with nothing to say (exit 0, %s), and no hook runs.\n", h.Name, call.Event.Name, h.Name, said)
		return events.Input{}, ExitOK
	case hosts.Refused:
		a := h.Refuse(call, call.Err.Error())
		fmt.Fprintf(w, "The payload is refused: %v.\nrun --host %s answers with exit %d%s.\n", call.Err, h.Name, a.Exit, answerSummary(a))
		return events.Input{}, ExitFail
	}
	fmt.Fprintf(w, "%s event %q is %s", h.Name, call.Event.Name, call.Input.Event)
	if call.Input.ToolName != "" {
		fmt.Fprintf(w, " of tool %q", call.Input.ToolName)
	}
	fmt.Fprintln(w, ".")
	if call.Event.Note != "" {
		fmt.Fprintf(w, "Note (%s): %s.\n", call.Event.Name, call.Event.Note)
	}
	return call.Input, -1
}

// answerSummary says what an answer holds besides its exit code.
func answerSummary(a hosts.Answer) string {
	var parts []string
	if out := strings.TrimSpace(string(a.Stdout)); out != "" {
		parts = append(parts, "stdout "+out)
	}
	if a.Stderr != "" {
		parts = append(parts, "stderr "+strconv.Quote(strings.TrimSpace(a.Stderr)))
	}
	if len(parts) == 0 {
		return " and no output"
	}
	return ", " + strings.Join(parts, ", ")
}

// helpHosts is the help topic "hosts", made from the host table.
func helpHosts() string {
	var b strings.Builder
	b.WriteString(`Usage: monad-hooks help hosts

monad-hooks speaks the hook contracts of the agents below:

	run --host NAME          reads the agent's hook payload on stdin and
	                         answers in its convention (the agent runs
	                         monad-hooks as one of its command hooks)
	serve --host NAME        the same, one payload per line or per HTTP
	                         POST (Claude Code's HTTP hooks)
	explain --host NAME      says how a payload maps and which hooks run
	"input": "NAME"          on a command hook in agents.json: a script
	                         written for the agent gets the agent's payload
	                         and its answer is read the agent's way
	import --from NAME FILE  converts the agent's hook settings
	install --host NAME      routes the agent's hook events through
	                         monad-hooks run --host NAME

The agent's tool names are in the built-in tool table, so the guards act on
them as they are. An event with no Monad equivalent proceeds with nothing to
say (exit 0, no output; {} for Cursor). A payload that cannot be decoded, or names an
unknown event, is refused with the agent's deny (exit 2 where no event is
known), never an exit code the agent reads as "proceed".
`)
	for _, n := range hosts.Names() {
		h, _ := hosts.Lookup(n)
		fmt.Fprintf(&b, "\n%s\n\t%s\n", h.Name, h.Summary)
		var mapped, none []string
		for _, e := range h.Events {
			if e.Monad == events.Invalid {
				none = append(none, e.Name)
			} else if e.Name != e.Monad.String() {
				mapped = append(mapped, e.Name+" -> "+e.Monad.String())
			} else {
				mapped = append(mapped, e.Name)
			}
		}
		wrap(&b, "events: ", mapped)
		if len(none) > 0 {
			wrap(&b, "no Monad equivalent (proceed, nothing to say): ", none)
		}
		for _, note := range h.Notes {
			wrap(&b, "- ", strings.Fields(note))
		}
	}
	b.WriteString(`
Examples:

	echo '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}' | monad-hooks run --host claude-code
	monad-hooks install --host claude-code --project --dry-run
	monad-hooks import --from gemini-cli .gemini/settings.json > agents.json
`)
	return b.String()
}

// wrap writes words after prefix, indented, in lines of at most 76 columns.
func wrap(b *strings.Builder, prefix string, words []string) {
	line := "\t" + prefix
	indent := "\t  "
	if len(prefix) <= 8 {
		indent = "\t" + strings.Repeat(" ", len(prefix))
	}
	for i, w := range words {
		sep := " "
		if i == 0 {
			sep = ""
		}
		if i < len(words)-1 && strings.HasSuffix(prefix, ": ") && !strings.HasPrefix(prefix, "-") {
			w += ","
		}
		if len(line)+len(sep)+len(w) > 76 && i > 0 {
			b.WriteString(line + "\n")
			line, sep = indent, ""
		}
		line += sep + w
	}
	b.WriteString(line + "\n")
}
