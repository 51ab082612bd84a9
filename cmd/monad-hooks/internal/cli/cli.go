package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"os/user"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"

	"github.com/monad-hooks/monad-hooks/engine"
)

// The exit codes of [Run]. A hook host reads exit 2 as a deny, so the CLI
// never exits 2 on its own: a decision, deny included, is printed in the
// Result with exit 0.
const (
	// ExitOK: the command did its work, whatever the hooks decided.
	ExitOK = 0
	// ExitFail: invalid input, an invalid configuration, an I/O error, or
	// failing test cases.
	ExitFail = 1
	// ExitUsage: an unknown command or flag, a missing or malformed argument
	// (EX_USAGE of sysexits.h).
	ExitUsage = 64
)

// Env is the part of the process environment the CLI reads. Everything else
// (arguments, streams) is passed to [Run] directly, so that tests can run
// commands in parallel.
type Env struct {
	// Dir is the working directory: the default sandbox root and the base of
	// relative paths given on the command line. "" means the process's.
	Dir string
	// Vars is the environment (KEY=VALUE) command hooks start from; the
	// engine strips secrets from it. HOME is read from it for "~" in Lua
	// paths and the home-directory rules of the stdlib (see homeDir).
	Vars []string

	// userHome looks the home directory up in the user database when HOME
	// is unset; nil means os/user (getpwuid, or /etc/passwd without cgo).
	// Tests inject a failure.
	userHome func() (string, error)

	// engineOpts are extra engine options, appended last (tests only: a Go
	// hook lets in-process tests observe a dispatch).
	engineOpts []engine.Option
	// lockState locks a --state file for a run's read, dispatch and write
	// and returns the unlock function; nil means lockFile (tests inject
	// their own).
	lockState func(path string) (unlock func() error, err error)
	// oneShot tunes the process for run's single dispatch; nil (tests
	// running commands in one process) leaves it alone.
	oneShot func()
	// catchSignals starts catching SIGINT and SIGTERM (see [OSEnv]); it
	// may be called more than once. nil (tests) catches nothing.
	catchSignals func()
}

// OSEnv returns the Env of the running process and the context to give
// [Run]: the first SIGINT or SIGTERM cancels it (serve stops gracefully; a
// run's hooks in flight finish and its Result is delivered), and a second one
// ends the process at once, by the signal's default action. The signals are
// caught from the moment the command needs them: every command but run
// catches them as it starts; run does before it waits for the session-state
// lock and before its first hook runs, so that a run whose dispatch runs no
// hook starts no signal-handling thread (BenchmarkCLIRunNoStdlib). Before
// that a signal has its default action, as during any program's start.
func OSEnv() (context.Context, Env) {
	dir, _ := os.Getwd()
	ctx, cancel := context.WithCancel(context.Background())
	catch := sync.OnceFunc(func() {
		sig, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		// The first signal cancels ctx; the signals then get their
		// default action again, so a second one ends the process at once.
		context.AfterFunc(sig, func() {
			stop()
			cancel()
		})
	})
	return ctx, Env{Dir: dir, Vars: os.Environ(), oneShot: oneShotGC, catchSignals: catch}
}

// catch starts catching SIGINT and SIGTERM, when e can.
func (e Env) catch() {
	if e.catchSignals != nil {
		e.catchSignals()
	}
}

// homeDir resolves the home directory: $HOME, else the user database
// (os/user: getpwuid, or /etc/passwd without cgo). When both fail it
// returns "" and why: the engine then refuses the packs that need it
// (protect-paths), and run fails closed at the events that can deny; the
// default set never runs weakened.
func (e Env) homeDir() (string, error) {
	if h := e.lookup("HOME"); h != "" {
		return h, nil
	}
	lookup := e.userHome
	if lookup == nil {
		lookup = func() (string, error) {
			u, err := user.Current()
			if err != nil {
				return "", err
			}
			return u.HomeDir, nil
		}
	}
	h, err := lookup()
	switch {
	case err != nil:
		return "", fmt.Errorf("the home directory is unknown: $HOME is unset and the user database failed: %w", err)
	case h == "":
		return "", errors.New("the home directory is unknown: $HOME is unset and the user database has none")
	}
	return h, nil
}

// oneShotGC turns the garbage collector off below a memory limit, unless
// GOGC or GOMEMLIMIT say otherwise: run allocates a few megabytes and
// exits, and collecting them was a tenth of its time (BenchmarkCLIRun).
// The limit keeps a hook that allocates much collected as usual.
func oneShotGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(oneShotMemoryLimit)
	debug.SetGCPercent(-1)
}

// oneShotMemoryLimit is the heap size at which a run collects garbage.
const oneShotMemoryLimit = 256 << 20

func (e Env) lookup(key string) string {
	for i := len(e.Vars) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e.Vars[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// invocation is one call of Run: its streams and environment.
type invocation struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	env            Env
	name           string // the command's name, for messages
	// answerStderr is the stderr of run's answer to its host, which
	// cmdRun writes last (alone at exit 2, where it is the reason).
	answerStderr string
}

// errorf prints "monad-hooks CMD: msg" on stderr.
func (inv *invocation) errorf(format string, args ...any) {
	fmt.Fprintf(inv.stderr, "monad-hooks %s: %s\n", inv.name, fmt.Sprintf(format, args...))
}

// usageErr reports a usage error and returns ExitUsage.
func (inv *invocation) usageErr(format string, args ...any) int {
	inv.errorf(format, args...)
	fmt.Fprintf(inv.stderr, "Run 'monad-hooks %s --help' for usage.\n", inv.name)
	return ExitUsage
}

type command struct {
	name    string
	summary string
	help    string
	run     func(ctx context.Context, inv *invocation, args []string) int
}

// commands lists the subcommands in the order the usage shows them.
func commands() []*command {
	return []*command{
		{"run", "dispatch one HookInput read from stdin and print the Result", helpRun, cmdRun},
		{"serve", "dispatch HookInputs from stdin (JSON lines) or over HTTP", helpServe, cmdServe},
		{"check", "load the configuration and print the plan, or every error", helpCheck, cmdCheck},
		{"explain", "say which hooks an input would run, and why the others would not", helpExplain, cmdExplain},
		{"test", "run spec test cases (TOML) against the configuration", helpTest, cmdTest},
		{"init", "scaffold a working setup: agents.json, a Lua guard, its tests, editor types", helpInit, cmdInit},
		{"types", "print (or write) the LuaLS type definitions of the Lua API", helpTypes, cmdTypes},
		{"import", "convert an agent's hook settings into agents.json", helpImport, cmdImport},
		{"install", "route an agent's hook events through monad-hooks", helpInstall, cmdInstall},
		{"uninstall", "remove what install wrote from an agent's settings", helpUninstall, cmdUninstall},
		{"stdlib", "list the embedded stdlib packs, or document one", helpStdlib, cmdStdlib},
		{"schema", "print the JSON Schema of a HookInput or a HookOutput", helpSchema, cmdSchema},
		{"version", "print the version", helpVersion, cmdVersion},
		{"help", "print the help of a command", helpHelp, nil},
	}
}

func lookupCommand(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// Run runs the monad-hooks command line args (without the program name) and
// returns the process exit code: [ExitOK], [ExitFail] or [ExitUsage], never
// 2. It reads stdin and writes stdout and stderr only through its arguments,
// so several Runs may proceed at once. ctx ends long-running commands
// (serve) gracefully.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env Env) int {
	if env.Dir == "" {
		env.Dir, _ = os.Getwd()
	}
	inv := &invocation{stdin: stdin, stdout: stdout, stderr: stderr, env: env}
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage())
		return ExitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, mainUsage())
		return ExitOK
	case "-v", "-version", "--version":
		name = "version"
	case "help":
		return cmdHelp(inv, rest)
	}
	c := lookupCommand(name)
	if c == nil || c.run == nil {
		inv.name = name
		fmt.Fprintf(stderr, "monad-hooks: unknown command %q\n", name)
		fmt.Fprint(stderr, "Run 'monad-hooks --help' for usage.\n")
		return ExitUsage
	}
	inv.name = c.name
	if c.name != "run" {
		// run catches the signals only when it is about to wait or run
		// a hook (BenchmarkCLIRunNoStdlib).
		env.catch()
	}
	return c.run(ctx, inv, rest)
}

func cmdHelp(inv *invocation, args []string) int {
	inv.name = "help"
	switch len(args) {
	case 0:
		fmt.Fprint(inv.stdout, mainUsage())
		return ExitOK
	case 1:
		if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
			fmt.Fprint(inv.stdout, helpHelp)
			return ExitOK
		}
		if args[0] == "hosts" {
			fmt.Fprint(inv.stdout, helpHosts())
			return ExitOK
		}
		c := lookupCommand(args[0])
		if c == nil {
			return inv.usageErr("unknown command %q", args[0])
		}
		fmt.Fprint(inv.stdout, c.help)
		return ExitOK
	}
	return inv.usageErr("want at most one command name, got %d arguments", len(args))
}

func mainUsage() string {
	var b strings.Builder
	b.WriteString(`monad-hooks runs agent lifecycle hooks: Lua guards, the embedded stdlib,
operator policy and user command hooks.

Usage:

	monad-hooks COMMAND [FLAGS] [ARGS]

Commands:

`)
	for _, c := range commands() {
		fmt.Fprintf(&b, "	%-9s %s\n", c.name, c.summary)
	}
	b.WriteString(`
With no configuration at all the embedded default stdlib set runs
(deny-destructive, protect-paths, redact-secrets, ask-irreversible); --stdlib
none turns it off.

Exit codes: 0 ok (whatever the hooks decided: a deny is printed, not exited),
1 invalid input or configuration, or failing tests, 64 usage error.
monad-hooks never exits 2, which means deny to hook hosts (but for the deny
of run --host to a host whose convention it is).

Examples:

	echo '{"toolName":"bash","toolInput":{"command":"rm -rf /"}}' | monad-hooks run BeforeTool
	monad-hooks check --config agents.json --lua guards/
	monad-hooks serve --listen 127.0.0.1:7878 --config agents.json
	monad-hooks help run
`)
	return b.String()
}

// errUsage marks an error of the command line (exit 64).
var errUsage = errors.New("usage")

// usageError wraps msg as a usage error.
func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}
