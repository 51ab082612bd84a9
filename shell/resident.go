package shell

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
)

// Resident command hooks.
//
// A spawned command hook costs a process start per call (milliseconds). A
// resident one is a single long-lived process per hook that speaks JSON
// lines: the caller writes one HookInput as one line to its stdin, the
// hook writes one HookOutput as one line to its stdout, and so on, for as
// long as it lives. A [Resident] owns that process:
//
//   - it starts it on the first call, as [Exec.Run] starts a hook
//     (/bin/sh -c Line in Dir with exactly Env, in a process group of its
//     own), and again on the call after it died;
//   - it serializes the calls: one request at a time on the process,
//     the others wait their turn within their own timeout;
//   - a call that times out, is canceled, gets no well-formed line back
//     (a line longer than MaxStdout, the process exiting) ends the
//     process (SIGKILL to its group): its state is unknown, and the next
//     call starts a fresh one;
//   - stderr is drained as the process writes it, and its last bytes are
//     quoted in the error of a call the process did not answer;
//   - Close ends the process. A call after Close still gets an answer,
//     from a process started for that call alone.
//
// The reply is read by [InterpretReply]: a HookOutput object ({} or a
// blank line to proceed, {"decision":"deny","reason":"..."} to deny), or
// {"error":"..."} to report a failure (which the caller's onError
// handles). A deny is a reply, never an exit status.

// errNewline is the error of a request holding a newline: a request is one
// line.
var errNewline = errors.New("shell: a resident hook's request must be one line")

// A Resident runs one command hook as a long-lived process speaking JSON
// lines (see above). It is safe for concurrent use; calls take turns.
type Resident struct {
	c    Command
	turn chan struct{} // one token: the right to talk to the process

	mu     sync.Mutex    // guards the fields below
	proc   *residentProc // the process, nil before the first call or after one failed
	busy   bool          // a call holds the turn
	closed bool

	starts atomic.Int64
}

// NewResident returns the Resident of c. Its process starts on the first
// call. c's Timeout bounds each call (waiting for its turn included),
// MaxStdout the reply line, MaxStderr what is kept of stderr.
func NewResident(c Command) *Resident {
	r := &Resident{c: c, turn: make(chan struct{}, 1)}
	r.turn <- struct{}{}
	return r
}

// Starts returns how many processes r started (for tests and metrics).
// It is safe for concurrent use.
func (r *Resident) Starts() int64 { return r.starts.Load() }

// Call sends request (one line, without its newline) to the process and
// returns its reply line (without the newline), starting the process when
// none runs. The outcomes:
//
//   - the reply, nil error;
//   - an error matching [ErrStart] (the process could not start, empty
//     Line, nil ctx, a request holding a newline);
//   - an error matching [ErrTimeout] and context.DeadlineExceeded: no
//     reply within the timeout (the wait for the turn included); the
//     process is killed;
//   - ctx's error when ctx is done first; the process is killed if the
//     request was sent;
//   - an error matching [ErrOutputTooLarge]: a reply line longer than
//     MaxStdout; the process is killed;
//   - an error matching [ErrExit] (or [ErrSignal]) that quotes the end of
//     stderr: the process exited (or was killed by a signal) before it
//     replied.
//
// Call never retains request.
func (r *Resident) Call(ctx context.Context, request []byte) ([]byte, error) {
	switch {
	case ctx == nil:
		return nil, fmt.Errorf("%w: nil context", ErrStart)
	case r.c.Line == "":
		return nil, fmt.Errorf("%w: empty command line", ErrStart)
	case bytes.IndexByte(request, '\n') >= 0:
		return nil, fmt.Errorf("%w: %w", ErrStart, errNewline)
	case ctx.Err() != nil:
		return nil, ctxError(ctx)
	}
	timeout, maxOut, maxErr := r.c.limits()
	deadline := time.Now().Add(timeout)
	t := time.NewTimer(timeout)
	select {
	case <-r.turn:
		t.Stop()
	case <-ctx.Done():
		t.Stop()
		return nil, ctxError(ctx)
	case <-t.C:
		return nil, &timeoutError{after: timeout}
	}
	defer func() { r.turn <- struct{}{} }()

	r.mu.Lock()
	r.busy = true
	p := r.proc
	r.mu.Unlock()
	if p != nil && p.exited() {
		p.stop()
		p = nil
	}
	var reply []byte
	var err error
	if p == nil {
		p, err = r.start(maxErr)
	}
	if err == nil {
		var gone bool
		reply, gone, err = p.request(ctx, request, deadline, timeout, maxOut)
		if gone && p.served > 0 {
			// The process had exited after its last reply (between
			// calls), before this request could reach it: a fresh
			// one takes it.
			p.stop()
			if p, err = r.start(maxErr); err == nil {
				reply, _, err = p.request(ctx, request, deadline, timeout, maxOut)
			}
		}
	}
	// After a failure the process's state is unknown; after Close it
	// ends with the call that was in flight.
	r.mu.Lock()
	r.busy = false
	if err == nil && !r.closed {
		r.proc = p
	} else if r.proc == p {
		r.proc = nil
	}
	keep := r.proc == p
	r.mu.Unlock()
	if p != nil && !keep {
		p.stop()
	}
	return reply, err
}

// Close ends the process, or has the call in flight end it when it
// returns. Later calls each run a process of their own. Close is
// idempotent, safe for concurrent use, waits at most about [ExitGrace],
// and always returns nil.
func (r *Resident) Close() error {
	r.mu.Lock()
	r.closed = true
	var p *residentProc
	if !r.busy {
		p, r.proc = r.proc, nil
	}
	r.mu.Unlock()
	if p != nil {
		p.stop()
	}
	return nil
}

// residentProc is one process of a Resident.
type residentProc struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc // kills the process group (cmd.Cancel)
	pipes  *pipes
	out    *bufio.Reader
	stderr tail
	done   chan struct{} // closed once the process was waited for
	once   sync.Once
	served int // requests answered
}

func (r *Resident) start(maxErr int) (*residentProc, error) {
	p, err := openPipes()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	// The process outlives the call that starts it: it is stopped by
	// stop, through its own context.
	ctx, cancel := context.WithCancel(context.Background())
	cmd := shellCommand(ctx, r.c, p)
	cmd.Cancel = func() error { return signalGroup(cmd.Process, sigKill) }
	cmd.WaitDelay = ExitGrace
	err = cmd.Start()
	p.closeChildEnds()
	if err != nil {
		cancel()
		p.closeParentEnds()
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	r.starts.Add(1)
	rp := &residentProc{cmd: cmd, cancel: cancel, pipes: p, out: bufio.NewReaderSize(p.outR, 64<<10), done: make(chan struct{})}
	rp.stderr.limit = min(maxErr, 4<<10)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		rp.stderr.drain(p.errR)
	}()
	go func() {
		_ = cmd.Wait()
		// The hook's lifetime is its shell's: kill what is left of its
		// group, and give stderr a moment to be read to its end.
		_ = signalGroup(cmd.Process, sigKill)
		_ = p.errR.SetReadDeadline(time.Now().Add(ExitGrace))
		<-drained
		close(rp.done)
	}()
	return rp, nil
}

func (p *residentProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop kills the process group, waits for the process and closes the
// pipes. It is idempotent.
func (p *residentProc) stop() {
	p.once.Do(func() {
		p.cancel()
		<-p.done
		p.pipes.closeParentEnds()
	})
}

// request writes one line and reads one back. gone reports a failure
// because the process closed its stdin or stdout (it exited).
func (p *residentProc) request(ctx context.Context, request []byte, deadline time.Time, timeout time.Duration, maxOut int) (reply []byte, gone bool, err error) {
	// ctx ending makes the pending write or read fail at once.
	stopWatch := context.AfterFunc(ctx, func() {
		_ = p.pipes.inW.SetWriteDeadline(time.Now())
		_ = p.pipes.outR.SetReadDeadline(time.Now())
	})
	defer stopWatch()
	_ = p.pipes.inW.SetWriteDeadline(deadline)
	_ = p.pipes.outR.SetReadDeadline(deadline)
	line := make([]byte, 0, len(request)+1)
	line = append(append(line, request...), '\n')
	if _, err := p.pipes.inW.Write(line); err != nil {
		return p.failure(ctx, err, timeout)
	}
	for {
		chunk, err := p.out.ReadSlice('\n')
		if len(reply)+len(chunk) > maxOut+1 { // +1: the newline
			return nil, false, fmt.Errorf("%w: a reply line longer than %d bytes", ErrOutputTooLarge, maxOut)
		}
		reply = append(reply, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return p.failure(ctx, err, timeout)
		}
		p.served++
		return reply[:len(reply)-1], false, nil
	}
}

// failure is the outcome of a request whose write or read failed with err.
func (p *residentProc) failure(ctx context.Context, err error, timeout time.Duration) ([]byte, bool, error) {
	switch {
	case ctx.Err() != nil:
		return nil, false, ctxError(ctx)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, false, &timeoutError{after: timeout}
	}
	return nil, true, p.exitError(err)
}

// exitError is the error of a process that closed its end of a pipe
// (err) before it replied.
func (p *residentProc) exitError(err error) error {
	// The process closed its end (it exited, or is exiting): report how.
	select {
	case <-p.done:
	case <-time.After(ExitGrace):
	}
	if ps := p.cmd.ProcessState; ps != nil {
		if sig := signalName(ps); sig != "" {
			return fmt.Errorf("%w: %s before it replied%s", ErrSignal, sig, excerpt(p.stderr.bytes()))
		}
		return fmt.Errorf("%w: exit status %d before it replied%s%s", ErrExit, ps.ExitCode(), exitHint(ps.ExitCode()), excerpt(p.stderr.bytes()))
	}
	return fmt.Errorf("%w: its stdout closed before it replied (%v)%s", ErrExit, err, excerpt(p.stderr.bytes()))
}

// tail keeps the last bytes written to it.
type tail struct {
	mu    sync.Mutex
	limit int
	buf   []byte
}

// drain reads f to its end (or an error), keeping its last bytes.
func (t *tail) drain(f *os.File) {
	b := make([]byte, 4<<10)
	for {
		n, err := f.Read(b)
		t.mu.Lock()
		t.buf = append(t.buf, b[:n]...)
		if over := len(t.buf) - t.limit; over > 0 {
			t.buf = append(t.buf[:0], t.buf[over:]...)
		}
		t.mu.Unlock()
		if err != nil { // EOF, the deadline after the exit, a closed pipe
			return
		}
	}
}

func (t *tail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.buf)
}

// InterpretReply maps a resident hook's reply (see [Resident.Call]) to the
// hook contract:
//
//   - callErr non-nil: callErr itself;
//   - a blank line: the zero Output (proceed);
//   - an object with an "error" member other than null: an error matching
//     [ErrReported] that quotes it (the hook failed; the caller's onError
//     decides), so that a reply such as monad-hooks serve's
//     {"error": "..."} is never read as "proceed";
//   - anything else: [events.DecodeOutput] of the line; a line that is not
//     a HookOutput object is an error matching [ErrInvalidOutput].
//
// It is safe for concurrent use.
func InterpretReply(reply []byte, callErr error) (events.Output, error) {
	if callErr != nil {
		return events.Output{}, callErr
	}
	if len(bytes.TrimSpace(reply)) == 0 {
		return events.Output{}, nil
	}
	if bytes.Contains(reply, []byte(`"error"`)) {
		var probe struct {
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(reply, &probe) == nil && len(probe.Error) > 0 && string(probe.Error) != "null" {
			var msg string
			if json.Unmarshal(probe.Error, &msg) != nil {
				msg = string(probe.Error)
			}
			return events.Output{}, fmt.Errorf("%w: %s", ErrReported, boundedText([]byte(msg), MaxReason))
		}
	}
	out, err := events.DecodeOutput(reply)
	if err != nil {
		return events.Output{}, fmt.Errorf("%w: %w", ErrInvalidOutput, err)
	}
	return out, nil
}
