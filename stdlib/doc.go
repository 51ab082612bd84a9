// Package stdlib is the library of Lua atom packs that ships inside the
// binary: guards and redactors that a host loads by name, configures with a
// table of parameters, and runs in the engine's Lua tier like any other atom
// pack.
//
// # Layout
//
// [FS] holds one file per pack, "<name>.lua", at its root. A pack file starts
// with a header of "---" comment lines that the package parses (on first use,
// never at init) into a [PackInfo]:
//
//	--- pack: deny-destructive
//	--- summary: Deny shell commands that destroy data, devices, history or hosts.
//	--- events: BeforeTool
//	---
//	--- Free Markdown: what the pack catches and what it leaves alone.
//
// and declares its parameters once, in a table literal that both the Lua code
// (for defaults and load-time checks) and this package (for [PackInfo.Params]
// and [ValidateParams]) read:
//
//	local SPEC = {
//	  -- RE2 matched against the tool name.
//	  matcher = { "regex", "^(bash|shell)$" },
//	}
//	local P = require("monad.params").check(PACK, SPEC, params)
//
// Each entry sits on one line, preceded by its "--" documentation lines. The
// types are "string", "regex" (an RE2 expression), "bool", "number",
// "[]string", "[]regex", enumerations written "a|b|c" and lists of them
// written "[]a|b|c".
//
// # Libraries
//
// The Lua code the packs share lives once, in libraries (lib/<name>.lua in
// the source tree) that packs load with require("monad.<name>"):
// monad.params checks a pack's parameters against its SPEC table,
// monad.commands reads shell command lines, monad.paths knows the paths that
// hold credentials, monad.redact is the rule engine of the redacting packs,
// monad.rules the evaluator of rule files. [Libraries] returns their
// sources; a host that loads packs must hand them to its Lua runtime (the
// engine does), and user scripts may require them as well.
//
// # Rule files
//
// Guards can be data: a rule file (rules/<family>.toml, the format is in
// rules/README.md) describes a family of irreversible commands, each rule
// with its decision, reason, safer alternative and cases. The package reads
// no TOML: a host decodes the embedded files ([RuleSources]) or a user's,
// [ParseRules] checks them with every problem at its field path, and
// [RulesLibraries] (for the pack ask-irreversible, under [RulesLibraryName])
// or [RulesScript] (for a user's file) render them for monad.rules.
// [ValidateRuleParams] checks the parameters that name families, groups
// and rules.
//
// # Parameters
//
// A loaded pack sees its configuration in the read-only Lua global params
// (the "with" table of the configuration). [ValidateParams] checks such a
// table before the pack is loaded: an unknown pack, an unknown parameter
// (with a suggestion when it looks like a misspelling) or a value of the
// wrong type is an error naming the pack and the parameter. The pack checks
// the same declaration again when it loads (monad.params), so a host that
// skips ValidateParams still gets a load error rather than a silently
// disarmed guard.
//
// # Concurrency
//
// Every function is safe for concurrent use. The returned values are copies:
// a caller may modify them.
package stdlib
