package engine

import (
	"errors"

	"github.com/monad-hooks/monad-hooks/engine/internal/config"
)

// Errors returned by [Engine.Dispatch].
var (
	// ErrClosed: the engine was closed.
	ErrClosed = errors.New("engine: closed")
	// ErrInvalidInput: the Input fails [events.Input.Validate]; nothing ran.
	ErrInvalidInput = errors.New("engine: invalid input")
)

// ConfigError is one problem in a configuration: a stable Code (one of the
// Code constants), where it is (File, 1-based Line and Col, the column in
// bytes; Line 0 when the problem concerns a whole file or is not in a file,
// Col 0 when the column is unknown), the JSON path of the offending value in
// a configuration file (Field, "hooks.BeforeTool[0].hooks[1].timeoutMs") and
// a message. Its Error method formats it as "file:line:col: code: msg".
type ConfigError = config.Error

// ConfigErrors lists every problem found in a configuration, in the order
// found. [New] and [Engine.Reload] return it as their error, so
// errors.As(err, &ConfigErrors{}) recovers the list, and errors.As(err,
// &(*ConfigError)(nil)) its first problem.
type ConfigErrors = config.Errors

// The stable codes of configuration problems, in [ConfigError.Code].
// Warnings ([Engine.Warnings]) carry CodeMatcherIgnored or CodeBadScript;
// every other code is an error.
const (
	CodeBadFormat      = config.CodeBadFormat      // the file name ends neither in .json nor in .toml
	CodeTooLarge       = config.CodeTooLarge       // the file or script is larger than 4 MiB
	CodeBadEncoding    = config.CodeBadEncoding    // the file is not UTF-8 text
	CodeSyntax         = config.CodeSyntax         // the file is not well-formed JSON or TOML
	CodeTooDeep        = config.CodeTooDeep        // the document nests deeper than 64 levels
	CodeEmptyKey       = config.CodeEmptyKey       // a TOML file uses the empty key ""
	CodeWrongType      = config.CodeWrongType      // a value has the wrong type
	CodeUnknownKey     = config.CodeUnknownKey     // a key the format does not define (did-you-mean in the message)
	CodeDuplicateKey   = config.CodeDuplicateKey   // a JSON object repeats a key
	CodeUnknownEvent   = config.CodeUnknownEvent   // not one of the thirteen event names
	CodeBadMatcher     = config.CodeBadMatcher     // a matcher is not a valid RE2 regular expression
	CodeMissingHooks   = config.CodeMissingHooks   // a matcher group has no hooks list
	CodeMissingCommand = config.CodeMissingCommand // a hook entry has no command
	CodeBadCommand     = config.CodeBadCommand     // a command contains a NUL byte
	CodeBadTimeout     = config.CodeBadTimeout     // timeoutMs is not an integer from 1 to 600000
	CodeBadOnError     = config.CodeBadOnError     // onError is not "deny" or "skip"
	CodeBadInput       = config.CodeBadInput       // input names no known agent, or an agent event that does not map to the hook's event
	CodeBadAtom        = config.CodeBadAtom        // a bad atoms entry, an unknown stdlib pack or parameters it refuses
	CodePolicyInUser   = config.CodePolicyInUser   // a user file holds policyHooks
	CodeHooksInPolicy  = config.CodeHooksInPolicy  // a policy file holds hooks
	CodeAtomsInPolicy  = config.CodeAtomsInPolicy  // a policy file holds atoms
	CodeTooManyErrors  = config.CodeTooManyErrors  // more than 100 problems in one file; the rest are not reported
	CodeMissingHandler = config.CodeMissingHandler // a Go hook has no handler
	CodeLuaLoad        = config.CodeLuaLoad        // a Lua script fails while it loads, is too large or deep, or uses a rejected construct
	CodeLuaSyntax      = config.CodeLuaSyntax      // a Lua script is not valid Lua
	CodeLuaHook        = config.CodeLuaHook        // a hook{} registration is wrong (unknown key or event, wrong type, no handler)
	CodeRead           = config.CodeRead           // a file or script cannot be read
	CodeDuplicatePack  = config.CodeDuplicatePack  // a stdlib pack is named twice
	CodeNoHooks        = config.CodeNoHooks        // at a reload, a file that gave the plan hooks gives none (empty or cut short?)
	CodeRelativePath   = config.CodeRelativePath   // a policy command names a path that would be resolved in the sandbox root
	CodeBadKind        = config.CodeBadKind        // a tool kind is unknown, or given at an event that is not tool-scoped
	CodeBadTool        = config.CodeBadTool        // a tool declaration is malformed, or a user file redeclares a known tool
	CodeBadOption      = config.CodeBadOption      // an option's value is invalid
	CodeUnmetNeed      = config.CodeUnmetNeed      // a stdlib pack needs Files.Home or Files.Root, which the host did not set
	CodeBadRules       = config.CodeBadRules       // a rule file (an atoms path ending in .toml) does not hold valid rules

	CodeMatcherIgnored = config.CodeMatcherIgnored // warning: a matcher on an event that is not tool-scoped
	CodeBadScript      = config.CodeBadScript      // warning: a command hook's script does not exist or is not executable
)
