package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/monad-hooks/monad-hooks/engine/config"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

// luaAtom is one Lua atom to load: a script or folder, or a stdlib pack.
type luaAtom struct {
	fsys    fs.FS // when set, path is a folder in it
	path    string
	stdlib  string
	with    map[string]any
	withPos map[string]config.Pos // of the keys of with, when it comes from a file
	source  string                // where it was configured, for errors
}

// WithStdlib loads embedded stdlib packs by name; "default" names the
// default set (stdlib.Default(): deny-destructive, protect-paths,
// redact-secrets), the very set the monad-hooks CLI runs when --stdlib is
// absent (it calls this option). Without it (and without Files.Stdlib or
// "atoms" entries) the engine runs no stdlib pack at all. The packs load
// with their default parameters; a pack also in Files.Stdlib keeps that
// entry and its parameters. Packs that need the home directory or the
// project root make New fail (CodeUnmetNeed) unless Files.Home and
// Files.Root are set (WithFiles). An unknown name is a ConfigError
// (CodeBadAtom) from New.
func WithStdlib(names ...string) Option {
	return func(o *options) { o.stdlib = append(o.stdlib, names...) }
}

// StdlibPacks resolves stdlib pack names as [WithStdlib] does: "default"
// expands to the default set, duplicates are dropped (the first occurrence
// keeps its place), and an unknown name is an error that lists the packs.
func StdlibPacks(names ...string) ([]string, error) {
	var out []string
	add := func(n string) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, n := range names {
		if n == "default" {
			for _, d := range stdlib.Default() {
				add(d)
			}
			continue
		}
		if _, ok := stdlib.Lookup(n); !ok {
			return nil, fmt.Errorf("unknown stdlib pack %q (have %s, or default)", n, strings.Join(stdlib.Names(), ", "))
		}
		add(n)
	}
	return out, nil
}

// WithLuaPool sets the size of each plan generation's Lua VM pool (default:
// luaapi's, 2 x GOMAXPROCS and at least 4) and the timeout of Lua hooks that
// set no timeoutMs (0: luaapi.DefaultTimeout).
func WithLuaPool(size int, defaultTimeout time.Duration) Option {
	return func(o *options) {
		o.luaPoolSize = size
		o.luaTimeout = defaultTimeout
	}
}

// luaScript is one compiled script instance to load.
type luaScript struct {
	name   string
	src    []byte
	params map[string]any
	source string
}

// loadLua reads and compiles the Lua atoms, builds one VM pool for all of
// them and returns one hookSpec per hook{} registration, in load order.
func (s *fileSource) loadLua(ctx context.Context, v *fileVersion, atoms []luaAtom) ([]hookSpec, *luaapi.Pool, ConfigErrors) {
	if len(atoms) == 0 {
		return nil, nil, nil
	}
	var errs ConfigErrors
	var scripts []luaScript
	for _, a := range atoms {
		if a.stdlib != "" {
			sc, perrs := s.stdlibScript(a)
			if perrs != nil {
				errs = append(errs, perrs...)
				continue
			}
			scripts = append(scripts, sc)
			continue
		}
		if a.fsys != nil {
			more, err := readLuaFS(a)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			scripts = append(scripts, more...)
			continue
		}
		more, err := s.readLuaPath(v, a)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		scripts = append(scripts, more...)
	}
	var srcs []luaapi.Source
	for _, sc := range scripts {
		compiled, err := luaapi.Compile(sc.name, sc.src)
		if err != nil {
			errs = append(errs, luaError(sc.source, err))
			continue
		}
		srcs = append(srcs, luaapi.Source{Script: compiled, Params: sc.params})
	}
	libs, err := stdlibLibraries()
	if err != nil {
		errs = append(errs, luaError("", err))
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	pool, err := luaapi.NewPool(ctx, srcs, luaapi.Options{
		Libraries:      libs,
		PoolSize:       s.opts.luaPoolSize,
		DefaultTimeout: s.opts.luaTimeout,
		Logger:         s.opts.logger,
		Home:           s.f.Home,
		Root:           s.f.Root,
		Now:            s.opts.now,
	})
	if err != nil {
		return nil, nil, ConfigErrors{luaError("", err)}
	}
	var specs []hookSpec
	for i, h := range pool.Hooks() {
		onError, _ := ParseOnError(h.OnError)
		specs = append(specs, hookSpec{
			tier: TierAtom, kind: "lua", id: "lua:" + h.Script + ":" + strconv.Itoa(h.Line),
			source: h.Script + ":" + strconv.Itoa(h.Line), event: h.Event, matcher: h.Matcher, kinds: h.Kinds,
			onError: onError, shownTimeout: h.Timeout, validated: true,
			// The pool enforces the hook's timeout itself.
			run: func(ctx context.Context, c *call) (events.Output, []string, error) {
				out, logs, err := pool.CallLogs(ctx, i, &c.in)
				return out, logLines(logs), err
			},
		})
	}
	return specs, pool, nil
}

// stdlibLibraries compiles the stdlib's shared Lua libraries (require
// "monad.params" and friends) once per process: they are embedded, and a
// compiled luaapi.Script is immutable, so every engine and every plan
// generation shares them. Only a build defect makes it fail.
var stdlibLibraries = sync.OnceValues(func() (map[string]*luaapi.Script, error) {
	out := map[string]*luaapi.Script{}
	for name, src := range stdlib.Libraries() {
		s, err := luaapi.Compile(name, src)
		if err != nil {
			return nil, err
		}
		out[name] = s
	}
	return out, nil
})

// stdlibScript resolves an embedded pack and validates its parameters
// against the pack's declaration (one error per problem, at the position of
// the parameter's key when the pack comes from a configuration file) and
// what it needs from the host (Files.Home, Files.Root): a pack that would
// run weakened is refused.
func (s *fileSource) stdlibScript(a luaAtom) (luaScript, ConfigErrors) {
	if err := stdlib.ValidateParams(a.stdlib, a.with); err != nil {
		problems := []error{err}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			problems = j.Unwrap()
		}
		var errs ConfigErrors
		for _, p := range problems {
			src := a.source
			var pe *stdlib.ParamError
			if errors.As(p, &pe) {
				if pos, ok := a.withPos[pe.Param]; ok {
					src = pos.String()
				}
			}
			errs = append(errs, &ConfigError{Code: CodeBadAtom, Source: src, Msg: p.Error()})
		}
		return luaScript{}, errs
	}
	info, _ := stdlib.Lookup(a.stdlib)
	var unmet ConfigErrors
	for _, n := range info.Needs {
		switch {
		case n == stdlib.NeedHome && s.f.Home == "":
			unmet = append(unmet, &ConfigError{Code: CodeUnmetNeed, Source: a.source, Msg: fmt.Sprintf(
				"stdlib pack %s needs the home directory for its ~ and $HOME rules: set Files.Home (the CLI sets it from $HOME); without it the pack would run weakened", a.stdlib)})
		case n == stdlib.NeedRoot && s.f.Root == "":
			unmet = append(unmet, &ConfigError{Code: CodeUnmetNeed, Source: a.source, Msg: fmt.Sprintf(
				"stdlib pack %s needs the project root for calls without a cwd: set Files.Root (the CLI sets it from --root or the working directory); without it the pack would run weakened", a.stdlib)})
		}
	}
	if unmet != nil {
		return luaScript{}, unmet
	}
	src, err := fs.ReadFile(stdlib.FS(), info.Script)
	if err != nil {
		return luaScript{}, ConfigErrors{{Code: CodeBadAtom, Source: a.source, Msg: err.Error()}}
	}
	return luaScript{name: "stdlib/" + a.stdlib, src: src, params: a.with, source: a.source}, nil
}

// readLuaPath reads a script, or the *.lua files of a folder in lexical
// order, recording their stamps (and the folder's, so that an added or
// removed script is noticed).
func (s *fileSource) readLuaPath(v *fileVersion, a luaAtom) ([]luaScript, *ConfigError) {
	fi, err := s.f.FS.Stat(a.path)
	if err != nil {
		v.stamps = append(v.stamps, stamp{path: a.path})
		return nil, &ConfigError{Code: CodeRead, Source: a.source, Msg: err.Error()}
	}
	paths := []string{a.path}
	if fi.IsDir() {
		v.stamps = append(v.stamps, s.stampOf(a.path))
		entries, err := s.f.FS.ReadDir(a.path)
		if err != nil {
			return nil, &ConfigError{Code: CodeRead, Source: a.source, Msg: err.Error()}
		}
		paths = paths[:0]
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".lua") {
				paths = append(paths, filepath.Join(a.path, e.Name()))
			}
		}
		sort.Strings(paths)
	}
	var out []luaScript
	for _, p := range paths {
		src, err := s.read(v, p)
		if err != nil {
			return nil, readError(p, err)
		}
		out = append(out, luaScript{name: p, src: src, params: a.with, source: p})
	}
	return out, nil
}

func luaError(source string, err error) *ConfigError {
	var se *luaapi.ScriptError
	if errors.As(err, &se) {
		src := se.Script
		if se.Line > 0 {
			src += ":" + strconv.Itoa(se.Line)
		}
		return &ConfigError{Code: CodeLuaLoad, Source: src, Msg: se.Msg}
	}
	return &ConfigError{Code: CodeLuaLoad, Source: source, Msg: err.Error()}
}

// maxLogLines bounds the log lines of one hook call kept in its Record.
const maxLogLines = 20

func logLines(logs []luaapi.LogEntry) []string {
	if len(logs) == 0 {
		return nil
	}
	out := make([]string, 0, min(len(logs), maxLogLines))
	for _, l := range logs[:min(len(logs), maxLogLines)] {
		out = append(out, truncate(fmt.Sprintf("%s %s:%d: %s", strings.ToLower(l.Level.String()), l.Script, l.Line, l.Msg), 512))
	}
	return out
}

// readLuaFS reads the *.lua files of a folder of an fs.FS, in lexical order.
func readLuaFS(a luaAtom) ([]luaScript, *ConfigError) {
	entries, err := fs.ReadDir(a.fsys, a.path)
	if err != nil {
		return nil, &ConfigError{Code: CodeRead, Source: a.source, Msg: err.Error()}
	}
	var out []luaScript
	for _, e := range entries { // fs.ReadDir sorts by name
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".lua") {
			continue
		}
		p := path.Join(a.path, e.Name())
		src, err := fs.ReadFile(a.fsys, p)
		if err != nil {
			return nil, &ConfigError{Code: CodeRead, Source: "fs:" + p, Msg: err.Error()}
		}
		if len(src) > maxFileSize {
			return nil, &ConfigError{Code: config.CodeTooLarge, Source: "fs:" + p, Msg: fmt.Sprintf("script is larger than the limit of %d bytes", maxFileSize)}
		}
		out = append(out, luaScript{name: "fs:" + p, src: src, params: a.with, source: "fs:" + p})
	}
	return out, nil
}
