package cli

// The help of each command, printed by --help (on stdout, exit 0). The manual
// in cmd/monad-hooks/doc.go says the same at more length; a test keeps the
// two in step.

const commonFlagsHelp = `
Configuration flags:

	--config FILE            user hooks (agents.json or agents.toml: "hooks",
	                         "atoms"); repeatable
	--policy FILE            operator policy ("policyHooks"); repeatable
	--lua PATH               Lua script or folder of scripts; repeatable
	--stdlib LIST            comma-separated stdlib packs; absent: the default
	                         set, also alongside --config, --policy and --lua;
	                         "none": no pack; "default" in a list expands to
	                         the default set (deny-destructive, protect-paths,
	                         redact-secrets)
	--root DIR               sandbox root, the cwd of command hooks (default:
	                         the current directory)
	--max-stop-continues N   bound on consecutive AfterTurn continuations
	                         (default 3; 0 disables continueWork)
	--vouch-model NAME       a model whose modelOverride is honoured;
	                         repeatable (without it no override applies)
	--state FILE             session state (JSON), read before and written
	                         atomically after (run, serve; ignored
	                         elsewhere); run takes its lock (FILE.lock)
	                         from the read to the write of the session
	                         events (waiting at most 5 s, else it runs
	                         without the state), and leaves it alone at
	                         the others
	--audit FILE             append one JSON line per executed hook (run,
	                         serve; ignored elsewhere); FILE is a regular
	                         file or a character device, never a FIFO
	                         (which could hold the run)

A relative path is relative to where it is written: on the command line, to
the current directory; in a configuration file (an atoms entry, the script
at the start of a command line), to that file's folder. Command hooks run
in --root, so the other words of a command line are relative to it. Flags
may come before or after the arguments; -flag and --flag are the same.
`

const exitCodesHelp = `
Exit codes: 0 ok, 1 invalid input or configuration, 64 usage error.
Never 2, which means deny to hook hosts (but for run --host, where 2 is
that host's deny).
`

const helpRun = `Usage: monad-hooks run EVENT [FLAGS] < input.json
       monad-hooks run [EVENT] --host HOST [FLAGS] < payload.json

Run reads one HookInput JSON object from stdin, dispatches it to the hooks
of EVENT and prints the Result as one line of JSON on stdout. It exits 0
whatever the hooks decided: a deny is the "decision" of the Result. The
Result is also a valid HookOutput, so "monad-hooks run EVENT" can itself be
configured as a command hook.

Every hook that fails (an error, a panic, a timeout, an invalid output such
as decision = "block") gets one line on stderr: "monad-hooks run: hook ID
failed at EVENT (skipped): cause", "(onError: deny)" when its failure
denies. So does a tool-scoped call of a tool no tool table knows
("monad-hooks run: BeforeTool: tool "X" is neither declared nor known...",
unguardedTool in the Result). serve does the same.

The input's "event", when present, must be EVENT; when absent it is set to
EVENT. Input that cannot be used (not JSON, another or an unknown event, a
field of the wrong type) at an event that can deny is a deny: the Result's
decision, with the problem as its reason and on stderr, exit 0; at other
events it is exit 1.

A broken configuration file does not switch the guards off (a host reads
any exit but 0 and 2 as "the hook failed, proceed"): run still exits 0 and
prints the Result, with every configuration error on stderr (file:line:col:
code: message) and in the Result's "configError". A broken user file or
script is left out: the policy, the stdlib and the other files run. A
broken policy file fails closed: at events that can deny (BeforeTurn,
BeforeModel, BeforeTool, ApprovalRequest) the Result is a deny whose reason
names the error; other events run the rest. So does a stdlib pack of
--stdlib that cannot load: protect-paths needs the home directory, taken
from $HOME, else from the user database. Use check (exit 1 on any
configuration error) in CI.

--host HOST reads the payload and answers in the convention of another
agent's command hooks, so that the agent runs monad-hooks as one of its
own hooks (EVENT is then optional: the payload names it). HOST is monad
(the contract above, the default), claude-code, gemini-cli, codex, cursor
or crush; "monad-hooks help hosts" lists each one's events and what it
cannot express (an ask where the agent has none is its deny with a
reason, never a silent proceed). An event of the agent with no Monad
equivalent proceeds with nothing to say (exit 0, no output; {} for
Cursor). A payload
that cannot be decoded, an unknown event or an engine that cannot start
(a bad --root) is the agent's deny (exit 2 where no event is known), never
an exit code the agent reads as "proceed". Where the answer is exit 2 the
agent reads all of stderr as the reason (Crush's deny, a refusal at no
known event): stderr then holds the reason alone, and the run's other
notes (failed hooks, configuration errors) are left out of it; --audit
records the hooks.

A side file that fails never changes the answer: an --audit file that
cannot be opened or written, a --state file that cannot be read, locked
or written are each said on stderr, and the dispatch runs and its
decision is answered as usual (without the audit or the stored state).

A SIGINT or SIGTERM while a hook runs (or while run waits for the --state
lock) lets the hook finish: its Result is answered as usual. A second
signal ends run at once.

With --host, --state also carries the count of continuations across runs
(Claude Code's Stop, Gemini's AfterAgent, Codex's Stop, Cursor's stop), so
--max-stop-continues bounds them; install puts --state in the command.
The agent's own count, when its payload gives one (stop_hook_active,
loop_count), is the least the count can be.
` + commonFlagsHelp + exitCodesHelp + `
Examples:

	echo '{"toolName":"bash","toolInput":{"command":"rm -rf /"}}' | monad-hooks run BeforeTool
	monad-hooks run BeforeTool --config agents.json --stdlib none < input.json
	monad-hooks run SessionStart --state state.json --audit audit.jsonl < start.json
	monad-hooks run --host crush     (in crush.json: "hooks": {"PreToolUse": [{"command": "monad-hooks run --host crush"}]})
	monad-hooks run --host claude-code --state ~/.claude/monad-hooks-state.json < payload.json
`

const helpServe = `Usage: monad-hooks serve [--listen ADDR] [FLAGS]

Serve keeps one engine running, with session state in memory and the
configuration reloaded when its files change (a broken edit keeps the last
good configuration and is reported in each Result's "configError").

Without --listen it reads JSON lines: one HookInput per line on stdin
("event" required), one Result per line on stdout, in order. An invalid line
gets {"error": "..."} and the stream goes on; blank lines are skipped. A
line may carry an "id" (a string or a number, at most 256 bytes): its
answer, error or Result, starts with the same "id", so that a client can
match answers to requests. At the end of stdin serve exits 0.

With --host HOST (claude-code, gemini-cli, codex or cursor; see
"monad-hooks help hosts") each line, or request body, is that agent's
hook payload, and the answer is the JSON the agent reads: its deny, ask or
rewrite, {} for no opinion, {"error": ...} (HTTP 400) where the agent
would read exit 1. A Claude Code HTTP hook can post to /v1/dispatch
directly. Crush, which reads a deny from the exit code, is refused.

With --listen ADDR it serves HTTP on ADDR (127.0.0.1:PORT, [::1]:PORT,
localhost:PORT, or unix:PATH; the endpoint has no authentication, so other
addresses are refused). The address it listens on is printed on stderr
(useful with port 0). It answers the local agent only: a request whose Host
is not the listen address, localhost or a loopback IP with its port (a web
page reaching it by DNS rebinding), or that carries an Origin of another
site (a web page), is refused with 403 and runs no hook. A unix socket is
created with mode 0600.

	POST /v1/dispatch   a HookInput as the body, with Content-Type:
	                    application/json -> 200 and the Result; 400 for an
	                    invalid input, 413 for a body larger than 16 MiB,
	                    415 for another Content-Type, 503 until the
	                    configuration is loaded
	GET  /healthz       200 and {"status", "generation", "configError"}:
	                    status "ok", "degraded" while a broken edit keeps
	                    the last good configuration in force (configError
	                    says why), "starting", "stopping"
	GET  /readyz        the same; 503 until the first plan is loaded (the
	                    socket opens first) and after a signal
	GET  /metrics       with --metrics: Prometheus metrics (dispatches by
	                    event and decision, hook latency by hook and
	                    outcome, reloads and their failures, the Lua pool)

A request's X-Request-Id header comes back on its answer, errors included.

Every error is JSON: {"error": "..."} (403, 404, 405, 413, 415 too). A body
is read only once its request has a dispatch slot (--max-concurrent) and
its bytes fit the body memory (16 MiB of bodies at once), and then within
5 s: a dozen clients sending 15 MiB bodies at once peak under 1 GiB of
resident memory. With --host, a payload over 16 MiB (a line or a body) is
answered with the agent's block on a 200, as one that cannot be decoded.

On SIGINT or SIGTERM serve stops taking input, lets the dispatches in flight
finish and deliver their Results (for up to --grace, then they are
canceled), saves --state and exits 0. A second signal ends it at once.

Serve flags:

	--listen ADDR          serve HTTP instead of stdin/stdout
	--grace DURATION       how long in-flight dispatches may run after a
	                       signal (default 90s)
	--max-concurrent N     HTTP dispatches that run at once (default 32)
	--reload-interval D    check the configuration files for changes at most
	                       every D (default 0: on every dispatch)
	--host HOST            the lines or bodies are HOST's hook payloads
	--metrics              serve Prometheus metrics at GET /metrics (needs
	                       --listen)
` + commonFlagsHelp + exitCodesHelp + `
Examples:

	monad-hooks serve --config agents.json < inputs.jsonl
	monad-hooks serve --listen 127.0.0.1:7878 --audit audit.jsonl
	curl -s localhost:7878/v1/dispatch -d '{"event":"BeforeTool","toolName":"bash"}'
	monad-hooks serve --listen unix:/run/monad-hooks.sock
`

const helpCheck = `Usage: monad-hooks check [FLAGS]

Check loads the configuration, the Lua scripts and the stdlib packs, and
prints the plan within 100 columns: your own hooks first (and the
operator's), for each event in dispatch order, each numbered with its
place among all the hooks of the event, with its tier, kind, source
(file:line), matcher, timeout and onError; then the stdlib packs, a line
each with their events (--all lists their hooks in place). Paths under the
current directory are shown relative to it. Identical
command hooks (same command, timeout and onError) run once per dispatch, in
the place of the first of them whose matcher matched: a duplicate is listed
in its place with the hook it is identical to, and marked "dropped" when
that hook matches every tool it matches. It exits 0. When anything is wrong it
lists every error (file:line:col: code: message) on stderr and exits 1, also
when a command hook's script (the path its line starts with) is missing or
not executable.

	--all     list the stdlib's hooks too, in dispatch order
	--json    print the plan as a JSON array (every hook)
` + commonFlagsHelp + exitCodesHelp + `
Examples:

	monad-hooks check --config agents.json --policy /etc/monad/policy.json
	monad-hooks check --lua guards/ --stdlib none
`

const helpExplain = `Usage: monad-hooks explain EVENT [FLAGS] < input.json
       monad-hooks explain [EVENT] --host HOST [FLAGS] < payload.json

Explain reads a HookInput like run, but runs no hook: it prints which hooks
would run for the input, in order, and for every other hook why it would not
(another event, a matcher that does not match the tool, an identical command
that runs in its place, ...). Use it to find out why a hook did not fire.

With --host HOST the input is that agent's hook payload: explain first
says which Monad event and tool it maps to (and what of the event does not
carry over), or that the agent's event has no Monad equivalent, so nothing
runs, or why the payload is refused and what run --host answers then
(exit 1).

One kind of hook does run: the hooks that evaluate rule files (the stdlib
pack ask-irreversible, your own rule files) run, sandboxed and without side
effects, and explain names the rule that decided, with the commands the
rule is written to catch and to leave alone.

	--json    print one JSON object per hook, with "matched", "runs" and "why"
	--host    the agent whose hook payload stdin holds
` + commonFlagsHelp + exitCodesHelp + `
Examples:

	echo '{"toolName":"file_write"}' | monad-hooks explain BeforeTool --config agents.json
	echo '{"hook_event_name":"Notification"}' | monad-hooks explain --host claude-code
`

const helpTest = `Usage: monad-hooks test [FLAGS] [PATH...]

Test runs spec test cases: TOML files in the format of the project's spec/
folder (see spec/README.md). A PATH is a file, or a folder searched for
*.toml files that hold [[case]] tables (other TOML files are skipped);
without PATH, the current directory.

A rule file (TOML with [[rule]] tables, see stdlib/rules/README.md) is
tested too: each rule is a case, run against the rule file alone, whose
match commands must get the rule's decision and whose pass commands must
get none.

A case that defines hooks of its own (hook, files, config, policy, lua,
stdlib) runs against those only. A case that defines none runs against the
configuration of the flags: that is how you test your own guards. Mind that
without --stdlib the default stdlib set is part of that configuration.

The output is like go test: a line per failing case with what was wanted
and what came, the hook that decided and its reason, and every hook that
failed; "ok" or "FAIL" per file, and a last line "N passed, N failed" (and
", N skipped"). Exit 1 when a case failed or a file is invalid: an unknown
key is reported at its file:line:col, with a did-you-mean.

Test flags:

	-v              print every case
	-run REGEXP     run only the cases whose name matches
	-parallel N     cases that run at once (default: the number of CPUs)
	-lua-timeout D  the timeout of Lua hooks and stdlib packs that set no
	                timeoutMs (default: the engine's, 1s): more on a slow
	                or loaded CI machine, up to 1m
` + commonFlagsHelp + exitCodesHelp + `
Examples:

	monad-hooks test --config agents.json --lua guards/ tests/
	monad-hooks test --stdlib none -v spec/cases
`

const helpInit = `Usage: monad-hooks init [--force] [DIR]

Init scaffolds a working setup in DIR (default: the current directory),
created if needed:

	agents.json              the configuration: loads the guard below (the
	                         default stdlib set runs too)
	guards/example.lua       a Lua guard, hook{ name = "no-publish" }: the
	                         agent may not publish packages
	hook-tests/example.toml  its tests, which pass with monad-hooks test
	types/monad-hooks.d.lua  the LuaLS type definitions of the Lua API
	.luarc.json              points LuaLS at them, so that an editor
	                         completes hook{}, the input and the modules

It writes nothing when one of these files exists, unless --force. Then it
prints the next commands: check, test, run and serve.
` + exitCodesHelp + `
Examples:

	monad-hooks init my-hooks && cd my-hooks
	monad-hooks test --config agents.json hook-tests/
`

const helpTypes = `Usage: monad-hooks types [FILE|DIR]

Types prints the LuaLS type definitions (---@meta) of the Lua API: hook{},
the input and output tables, params and the host modules (re, json, shell,
path, log). With FILE it writes them there; with a DIR, to
DIR/monad-hooks.d.lua. Point LuaLS's workspace.library at the folder (init
writes a .luarc.json that does).
` + exitCodesHelp + `
Examples:

	monad-hooks types > types/monad-hooks.d.lua
	monad-hooks types types/
`

const helpStdlib = `Usage: monad-hooks stdlib [NAME]

Stdlib lists the Lua guard packs embedded in the binary with a line each,
marking the default set, then the rule families of ask-irreversible with
their group, rule count and decision. With a NAME it prints the pack's
documentation and parameters (set them under "with" of an "atoms" entry in
agents.json); with the NAME of a family or group, that family's rules.
` + exitCodesHelp + `
Examples:

	monad-hooks stdlib
	monad-hooks stdlib deny-destructive
	monad-hooks stdlib iac
`

const helpSchema = `Usage: monad-hooks schema input|output

Schema prints the JSON Schema (draft 2020-12) of a HookInput or of a
HookOutput.
` + exitCodesHelp + `
Examples:

	monad-hooks schema input > hook-input.schema.json
`

const helpVersion = `Usage: monad-hooks version

Version prints the module version of the binary ("devel" when it was not
built from a released module), its VCS revision when known, and the Go
version.
`

const helpHelp = `Usage: monad-hooks help [COMMAND|hosts]

Help prints the usage of monad-hooks, or of COMMAND. "monad-hooks COMMAND
--help" does the same. "monad-hooks help hosts" lists the agents whose
hook contracts monad-hooks speaks, with their events and what each cannot
express.
`
