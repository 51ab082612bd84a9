// Package config parses and validates hook configuration files (agents.json,
// agents.toml and the operator's policy files) and holds the one list of
// configuration error codes. It is internal to the engine: embedders see
// its errors and codes through package engine.
//
// # Files and tiers
//
// A configuration file is JSON (agents.json) or TOML (agents.toml) holding the
// same document; the extension chooses the format. There are two tiers:
//
//   - A user file ([TierUser]) may hold "hooks" (command hooks), "atoms"
//     (Lua atoms and standard packs) and "tools" (tool declarations). A
//     "policyHooks" key in it is an error (CodePolicyInUser): policy hooks
//     come only from the operator's policy source.
//   - A policy file ([TierPolicy]) holds "policyHooks", shell command hooks
//     only, and "tools". "hooks" in it is an error (CodeHooksInPolicy), so
//     an operator cannot mistake a user-shaped file for policy; so is
//     "atoms" (CodeAtomsInPolicy), because the policy tier is command hooks
//     only. (The latter can be relaxed later without breaking any valid
//     file.)
//
// "$schema" (a string) may appear in both. Any other key, at any level but
// inside the free-form "with" parameters, is an error (CodeUnknownKey) with
// a did-you-mean when a key of ours is close ("Hooks", "hook", "comand",
// "timeout_ms", "matchers"): a misspelt key must never disarm the hooks it
// holds. JSON null is the same as an absent key.
//
// The hooks shape is event → matcher groups → hook entries:
//
//	{ "hooks": { "BeforeTool": [
//	    { "matcher": "^(shell_exec|file_write)$",
//	      "hooks": [{ "command": "./guards/check.sh", "timeoutMs": 5000, "onError": "deny" }] } ] },
//	  "atoms": [ "guards/extra.lua", { "stdlib": "deny-destructive", "with": { "protectedBranches": ["main"] } } ] }
//
// Event names are the thirteen of package events, spelled exactly. A group
// holds "hooks" (required) and "matcher" (optional: an RE2 regular expression
// checked with regexp.Compile; "" and "*" match everything). A matcher only
// applies to the tool-scoped events (events.Spec.Matcher); on another event
// it is kept but draws a CodeMatcherIgnored warning. A hook entry holds
// "command" (required, not blank), "timeoutMs" (optional integer, 1 to
// [MaxTimeoutMs]), "onError" (optional, "deny" or the explicit default
// "skip") and "persistent" (optional boolean: the command runs as one
// long-lived process speaking JSON lines, see the engine's "Resident
// command hooks"). An atoms entry is a path string, or a table with exactly one of
// "path" and "stdlib" plus an optional "with" table of parameters. Any other
// key inside a group, hook entry or atoms entry is an error. Relative atom
// paths resolve against the configuration file's directory.
//
// A group may also hold "kind": a tool kind ("shell", "read", "write",
// "edit", "patch", "delete", "fetch", "query", "other") or a list of them, at the
// tool-scoped events only (CodeBadKind otherwise). Its hooks then run only
// for tools of those kinds in the engine's tool table; with a matcher, both
// must match. A file (user or policy) may declare the host's tools under
// "tools", name -> {"kind", "command", "paths", "contents", "urls", "shell"}, the
// last four being locations (a string or a list of them, see package
// tools) that the engine checks:
//
//	{ "tools": { "run": { "kind": "shell", "command": ["cmd"] } },
//	  "hooks": { "BeforeTool": [ { "kind": "shell", "hooks": [{ "command": "./guards/shell.sh" }] } ] } }
//
// # Loud validation
//
// [Parse] reports every problem, not just the first, as [Errors]:
// each [*Error] has a stable code (the Code constants), the file, the 1-based
// line and column (in bytes) of the offending key or value, the JSON path of
// the value (Field) and a message. Only a syntax error stops validation, as
// nothing after it can be trusted. Positions are exact in both formats: JSON
// is parsed by this package's own small parser, and TOML is decoded by
// github.com/BurntSushi/toml and then located by a scanner of the (valid)
// document, because the decoder does not expose positions.
//
// Keys are case-sensitive. JSON must be strict RFC 8259 (no comments, no
// trailing commas); a JSON object that repeats a key is an error
// (CodeDuplicateKey). A TOML file may not use the empty key "" (CodeEmptyKey):
// the TOML decoder mishandles it and can silently drop values next to it, and
// a silently dropped guard is worse than a refused file.
//
// Everything is bounded: files by [MaxFileSize], nesting by [MaxDepth],
// timeouts by [MaxTimeoutMs] and reports by [MaxErrors]. Parsing time is
// linear in the file size (roughly 0.2 s per MiB of JSON, 1 s per MiB of TOML
// on one core; a typical file of a few KiB takes about a millisecond), so
// callers that reload often should still skip unchanged files.
//
// # No global state
//
// The package reads no file, environment, working directory or clock: [Parse]
// reads only its arguments (the engine reads the files through its injected
// filesystem). All functions are safe for concurrent use, and none panics,
// prints or exits.
package config
