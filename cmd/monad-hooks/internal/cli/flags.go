package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	if v == "" {
		return errors.New("empty value")
	}
	*s = append(*s, v)
	return nil
}

// newFlagSet returns a flag set that reports errors to its caller only: it
// never prints and never exits (flag.ExitOnError would exit 2, a deny).
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("monad-hooks "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses flags anywhere among the arguments ("run BeforeTool
// --config x" and "run --config x BeforeTool" are the same); "--" ends the
// flags. It returns the positional arguments, or an exit code >= 0 when the
// command must stop: ExitOK after --help (printed on stdout), ExitUsage
// after a bad flag (reported on stderr).
func parseArgs(inv *invocation, fs *flag.FlagSet, help string, args []string) ([]string, int) {
	var pos []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(inv.stdout, help)
			return nil, ExitOK
		}
		if err != nil {
			return nil, inv.usageErr("%v", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, -1
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), -1
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// common holds the flags of every command that builds an engine.
type common struct {
	config, policy, lua, vouch stringList
	stdlib                     *string // nil: the flag is absent
	root                       string
	state                      string
	audit                      string
	// sidesOptional: a --state file that cannot be read and an --audit
	// file that cannot be opened are reported and skipped rather than
	// fatal (run: the guards run all the same, and the host obeys their
	// decision; serve refuses to start instead).
	sidesOptional    bool
	maxStopContinues *int
	// seed is session state a host payload vouches for (hostSeed), merged
	// into the stored state.
	seed map[string]engine.SessionState
	// beforeHooks, when set, is called as a dispatch is about to run hooks
	// (build with withRuntime): run catches the signals then.
	beforeHooks func()
}

// register adds the common flags to fs.
func (c *common) register(fs *flag.FlagSet) {
	fs.Var(&c.config, "config", "user hooks `FILE` (agents.json or agents.toml); repeatable")
	fs.Var(&c.policy, "policy", "operator policy `FILE` (policyHooks); repeatable")
	fs.Var(&c.lua, "lua", "Lua script or folder of scripts `PATH`; repeatable")
	fs.Func("stdlib", "comma-separated stdlib `LIST` (default: the default set; none: no pack)", func(v string) error {
		c.stdlib = &v
		return nil
	})
	fs.StringVar(&c.root, "root", "", "sandbox root `DIR`, the cwd of command hooks (default: the current directory)")
	fs.StringVar(&c.state, "state", "", "session state `FILE` (JSON), read before and written after (run, serve)")
	fs.StringVar(&c.audit, "audit", "", "append one JSON line per executed hook to `FILE` (run, serve)")
	fs.Func("max-stop-continues", "bound `N` on consecutive AfterTurn continuations (default 3)", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return errors.New("want an integer")
		}
		c.maxStopContinues = &n
		return nil
	})
	fs.Var(&c.vouch, "vouch-model", "model `NAME` whose modelOverride is honoured; repeatable")
}

// abs resolves a command-line path against the working directory.
func abs(env Env, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(env.Dir, p)
}

func absAll(env Env, ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = abs(env, p)
	}
	return out
}

// rootDir is the sandbox root: --root or the working directory.
func (c *common) rootDir(env Env) string {
	if c.root == "" {
		return env.Dir
	}
	return abs(env, c.root)
}

// stdlibList resolves --stdlib into pack names with engine.StdlibPacks, the
// function engine.WithStdlib resolves them with: the default set when the
// flag is absent, none for "none", and "default" inside a list expands to
// the default set. Names are deduplicated, first occurrence first; an
// unknown name is a usage error.
func (c *common) stdlibList() ([]string, error) {
	if c.stdlib == nil {
		return engine.StdlibPacks("default")
	}
	v := strings.TrimSpace(*c.stdlib)
	if v == "none" {
		return nil, nil
	}
	if v == "" {
		return nil, usageError("--stdlib: empty list (use none for no pack)")
	}
	names := strings.Split(v, ",")
	for i, name := range names {
		names[i] = strings.TrimSpace(name)
		switch names[i] {
		case "":
			return nil, usageError("--stdlib %q: empty pack name", v)
		case "none":
			return nil, usageError("--stdlib %q: none cannot be combined with packs", v)
		}
	}
	out, err := engine.StdlibPacks(names...)
	if err != nil {
		return nil, usageError("--stdlib: %v", err)
	}
	return out, nil
}

// needsHome reports whether a stdlib pack of --stdlib needs the home
// directory.
func (c *common) needsHome() bool {
	names, _ := c.stdlibList()
	for _, n := range names {
		if p, ok := stdlib.Lookup(n); ok && slices.Contains(p.Needs, stdlib.NeedHome) {
			return true
		}
	}
	return false
}

// baseOptions are the engine options of the configuration flags: files,
// scripts, stdlib packs, model vouching and the continuation bound. They are
// what `test` runs users' cases against.
func (c *common) baseOptions(env Env) ([]engine.Option, error) {
	opts, err := c.fileOptions(env)
	if err != nil {
		return nil, err
	}
	if c.maxStopContinues != nil {
		opts = append(opts, engine.WithMaxStopContinues(*c.maxStopContinues))
	}
	if len(c.vouch) > 0 {
		models := slices.Clone([]string(c.vouch))
		opts = append(opts, engine.WithModelVouch(func(m string) bool { return slices.Contains(models, m) }))
	}
	return opts, nil
}

// opened is an engine built from the flags, with what run and serve persist
// beside it.
type opened struct {
	eng   *engine.Engine
	audit *auditLog // nil without --audit
	state string    // --state, absolute; "" for none
}

// close closes the engine and the audit log, and reports an audit write
// failure.
func (o *opened) close(inv *invocation) {
	o.eng.Close()
	if o.audit != nil {
		if err := o.audit.Close(); err != nil {
			inv.errorf("%v", err)
		}
	}
}

// saveState writes the engine's session state to --state, if set.
func (o *opened) saveState() error {
	if o.state == "" {
		return nil
	}
	return writeState(o.state, o.eng.SessionState())
}

// open builds the engine of a command from the common flags (see build).
// On failure it reports the problem on stderr (every configuration error on
// a line of its own) and returns the exit code.
func (c *common) open(ctx context.Context, inv *invocation, withRuntime bool, extra ...engine.Option) (*opened, int) {
	o, err := c.build(ctx, inv, withRuntime, extra...)
	if err != nil {
		return nil, reportErr(inv, err)
	}
	return o, -1
}

// build builds the engine of a command from the common flags. withRuntime
// adds the session state, the audit log and a line on stderr for every hook
// that fails (run and serve). Warnings, and the side files skipped under
// sidesOptional, are reported on stderr; the error is for the caller to
// report.
func (c *common) build(ctx context.Context, inv *invocation, withRuntime bool, extra ...engine.Option) (*opened, error) {
	opts, err := c.baseOptions(inv.env)
	if err != nil {
		return nil, err
	}
	opts = append(opts, engine.WithLogger(slog.New(slog.NewTextHandler(inv.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	if _, err := inv.env.homeDir(); err != nil && c.needsHome() {
		// The packs that need it refuse to load and say so; this says why.
		inv.errorf("%v", err)
	}
	o := &opened{}
	if withRuntime {
		rec := recorders{&failureLog{name: inv.name, w: inv.stderr}}
		if c.state != "" {
			o.state = abs(inv.env, c.state)
			st, err := readState(o.state)
			switch {
			case err != nil && c.sidesOptional:
				// The guards run all the same: without the stored
				// state, which is left alone for inspection.
				inv.errorf("%v: the dispatch runs without session state, and the file is not written", err)
				o.state = ""
			case err != nil:
				return nil, err
			default:
				opts = append(opts, engine.WithSessionState(mergeSeed(st, c.seed)))
			}
		}
		if o.state == "" && c.seed != nil {
			opts = append(opts, engine.WithSessionState(c.seed))
		}
		if c.audit != "" {
			a, err := openAudit(abs(inv.env, c.audit), func(err error) { inv.errorf("%v", err) })
			switch {
			case err != nil && c.sidesOptional:
				// An audit that cannot be written must not cost the
				// decision: a host reads exit 1 as "proceed".
				inv.errorf("%v: the dispatch runs without the audit log", err)
			case err != nil:
				return nil, err
			default:
				o.audit = a
				rec = append(rec, a)
			}
		}
		var r engine.Recorder = rec
		if c.beforeHooks != nil {
			r = engine.MultiRecorder(rec, beforeHooks(c.beforeHooks))
		}
		opts = append(opts, engine.WithRecorder(r))
	}
	opts = append(opts, extra...)
	opts = append(opts, inv.env.engineOpts...)
	eng, err := engine.New(ctx, opts...)
	if err != nil {
		if o.audit != nil {
			o.audit.Close()
		}
		return nil, err
	}
	o.eng = eng
	for _, w := range eng.Warnings() {
		inv.errorf("warning: %v", w)
	}
	return o, nil
}

// reportErr prints err (every configuration error on a line of its own) and
// returns its exit code: ExitUsage for a usage error, else ExitFail.
func reportErr(inv *invocation, err error) int {
	if errors.Is(err, errUsage) {
		return inv.usageErr("%s", strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
	}
	var ce engine.ConfigErrors
	var one *engine.ConfigError
	switch {
	case errors.As(err, &ce):
		n := len(ce)
		inv.errorf("invalid configuration (%d %s):", n, plural(n, "error", "errors"))
		for _, e := range ce {
			fmt.Fprintf(inv.stderr, "%s\n", e.Error())
		}
	case errors.As(err, &one):
		inv.errorf("invalid configuration (1 error):")
		fmt.Fprintf(inv.stderr, "%s\n", one.Error())
	default:
		inv.errorf("%v", err)
	}
	return ExitFail
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
