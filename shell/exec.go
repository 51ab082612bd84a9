package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"
)

// Exec is the real [Runner]: it runs a [Command] as a child process with
// os/exec. The zero value is ready to use; an Exec is a plain value and
// safe for concurrent use.
type Exec struct {
	// TermGrace, when positive, ends a hook that overran its timeout (or
	// whose context was canceled) gracefully: SIGTERM to its process
	// group, then SIGKILL to the shell after TermGrace and to the rest of
	// the group when the shell is gone. Zero sends SIGKILL to the whole
	// group at once. A hook that overruns its stdout cap is always killed
	// at once.
	TermGrace time.Duration
}

var _ Runner = Exec{}

// Run runs c with [Exec]{}: see [Exec.Run].
func Run(ctx context.Context, c Command, stdin []byte) (Result, error) {
	return Exec{}.Run(ctx, c, stdin)
}

// Run runs c.Line as /bin/sh -c c.Line in c.Dir with exactly c.Env, in a
// process group of its own, writes stdin to it on a pipe (a hook may exit
// or close stdin without reading it) and captures stdout and stderr up to
// the caps. It returns when the shell has exited and the output pipes have
// closed, or ExitGrace after the group was killed, whichever is first:
// within the timeout plus e.TermGrace plus [ExitGrace], whatever the hook
// does. Background processes left in the group are killed when the shell
// exits.
//
// The outcomes:
//   - the shell exited, with any status: the Result holds it and the
//     output, and the error is nil; stderr beyond the cap is discarded and
//     flagged (StderrTruncated), the hook is not killed for it;
//   - the shell was ended by a signal it was not sent by Run: ExitCode -1,
//     Signal set, nil error ([Interpret] makes it a failure);
//   - c.Line is empty, ctx is nil, or the process could not be started:
//     an error matching [ErrStart] (or ctx's error if ctx was done
//     already), ExitCode -1;
//   - the timeout expired: the group is killed and the error matches
//     [ErrTimeout] and context.DeadlineExceeded;
//   - ctx was done first: the group is killed and the error wraps ctx's
//     error (context.Canceled or context.DeadlineExceeded) and cause;
//   - stdout went over its cap: the group is killed at once and the error
//     matches [ErrOutputTooLarge]; Stdout holds the first MaxStdout bytes.
//
// Run never retains stdin, and it is safe for concurrent use.
func (e Exec) Run(ctx context.Context, c Command, stdin []byte) (Result, error) {
	start := time.Now()
	res := Result{ExitCode: -1}
	if ctx == nil {
		return res, fmt.Errorf("%w: nil context", ErrStart)
	}
	if c.Line == "" {
		return res, fmt.Errorf("%w: empty command line", ErrStart)
	}
	if ctx.Err() != nil {
		return res, ctxError(ctx)
	}
	timeout, maxOut, maxErr := c.limits()

	// runCtx is done, with a cause, when the hook must be stopped: the
	// timeout expired, stdout overflowed, or ctx is done.
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	timer := time.AfterFunc(timeout, func() { stop(errTimedOut) })
	defer timer.Stop()

	p, err := openPipes()
	if err != nil {
		return res, fmt.Errorf("%w: %w", ErrStart, err)
	}
	cmd := shellCommand(runCtx, c, p)
	grace := e.TermGrace
	cmd.Cancel = func() error {
		if grace > 0 && context.Cause(runCtx) != errStdoutTooLarge {
			return signalGroup(cmd.Process, sigTerm)
		}
		return signalGroup(cmd.Process, sigKill)
	}
	cmd.WaitDelay = ExitGrace
	if grace > 0 {
		cmd.WaitDelay = grace
	}

	err = cmd.Start()
	p.closeChildEnds()
	if err != nil {
		p.closeParentEnds()
		res.Duration = time.Since(start)
		if cause := context.Cause(runCtx); cause != nil {
			return res, stopError(ctx, cause, timeout, maxOut)
		}
		return res, fmt.Errorf("%w: %w", ErrStart, err)
	}

	var stdout, stderr capture
	var wg sync.WaitGroup
	wg.Go(func() { stdout.read(p.outR, maxOut, func() { stop(errStdoutTooLarge) }) })
	wg.Go(func() { stderr.read(p.errR, maxErr, nil) })
	wg.Go(func() {
		// Errors are ignored: a hook need not read its stdin (EPIPE), and
		// the deadline set below ends a write nobody will read.
		if len(stdin) > 0 {
			_, _ = p.inW.Write(stdin)
		}
		_ = p.inW.Close()
	})

	waitErr := cmd.Wait()
	// Why, if at all, the hook was stopped; taken now, so that a cause
	// arriving after the shell exited on its own does not count.
	cause := context.Cause(runCtx)
	// The hook's lifetime is its shell's: kill what is left of its group.
	_ = signalGroup(cmd.Process, sigKill)
	deadline := time.Now().Add(ExitGrace)
	_ = p.outR.SetReadDeadline(deadline)
	_ = p.errR.SetReadDeadline(deadline)
	_ = p.inW.SetWriteDeadline(deadline)
	wg.Wait()
	p.closeParentEnds()
	res.Duration = time.Since(start)

	res.Stdout, res.StdoutTruncated = stdout.result()
	res.Stderr, res.StderrTruncated = stderr.result()
	if ps := cmd.ProcessState; ps != nil {
		res.ExitCode = ps.ExitCode()
		res.Signal = signalName(ps)
	}

	if cause == nil && res.StdoutTruncated {
		cause = errStdoutTooLarge
	}
	if cause != nil {
		return res, stopError(ctx, cause, timeout, maxOut)
	}
	if cmd.ProcessState == nil { // Wait failed without an exit status
		return res, fmt.Errorf("shell: wait for command hook: %w", waitErr)
	}
	return res, nil
}

// shellCommand returns c.Line as /bin/sh -c c.Line in c.Dir with exactly
// c.Env, in a process group of its own, on the child ends of p, stopped
// by cmd.Cancel when ctx is done: how every command hook is started (Run,
// Resident).
func shellCommand(ctx context.Context, c Command, p *pipes) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", c.Line)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.inR, p.outW, p.errW
	newProcessGroup(cmd)
	return cmd
}

// stopError is the error for a hook stopped for cause.
func stopError(ctx context.Context, cause error, timeout time.Duration, maxOut int) error {
	switch cause {
	case errTimedOut:
		return &timeoutError{after: timeout}
	case errStdoutTooLarge:
		return fmt.Errorf("%w: stdout exceeded %d bytes", ErrOutputTooLarge, maxOut)
	}
	return ctxError(ctx)
}

// A stopCause is why Run stopped a hook, the cause of its context; Run
// turns it into an exported error. Being a constant, it cannot be changed.
type stopCause string

func (c stopCause) Error() string { return string(c) }

const (
	errTimedOut       stopCause = "timed out"
	errStdoutTooLarge stopCause = "stdout too large"
)

// ctxError is the error for a hook stopped because ctx is done: it wraps
// ctx.Err() and, if different, ctx's cause.
func ctxError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("shell: command hook stopped: %w: %w", err, cause)
	}
	return fmt.Errorf("shell: command hook stopped: %w", err)
}

// pipes are the hook's stdin, stdout and stderr. The parent ends are
// pollable, so read and write deadlines bound every wait on them.
type pipes struct {
	inR, inW   *os.File
	outR, outW *os.File
	errR, errW *os.File
}

func openPipes() (*pipes, error) {
	p := new(pipes)
	var err error
	if p.inR, p.inW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		closeAll(p.inR, p.inW)
		return nil, err
	}
	if p.errR, p.errW, err = os.Pipe(); err != nil {
		closeAll(p.inR, p.inW, p.outR, p.outW)
		return nil, err
	}
	return p, nil
}

// closeChildEnds closes the parent's copies of the child's ends, so that
// reads see EOF once the hook's processes are gone.
func (p *pipes) closeChildEnds() { closeAll(p.inR, p.outW, p.errW) }

func (p *pipes) closeParentEnds() { closeAll(p.inW, p.outR, p.errR) }

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// capture collects the first bytes of a pipe, up to a limit, and drains
// the rest.
type capture struct {
	buf       []byte
	truncated bool
}

// read reads f until EOF or an error (a deadline). Past limit bytes it sets
// truncated, calls overflow (if non-nil) once and discards the rest, so
// memory stays bounded by limit whatever the hook prints.
func (c *capture) read(f *os.File, limit int, overflow func()) {
	for {
		c.grow(limit)
		n, err := f.Read(c.buf[len(c.buf):cap(c.buf)])
		if c.add(n, limit, overflow) {
			discard(f)
			return
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// The deadline may have passed before this goroutine got
			// to read what the hook wrote (a Read past its deadline
			// fails without reading): take what the pipe holds.
			c.readBuffered(f, limit, overflow)
			return
		}
		if err != nil {
			return
		}
	}
}

// readBuffered reads what f holds, without waiting for more.
func (c *capture) readBuffered(f *os.File, limit int, overflow func()) {
	if f.SetReadDeadline(time.Time{}) != nil {
		return
	}
	for {
		c.grow(limit)
		n, err := readNow(f, c.buf[len(c.buf):cap(c.buf)])
		if c.add(n, limit, overflow) || n == 0 || err != nil {
			return
		}
	}
}

// grow makes room to read into, up to limit+1 bytes: one byte past the
// limit is how an overflow is seen.
func (c *capture) grow(limit int) {
	if len(c.buf) == cap(c.buf) {
		n := min(max(2*cap(c.buf), 512), limit+1) - len(c.buf)
		c.buf = slices.Grow(c.buf, n)
	}
}

// add accounts for n bytes read into the buffer and reports whether they
// overflowed limit.
func (c *capture) add(n, limit int, overflow func()) bool {
	c.buf = c.buf[:len(c.buf)+max(n, 0)]
	if len(c.buf) <= limit {
		return false
	}
	c.buf = c.buf[:limit]
	c.truncated = true
	if overflow != nil {
		overflow()
	}
	return true
}

func (c *capture) result() ([]byte, bool) {
	if len(c.buf) == 0 {
		return nil, c.truncated
	}
	return c.buf, c.truncated
}

// discard reads f until EOF or an error.
func discard(f *os.File) {
	buf := make([]byte, 32<<10)
	for {
		if _, err := f.Read(buf); err != nil {
			return
		}
	}
}
