package shell

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// Defaults and bounds. A zero field of [Command] takes the matching default.
const (
	// DefaultTimeout bounds a hook's run time (the contract's 60 s).
	DefaultTimeout = 60 * time.Second
	// DefaultMaxStdout caps the captured stdout: 1 MiB.
	DefaultMaxStdout = 1 << 20
	// DefaultMaxStderr caps the captured stderr: 64 KiB.
	DefaultMaxStderr = 64 << 10
	// MaxReason bounds, in bytes, the deny reason [Interpret] takes from
	// stderr.
	MaxReason = 4 << 10
	// ExcerptLen bounds, in bytes, the start of stderr that [Interpret]
	// quotes in the message of a failure.
	ExcerptLen = 256
	// ExitGrace is how long Run waits, after the hook's shell has exited
	// (or been killed) and its process group has been killed, for the
	// output pipes to close before it abandons them. It is also the
	// exec.Cmd.WaitDelay backstop of a kill.
	ExitGrace = 100 * time.Millisecond
)

// Command is one command hook invocation. The zero value of each limit
// means its default; a negative limit is treated as zero. A Command is a
// plain value: Run neither keeps nor modifies it (nor Env).
type Command struct {
	// Line is run as /bin/sh -c Line. An empty Line is an [ErrStart]
	// failure.
	Line string
	// Dir is the working directory (the sandbox root); "" means the
	// caller's own.
	Dir string
	// Env is the hook's whole environment, already sanitized by the caller
	// (see [SanitizeEnv]); nil means an empty environment, never the
	// caller's. As with os/exec, a name given twice keeps its last value,
	// and an entry holding a NUL byte makes the start fail.
	Env []string
	// Timeout bounds the run time; 0 means [DefaultTimeout].
	Timeout time.Duration
	// MaxStdout and MaxStderr cap the captured output in bytes; 0 means
	// [DefaultMaxStdout] and [DefaultMaxStderr].
	MaxStdout int
	MaxStderr int
}

// limits returns c's timeout and caps with the defaults applied.
func (c *Command) limits() (timeout time.Duration, maxOut, maxErr int) {
	timeout, maxOut, maxErr = c.Timeout, c.MaxStdout, c.MaxStderr
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if maxOut <= 0 {
		maxOut = DefaultMaxStdout
	}
	if maxErr <= 0 {
		maxErr = DefaultMaxStderr
	}
	// A capture needs room for one byte past its cap.
	return timeout, min(maxOut, math.MaxInt-1), min(maxErr, math.MaxInt-1)
}

// Result is what a command hook did. It is a plain value owned by the
// caller.
type Result struct {
	// ExitCode is the shell's exit status, or -1 if it never exited
	// normally (it was killed by a signal, or never started).
	ExitCode int
	// Signal names the signal that ended the shell ("killed",
	// "segmentation fault", ...); "" if it exited normally or never
	// started.
	Signal string
	// Stdout and Stderr are the captured output, never longer than the
	// Command's caps; nil when empty.
	Stdout []byte
	Stderr []byte
	// StdoutTruncated and StderrTruncated report that the hook wrote more
	// than the cap and the rest was discarded.
	StdoutTruncated bool
	StderrTruncated bool
	// Duration is the wall time of the run, from start to the last byte
	// of output.
	Duration time.Duration
}

// Runner runs command hooks. The engine takes one as an injected
// dependency; tests inject fakes through [RunnerFunc].
//
// Run runs c with stdin as its standard input and reports what the hook
// did. A non-nil error means the hook produced no usable exit status (it
// could not start, timed out, was canceled, or printed more than its
// stdout cap); the Result then holds whatever was captured. An exit status
// other than 0, even one of a hook that could not be found (127), is not an
// error of Run: [Interpret] judges it. Implementations must be safe for
// concurrent use and must not retain stdin.
type Runner interface {
	Run(ctx context.Context, c Command, stdin []byte) (Result, error)
}

// RunnerFunc adapts a function to the [Runner] interface.
type RunnerFunc func(ctx context.Context, c Command, stdin []byte) (Result, error)

// Run calls f(ctx, c, stdin). It is as safe for concurrent use as f.
func (f RunnerFunc) Run(ctx context.Context, c Command, stdin []byte) (Result, error) {
	return f(ctx, c, stdin)
}

// Errors returned by Run and Interpret, matched with errors.Is. Each
// returned error wraps exactly one of them (or the context's error, for a
// canceled context), with details in its message.
var (
	// ErrTimeout: the hook overran its timeout and was killed. An error
	// matching it also matches context.DeadlineExceeded.
	ErrTimeout = errors.New("shell: command hook timed out")
	// ErrOutputTooLarge: the hook printed more than its stdout cap (it was
	// killed), or exited 0 after printing more than its stderr cap.
	ErrOutputTooLarge = errors.New("shell: command hook output too large")
	// ErrStart: the hook could not be started (empty line, bad Dir, NUL in
	// Env, no /bin/sh, too many processes, ...).
	ErrStart = errors.New("shell: command hook could not start")
	// ErrExit: the hook exited with a status other than 0 or 2, including
	// 126 (not executable) and 127 (command not found).
	ErrExit = errors.New("shell: command hook failed")
	// ErrSignal: the hook was ended by a signal it was not sent by Run.
	ErrSignal = errors.New("shell: command hook killed by a signal")
	// ErrInvalidOutput: the hook exited 0 but its stdout is not a valid
	// HookOutput (not JSON, not an object, or a field of the wrong type).
	ErrInvalidOutput = errors.New("shell: invalid command hook output")
	// ErrReported: a resident hook answered {"error": "..."} (see
	// [InterpretReply]).
	ErrReported = errors.New("shell: command hook reported an error")
)

// timeoutError is a hook timeout: it matches both ErrTimeout and
// context.DeadlineExceeded.
type timeoutError struct{ after time.Duration }

func (e *timeoutError) Error() string {
	return fmt.Sprintf("shell: command hook timed out after %v", e.after)
}

func (e *timeoutError) Unwrap() []error { return []error{ErrTimeout, context.DeadlineExceeded} }

// IsTimeout reports whether err is a hook timeout ([ErrTimeout]) or the
// deadline of the caller's context (context.DeadlineExceeded). It is safe
// for concurrent use.
func IsTimeout(err error) bool {
	return errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded)
}

// Class names the class of a command hook failure: a stable code for the
// audit.
type Class string

// The classes, one per sentinel error.
const (
	ClassNone           Class = ""                 // no error
	ClassTimeout        Class = "timeout"          // IsTimeout
	ClassCanceled       Class = "canceled"         // context.Canceled
	ClassOutputTooLarge Class = "output_too_large" // ErrOutputTooLarge
	ClassStart          Class = "start"            // ErrStart
	ClassExit           Class = "exit"             // ErrExit
	ClassSignal         Class = "signal"           // ErrSignal
	ClassInvalidOutput  Class = "invalid_output"   // ErrInvalidOutput
	ClassReported       Class = "reported"         // ErrReported
	ClassOther          Class = "error"            // anything else
)

// Classify returns the class of an error returned by Run or [Interpret]:
// [ClassNone] for nil and [ClassOther] for an error this package does not
// know. It is safe for concurrent use.
func Classify(err error) Class {
	switch {
	case err == nil:
		return ClassNone
	case IsTimeout(err):
		return ClassTimeout
	case errors.Is(err, context.Canceled):
		return ClassCanceled
	case errors.Is(err, ErrOutputTooLarge):
		return ClassOutputTooLarge
	case errors.Is(err, ErrStart):
		return ClassStart
	case errors.Is(err, ErrExit):
		return ClassExit
	case errors.Is(err, ErrSignal):
		return ClassSignal
	case errors.Is(err, ErrInvalidOutput):
		return ClassInvalidOutput
	case errors.Is(err, ErrReported):
		return ClassReported
	}
	return ClassOther
}
