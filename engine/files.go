package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/monad-hooks/monad-hooks/engine/config"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/shell"
	"github.com/monad-hooks/monad-hooks/tools"
)

// Files configures the hooks that come from files: operator policy files,
// user configuration files, Lua scripts and embedded stdlib packs. They are
// resolved per call: a changed file is picked up by the next dispatch (see
// [WithReloadInterval]).
type Files struct {
	// Policy are the operator's policy files (agents.json or agents.toml
	// shape, key "policyHooks"). Their command hooks run before every user
	// hook and no user file can remove or replace them.
	Policy []string
	// User are user configuration files (keys "hooks" and "atoms").
	User []string
	// Lua are Lua atom-pack scripts, or folders whose *.lua files load in
	// lexical order.
	Lua []string
	// Stdlib are embedded stdlib packs, loaded before the Lua scripts (see
	// also [WithStdlib], which loads packs by name with their default
	// parameters).
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
	// every MONAD_* variable and every name containing KEY, TOKEN, SECRET,
	// PASSWORD or CREDENTIAL before use.
	Env []string
	// Runner runs command hooks; nil means the real one ([shell.Exec]).
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
// stdlib's libraries ("monad.params", "monad.commands", "monad.redact").
type Pack struct {
	Name string
	With map[string]any
}

// FileSystem is what the engine reads configuration and scripts through.
type FileSystem interface {
	ReadFile(name string) ([]byte, error)
	Stat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
}

type osFS struct{}

func (osFS) ReadFile(name string) ([]byte, error)       { return os.ReadFile(name) }
func (osFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// WithFiles adds the hooks configured in files (see [Files]).
func WithFiles(f Files) Option {
	return func(o *options) {
		if f.FS == nil {
			f.FS = osFS{}
		}
		if f.Runner == nil {
			f.Runner = shell.Exec{}
		}
		o.files = &f
	}
}

// WithReloadInterval sets how often Dispatch checks the configuration files
// for changes. The default, 0, checks on every dispatch (one stat per file,
// "resolved per call"); a positive interval checks at most that often, so
// that dispatches in between make no system call at all.
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

func (s *fileSource) unchanged(v *fileVersion) bool {
	if v == nil {
		return false
	}
	if iv := s.opts.reloadInterval; iv > 0 {
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

// read reads a file and records its stamp. A file larger than maxFileSize is
// a *ConfigError with code config.CodeTooLarge.
func (s *fileSource) read(v *fileVersion, path string) ([]byte, error) {
	st := s.stampOf(path)
	v.stamps = append(v.stamps, st)
	if st.exist && st.size > maxFileSize {
		return nil, &ConfigError{Code: config.CodeTooLarge, Source: path, Msg: fmt.Sprintf("file is %d bytes, larger than the limit of %d", st.size, maxFileSize)}
	}
	data, err := s.f.FS.ReadFile(path)
	if err == nil && len(data) > maxFileSize {
		return nil, &ConfigError{Code: config.CodeTooLarge, Source: path, Msg: fmt.Sprintf("file is larger than the limit of %d bytes", maxFileSize)}
	}
	return data, err
}

// readError turns an error of read into a ConfigError.
func readError(path string, err error) *ConfigError {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return ce
	}
	return &ConfigError{Code: CodeRead, Source: path, Msg: err.Error()}
}

// loaded is what a load of the files produced.
type loaded struct {
	specs   []hookSpec
	res     resources    // what the hooks hold; zero when errs is set
	version *fileVersion // what was read, also when it failed to load
	errs    ConfigErrors // every problem found; then specs is nil
	tools   []toolDecl   // the tools the files declare, policy files first
}

// load reads and compiles the configuration files and scripts.
func (s *fileSource) load(ctx context.Context) loaded {
	v := &fileVersion{}
	var specs []hookSpec
	var decls []toolDecl
	var errs ConfigErrors
	var atoms []luaAtom
	for _, p := range s.f.Stdlib {
		atoms = append(atoms, luaAtom{stdlib: p.Name, with: p.With, source: "stdlib " + p.Name})
	}
	if len(s.opts.stdlib) > 0 {
		names, err := StdlibPacks(s.opts.stdlib...)
		if err != nil {
			errs = append(errs, &ConfigError{Code: CodeBadAtom, Source: "WithStdlib", Msg: err.Error()})
		}
		for _, n := range names {
			if !slices.ContainsFunc(s.f.Stdlib, func(p Pack) bool { return p.Name == n }) {
				atoms = append(atoms, luaAtom{stdlib: n, source: "stdlib " + n})
			}
		}
	}
	for _, sfs := range s.f.LuaFS {
		atoms = append(atoms, luaAtom{fsys: sfs.FS, path: sfs.Dir, with: sfs.With, source: "fs:" + sfs.Dir})
	}
	for _, p := range s.f.Lua {
		atoms = append(atoms, luaAtom{path: p, source: p})
	}
	env := shell.SanitizeEnv(s.f.Env)
	for _, tier := range []struct {
		paths []string
		tier  config.Tier
		t     Tier
	}{{s.f.Policy, config.TierPolicy, TierPolicy}, {s.f.User, config.TierUser, TierUser}} {
		for _, path := range tier.paths {
			data, err := s.read(v, path)
			if err != nil {
				errs = append(errs, readError(path, err))
				continue
			}
			file, err := config.Parse(path, data, tier.tier)
			if err != nil {
				errs = append(errs, fromConfigErrors(path, err)...)
				continue
			}
			for _, t := range file.Tools {
				decls = append(decls, toolDecl{
					spec:   tools.Spec{Name: t.Name, Kind: t.Kind, Command: t.Command, Paths: t.Paths, Contents: t.Contents, URLs: t.URLs},
					pos:    t.Pos.String(),
					policy: tier.t == TierPolicy,
				})
			}
			for ev, groups := range file.Hooks {
				for _, g := range groups {
					for _, h := range g.Hooks {
						specs = append(specs, s.commandSpec(tier.t, ev, g, h, env))
					}
				}
			}
			for _, a := range file.Atoms {
				atoms = append(atoms, luaAtom{path: a.Path, stdlib: a.Stdlib, with: a.With, withPos: a.WithPos, source: a.Pos.String()})
			}
		}
	}
	// Map iteration above visits events in random order; within a tier the
	// plan keeps file order per event, which is all that matters, but make
	// the spec order deterministic for Plan.
	sortSpecsStable(specs)
	luaSpecs, pool, lerrs := s.loadLua(ctx, v, atoms)
	res := resources{lua: pool}
	errs = append(errs, lerrs...)
	specs = append(luaSpecs, specs...)
	if len(errs) > 0 {
		res.release()
		return loaded{version: v, errs: errs}
	}
	return loaded{specs: specs, res: res, version: v, tools: decls}
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
	cmd := shell.Command{Line: h.Command, Dir: s.f.Root, Env: env, Timeout: timeout}
	runner := s.f.Runner
	return hookSpec{
		tier: t, kind: "command", id: h.Command, source: h.Pos.String(), event: ev,
		matcher: g.Matcher, kinds: g.Kinds, onError: onError,
		// The runner enforces the timeout and kills the process group; the
		// engine adds no deadline of its own.
		dedup:        h.Command + "\x00" + strconv.FormatInt(int64(timeout/time.Millisecond), 10) + "\x00" + onError.String(),
		shownTimeout: timeout,
		validated:    true, // shell.Interpret decodes with events.DecodeOutput
		run: func(ctx context.Context, c *call) (events.Output, []string, error) {
			stdin, err := c.inputJSON()
			if err != nil {
				return events.Output{}, nil, fmt.Errorf("encode input: %w", err)
			}
			r, err := runner.Run(ctx, cmd, stdin)
			out, err := shell.Interpret(r, err)
			return out, nil, err
		},
	}
}

func fromConfigErrors(path string, err error) ConfigErrors {
	var ce config.Errors
	if !errors.As(err, &ce) {
		return ConfigErrors{{Code: CodeRead, Source: path, Msg: err.Error()}}
	}
	out := make(ConfigErrors, 0, len(ce))
	for _, e := range ce {
		out = append(out, &ConfigError{Code: e.Code, Source: e.Pos().String(), Msg: e.Msg})
	}
	return out
}
