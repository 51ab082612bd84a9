package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/monad-hooks/monad-hooks/engine/hosts"
	"github.com/monad-hooks/monad-hooks/engine/internal/config"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/internal/regfile"
	"github.com/monad-hooks/monad-hooks/shell"
)

// Files configures the hooks that come from files: operator policy files,
// user configuration files, Lua scripts and embedded stdlib packs. Every
// dispatch checks whether they changed (see [WithReloadInterval]); a change
// is loaded in the background and swapped in when complete (see
// [Engine.Reload]).
type Files struct {
	// Policy are the operator's policy files (agents.json or agents.toml
	// shape, key "policyHooks"). Their command hooks run before every user
	// hook and no user file can remove or replace them. A relative path as
	// the first word of a policy command names a file beside the policy
	// file; any other relative path in it that would be resolved in Root is
	// an error (CodeRelativePath).
	Policy []string
	// User are user configuration files (keys "hooks" and "atoms"). As in
	// a policy file, a relative path as the first word of a command names
	// a script beside the file (the command runs in Root); a script that
	// is missing or not executable is a warning (CodeBadScript).
	User []string
	// Lua are Lua atom-pack scripts, or folders whose *.lua files load in
	// lexical order; a path ending in .toml is a rule file (see
	// stdlib/rules/README.md), as it is in the atoms of a user file.
	Lua []string
	// Stdlib are embedded stdlib packs, loaded before the Lua scripts (a
	// host's default set). A pack that a user file names in its atoms
	// replaces the one of Stdlib, in its place, with the user's parameters:
	// a pack loads once per plan. A pack named twice (in Stdlib, or in user
	// files) is a configuration error (CodeDuplicatePack). See also
	// [WithStdlib], which loads packs by name with their default
	// parameters.
	Stdlib []Pack
	// LuaFS are Lua scripts embedded in the host (go:embed) or from any
	// fs.FS, loaded after the stdlib packs and before Lua: every *.lua file
	// of each ScriptFS's Dir, in lexical order. They are read when the
	// engine loads its configuration and are not watched for changes.
	LuaFS []ScriptFS
	// Root is the sandbox root: the working directory of command hooks,
	// and the project root of Lua scripts (path.root()), which the stdlib
	// packs that need one use for calls without a cwd. Such a pack
	// (protect-paths) refuses to load without it: New fails with
	// CodeUnmetNeed rather than run it weakened.
	Root string
	// Home is the home directory the Lua path module expands ~ to. A
	// stdlib pack with home-directory rules (protect-paths) refuses to load
	// without it (CodeUnmetNeed).
	Home string
	// Env is the environment command hooks start from; the engine strips
	// the secrets from it before use (see [shell.SanitizeEnv] for the whole
	// rule: MONAD_*, the contract's KEY, TOKEN, SECRET, PASSWORD and
	// CREDENTIAL, and more).
	Env []string
	// Runner runs command hooks; nil means the real one ([shell.Exec]).
	// Persistent ("persistent": true) hooks run as shell.Resident
	// processes, not through it.
	Runner shell.Runner
	// FS reads the files; nil means the operating system's.
	FS FileSystem
}

// A ScriptFS names a folder of Lua scripts in an fs.FS.
type ScriptFS struct {
	FS  fs.FS
	Dir string // "." for the root
	// With are the parameters of every script of the folder (its params
	// global).
	With map[string]any
}

// A Pack names an embedded stdlib pack and its parameters. Loading checks
// the parameters against the pack's declaration (stdlib.ValidateParams):
// every problem is a ConfigError with CodeBadAtom, at the position of the
// parameter's key when the pack comes from an atoms entry of a
// configuration file. Every Lua script, pack or not, may require the
// stdlib's libraries ("monad.params", "monad.commands", "monad.paths",
// "monad.redact", "monad.rules").
type Pack struct {
	Name string
	With map[string]any
}

// FileSystem is what the engine reads configuration and scripts through.
// Whoever can write the project can put a FIFO or a device where a script
// is expected: ReadFile must refuse what is not a regular file without
// blocking or reading without end, as the operating system's one does (an
// error matching fs.ErrInvalid, which the engine reports as a
// configuration error of the file).
type FileSystem interface {
	ReadFile(name string) ([]byte, error)
	Stat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
}

type osFS struct{}

func (osFS) ReadFile(name string) ([]byte, error)       { return regfile.Read(name, maxFileSize) }
func (osFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// WithFiles adds the hooks configured in files (see [Files]).
//
// The Option may be given to several New calls, also at once (a test
// runner's base options): each gets its own copy of f.
func WithFiles(f Files) Option {
	return func(o *options) {
		g := f // the closure's f is shared by every New it is given to
		if g.FS == nil {
			g.FS = osFS{}
		}
		if g.Runner == nil {
			g.Runner = shell.Exec{}
		}
		o.files = &g
	}
}

// WithReloadInterval sets how often Dispatch checks the configuration files
// for changes. The default, 0, checks on every dispatch (one stat per file,
// "resolved per call"); a positive interval checks at most that often, so
// that dispatches in between make no system call at all. A change is loaded
// in the background: the dispatch that notices it does not wait.
func WithReloadInterval(d time.Duration) Option {
	return func(o *options) { o.reloadInterval = max(d, 0) }
}

// DefaultCommandTimeout is the timeout of a command hook without timeoutMs.
const DefaultCommandTimeout = 60 * time.Second

// fileSource loads hooks from files and fingerprints what it read.
type fileSource struct {
	f         Files
	opts      *options
	lastCheck atomic.Int64 // unix nanoseconds of the last stat check that found no change
	residents residentSet  // the processes of persistent command hooks
}

// stamp fingerprints one file or folder as it was when loaded.
type stamp struct {
	path  string
	exist bool
	size  int64
	mtime int64
	mode  fs.FileMode
}

// fileVersion is what a fileSource read, in order.
type fileVersion struct{ stamps []stamp }

func (s *fileSource) stampOf(path string) stamp {
	fi, err := s.f.FS.Stat(path)
	if err != nil {
		return stamp{path: path}
	}
	return stamp{path: path, exist: true, size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode()}
}

// unchanged reports whether the files are still those that produced v. It
// is called on the dispatch path and must be cheap.
func (s *fileSource) unchanged(v *fileVersion) bool {
	if v == nil {
		return false
	}
	if iv := s.opts.reloadInterval; iv > 0 {
		// Within the interval: no system call (BenchmarkConfigResolution/interval).
		now := s.opts.now().UnixNano()
		if now-s.lastCheck.Load() < int64(iv) {
			return true
		}
	}
	for _, st := range v.stamps {
		if s.stampOf(st.path) != st {
			return false
		}
	}
	if s.opts.reloadInterval > 0 {
		s.lastCheck.Store(s.opts.now().UnixNano())
	}
	return true
}

// maxFileSize bounds what the engine reads of one configuration file or
// script: larger files are refused without being read.
const maxFileSize = config.MaxFileSize

// maxReadTries bounds how often read reads a file that changes while it is
// read before it gives up (a transient failure: the load is retried).
const maxReadTries = 3

// transientError is a failure to load that is not the files' content: an I/O
// error, a file that kept changing while it was read. The load is retried
// at the next dispatch instead of waiting for the files to change.
type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

// read reads a file and records its stamp. It stats the file before and
// after reading it: when the two differ, or a regular file's size is not
// what was read, the file changed while it was read (a writer rewriting it
// in place) and it is read again, up to maxReadTries times. A file larger
// than maxFileSize is a *ConfigError with code CodeTooLarge; an I/O error
// other than a missing, unreadable or wrong kind of file is a
// *transientError.
func (s *fileSource) read(v *fileVersion, path string) ([]byte, error) {
	for try := 1; ; try++ {
		before := s.stampOf(path)
		if before.exist && before.size > maxFileSize {
			v.stamps = append(v.stamps, before)
			return nil, &ConfigError{Code: CodeTooLarge, File: path, Msg: fmt.Sprintf("file is %d bytes, larger than the limit of %d", before.size, maxFileSize)}
		}
		data, err := s.f.FS.ReadFile(path)
		after := s.stampOf(path)
		if before == after && (err != nil || !before.mode.IsRegular() || int64(len(data)) == before.size) {
			v.stamps = append(v.stamps, before)
			switch {
			case errors.Is(err, regfile.ErrTooLarge), err == nil && len(data) > maxFileSize:
				return nil, &ConfigError{Code: CodeTooLarge, File: path, Msg: fmt.Sprintf("file is larger than the limit of %d bytes", maxFileSize)}
			case err != nil && !permanentReadError(err):
				return nil, &transientError{err}
			}
			return data, err
		}
		if try == maxReadTries {
			v.stamps = append(v.stamps, after)
			return nil, &transientError{fmt.Errorf("%s changed while it was read, %d times in a row", path, maxReadTries)}
		}
	}
}

// permanentReadError reports whether a read error stays until the files
// change: a missing file, one the process may not read, a folder where a
// file belongs.
func permanentReadError(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrInvalid) ||
		errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTDIR)
}

// readError turns an error of read into a ConfigError.
func readError(path string, err error) *ConfigError {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return ce
	}
	return &ConfigError{Code: CodeRead, File: path, Msg: err.Error()}
}

// loaded is what a load of the files produced.
type loaded struct {
	specs    []hookSpec
	res      resources    // what the hooks hold; zero when errs is set
	version  *fileVersion // what was read, also when it failed to load
	errs     ConfigErrors // every problem found; then specs is nil, unless degraded
	warnings ConfigErrors
	// transient, when set, is why the load stopped without looking at the
	// files' content (see transientError); the rest is then empty.
	transient error
	// closed are the problems of policy files and of the host's stdlib
	// packs (a degraded load): the plan fails closed.
	closed []closure
	// retry: a degraded load met a transient failure; load again.
	retry bool
	// fileHooks counts the hooks each file on disk gave, by path.
	fileHooks map[string]int
	// tools are the tools the files declare, policy files first.
	tools []toolDecl
}

// load reads and compiles the configuration files and scripts. prev is the
// plan in force (nil at New): a configuration file or script that gave it
// hooks and now gives none (it is empty, or a TOML file without its hooks
// key, or a script that registers no hook: a file cut short mid-write looks
// like that) is a CodeNoHooks error, so that it never replaces that plan.
//
// When degraded (a degraded start, see WithDegradedStart), a file or script
// that fails to load is left out and the rest loads: errs lists every
// problem, closed those of policy files and the host's packs, and the result has specs and
// resources all the same. A transient failure is then a read error of its
// file, and retry is set.
func (s *fileSource) load(ctx context.Context, prev *generation, degraded bool) loaded {
	v := &fileVersion{}
	fileHooks := map[string]int{}
	var closed []closure
	retry := false
	var specs []hookSpec
	var errs, warns ConfigErrors
	var decls []toolDecl
	known := knownTools(s.opts.tools) // who declares each tool so far
	var atoms []luaAtom
	stdlibAt := map[string]int{} // the index in atoms of each pack of Files.Stdlib and WithStdlib
	for _, p := range s.f.Stdlib {
		if _, dup := stdlibAt[p.Name]; dup {
			errs = append(errs, &ConfigError{Code: CodeDuplicatePack, File: "stdlib " + p.Name, Msg: fmt.Sprintf("Files.Stdlib names pack %q twice: a pack loads once", p.Name)})
			continue
		}
		stdlibAt[p.Name] = len(atoms)
		atoms = append(atoms, luaAtom{stdlib: p.Name, with: p.With, pos: config.Pos{File: "stdlib " + p.Name}, host: true})
	}
	names, _ := StdlibPacks(s.opts.stdlib...) // build checked them
	for _, n := range names {
		if _, ok := stdlibAt[n]; ok {
			continue // Files.Stdlib names it, with its parameters
		}
		stdlibAt[n] = len(atoms)
		atoms = append(atoms, luaAtom{stdlib: n, pos: config.Pos{File: "stdlib " + n}, host: true})
	}
	for _, sfs := range s.f.LuaFS {
		atoms = append(atoms, luaAtom{fsys: sfs.FS, path: sfs.Dir, with: sfs.With, pos: config.Pos{File: "fs:" + sfs.Dir}})
	}
	for _, p := range s.f.Lua {
		atoms = append(atoms, luaAtom{path: p, pos: config.Pos{File: p}})
	}
	env := shell.SanitizeEnv(s.f.Env)
	userPack := map[string]config.Pos{} // where user files named each pack
	// The files and folders the guards are configured by, which the Lua
	// guards may protect (luaapi.Options.ConfigPaths).
	var guardRails []string
	for _, tier := range []struct {
		paths []string
		tier  config.Tier
		t     Tier
		key   string
	}{{s.f.Policy, config.TierPolicy, TierPolicy, "policyHooks"}, {s.f.User, config.TierUser, TierUser, "hooks"}} {
		for _, path := range tier.paths {
			guardRails = append(guardRails, path)
			data, err := s.read(v, path)
			var te *transientError
			if errors.As(err, &te) {
				if !degraded {
					return loaded{version: v, transient: te}
				}
				retry = true
			}
			var ferrs ConfigErrors
			var file *config.File
			var fileDecls []toolDecl
			if err != nil {
				ferrs = ConfigErrors{readError(path, err)}
			} else if file, err = config.Parse(path, data, tier.tier); err != nil {
				ferrs = fromParse(path, err)
			} else {
				fileDecls, ferrs = fileTools(known, file.Tools, tier.t == TierPolicy)
			}
			if ferrs != nil {
				errs = append(errs, ferrs...)
				if tier.t == TierPolicy {
					closed = appendClosures(closed, "the operator policy", TierPolicy, ferrs...)
				}
				continue
			}
			warns = append(warns, file.Warnings...)
			decls = append(decls, fileDecls...)
			n := 0
			for ev, groups := range file.Hooks {
				for _, g := range groups {
					for _, h := range g.Hooks {
						// A script at the start of the line is beside the
						// file (the rule of relative paths); a policy line
						// may name no other relative path.
						line, script, _ := besideFile(path, h.Command)
						if script != "" {
							guardRails = append(guardRails, script)
						}
						if tier.t == TierPolicy {
							var perr *ConfigError
							if line, perr = s.policyCommand(path, h); perr != nil {
								errs = append(errs, perr)
								closed = appendClosures(closed, "the operator policy", TierPolicy, perr)
								continue
							}
						}
						if w := s.checkScript(h, script); w != nil {
							warns = append(warns, w)
						}
						h.Command = line
						specs = append(specs, s.commandSpec(tier.t, ev, g, h, env))
						n++
					}
				}
			}
			fileHooks[path] = n
			if had := prev.hooksFrom(path); had > 0 && n == 0 && (len(bytes.TrimSpace(data)) == 0 || !file.HooksKey) {
				errs = append(errs, &ConfigError{Code: CodeNoHooks, File: path, Msg: fmt.Sprintf(
					"the file gave the configuration in force %d hooks and now has no %s key (empty, or cut short mid-write?); to remove all its hooks, write the key with no event", had, tier.key)})
			}
			for _, a := range file.Atoms {
				la := luaAtom{path: a.Path, stdlib: a.Stdlib, with: a.With, withPos: a.WithPos, pos: a.Pos}
				if a.Stdlib != "" {
					// One copy of a pack per plan: the user's replaces the
					// one of Files.Stdlib, in its place, so that its
					// parameters are in force.
					if first, dup := userPack[a.Stdlib]; dup {
						errs = append(errs, &ConfigError{Code: CodeDuplicatePack, File: a.Pos.File, Line: a.Pos.Line, Col: a.Pos.Col,
							Msg: fmt.Sprintf("stdlib pack %q is already named at %s: a pack loads once, with one set of parameters", a.Stdlib, first)})
						continue
					}
					userPack[a.Stdlib] = a.Pos
					if i, ok := stdlibAt[a.Stdlib]; ok {
						orig := atoms[i]
						la.fallback = &orig
						atoms[i] = la
						continue
					}
				}
				atoms = append(atoms, la)
			}
		}
	}
	// Map iteration above visits events in random order; within a tier the
	// plan keeps file order per event, which is all that matters, but make
	// the spec order deterministic for Plan.
	sortSpecsStable(specs)
	for _, a := range atoms {
		if a.path == "" || a.fsys != nil {
			continue
		}
		if fi, err := s.f.FS.Stat(a.path); err == nil && fi.IsDir() {
			guardRails = append(guardRails, a.path+string(filepath.Separator)) // its scripts
		} else {
			guardRails = append(guardRails, a.path)
		}
	}
	luaSpecs, pool, lerrs, lclosed, terr := s.loadLua(ctx, v, atoms, guardRails, prev, fileHooks, degraded)
	if terr != nil {
		return loaded{version: v, transient: terr}
	}
	res := resources{lua: pool}
	errs = append(errs, lerrs...)
	closed = append(closed, lclosed...)
	specs = append(luaSpecs, specs...)
	if len(errs) > 0 && !degraded {
		res.release()
		return loaded{version: v, errs: errs}
	}
	return loaded{specs: specs, res: res, version: v, errs: errs, closed: closed, warnings: warns, fileHooks: fileHooks, retry: retry, tools: decls}
}

// appendClosures adds the problems errs of what (a policy file, a host's
// pack) to closed.
func appendClosures(closed []closure, what string, tier Tier, errs ...*ConfigError) []closure {
	for _, err := range errs {
		closed = append(closed, closure{what: what, tier: tier, err: err})
	}
	return closed
}

// hooksFrom returns how many hooks the file or script at path gave g (0 for a
// nil g).
func (g *generation) hooksFrom(path string) int {
	if g == nil {
		return 0
	}
	return g.fileHooks[path]
}

func (s *fileSource) commandSpec(t Tier, ev events.Event, g config.Group, h config.Hook, env []string) hookSpec {
	timeout := DefaultCommandTimeout
	if h.TimeoutMs > 0 {
		timeout = time.Duration(h.TimeoutMs) * time.Millisecond
	}
	onError := OnErrorSkip
	if h.OnError == config.OnErrorDeny {
		onError = OnErrorDeny
	}
	adapter, hev := hookAdapter(h.Input, ev)
	badInput := h.Input != "" && adapter == nil // the parser checks it: never expected
	cmd := shell.Command{Line: h.Command, Dir: s.f.Root, Env: env, Timeout: timeout}
	spec := hookSpec{
		tier: t, kind: "command", id: h.Command, pos: h.Pos, source: h.Pos.String(), registeredBy: h.Pos.String(), event: ev,
		matcher: g.Matcher, kinds: g.Kinds, onError: onError,
		// The runner (or the resident) enforces the timeout and kills the
		// process group; the engine adds no deadline of its own.
		dedup:        h.Command + "\x00" + strconv.FormatInt(int64(timeout/time.Millisecond), 10) + "\x00" + onError.String() + "\x00" + h.Input,
		shownTimeout: timeout,
		validated:    true, // shell.Interpret, shell.InterpretReply and hosts.Interpret validate
	}
	if h.Persistent && h.Input == "" { // the parser refuses both
		var res *shell.Resident
		res, spec.resident = s.residents.get(cmd)
		spec.dedup += "\x00persistent"
		spec.run = func(ctx context.Context, c *call) (events.Output, []string, error) {
			stdin, err := c.inputJSON()
			if err != nil {
				return events.Output{}, nil, fmt.Errorf("encode input: %w", err)
			}
			out, err := shell.InterpretReply(res.Call(ctx, stdin))
			return out, nil, err
		}
		return spec
	}
	runner := s.f.Runner
	spec.run = func(ctx context.Context, c *call) (events.Output, []string, error) {
		if badInput {
			return events.Output{}, nil, fmt.Errorf("input %q names no agent event for %s", h.Input, ev)
		}
		if adapter != nil {
			// A hook written for another agent: its payload in, its
			// answer read its way.
			stdin, err := adapter.Payload(hev, c.in)
			if err != nil {
				return events.Output{}, nil, fmt.Errorf("encode input for %s: %w", adapter.Name, err)
			}
			cmd := cmd
			cmd.Env = append(slices.Clip(cmd.Env), adapter.Env(hev, c.in, cmd.Dir)...)
			r, err := runner.Run(ctx, cmd, stdin)
			out, err := adapter.Interpret(hev, c.in, r, err)
			return out, nil, err
		}
		stdin, err := c.inputJSON()
		if err != nil {
			return events.Output{}, nil, fmt.Errorf("encode input: %w", err)
		}
		r, err := runner.Run(ctx, cmd, stdin)
		out, err := shell.Interpret(r, err)
		return out, nil, err
	}
	return spec
}

// hookAdapter resolves a command hook's input ("HOST" or "HOST:EVENT",
// validated by the configuration parser) to the host contract and the
// host event the hook gets; nil for the seed's contract.
func hookAdapter(input string, ev events.Event) (*hosts.Host, hosts.Event) {
	if input == "" {
		return nil, hosts.Event{}
	}
	name, event, _ := strings.Cut(input, ":")
	h, ok := hosts.Lookup(name)
	if !ok {
		return nil, hosts.Event{}
	}
	hev, ok := h.EventFor(ev, event)
	if !ok {
		return nil, hosts.Event{}
	}
	return h, hev
}

// fromParse returns the problems of config.Parse as ConfigErrors.
func fromParse(path string, err error) ConfigErrors {
	var ce ConfigErrors
	if !errors.As(err, &ce) {
		return ConfigErrors{{Code: CodeRead, File: path, Msg: err.Error()}}
	}
	return ce
}
