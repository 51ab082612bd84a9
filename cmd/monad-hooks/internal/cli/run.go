package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/engine/hosts"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/internal/suggest"
)

// MaxInputSize bounds one HookInput: the stdin of run and explain, a line of
// serve, the body of a POST /v1/dispatch.
const MaxInputSize = 16 << 20

// eventArg parses the EVENT argument of run and explain.
func eventArg(inv *invocation, pos []string) (events.Event, int) {
	if len(pos) != 1 {
		if len(pos) == 0 {
			return events.Invalid, inv.usageErr("missing EVENT (one of %s)", strings.Join(events.Names(), ", "))
		}
		return events.Invalid, inv.usageErr("want one EVENT, got %d arguments", len(pos))
	}
	ev, err := events.ParseEvent(pos[0])
	if err != nil {
		return events.Invalid, inv.usageErr("%v%s", err, suggest.Hint(pos[0], events.Names(), hosts.Alias))
	}
	return ev, -1
}

// readInput reads one HookInput from r for the event of the command line. An
// input without event (or with null) gets ev; an input naming another event
// is an error.
func readInput(r io.Reader, ev events.Event) (events.Input, error) {
	b, err := readLimited(r)
	if err != nil {
		return events.Input{}, err
	}
	return decodeFor(b, ev)
}

// decodeFor decodes one HookInput, setting its event to ev when it has none
// and refusing one that names another event.
func decodeFor(b []byte, ev events.Event) (events.Input, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		// Not an object: let the decoder say what is wrong.
		if _, derr := events.DecodeInput(b); derr != nil {
			return events.Input{}, fmt.Errorf("invalid input: %w", derr)
		}
		return events.Input{}, fmt.Errorf("invalid input: %w", err)
	}
	if raw, ok := obj["event"]; !ok || string(bytes.TrimSpace(raw)) == "null" {
		obj["event"], _ = json.Marshal(ev.String())
		var err error
		if b, err = json.Marshal(obj); err != nil {
			return events.Input{}, fmt.Errorf("invalid input: %w", err)
		}
	}
	in, err := events.DecodeInput(b)
	if err != nil {
		return events.Input{}, fmt.Errorf("invalid input: %w", err)
	}
	if in.Event != ev {
		return events.Input{}, fmt.Errorf("invalid input: its event is %s, but the command line says %s", in.Event, ev)
	}
	return in, nil
}

// writeJSONLine writes v as one line of JSON, without HTML escaping.
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// maxNotes bounds what run holds of its stderr until its answer is known.
const maxNotes = 256 << 10

// cmdRun runs one dispatch. Its notes on stderr (failed hooks, configuration
// errors, side files that failed) are held until the answer is known and
// written before the answer's own stderr; but when the answer is exit 2,
// the host reads all of stderr as the reason of the block (Crush's deny;
// the refusal of a payload naming no known event, for every host), so
// stderr then holds the reason alone. The notes of such a run are not lost
// where it matters: its hooks are in --audit, and a configuration error that
// blocks is the reason itself.
func cmdRun(ctx context.Context, inv *invocation, args []string) int {
	stderr := inv.stderr
	notes := &cappedBuffer{max: maxNotes}
	inv.stderr = notes
	code := runOnce(ctx, inv, args)
	inv.stderr = stderr
	// Nothing to say is no write (BenchmarkCLIRunNoStdlib).
	if code != 2 && notes.Len() > 0 {
		stderr.Write(notes.Bytes())
	}
	if inv.answerStderr != "" {
		io.WriteString(stderr, inv.answerStderr)
	}
	return code
}

// cappedBuffer is a bytes.Buffer that keeps its first max bytes and then
// says that it dropped the rest.
type cappedBuffer struct {
	bytes.Buffer
	max  int
	full bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.full {
		return len(p), nil
	}
	if b.Len()+len(p) > b.max {
		b.Buffer.Write(p[:b.max-b.Len()])
		b.WriteString("\n… (more notes dropped)\n")
		b.full = true
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// runOnce is run, writing its notes to inv.stderr and the stderr of its
// answer to inv.answerStderr.
func runOnce(ctx context.Context, inv *invocation, args []string) int {
	var c common
	fs := newFlagSet("run")
	c.register(fs)
	hostName := fs.String("host", "monad", "the agent `HOST` whose hook contract stdin and the answer follow: "+strings.Join(hosts.Names(), ", "))
	pos, code := parseArgs(inv, fs, helpRun, args)
	if code >= 0 {
		return code
	}
	host, ok := hosts.Lookup(*hostName)
	if !ok {
		return inv.usageErr("--host: unknown host %q (have %s)", *hostName, strings.Join(hosts.Names(), ", "))
	}
	ev := events.Invalid
	if len(pos) > 0 || host.Name == "monad" {
		// Other hosts name the event in their payload; EVENT is optional.
		if ev, code = eventArg(inv, pos); code >= 0 {
			return code
		}
	}
	if _, err := c.stdlibList(); err != nil {
		return reportErr(inv, err)
	}
	// Whatever the host, a payload that cannot be read or decoded, or that
	// names an unknown event, is refused: a deny where the event can deny.
	var call hosts.Call
	b, err := readLimited(inv.stdin)
	if err != nil {
		call = hosts.Call{Status: hosts.Refused, Input: events.Input{Event: ev}, Err: err}
	} else {
		call = host.Decode(b, ev)
	}
	switch call.Status {
	case hosts.Ignored:
		return inv.answer(host.Nothing())
	case hosts.Refused:
		return inv.answer(host.Refuse(call, call.Err.Error()))
	}
	in := call.Input
	// Only the session events read or change the session state: the others
	// leave --state alone. Those that do hold its lock from the read to the
	// write, so that concurrent runs never lose each other's sessions.
	if c.state != "" {
		if !engine.ChangesSessionState(in.Event) {
			c.state = ""
		} else {
			lock := inv.env.lockState
			if lock == nil {
				lock = lockFile
			}
			// The lock may be waited for: a signal then is caught.
			inv.env.catch()
			if unlock, err := lock(abs(inv.env, c.state)); err != nil {
				// The guards run all the same, without the state.
				inv.errorf("%v: the dispatch runs without session state", err)
				c.state = ""
			} else {
				defer unlock()
			}
		}
	}
	c.sidesOptional = true
	c.seed = hostSeed(in)
	// A signal is caught from the moment a hook is about to run, whose
	// decision a signal's default action would lose (a killed hook is a
	// "proceed" for the hosts): a dispatch that runs no hook starts no
	// signal-handling thread (BenchmarkCLIRunNoStdlib).
	c.beforeHooks = inv.env.catch
	// A host reads any exit but 0 and 2 as "the hook failed, proceed": a
	// broken file must not switch the guards off. The engine starts with
	// what loads and fails closed when a policy file is broken; the
	// problems go to stderr and into the Result's configError.
	if inv.env.oneShot != nil {
		inv.env.oneShot()
	}
	// One dispatch of a known event: the engine loads what can fire at it
	// and builds at most one Lua VM, none when the stdlib packs' prefilters
	// answer (BenchmarkCLIRun).
	o, err := c.build(ctx, inv, true, hostOptions(host, engine.WithDegradedStart(), engine.WithEvents(in.Event), engine.WithLuaPoolOnDemand())...)
	if err != nil {
		code := reportErr(inv, err)
		if host.Name == "monad" {
			return code
		}
		return inv.answer(host.Refuse(call, "the engine did not start: "+firstLine(err.Error())))
	}
	defer o.close(inv)
	var ce engine.ConfigErrors
	if err := o.eng.Reload(ctx); errors.As(err, &ce) {
		inv.errorf("configuration errors (%d): what failed is left out; a broken policy file fails closed:", len(ce))
		for _, e := range ce {
			fmt.Fprintf(inv.stderr, "%s\n", e.Error())
		}
	} else if err != nil {
		inv.errorf("%v", err)
	}
	// The dispatch is not cut short by a signal: a hook in flight finishes
	// (each hook has its own timeout) and its Result is delivered.
	res, err := o.eng.Dispatch(context.WithoutCancel(ctx), in)
	switch {
	case err != nil && host.Name == "monad":
		inv.errorf("%v", err)
		return ExitFail
	case err != nil:
		code = inv.answer(host.Refuse(call, err.Error()))
	case host.Name == "monad":
		code = inv.answer(hosts.Answer{Stdout: resultLine(res)})
	default:
		code = inv.answer(host.Encode(call, res.Output()))
	}
	// The answer is out: a failure to save the state is reported, but the
	// exit code stays, or a host would discard the decision.
	if err := o.saveState(); err != nil {
		inv.errorf("%v", err)
	}
	return code
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// answer writes a host answer's stdout, keeps its stderr for cmdRun to
// write last, and returns its exit code (ExitFail when stdout cannot be
// written, unless the answer already denies).
func (inv *invocation) answer(a hosts.Answer) int {
	if a.Stderr != "" {
		inv.answerStderr = a.Stderr
		if !strings.HasSuffix(a.Stderr, "\n") {
			inv.answerStderr += "\n"
		}
	}
	if len(a.Stdout) > 0 {
		if _, err := inv.stdout.Write(a.Stdout); err != nil && a.Exit == ExitOK {
			inv.errorf("writing the result: %v", err)
			return ExitFail
		}
	}
	return a.Exit
}

// readLimited reads stdin, at most MaxInputSize bytes.
func readLimited(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxInputSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading stdin: %w", err)
	}
	if len(b) > MaxInputSize {
		return nil, fmt.Errorf("input larger than %d bytes", MaxInputSize)
	}
	return b, nil
}

// readEventInput is the common start of the commands that take an EVENT
// argument and a HookInput on stdin (run, explain): it parses the flags and
// the event, checks the --stdlib list and reads the input. code is -1 on
// success, else the exit code to return.
func readEventInput(inv *invocation, fs *flag.FlagSet, c *common, help string, args []string) (in events.Input, code int) {
	pos, code := parseArgs(inv, fs, help, args)
	if code >= 0 {
		return in, code
	}
	ev, code := eventArg(inv, pos)
	if code >= 0 {
		return in, code
	}
	if _, err := c.stdlibList(); err != nil {
		return in, reportErr(inv, err)
	}
	in, err := readInput(inv.stdin, ev)
	if err != nil {
		inv.errorf("%v", err)
		return in, ExitFail
	}
	return in, -1
}
