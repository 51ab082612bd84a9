package config

import (
	"errors"
	"strconv"
	"strings"
)

// Error codes. Every [*Error] carries exactly one of these in its Code field.
// The codes are stable: tools and tests may match on them. Codes marked
// "warning" only ever appear in [File.Warnings].
const (
	// CodeBadFormat: the file name ends neither in .json nor in .toml.
	CodeBadFormat = "bad_format"
	// CodeTooLarge: the file is larger than [MaxFileSize].
	CodeTooLarge = "too_large"
	// CodeBadEncoding: the file is not UTF-8 text (invalid UTF-8 or a NUL byte).
	CodeBadEncoding = "bad_encoding"
	// CodeSyntax: the file is not well-formed JSON or TOML. Parsing stops at the
	// first syntax error, so it is the only error reported.
	CodeSyntax = "syntax"
	// CodeTooDeep: the document nests deeper than [MaxDepth]. Like
	// CodeSyntax it is the only error reported.
	CodeTooDeep = "too_deep"
	// CodeEmptyKey: a TOML file uses the empty key "" (or ''), which the
	// TOML decoder mishandles, losing values next to it. Like CodeSyntax it
	// is the only error reported. (JSON files may use empty keys.)
	CodeEmptyKey = "empty_key"
	// CodeWrongType: a value has the wrong type (for example a string where
	// a list of matcher groups belongs).
	CodeWrongType = "wrong_type"
	// CodeUnknownKey: a key that is not allowed inside a matcher group, a hook
	// entry or an atom entry. Unknown top-level keys are not errors.
	CodeUnknownKey = "unknown_key"
	// CodeDuplicateKey: a JSON object names the same key twice. (TOML
	// reports a duplicate key as CodeSyntax.)
	CodeDuplicateKey = "duplicate_key"
	// CodeUnknownEvent: a key under hooks or policyHooks is not one of the
	// thirteen event names (see events.ParseEvent).
	CodeUnknownEvent = "unknown_event"
	// CodeBadMatcher: a matcher is not a string or not a valid RE2 regular
	// expression.
	CodeBadMatcher = "bad_matcher"
	// CodeMissingHooks: a matcher group has no hooks list.
	CodeMissingHooks = "missing_hooks"
	// CodeMissingCommand: a hook entry has no command, or an empty or blank one.
	CodeMissingCommand = "missing_command"
	// CodeBadCommand: a command contains a NUL byte.
	CodeBadCommand = "bad_command"
	// CodeBadTimeout: timeoutMs is not an integer between 1 and
	// [MaxTimeoutMs].
	CodeBadTimeout = "bad_timeout"
	// CodeBadOnError: onError is not one of "deny" and "skip".
	CodeBadOnError = "bad_on_error"
	// CodeBadAtom: an atoms entry is empty, names both or neither of path
	// and stdlib, or holds a with value that JSON cannot represent.
	CodeBadAtom = "bad_atom"
	// CodePolicyInUser: a user file holds a policyHooks key. Policy hooks
	// come only from the operator's policy source.
	CodePolicyInUser = "policy_in_user_config"
	// CodeHooksInPolicy: a policy file holds a hooks key; an operator's hooks
	// belong under policyHooks.
	CodeHooksInPolicy = "hooks_in_policy_config"
	// CodeAtomsInPolicy: a policy file holds an atoms key; the policy tier
	// holds shell command hooks only.
	CodeAtomsInPolicy = "atoms_in_policy_config"
	// CodeBadKind: a tool kind (a group's kind, a tool declaration's kind)
	// is not one of shell, read, write, edit, patch, delete, fetch, other,
	// or is given at an event that is not tool-scoped.
	CodeBadKind = "bad_kind"
	// CodeBadTool: a tools entry is malformed (a location that is not a
	// string, a missing kind).
	CodeBadTool = "bad_tool"
	// CodeTooManyErrors: more than [MaxErrors] problems were found; the rest
	// are not reported. Always the last entry of its [Errors].
	CodeTooManyErrors = "too_many_errors"

	// CodeLikelyTypo (warning): an ignored top-level key that looks like a
	// misspelling of hooks, policyHooks or atoms ("Hooks", "hook"). Left
	// alone it would silently disarm the hooks it holds.
	CodeLikelyTypo = "likely_typo"
	// CodeMatcherIgnored (warning): a non-empty matcher on an event that is
	// not tool-scoped. The matcher is kept but never consulted: hooks of such
	// events always run.
	CodeMatcherIgnored = "matcher_ignored"
)

// An Error is one configuration problem: what (Code, Msg), where in the file
// (File, Line, Col) and which value (Field).
//
// Line and Col are 1-based; Col counts bytes from the start of the line (as
// the Go toolchain does), not characters. Line 0 means the problem concerns
// the whole file (CodeBadFormat, CodeTooLarge, CodeTooManyErrors) or, for
// errors returned by [Writer], a document that was never written. Field is a
// path to the offending value in JSON notation,
// "hooks.BeforeTool[0].hooks[1].timeoutMs"; keys other than
// [A-Za-z0-9_-]+ are quoted, as in `hooks["bad key"]`. Field is empty for
// problems of the whole document.
type Error struct {
	Code  string
	File  string
	Line  int
	Col   int
	Field string
	Msg   string
}

// Error formats the problem as "file:line:col: code: msg", or
// "file: code: msg" when Line is 0.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Col))
	}
	b.WriteString(": ")
	b.WriteString(e.Code)
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Pos returns the position of the problem.
func (e *Error) Pos() Pos { return Pos{File: e.File, Line: e.Line, Col: e.Col} }

// Errors is a list of problems in document order. [Parse] and [Load] return
// their problems as an Errors value, never an empty one, so
// errors.As(err, &errs) recovers the list. All methods are safe on a nil
// Errors.
type Errors []*Error

// Error formats every problem, one per line.
func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns es as an error, or nil when es is empty. Use it instead of
// converting an empty Errors to error, which would yield a non-nil error.
func (es Errors) Err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

// Unwrap returns the problems as errors, so that errors.As(err, &e) with
// e an *Error finds the first problem.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Codes returns the Code of every problem, in order.
func (es Errors) Codes() []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Code
	}
	return out
}

// Sentinel errors of the [Writer]. They are wrapped: match them with
// errors.Is.
var (
	// ErrPolicyReadOnly: the Writer never writes policy hooks. Returned when
	// asked to edit the policy tier, or a file that holds a policyHooks key.
	ErrPolicyReadOnly = errors.New("config: policy hooks are read-only: they come only from the operator's policy source")
	// ErrUnsupportedFormat: the Writer edits JSON files only; a TOML file
	// must be edited by hand (rewriting it would lose its comments).
	ErrUnsupportedFormat = errors.New("config: the settings writer edits .json files only")
	// ErrHookNotFound: a [Ref] names no hook of the file.
	ErrHookNotFound = errors.New("config: no such hook")
	// ErrConflict: the file changed on disk while the Writer was editing it;
	// nothing was written. Retry the edit.
	ErrConflict = errors.New("config: file changed during the edit")
)
