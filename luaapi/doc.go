// Package luaapi runs Lua atom-pack hooks in pooled, sandboxed gopher-lua
// VMs.
//
// A script registers hooks while it loads, mirroring the SDK's
// hook({event, matcher, handler}):
//
//	local re = require("re")
//	hook{ event = "BeforeTool", matcher = "^shell_exec$", onError = "deny", timeoutMs = 50,
//	      handler = function(input)
//	        if re.find(input.toolInput.command or "", "rm\\s+-rf") then
//	          return { decision = "deny", reason = "rm -rf" }
//	        end
//	      end }
//
// # Lifecycle
//
// [Compile] parses, checks and compiles a script once into immutable byte
// code. [NewPool] takes script instances ([Source]: a script and its
// params), builds one VM with every instance loaded, and collects the
// registrations ([Pool.Hooks], in load order). [Pool.Call] runs one hook's
// handler on a pooled VM and returns its [events.Output] or a *[HookError].
// A Pool is immutable: on reload the engine builds a new Pool and closes the
// old one ([Pool.Close]); calls in flight finish on the old VMs, and calls
// made on a closed pool still work, each on a temporary VM.
//
// A [Record] is what one source registered, as data ([Pool.Record]): given
// with every Source ([Source.Record]), it lets NewPool plan the pool
// without running the scripts, so that no VM is built until a call has to
// run a handler (a call that a hook's prefilter answers never builds one).
// Each VM built checks that the scripts register exactly the planned
// hooks; a stale Record fails the calls that need a VM (FailVM).
//
// # The Lua API
//
// hook{event=, name=, matcher=, kind=, prefilter=, handler=, onError=, timeoutMs=} is
// valid only while a script loads; unknown keys and wrong types are load
// errors ([ScriptError], kind [ScriptHook]) naming the script, the line and
// the column of the key or value at fault, with a did-you-mean for a
// misspelt key and for an event named as another agent runtime names it
// ("PreToolUse": "BeforeTool", see Options.EventAlias). name, optional, names the hook in the
// audit ([Hook.Name]): up to 100 bytes of text, unique in its script. kind
// (tool events only) is a tool kind
// ("shell", "read", "write", "edit", "patch", "delete", "fetch", "query", "other")
// or a list of them: the hook applies only to tools of those kinds in the
// host's tool table, which the engine matches ([Hook.Kinds]); with a
// matcher, both must match. onError is "deny" or "skip" (the default,
// written "" in [Hook.OnError]); timeoutMs is an integer from 1 to 60000 (default
// [Options.DefaultTimeout], 1 s). prefilter, only with kind = "shell", is a
// test of the scan module (scan.any, or a scan.keywords set): the hook
// promises that its handler proceeds on a shell call whose command
// (input.tool.command, at most 64 KiB) the test finds nothing in, and
// [Pool.Call] answers such a call "proceed" in Go without borrowing a VM
// ([Stats.Skipped]; [Options.IgnorePrefilters] turns this off). A handler
// keeps the promise by testing its lines with the same test first. A
// script may register any number of
// hooks, and must register the same ones every time it loads (each VM of the
// pool loads it again).
//
// The handler receives the HookInput as a table with the contract's JSON
// field names ([InputFields]); empty fields are nil. At the tool events,
// input.tool is the engine's view of the call (events.ToolView: kind,
// command, and the lists paths, contents and urls), nil for a tool the
// host's table does not know. Free-form payloads
// (toolInput, toolResult, usage, request) are tables marked as JSON objects
// or arrays (getmetatable returns "json.object" or "json.array"), and JSON
// null is the sentinel json.null (a userdata, so it is truthy). A handler
// may read, change and return parts of its input: no other call sees what
// it did (the input table, and the object table of a payload whose keys
// are those of the VM's last call, are refilled from call to call, emptied
// after each call, and replaced when a handler added a key to one or
// changed its metatable; other tables are fresh on every call). The
// tables of the input (its payloads, input.tool, caller, compaction) are
// built when the handler first reads, lists (pairs, next) or converts
// them, so a handler pays only for what it reads; the payloads are checked
// before the handler runs all the same. A VM also sets, before the call,
// the fields the hook's handler read in its earlier calls on that VM (one
// call in 64 sets none ahead and learns afresh; a payload of more than 64
// values is built only when read): the same values, without the read
// through the input table's __index. Do not keep the input table
// or its tables: they hold nothing between calls.
//
// The handler returns nil to proceed or an HookOutput table. Its fields are
// read raw; unknown keys are ignored, as in JSON; json.null counts as
// absent. So that no field is lost to the raw read, the table (and its
// continueWork) may not have a metatable of the script's (a class-style
// object whose decision comes through __index is a failure). A field of the wrong type, an unknown decision, a payload JSON
// cannot carry (a function, NaN, a cyclic or too deep table, a table with
// both index and string keys, a sparse array such as {[1]=a, [3]=b}) or any other return value is a failure
// (FailOutput), never a silent allow. Converting back: a marked table keeps
// its kind; an unmarked table is an array when its keys are exactly 1..n and
// an object otherwise, and an unmarked empty table is an object (use
// json.array{} for an empty array). Numbers are Lua numbers (float64), but
// a number returned unchanged keeps its input text: an entry of a table
// built from the input (or by json.decode in the same call) that is still
// equal, as a float64, to the input number at that place comes back
// exactly as written (12345678901234567890, 9007199254740993 and 1.50 stay
// as they are). A number a hook computes is written from its float64: an
// integral value below 1e21 without a fraction or exponent, any other in
// the shortest form that reads back the same (0.30000000000000004, 1e+21);
// integers beyond 2^53 lose precision; NaN and infinities are errors.
// Input numbers out of the range of a float64 (1e400) are rejected when
// the input is decoded (events.DecodeInput) or converted.
//
// A handler written in a hook{} call that returns a table constructor of
// HookOutput keys (`return { decision = "deny", reason = r }`) builds no
// table when the pool calls it: Compile rewrites such a return so that,
// in the copy of the handler the pool calls, it hands the values to the
// host, which reads them as it would read the table (a table's map and key
// index were most of a denying guard's allocations). The handler a script
// holds behaves as written: called by Lua code, the return builds the
// table, with no host call in between. See outreturn.go.
//
// Globals: string, table (concat, insert, remove, sort, getn, maxn), math
// (without randomseed), os (time, clock, date, on [Options.Now]), assert,
// error, pcall, xpcall, select, tonumber, tostring, type, next, pairs,
// ipairs, unpack, getmetatable, setmetatable (tables only), print (logs),
// require, hook, params and _G (the script's own environment). Host modules
// come from require: "re" (Go RE2), "json", "shell" (command lines, on
// packages syntax and pwsh: POSIX, PowerShell and cmd.exe; mod_shell.go defines the shape of its tables), "path",
// "log" and "scan" (keyword sets and redaction rules searched in one pass
// of a keyword automaton; see mod_scan.go), plus the embedder's own Go values ([Options.Modules], see
// hostmod.go: converted by gopher-luar, read-only, restricted to what their
// types expose); so do the host's Lua libraries (see Libraries below);
// require of any other name fails. [TypeDefinitions] documents the
// built-in ones for editors.
//
// # Libraries
//
// A host shares Lua code between scripts as libraries
// ([Options.Libraries]): modules written in Lua, compiled once by the host
// ([Compile], or on first use with [LazyScript]) and shared by every pool
// it gives them to, that a script loads
// with require(name) like a host module. A library is run lazily, in a VM the
// first time one of its scripts requires it, and cached in that VM: all
// scripts of the VM get the same table. That table, and every table
// reachable from it, is a read-only proxy, so the sandbox holds: no script
// can change what another script sees. A library runs in an environment of
// its own over the sandbox's globals: it has no params (a script passes
// what the library needs as arguments) and cannot assign globals (it keeps
// its state in locals and returns a table; those locals are shared by the
// scripts of the VM, so a library keeps only constants there). Its
// functions run for the script that calls them: a hook{} they make while
// the script loads is the script's hook, reported at the script's line
// that called into the library. The engine gives every pool the stdlib's
// libraries ("monad.params", "monad.commands", "monad.paths",
// "monad.redact"; see package stdlib), which user scripts may require too.
//
// # Sandbox
//
// There is no io, debug, package, coroutine or channel library, and no
// getfenv, setfenv, load, loadstring, loadfile, dofile, module, newproxy,
// collectgarbage, rawget, rawset, rawequal or string.dump. Each script
// instance has its own environment: its globals are visible to its own
// handlers only. Globals are sealed once the script has loaded: assigning
// a global (new or existing) from a handler is an error, so no state leaks
// between calls through globals. The library tables, the modules and params
// are read-only proxies (pairs, ipairs, next, # and unpack see through
// them, and getmetatable returns the JSON mark of a params table); strings have a fresh metatable that cannot be read or replaced;
// setmetatable accepts tables only and respects protected metatables.
// Script-level locals captured by handlers (upvalues) are the one place
// state can persist, per VM, in whatever VM served a call: treat them as
// read-only by convention (caches of constants are fine; counters are not
// meaningful).
//
// Failures are returned as a *[HookError] with a [FailureKind]; the host
// keeps running and the next call works: a Lua error (error() with a
// string, a table — kept in [HookError.Value] — or nil; a runtime error; a
// stack overflow at 200 nested calls; a sandbox violation), a Go panic
// inside gopher-lua (including those escaping its own protected call,
// gopher-lua issue #282), an invalid return value, a timeout, cancellation
// of the caller's context, and the allocation budget.
//
// # Time and memory
//
// A handler runs for at most its timeout (also bounded by the caller's
// context) plus a few milliseconds: a watchdog stops it at the next VM
// instruction (see vmctx.go), pcall cannot catch the stop, and the Lua
// pattern functions (string.find, match, gmatch, gsub), which run on
// package luapattern, our interruptible port of Lua 5.1's matcher, check
// it too. Timeouts satisfy errors.Is(err,
// context.DeadlineExceeded). The call's time includes converting its input
// and its result. Host functions whose work grows with their input poll
// the stop too: re.* (a search whose worst case, bytes times program size,
// could overrun the call's remaining time reads its subject through a
// polling reader; re.gsub, re.split and re.findall search match by match),
// json.decode, shell.split, shell.commands, table.sort and the conversions
// between Lua and Go values (see remain.go). Other Go builtins run to
// completion, so every one that could run long is bounded instead:
// string.rep, string.format, string.gsub, table.concat, re.gsub and
// json.encode fail beyond [Options.MaxStringSize]; unpack and the value
// stack are capped; integer keys at or above [MaxArrayIndex] go to the
// hash part of a table instead of growing its array part (a process-wide
// setting, see MaxArrayIndex). What is left is a small slack past the
// timeout: a linear builtin on a string of MaxStringSize (string.upper,
// string.byte, json.encode; tens of milliseconds), compiling a new RE2
// pattern (up to about 20 ms for the largest).
//
// gopher-lua has no memory limit. [Options.MaxCallAlloc] stops a handler
// whose call allocated more than the budget, measured on the process-wide
// allocation counter by the watchdog, so it is approximate and may count
// other goroutines' allocations under load; between two checks (about 4 ms)
// a handler can still allocate a lot (a string doubling every
// instruction). What a VM keeps between calls (its scripts' module-level
// state) is bounded by [Options.MaxRetained]: a walk of what the scripts
// can reach, run when the process's live heap grew, after long calls and
// every 1024 calls, discards a VM over the bound and fails the call with
// [ErrRetained] (see retained.go). Substrings that string.sub, the pattern
// functions, re.* and shell.* return from large strings get memory of
// their own, so keeping one does not keep the large string alive. Run
// untrusted third-party hooks in a separate process.
//
// # Rejected constructs
//
// [Compile] rejects a script larger than [MaxScriptSize] or nesting deeper
// than [MaxNesting] levels (brackets, blocks, elseif chains and chained
// operators count, see prescan.go) before gopher-lua's parser sees it: its
// compiler recurses over the syntax tree, so deeper nesting could overflow
// the Go stack (fatal) and costs time quadratic in the depth. Together the
// two bounds bound the time Compile takes (SECURITY.md has the figures).
//
// gopher-lua v1.1.2 miscompiles and/or expressions assigned to an existing
// local variable (issue #490): `r = r and (F() and T())` leaves r true when
// F() returns false. Compile rejects every such assignment it cannot prove
// correct, with the line and a hint (assign through a new local, or use an
// if). See checkChunk for the exact rule; a differential test checks it.
//
// # Pool and VMs
//
// A pool holds at most [Options.PoolSize] VMs. NewPool builds the first
// one and starts building the others in the background (one goroutine,
// which exits when the pool is full and which Close stops), so the
// scripts' top-level code runs at load, not in a call. A call takes the
// VM the last call returned (kept in a slot one atomic swap empties), else
// the most recently used idle VM (the warmest), or waits for one (busy, or
// being built) within its timeout: the time
// it waited is taken from its timeout, so a slow build makes the call a
// timeout, never a late success. No VM is built by a call in the steady
// state. A VM is discarded (closed) instead of reused after a timeout, a
// cancellation, the allocation budget, a Go panic, a stack or value-stack
// overflow, a stack left unbalanced, or [Options.MaxUses] calls, and
// rebuilt in the background; a VM is kept after an ordinary Lua error or
// invalid output. Each VM costs about 100-400 KB plus what the scripts
// allocate.
package luaapi
