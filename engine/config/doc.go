// Package config loads and validates hook configuration files, and edits the
// user's command hooks in them.
//
// # Files and tiers
//
// A configuration file is JSON (agents.json) or TOML (agents.toml) holding the
// same document; the extension chooses the format. There are two tiers:
//
//   - A user file ([TierUser]) may hold "hooks" (command hooks) and "atoms"
//     (Lua atoms and standard packs). A "policyHooks" key in it is an error
//     (CodePolicyInUser): policy hooks come only from the operator's policy
//     source.
//   - A policy file ([TierPolicy]) holds "policyHooks", shell command hooks
//     only. "hooks" in it is an error (CodeHooksInPolicy), so an operator
//     cannot mistake a user-shaped file for policy; so is "atoms"
//     (CodeAtomsInPolicy), because the policy tier is command hooks only. (The
//     latter can be relaxed later without breaking any valid file.)
//
// Any other top-level key is ignored (agents.json holds other agent settings
// too) and kept by the [Writer]; one that looks like a misspelling of ours
// ("Hooks", "hook", "atom") draws a CodeLikelyTypo warning. JSON null is the
// same as an absent key.
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
// [MaxTimeoutMs]) and "onError" (optional, "deny" or the explicit default
// "skip"). An atoms entry is a path string, or a table with exactly one of
// "path" and "stdlib" plus an optional "with" table of parameters. Any other
// key inside a group, hook entry or atoms entry is an error. Relative atom
// paths resolve against the configuration file's directory.
//
// A group may also hold "kind": a tool kind ("shell", "read", "write",
// "edit", "patch", "delete", "fetch", "other") or a list of them, at the
// tool-scoped events only (CodeBadKind otherwise). Its hooks then run only
// for tools of those kinds in the engine's tool table; with a matcher, both
// must match. A file (user or policy) may declare the host's tools under
// "tools", name -> {"kind", "command", "paths", "contents", "urls"}, the
// last four being locations (a string or a list of them, see package
// tools) that the engine checks:
//
//	{ "tools": { "run": { "kind": "shell", "command": ["cmd"] } },
//	  "hooks": { "BeforeTool": [ { "kind": "shell", "hooks": [{ "command": "./guards/shell.sh" }] } ] } }
//
// # Loud validation
//
// [Parse] and [Load] report every problem, not just the first, as [Errors]:
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
// # Writing
//
// A [Writer] adds, replaces and removes the user's command hooks in a JSON user
// file. It never writes policy hooks ([ErrPolicyReadOnly]), keeps every other
// key, validates the result before writing, and replaces the file atomically.
// It does not write TOML ([ErrUnsupportedFormat]): rewriting would lose the
// file's comments.
//
// # No global state
//
// The package reads no environment, working directory or clock. [Parse] reads
// only its arguments; [Load] reads through an injected [OpenFunc]; a [Writer]
// through an injected [WriteFS]. All functions are safe for concurrent use,
// and none panics, prints or exits.
package config
