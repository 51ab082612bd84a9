package luaapi

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/monad-hooks/monad-hooks/events"
)

// ErrMemory is wrapped by a [HookError] of kind [FailMemory]: the handler
// allocated more than [Options.MaxCallAlloc] while it ran.
var ErrMemory = errors.New("allocation limit exceeded")

// A ScriptError is a problem with a script found by [Compile] (syntax, a
// rejected construct) or [NewPool] (a bad hook{} registration, an error
// while the script loads). Line is 0 when no line is known, Col (1-based,
// in bytes) 0 when no column is known: a syntax error has both, a hook{}
// problem the position of the key or value at fault when the script wrote
// hook{ ... } with a table constructor, an error raised while the script
// loads its line.
type ScriptError struct {
	Script string
	Line   int
	Col    int
	Kind   ScriptErrorKind
	Msg    string
}

// Error returns "script:line:col: msg", "script:line: msg" without a
// column, or "script: msg" without a line.
func (e *ScriptError) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return e.Script + ":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col) + ": " + e.Msg
	case e.Line > 0:
		return e.Script + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
	}
	return e.Script + ": " + e.Msg
}

// A ScriptErrorKind classifies a [ScriptError]; the engine gives each its
// own configuration error code.
type ScriptErrorKind uint8

// The kinds of script problems.
const (
	// ScriptLoad: the script failed while it ran at load (a Lua error,
	// the load timeout), or its parameters could not be given to it.
	ScriptLoad ScriptErrorKind = iota
	// ScriptSyntax: the source is not valid Lua (or gopher-lua could not
	// compile it).
	ScriptSyntax
	// ScriptHook: a hook{} registration is wrong: an unknown key or event,
	// a value of the wrong type, a missing handler.
	ScriptHook
	// ScriptLimit: the source is larger than [MaxScriptSize] or nests
	// deeper than [MaxNesting].
	ScriptLimit
	// ScriptRejected: a construct gopher-lua miscompiles (see the package
	// documentation, "Rejected constructs").
	ScriptRejected
)

// FailureKind classifies a [HookError].
type FailureKind uint8

// The kinds of hook failure.
const (
	// FailError: the handler raised a Lua error (error(), a runtime error
	// such as indexing nil, a stack overflow, a sandbox violation).
	FailError FailureKind = iota + 1
	// FailTimeout: the hook's timeout or the caller's deadline passed. The
	// error matches context.DeadlineExceeded with errors.Is.
	FailTimeout
	// FailCanceled: the caller's context was canceled. The error matches
	// context.Canceled with errors.Is.
	FailCanceled
	// FailPanic: a Go panic inside gopher-lua or a host function.
	FailPanic
	// FailOutput: the handler returned something that is not a valid
	// HookOutput (wrong type, unknown decision, a cyclic or too deep table,
	// a value JSON cannot carry).
	FailOutput
	// FailInput: the Input could not be converted to Lua (too deep, a value
	// that is not JSON).
	FailInput
	// FailMemory: the handler exceeded [Options.MaxCallAlloc] (the error
	// matches [ErrMemory]), or after the call its VM retained more than
	// [Options.MaxRetained] (the error matches [ErrRetained]; the VM was
	// discarded).
	FailMemory
	// FailVM: no VM could be built (for example a script registered a
	// different set of hooks when it was loaded again).
	FailVM
)

var kindNames = [...]string{"", "error", "timeout", "canceled", "panic", "invalid output", "invalid input", "memory", "vm"}

// String returns a short lowercase name ("timeout").
func (k FailureKind) String() string {
	if int(k) < len(kindNames) && k != 0 {
		return kindNames[k]
	}
	return "FailureKind(" + strconv.Itoa(int(k)) + ")"
}

// A HookError is the failure of one hook call, returned by [Pool.Call]. The
// engine applies the hook's onError policy to it.
type HookError struct {
	Script string       // the script that registered the hook
	Line   int          // the line of its hook{} call
	Event  events.Event // the hook's event
	Kind   FailureKind
	// Msg is the message: the Lua error (with its script:line position
	// when Lua gave one), or what was wrong.
	Msg string
	// Value is the error value when a handler called error() with a
	// non-string value, converted to a Go value (a table becomes
	// map[string]any or []any); nil otherwise.
	Value any
	// Err is the underlying error, if any: context.DeadlineExceeded,
	// context.Canceled, [ErrMemory], an *[events.FieldError] for an output
	// that fails [events.Output.Validate].
	Err error
}

// Error returns "lua hook script:line (event): kind: msg".
func (e *HookError) Error() string {
	return fmt.Sprintf("lua hook %s:%d (%s): %s: %s", e.Script, e.Line, e.Event, e.Kind, e.Msg)
}

// Unwrap returns Err.
func (e *HookError) Unwrap() error { return e.Err }

func kindOfCtxErr(err error) FailureKind {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return FailTimeout
	case errors.Is(err, ErrMemory):
		return FailMemory
	}
	return FailCanceled
}
