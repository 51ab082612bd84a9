package config

import (
	"strings"
)

// Error codes: the one list of the codes of configuration problems, of the
// files (reported by [Parse]) and of what the engine loads beside them
// (reported by package engine, which re-exports every code). Every [*Error]
// carries exactly one of these in its Code field. The codes are stable:
// tools and tests may match on them. Codes marked "warning" only ever appear
// in [File.Warnings] (and the engine's warnings).
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
	// CodeUnknownKey: a key the file may not hold: anywhere but inside the
	// free-form "with" parameters of an atom, a key that is not part of the
	// format is an error (with a did-you-mean when one is close), never
	// ignored.
	CodeUnknownKey = "unknown_key"
	// CodeDuplicateKey: a JSON object names the same key twice. (TOML
	// reports a duplicate key as CodeSyntax.)
	CodeDuplicateKey = "duplicate_key"
	// CodeUnknownEvent: a key under hooks or policyHooks is not one of the
	// thirteen event names (see events.ParseEvent), or a Go hook names an
	// invalid event.
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
	// CodeBadInput: a hook entry's input names no known agent, or an
	// event of the agent that does not map to the hook's event.
	CodeBadInput = "bad_input"
	// CodeBadAtom: an atoms entry is empty, names both or neither of path
	// and stdlib, or holds a with value that JSON cannot represent; or (from
	// the engine) it names an unknown stdlib pack or parameters the pack
	// refuses.
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
	// is not one of shell, read, write, edit, patch, delete, fetch, query, other,
	// or is given at an event that is not tool-scoped.
	CodeBadKind = "bad_kind"
	// CodeBadTool: a tools entry is malformed (a location that is not a
	// string, a missing kind); or (from the engine) a declaration is
	// invalid (a malformed location), or a user file redeclares a tool
	// that is already known.
	CodeBadTool = "bad_tool"
	// CodeTooManyErrors: more than [MaxErrors] problems were found; the rest
	// are not reported. Always the last entry of its [Errors].
	CodeTooManyErrors = "too_many_errors"

	// CodeMatcherIgnored (warning): a non-empty matcher on an event that is
	// not tool-scoped. The matcher is kept but never consulted: hooks of such
	// events always run.
	CodeMatcherIgnored = "matcher_ignored"
	// CodeBadScript (warning): a command hook's line starts with a script
	// (a path) that does not exist or is not executable; the hook fails
	// when it runs (exit 126 or 127), and its onError applies. Reported
	// by the engine; `monad-hooks check` fails on it.
	CodeBadScript = "bad_script"

	// The codes below are reported by the engine.

	// CodeMissingHandler: a Go hook has no handler.
	CodeMissingHandler = "missing_handler"
	// CodeLuaLoad: a Lua script fails while it loads (an error at the top
	// level, the load timeout), is too large or nests too deep, or uses a
	// construct gopher-lua miscompiles.
	CodeLuaLoad = "lua_load"
	// CodeLuaSyntax: a Lua script is not valid Lua (at the line and column
	// of the token at fault).
	CodeLuaSyntax = "lua_syntax"
	// CodeLuaHook: a hook{} registration is wrong: an unknown key (with a
	// did-you-mean) or event (with other agents' names for ours), a value
	// of the wrong type, a missing handler; at the key or value at fault.
	CodeLuaHook = "lua_hook"
	// CodeRead: a configuration file or script cannot be read (missing,
	// unreadable).
	CodeRead = "read_error"
	// CodeDuplicatePack: a stdlib pack is named twice (in user files, or in
	// the host's list): a pack loads once per plan, with one set of
	// parameters.
	CodeDuplicatePack = "duplicate_pack"
	// CodeNoHooks: at a reload, a configuration file or script that gave
	// the plan in force hooks gives none: it is empty, a TOML file without
	// its hooks key, or a script that registers no hook, which is what a
	// file cut short mid-write looks like. The plan in force stays.
	CodeNoHooks = "no_hooks"
	// CodeRelativePath: a policy command names a relative path that would
	// be resolved in the sandbox root, which the agent can write (only a
	// relative path as the first word of the line is resolved, beside the
	// policy file).
	CodeRelativePath = "relative_path"
	// CodeBadOption: an option's value is invalid (WithUnguardedTools with
	// a decision other than proceed, ask or deny).
	CodeBadOption = "bad_option"
	// CodeUnmetNeed: a stdlib pack needs what the host did not give
	// (Files.Home for home-directory rules, Files.Root for the project
	// root), and would run weakened.
	CodeUnmetNeed = "unmet_need"
	// CodeBadRules: a rule file (an atoms or Files.Lua path ending in
	// .toml, see stdlib/rules/README.md) does not hold valid rules; Field is
	// the rule's field ("rule[2].program").
	CodeBadRules = "bad_rules"
)

// An Error is one configuration problem: what (Code, Msg), where in the file
// (File, Line, Col) and which value (Field).
//
// Line and Col are 1-based; Col counts bytes from the start of the line (as
// the Go toolchain does), not characters. Line 0 means the problem concerns
// the whole file (CodeBadFormat, CodeTooLarge, CodeTooManyErrors) or a
// problem that is not in a file (File is then empty or names the source,
// such as a Go hook); Col 0 means the column is not known (Lua errors).
// Field is a
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

// Error formats the problem as "file:line:col: code: msg" (the position as
// [Pos.String] writes it), or "code: msg" when File is empty.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.Pos().String())
		b.WriteString(": ")
	}
	b.WriteString(e.Code)
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Pos returns the position of the problem.
func (e *Error) Pos() Pos { return Pos{File: e.File, Line: e.Line, Col: e.Col} }

// Errors is a list of problems in document order. [Parse] returns
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
