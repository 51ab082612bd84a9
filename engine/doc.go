// Package engine dispatches agent lifecycle events to hooks. It compiles a
// configuration (native Go handlers, Lua atom-pack scripts, operator policy
// and user command hooks) into an immutable plan, runs the hooks that match
// each event in the documented order, merges what they return into a
// [Result], and reports every executed hook to a [Recorder].
//
// An [Engine] is safe for concurrent use. Build one with [New]; dispatch with
// [Engine.Dispatch]; release it with [Engine.Close].
//
// # Order
//
// Atom hooks run first (Go handlers in registration order, then Lua hooks in
// script load order), then operator policy command hooks, then user command
// hooks. Identical command specs (same command, timeout and onError) run once
// per dispatch, among the hooks whose matcher matched, in the place of the
// first of them: a command listed by both the policy and the user runs once,
// as policy, for the tools the policy's matcher selects, and as user for
// the others.
//
// # Matching
//
// At the tool-scoped events (BeforeTool, AfterTool, ApprovalRequest) a hook's
// matcher is an RE2 regular expression searched in the tool name (unanchored,
// like JavaScript's RegExp.test); "" and "*" match every tool. At the other
// events every hook matches. A dispatch with no matching hook returns at
// once: it runs, spawns and allocates nothing.
//
// # Tools
//
// The engine keeps a tool table (package tools): the built-in table of the
// agents the project knows, the host's declarations ([WithTools]) and
// those of configuration files ("tools"; a user file may only add tools, a
// policy file may also redeclare them). A hook may select tools by kind
// (GoHook.Kinds, hook{ kind = ... }, a group's "kind") instead of, or as
// well as, by name: a hook of kind shell covers every shell tool, whatever
// the host calls it. At the tool-scoped events every hook gets the engine's
// view of the call in Input.Tool (kind, command line, paths, contents,
// URLs), recomputed after each rewrite of the tool input. A dispatch for a
// tool that no table knows sets Result.UnguardedTool and starts its audit
// with an engine record ("unguardedTool"); [WithUnguardedTools] makes it
// ask or deny. Input.ToolCallID, when the host sends it, is copied into
// every Record, tying a call's BeforeTool and AfterTool together.
//
// # Stdlib
//
// The engine runs no stdlib guard unless told: [WithStdlib]("default") loads
// the default set (the one the monad-hooks CLI runs, through the same
// option), Files.Stdlib and "atoms" entries load packs with parameters. A
// pack loads once per plan: one that a user file names in its atoms
// replaces the copy of WithStdlib or Files.Stdlib, in its place. A pack
// that needs the home directory or the project root (Files.Home,
// Files.Root) makes New fail rather than run weakened (at a degraded start,
// see [WithDegradedStart], it is left out and reported).
//
// # Serial and parallel events
//
// At serial events hooks chain: each sees the input as rewritten by the
// hooks before it (mutatedPrompt becomes prompt, mutatedToolInput becomes
// toolInput, ...), and the first deny stops the chain. Decisions combine as
// deny > ask > allow > proceed; the reason is the winning hook's.
// additionalContext values are joined in plan order with a blank line; for
// single-valued rewrites the last hook wins. A deny drops the rewrites.
// At parallel events (SessionStart, BeforeCompact, AfterCompact, SessionEnd)
// hooks run concurrently and their outputs merge in plan order, never in
// completion order.
//
// Fields an event does not honour are ignored, and so is a decision it
// cannot honour; the audit Record still lists them under Ignored.
//
// What an output says to the host is bounded, whatever the hook's kind: a
// reason (and a continueWork reason) is cut to [events.MaxReasonSize], the
// additionalContext of a dispatch (the SessionStart stash too) to
// [events.MaxContextSize] in all, each ending in a marker
// ([events.CutText]); the decision stands, and the Record lists the cut
// fields under Truncated. A modelOverride over [events.MaxModelSize] is
// refused. Payload rewrites are never cut.
//
// # Failure
//
// A hook's own failure (an error, a panic, a timeout, an invalid output) is
// skipped by default. With onError: deny it becomes a deny at the events
// that can deny (fail closed); at AfterTool, AfterModel, AfterSubagent and
// AfterTurn it withholds the payload the hook could rewrite (the Result
// carries a marker naming the hook in its place, see OnErrorDeny); at the
// other events it is skipped. A panicking Go handler never crashes the
// host. Failures are outcomes in the Result and the audit, never a Dispatch
// error.
//
// # Sessions
//
// Context returned at SessionStart is stashed per session and injected, first,
// into the additionalContext of that session's first BeforeTurn that is not
// denied (a host whose SessionStart hook hands context to the model itself
// keeps it in the SessionStart Result instead: [WithSessionContextAtStart]).
// At AfterTurn, hooks see input.stopContinues, the number of
// consecutive continuations so far; once it reaches maxStopContinues a
// continueWork is dropped (audit: capped). The count resets whenever an
// AfterTurn ends without a continuation, including a capped one. A
// modelOverride is applied only when the host vouches for the model
// ([WithModelVouch]). SessionEnd drops the session's state.
//
// # Hot reload
//
// Each Dispatch checks cheaply whether the configuration files and scripts
// changed (see [WithReloadInterval]) and, if so, starts loading them in the
// background, on the engine's own context and bound ([WithReloadTimeout]),
// at most one load at a time. Dispatches never wait for a load: they use the
// plan in force until the new one is complete and swapped in.
// [Engine.Reload] waits for it. A configuration that fails to load never
// replaces the working one; the failure is logged and reported in
// Result.ConfigError until fixed, and a load that failed for a reason other
// than the files' content is tried again at the next dispatch. A file that
// gave the plan in force hooks and now reads empty, or cut short to no hook,
// is refused (CodeNoHooks), and a file that changes while it is read is
// read again.
//
// # Embedding and gopher-lua's global setting
//
// Lua hooks run in gopher-lua VMs (package luaapi). gopher-lua has one
// setting global to the process, lua.MaxArrayIndex: the largest integer key
// that grows a table's array part, which gopher-lua fills with nils up to
// the key in one uninterruptible instruction. luaapi lowers it from 64 Mi
// to 1 Mi (luaapi.MaxArrayIndex) in its package initialisation, so that
// t[6e7] = true in a hook costs nothing instead of seconds and gigabytes. A
// program that links this package gets that value for every gopher-lua VM
// it runs, its own included: their tables keep integer keys of 1 Mi and
// more in the hash part, where # does not count them. It is set before
// main, before any VM exists, because changing it while tables exist
// corrupts them; luaapi only lowers it, so a host may lower it further
// before creating VMs, but must not raise it.
package engine
