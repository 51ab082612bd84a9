// Monad-hooks runs agent lifecycle hooks from the command line: the embedded
// stdlib of Lua guards, Lua atom-pack scripts, operator policy and user
// command hooks, with the dispatch semantics of package engine.
//
// Usage:
//
//	monad-hooks COMMAND [FLAGS] [ARGS]
//
// The commands are:
//
//	run EVENT        dispatch one HookInput read from stdin, print the Result
//	serve            dispatch HookInputs from stdin (JSON lines) or over HTTP
//	check            load the configuration and print the plan, or every error
//	explain EVENT    say which hooks an input would run, and why the others not
//	test [PATH...]   run spec test cases (TOML) against the configuration
//	init [DIR]       scaffold a working setup: agents.json, a Lua guard, its
//	                 tests, the editor's type definitions
//	types [FILE]     print (or write) the LuaLS type definitions of the Lua API
//	import --from AGENT FILE
//	                 convert an agent's hook settings into agents.json
//	install --host AGENT
//	                 route an agent's hook events through monad-hooks
//	uninstall --host AGENT
//	                 remove what install wrote
//	stdlib [NAME]    list the embedded stdlib packs and rule families, or document one
//	schema input|output
//	                 print the JSON Schema of a HookInput or a HookOutput
//	version          print the version
//	help [COMMAND]   print the help of a command
//
// Every command prints its help, with examples, for -h or --help (on stdout,
// exit 0).
//
// # Configuration
//
// The commands that build an engine (run, serve, check, explain, test) take
// the same flags:
//
//	--config FILE            user hooks (agents.json or agents.toml: "hooks",
//	                         "atoms"); repeatable
//	--policy FILE            operator policy ("policyHooks"); repeatable
//	--lua PATH               Lua script or folder of scripts; repeatable
//	--stdlib LIST            comma-separated stdlib packs
//	--root DIR               sandbox root, the cwd of command hooks (default:
//	                         the current directory)
//	--max-stop-continues N   bound on consecutive AfterTurn continuations
//	--vouch-model NAME       a model whose modelOverride is honoured; repeatable
//	--state FILE             session state (run, serve; run locks it)
//	--audit FILE             audit log, one JSON line per executed hook (run,
//	                         serve)
//
// With no configuration at all, monad-hooks runs the embedded default stdlib
// set (deny-destructive, protect-paths, redact-secrets, ask-irreversible).
// The default set is loaded whenever --stdlib is absent, also alongside
// --config, --policy and --lua files: "--stdlib none" turns it off,
// "--stdlib protect-paths" loads only that pack, and "default" inside a
// list expands to the default set ("--stdlib default,my-pack").
//
// A relative path is relative to where it is written: on the command line
// (--config, --policy, --lua, --root, --state, --audit, --listen unix:PATH)
// to the current directory; in a configuration file (an atoms entry, the
// script at the start of a command line) to that file's folder. Command
// hooks run in --root, so the other words of a command line are relative
// to it. Flags may come before or after the arguments, and -flag is the
// same as --flag.
//
// # run
//
// "monad-hooks run EVENT" reads one HookInput JSON object from stdin. Its
// "event", when present, must be EVENT; when absent it is set to EVENT. The
// Result is printed as one line of JSON on stdout and the exit code is 0,
// whatever the decision: a deny is the "decision" field, not an exit code.
// The Result is also a valid HookOutput, so "monad-hooks run EVENT" can
// itself be configured as a command hook. Input that cannot be used (not
// JSON, another or an unknown event) at an event that can deny is a deny
// Result (exit 0, the problem also on stderr); at other events, exit 1.
//
// Every hook that fails (an error, a panic, a timeout, an invalid output
// such as decision = "block") gets one line on stderr, in run and serve
// alike: "monad-hooks run: hook ID failed at EVENT (skipped): cause", or
// "(onError: deny)" when the failure denies or withholds a payload.
//
// "monad-hooks run --host HOST" reads another agent's hook payload and
// answers in that agent's convention (package engine/hosts; "monad-hooks
// help hosts" lists each agent's events and what it cannot express):
// claude-code, gemini-cli, codex and cursor answer with the JSON the agent
// reads on stdout and exit 0 (Claude Code's hookSpecificOutput
// permissionDecision, Gemini's decision, Codex's, Cursor's permission with
// user_message and agent_message, a continuation as Stop's decision block,
// AfterAgent's deny, Cursor's followup_message); crush with exit 2 and
// stderr for a deny. A decision the agent cannot express degrades to its
// deny with a reason (an ask on Codex or at Cursor's beforeReadFile, a
// prompt rewrite anywhere, a tool-input rewrite at Cursor's
// beforeShellExecution), never to a silent proceed. An event of the agent
// with no Monad equivalent proceeds with nothing to say (exit 0, no
// output). A payload that cannot be used, or an engine that cannot start,
// is the agent's deny at that event, and exit 2 (which every agent reads as
// a block) where no event is known. With --host, --state also keeps the
// count of continuations across runs, and the agent's own count
// (stop_hook_active, loop_count) is the least it can be, so
// --max-stop-continues bounds an agent that has no bound of its own.
//
// A broken configuration does not switch the guards off, since a host reads
// any exit but 0 and 2 as "proceed": run exits 0 and prints the Result, with
// every configuration error on stderr and in the Result's "configError". A
// broken user file or script is left out and the policy, the stdlib and the
// other files run; a broken policy file fails closed: at the events that can
// deny, the Result is a deny whose reason names the error. So does a stdlib
// pack of --stdlib that cannot load: protect-paths needs the home directory,
// taken from $HOME, else from the user database (getpwuid; /etc/passwd in a
// static build, CGO_ENABLED=0).
//
// With --state FILE the session state (the context stashed at SessionStart for
// the first BeforeTurn, the count of AfterTurn continuations) is read from
// FILE before a session event (SessionStart, BeforeTurn, AfterTurn,
// SessionEnd) and written back atomically after it, so that a session spans
// several runs; run holds a lock on FILE.lock from the read to the write, so
// that concurrent runs never lose each other's sessions. The other events
// leave FILE alone. A state file that cannot be read or locked is reported
// on stderr, and the dispatch runs without it. With --audit FILE each
// executed hook appends one JSON line (the engine's audit Record, with its
// "sessionId", and "time") to FILE; appends from concurrent runs do not
// interleave. Neither failing to save the state nor failing to write the audit
// changes the exit code once the Result is printed, because a host would
// then discard the decision; both are reported on stderr.
//
// A SIGINT or SIGTERM while a hook runs (or while run waits for the --state
// lock) lets the hook finish and its Result is printed; a second signal ends
// run at once.
//
// # serve
//
// "monad-hooks serve" keeps one engine with the session state in memory
// (loaded from and saved to --state, if given, at start and exit). The
// configuration files are checked on every dispatch: an edit is loaded in the
// background and serves the requests after it (the requests meanwhile use
// the configuration in force), and a broken edit keeps the last good
// configuration in force and is reported in each Result's "configError"
// (and logged on stderr). --reload-interval D checks the files at most
// every D instead.
//
// Without --listen, serve reads JSON lines: one HookInput per line on stdin
// ("event" required), one Result per line on stdout, in order. An invalid
// line gets {"error": "..."} and the stream goes on; blank lines get no
// answer. A line's optional "id" (a string or a number) starts its answer,
// errors included. The end of stdin ends serve with exit 0.
//
// With --listen ADDR, serve speaks HTTP on a loopback address
// (127.0.0.1:PORT, [::1]:PORT, localhost:PORT) or a unix socket (unix:PATH):
// POST /v1/dispatch takes a HookInput as its body, with Content-Type
// application/json, and returns the Result (400 for an invalid input, 413
// above 16 MiB, 415 for another Content-Type, 503 until the configuration
// is loaded); GET /healthz returns {"status", "generation", "configError"}
// (status "ok", "degraded" while a broken edit keeps the last good
// configuration, "starting", "stopping"); GET /readyz the same, with 503
// until the first plan is loaded (the socket opens before the configuration
// loads) and after a signal; with --metrics, GET /metrics serves Prometheus
// metrics (dispatches by event and decision, hook latency by hook and
// outcome, reloads and their failures, the Lua pool). A request's
// X-Request-Id comes back on its answer. Every error is JSON, {"error":
// "..."}. Other addresses are refused: the
// endpoint has no authentication and its hooks run commands. It answers the
// local agent only: a Host that is not the listen address, localhost or a
// loopback IP with its port (DNS rebinding), and a foreign Origin (a web
// page), get 403 and run no hook; a unix socket is created 0600. The address
// serve listens on is printed on stderr. At most --max-concurrent dispatches
// (default 32) run at once, and a body is read only once its request has a
// slot and fits a 16 MiB budget of bodies at once.
//
// With --host HOST (claude-code, gemini-cli, codex or cursor), the lines
// or bodies are that agent's hook payloads and the answers the JSON it
// reads ({} for no opinion; {"error": ...}, HTTP 400, where it would read
// exit 1): a Claude Code HTTP hook posts to /v1/dispatch directly. Crush,
// which reads a deny from the exit code, is refused.
//
// On SIGINT or SIGTERM serve stops taking input, lets the dispatches in
// flight finish and deliver their Results (for at most --grace, default 90s,
// after which they are canceled and their command hooks killed), saves the
// state and exits 0. A second signal ends the process at once.
//
// # check and explain
//
// "monad-hooks check" loads everything and prints the plan: for each event,
// the hooks in dispatch order with tier, kind, matcher, source (file:line)
// and what registered them, timeout and onError, within 100 columns: the
// user's own hooks (and the operator's) first, each numbered with its place
// in its event's order, then one line per stdlib pack (--all lists the
// stdlib's hooks in place). Identical command hooks run
// once per dispatch, in the place of the first that matched: a duplicate is
// listed in its place with the hook it is identical to ("dropped" when that
// one matches every tool it does). Commands show the script a relative path
// resolves to. Configuration errors are all listed on stderr, one per line,
// as file:line:col: code: message, with exit 1; warnings are printed on
// stderr by every command. A command hook whose script (the path its line
// starts with) is missing or not executable is a warning (bad_script) for
// run and serve, where the hook fails when it runs, and makes check exit 1.
// --json prints the plan as JSON.
//
// "monad-hooks explain EVENT" reads an input like run but runs no hook: it
// prints which hooks would run, in order, and why each of the others would
// not: a matcher that does not match the tool, an identical command that
// runs in its place, another event. The hooks that evaluate rule files
// (ask-irreversible, a user's rule file) are the exception: they run,
// sandboxed and without side effects, and explain names the rule that
// decided with the commands it catches and leaves alone. --json prints the
// same as JSON. With --host HOST the input is the agent's payload: explain
// first says which Monad event and tool it maps to, or that the agent's
// event has no Monad equivalent (nothing runs), or why it is refused and
// what run answers.
//
// # test
//
// "monad-hooks test [PATH...]" runs spec test cases, TOML files in the format
// of the project's spec folder; a folder is searched for *.toml files with
// [[case]] tables; a rule file ([[rule]] tables) runs the match and pass
// cases of its rules against the file alone. A case that defines hooks of
// its own runs against those only; a case that defines none runs against
// the configuration of the flags (the default stdlib set included unless
// --stdlib says otherwise).
// The output follows go test: a line per failing case and its mismatches,
// with the hook that decided (and its reason) and every hook that failed,
// "ok" or "FAIL" per file, then "N passed, N failed" (", N skipped"). -v
// prints every case, -run REGEXP selects cases by name. An unknown key in a
// case file is an error at its file:line:col, with a did-you-mean.
//
// # init and types
//
// "monad-hooks init [DIR]" scaffolds a working setup in DIR (default: the
// current directory): agents.json, which loads guards/example.lua (a Lua
// guard, hook{ name = "no-publish" }, beside the default stdlib set);
// hook-tests/example.toml, its tests, which pass with "monad-hooks test
// --config agents.json hook-tests/"; types/monad-hooks.d.lua, the LuaLS type
// definitions of the Lua API; and .luarc.json, which points LuaLS at them so
// that an editor completes hook{}, the input and the host modules. It
// writes nothing when one of these files exists, unless --force, and prints
// the next commands. "monad-hooks types [FILE|DIR]" prints the type
// definitions, or writes them to FILE (DIR/monad-hooks.d.lua).
//
// # import, install and uninstall
//
// "monad-hooks import --from AGENT FILE" reads an agent's hook settings
// (.claude/settings.json, .gemini/settings.json, .codex/hooks.json or the
// [hooks] of config.toml, .cursor/hooks.json, crush.json) and prints the
// equivalent agents.json (--toml: agents.toml; -o FILE writes it). Every hook
// keeps its input format ("input": "AGENT" on the command hook: its script
// gets the agent's payload and is read the agent's way), events and
// matchers map, timeouts become milliseconds, failClosed onError deny.
// Whatever cannot be carried over is listed on stderr; when a hook is not
// imported the exit code is 1.
//
// "monad-hooks install --host AGENT [--project|--user]" adds to the agent's
// settings file the entries that route each of its hook events through
// "monad-hooks run --host AGENT --state ...": it prints a diff first
// (--dry-run stops there), writes atomically after a backup
// (FILE.monad-hooks.bak), keeps the rest of the file as it was, is
// idempotent, and never writes a file the organization manages.
// "monad-hooks uninstall --host AGENT" removes exactly those entries.
//
// # Exit codes
//
//	0    ok: the command did its work, whatever the hooks decided
//	1    invalid input, invalid configuration (but for run, which answers
//	     all the same), an I/O error, or failing tests
//	64   usage error: unknown command or flag, missing or bad argument
//
// monad-hooks never exits 2 (to a hook host, exit 2 means deny), but for
// the deny of "run --host" to a host whose convention it is.
package main
