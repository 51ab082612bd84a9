package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/monad-hooks/monad-hooks/engine/hosts"
	"github.com/monad-hooks/monad-hooks/engine/internal/config"
	"github.com/monad-hooks/monad-hooks/engine/internal/precompiled"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"

	"github.com/monad-hooks/monad-hooks/internal/lazy"
)

// luaAtom is one Lua atom to load: a script or folder, or a stdlib pack.
type luaAtom struct {
	fsys    fs.FS // when set, path is a folder in it
	path    string
	stdlib  string
	with    map[string]any
	withPos map[string]config.Pos // of the keys of with, when it comes from a file
	pos     config.Pos            // where it was configured, for errors
	// fallback is the pack of Files.Stdlib that this atom of a user file
	// replaced: it loads instead when this one fails at a degraded start.
	fallback *luaAtom
	// host: a pack of Files.Stdlib or WithStdlib, a guard the host chose:
	// when it fails at a degraded start, the plan fails closed.
	host bool
}

// WithStdlib loads embedded stdlib packs by name; "default" names the
// default set (stdlib.Default(): deny-destructive, protect-paths,
// redact-secrets), the very set the monad-hooks CLI runs when --stdlib is
// absent (it calls this option). Without it (and without Files.Stdlib or
// "atoms" entries) the engine runs no stdlib pack at all. The packs load
// with their default parameters; a pack also in Files.Stdlib keeps that
// entry and its parameters, and a pack that a user file names in its atoms
// is replaced by that entry, in its place (a pack loads once per plan). Packs that need the home directory or the
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

// WithLuaPoolOnDemand makes each plan generation's Lua pool build a VM
// only when a call finds every VM busy (see luaapi.Options.OnDemand)
// instead of building the pool's VMs in the background after the first:
// for a process that dispatches once or a few times and exits (monad-hooks
// run), which then builds one VM at most (none when its pool is planned
// from the stdlib packs' Records and no hook has to run Lua, see
// scriptSource), and whose Close waits for no build.
func WithLuaPoolOnDemand() Option {
	return func(o *options) { o.luaOnDemand = true }
}

// WithEvents restricts the engine to dispatches of the given events, for a
// host that knows them before it builds the engine (monad-hooks run knows
// its one event): stdlib packs that register no hook at any of them (their
// header's events, stdlib.PackInfo.Events) are not loaded, which spares
// their load (the default set at BeforeTool loads deny-destructive and
// protect-paths, not redact-secrets). Their parameters are validated all
// the same. Every other hook (Go, command, Lua scripts of files and
// folders) loads as without it. A dispatch of another event fails with an
// error wrapping [ErrInvalidInput]: no event runs without its guards.
// Given several times, the sets add up; without it the engine serves every
// event.
func WithEvents(evs ...events.Event) Option {
	return func(o *options) {
		o.someEvents = true
		for _, ev := range evs {
			if ev.Valid() {
				o.events[ev] = true
			}
		}
	}
}

// serves reports whether the engine dispatches ev (see WithEvents).
func (o *options) serves(ev events.Event) bool {
	return !o.someEvents || (ev.Valid() && o.events[ev])
}

// skipsPack reports whether the engine leaves out the stdlib pack name:
// WithEvents excludes every event its header lists.
func (o *options) skipsPack(name string) bool {
	if !o.someEvents {
		return false
	}
	info, ok := stdlib.Lookup(name)
	if !ok {
		return false
	}
	for _, e := range info.Events {
		if ev, err := events.ParseEvent(e); err != nil || o.serves(ev) {
			return false
		}
	}
	return true
}

// WithLuaModule exposes a Go value to every Lua hook as require(name): a
// host's memory recall, a project lookup, a clock. value is a function, a
// map[string]any of functions and values, or any other value whose
// exported fields and methods scripts may read and call, converted by
// gopher-luar (layeh.com/gopher-luar) in each VM.
//
// Only what value's type exposes is reachable: its exported fields and
// methods, and those of the types they take and return; never unexported
// ones. Types that could lead further (channels, callbacks, interfaces,
// unsafe pointers, recursive types) are refused: New fails with a
// lua_load error naming the route (see luaapi.ValidateModule). Go values
// are read-only from Lua (a method may still change its receiver). A
// module function whose first parameter is a context.Context gets one that
// ends at the calling hook's deadline; a non-nil error as the last result
// of a function or method is a Lua error. Go code runs to completion, so it
// must honour that context or return promptly; a panic in it is a hook
// failure. Functions are called concurrently from the VMs of the pool (one
// call per VM at a time): value must be safe for concurrent use.
//
// name is lowercase letters, digits, '_', '.' or '-', and not a built-in
// module's (json, log, path, re, scan, shell); WithLuaModule with the same name
// again replaces the value.
func WithLuaModule(name string, value any) Option {
	return func(o *options) {
		if o.luaModules == nil {
			o.luaModules = map[string]any{}
		}
		o.luaModules[name] = value
	}
}

// checkLuaModules validates the WithLuaModule values.
func checkLuaModules(mods map[string]any) ConfigErrors {
	var errs ConfigErrors
	names := make([]string, 0, len(mods))
	for n := range mods {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := luaapi.ValidateModule(n, mods[n]); err != nil {
			errs = append(errs, &ConfigError{Code: CodeLuaLoad, Msg: "WithLuaModule(" + strconv.Quote(n) + "): " + err.Error()})
		}
	}
	return errs
}

// luaScript is one compiled script instance to load.
type luaScript struct {
	name string // the script's name in luaapi and its errors: its path
	// shown names the script in hook identities: its path relative to
	// the configuration file that names it (to Files.Root for Files.Lua),
	// "stdlib:<pack>", "fs:<path>".
	shown string
	src   []byte
	// embedded is the path in stdlib.FS() of an embedded pack, whose src
	// is read only when it has to be compiled (see compileScript).
	embedded string
	params   map[string]any
	pos      config.Pos // where it was configured
	// rules returns the rule files the script evaluates, if any.
	rules  func() []*stdlib.RuleFile
	stdlib bool // an embedded pack
}

// compileScript compiles sc, or decodes the embedded pack compiled at build
// time: compiling the default set was most of the start of monad-hooks run
// (BenchmarkCLIRun).
func compileScript(sc luaScript) (*luaapi.Script, error) {
	if sc.embedded != "" {
		// The compiled form is checked against the pack's length and
		// CRC-32, read in blocks: copying the packs (deny-destructive is
		// 100 KB) was a twentieth of the start of monad-hooks run
		// (BenchmarkCLIRun).
		if n, sum, err := sumFile(stdlib.FS(), sc.embedded, 0); err == nil {
			if s := precompiled.ScriptSum(sc.name, n, sum); s != nil {
				return s, nil
			}
		}
		src, err := fs.ReadFile(stdlib.FS(), sc.embedded)
		if err != nil {
			return nil, err
		}
		return luaapi.Compile(sc.name, src)
	}
	if sc.stdlib {
		if s := precompiled.Script(sc.name, sc.src); s != nil {
			return s, nil
		}
	}
	return luaapi.Compile(sc.name, sc.src)
}

// scriptSource returns the luaapi.Source of sc. An embedded pack with its
// default parameters comes with its luaapi.Record, made at go generate
// time from this very source (precompiled.RecordSum) and checked against
// loading the pack by TestStdlibRecordsAreWhatPacksRegister, and is
// decoded only when a VM first runs it: when every script of a pool has
// one (the default set), the pool is planned without running the packs,
// and a call its prefilters answer builds no VM (BenchmarkCLIRun). A pack
// with parameters, a user's script, or a pack whose Record is stale or
// missing is compiled (or decoded) now, and the pool loads it at once.
func (s *fileSource) scriptSource(sc luaScript) (luaapi.Source, error) {
	if sc.embedded != "" && len(sc.params) == 0 && !s.opts.noRecords {
		if n, sum, err := sumFile(stdlib.FS(), sc.embedded, 0); err == nil {
			if rec := precompiled.RecordSum(sc.name, n, sum); rec != nil {
				lazy := luaapi.LazyScript(sc.name, func() (*luaapi.Script, error) {
					if s := precompiled.ScriptSum(sc.name, n, sum); s != nil {
						return s, nil
					}
					return compileScript(sc)
				})
				return luaapi.Source{Script: lazy, Record: rec}, nil
			}
		}
	}
	compiled, err := compileScript(sc)
	if err != nil {
		return luaapi.Source{}, err
	}
	return luaapi.Source{Script: compiled, Params: sc.params}, nil
}

// sumFile returns the length of the file name of fsys and the IEEE
// CRC-32 sum updated with its content, read in blocks.
func sumFile(fsys fs.FS, name string, sum uint32) (n int, _ uint32, err error) {
	f, err := fsys.Open(name)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	var buf [32 << 10]byte
	for {
		k, err := f.Read(buf[:])
		n += k
		sum = crc32.Update(sum, crc32.IEEETable, buf[:k])
		if err == io.EOF {
			return n, sum, nil
		}
		if err != nil {
			return 0, 0, err
		}
	}
}

// loadLua reads and compiles the Lua atoms, builds one VM pool for all of
// them (whose scripts see guardRails, the files and folders of the
// configuration, as path.config()) and returns one hookSpec per hook{} registration, in load order. It
// counts the hooks of each script file into fileHooks; a script that gave
// prev hooks and registers none now is a CodeNoHooks error. terr is a
// transient failure to read a script (see transientError). When degraded,
// a script that fails is left out (a pack that replaced one of
// Files.Stdlib falls back to it) and the others load: errs lists what was
// left out, closed those of the host's packs (the plan fails closed), and
// terr is reported as a read error.
func (s *fileSource) loadLua(ctx context.Context, v *fileVersion, atoms []luaAtom, guardRails []string, prev *generation, fileHooks map[string]int, degraded bool) (specs []hookSpec, pool *luaapi.Pool, errs ConfigErrors, closed []closure, terr error) {
	if len(atoms) == 0 {
		return nil, nil, nil, nil, nil
	}
	var scripts []luaScript
	hostScripts := map[string]string{} // script name -> the host's pack
	for _, a := range atoms {
		more, err := s.readAtom(v, a)
		var te *transientError
		if errors.As(err, &te) && !degraded {
			return nil, nil, nil, nil, te
		}
		if err != nil && degraded && a.fallback != nil {
			errs = append(errs, atomProblems(a.pos.File, err)...)
			a = *a.fallback
			more, err = s.readAtom(v, a)
		}
		if err != nil {
			problems := atomProblems(a.pos.File, err)
			errs = append(errs, problems...)
			if a.host {
				closed = appendClosures(closed, "the host's stdlib pack "+a.stdlib, TierAtom, problems...)
			}
			if len(more) == 0 {
				continue
			}
			// A folder with a file that did not read: its other
			// scripts load (degraded; otherwise errs fails the load).
		}
		if a.stdlib != "" && s.opts.skipsPack(a.stdlib) {
			continue // validated by readAtom; no hook of it can fire here
		}
		if a.host {
			for _, sc := range more {
				hostScripts[sc.name] = a.stdlib
			}
		}
		if a.stdlib == "" && a.fsys == nil {
			for _, sc := range more {
				fileHooks[sc.name] = 0 // a script on disk: count its hooks
			}
		}
		scripts = append(scripts, more...)
	}
	var srcs []luaapi.Source
	registeredBy := make(map[string]string, len(scripts)) // script name -> where it was configured
	shown := make(map[string]string, len(scripts))        // script name -> luaScript.shown
	rulesOf := map[string]func() []*stdlib.RuleFile{}
	for _, sc := range scripts {
		registeredBy[sc.name] = sc.pos.String()
		shown[sc.name] = sc.shown
		if sc.rules != nil {
			rulesOf[sc.name] = sc.rules
		}
		src, err := s.scriptSource(sc)
		if err != nil {
			errs = append(errs, luaError(sc.pos, err))
			if pack, ok := hostScripts[sc.name]; ok {
				closed = appendClosures(closed, "the host's stdlib pack "+pack, TierAtom, errs[len(errs)-1])
			}
			continue
		}
		srcs = append(srcs, src)
	}
	libs, err := stdlibLibraries.Get()
	if err != nil {
		errs = append(errs, luaError(config.Pos{}, err))
	}
	if len(errs) > 0 && !degraded {
		return nil, nil, errs, nil, nil
	}
	for {
		var err error
		pool, err = luaapi.NewPool(ctx, srcs, luaapi.Options{
			Libraries:      libs,
			PoolSize:       s.opts.luaPoolSize,
			DefaultTimeout: s.opts.luaTimeout,
			Logger:         s.opts.logger,
			Home:           s.f.Home,
			Root:           s.f.Root,
			EventAlias:     hosts.Alias,
			ConfigPaths:    guardRails,
			Now:            s.opts.now,
			Modules:        s.opts.luaModules,
			OnDemand:       s.opts.luaOnDemand,
		})
		if err == nil {
			break
		}
		errs = append(errs, luaError(config.Pos{}, err))
		// Degraded: leave out the script that failed to load and try
		// the others again.
		var se *luaapi.ScriptError
		if !degraded || !errors.As(err, &se) || ctx.Err() != nil {
			return nil, nil, errs, nil, nil
		}
		if pack, ok := hostScripts[se.Script]; ok {
			closed = appendClosures(closed, "the host's stdlib pack "+pack, TierAtom, errs[len(errs)-1])
		}
		n := len(srcs)
		srcs = slices.DeleteFunc(srcs, func(src luaapi.Source) bool { return src.Script.Name() == se.Script })
		if len(srcs) == n {
			return nil, nil, errs, nil, nil
		}
	}
	index := map[int]int{} // hooks so far of each source
	for i, h := range pool.Hooks() {
		if _, onDisk := fileHooks[h.Script]; onDisk {
			fileHooks[h.Script]++
		}
		index[h.Source]++
		onError, _ := ParseOnError(h.OnError)
		id, source := luaIdentity(shown[h.Script], h, index[h.Source])
		specs = append(specs, hookSpec{
			tier: TierAtom, kind: "lua", id: id,
			pos: config.Pos{File: h.Script, Line: h.Line}, source: source,
			registeredBy: registeredBy[h.Script], event: h.Event, matcher: h.Matcher, kinds: h.Kinds,
			onError: onError, shownTimeout: h.Timeout, validated: true, rules: rulesOf[h.Script], releases: true,
			// The pool enforces the hook's timeout itself.
			run: func(ctx context.Context, c *call) (events.Output, []string, error) {
				out, logs, err := pool.CallView(ctx, i, &c.in, c.viewer())
				return out, logLines(logs), err
			},
		})
	}
	for name, n := range fileHooks {
		if had := prev.hooksFrom(name); had > 0 && n == 0 {
			errs = append(errs, &ConfigError{Code: CodeNoHooks, File: name, Msg: fmt.Sprintf(
				"the script gave the configuration in force %d hooks and now registers none (empty, or cut short mid-write?); to remove all its hooks, remove the script", had)})
		}
	}
	if len(errs) > 0 && !degraded {
		pool.Close()
		return nil, nil, errs, nil, nil
	}
	return specs, pool, errs, closed, nil
}

// luaIdentity returns the identity of the Lua hook h, the n-th of its
// script (1-based), and where it is defined. The identity is
// "lua:<script>#<name>" for a hook with a name, "lua:<script>#<n>"
// otherwise, <script> being the script as shown (see luaScript.shown): it
// stays the same when lines are added above the hook. The source is the
// script's path and the line of the hook{} call, but for a stdlib pack,
// whose lines are those of a file embedded in the binary: "stdlib:<pack>".
func luaIdentity(shown string, h luaapi.Hook, n int) (id, source string) {
	if shown == "" {
		shown = h.Script
	}
	id = "lua:" + shown + "#" + strconv.Itoa(n)
	if h.Name != "" {
		id = "lua:" + shown + "#" + h.Name
	}
	if strings.HasPrefix(shown, "stdlib:") {
		return id, shown
	}
	return id, h.Script + ":" + strconv.Itoa(h.Line)
}

// shownPath returns how hook identities name the script at p: relative to
// the folder of the configuration file whose atoms entry at pos names it,
// or to root for a script given directly (Files.Lua), when p is inside it;
// p itself otherwise.
func shownPath(p string, pos config.Pos, root string) string {
	base := root
	if pos.Line > 0 { // an atoms entry of a configuration file
		base = filepath.Dir(pos.File)
	}
	if base == "" {
		return p
	}
	rel, err := filepath.Rel(base, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.ToSlash(rel)
}

// atomProblems turns an error of readAtom into ConfigErrors.
func atomProblems(file string, err error) ConfigErrors {
	var ce ConfigErrors
	if errors.As(err, &ce) {
		return ce
	}
	return ConfigErrors{readError(file, err)}
}

// readAtom reads the script or scripts of one atom, recording the stamps of
// files on disk. Its error is a transientError, ConfigErrors or a
// *ConfigError.
func (s *fileSource) readAtom(v *fileVersion, a luaAtom) ([]luaScript, error) {
	switch {
	case a.stdlib != "":
		sc, perrs := s.stdlibScript(a)
		if perrs != nil {
			return nil, perrs
		}
		return []luaScript{sc}, nil
	case a.fsys != nil:
		return readLuaFS(a)
	case isRuleFile(a.path):
		return s.readRuleFile(v, a)
	}
	return s.readLuaPath(v, a)
}

// stdlibLibraries gives the stdlib's shared Lua libraries (require
// "monad.params" and friends) once per process, each a luaapi.LazyScript
// decoded (or, when its precompiled form is stale, compiled) the first
// time a VM requires it: a start that loads deny-destructive decodes
// neither the redaction library nor the rules library rendered from the
// rule files, which was a tenth of `monad-hooks run BeforeTool`
// (BenchmarkCLIRun). They are embedded, and a compiled luaapi.Script is
// immutable, so every engine and every plan generation shares them. Only a
// build defect makes one fail, and then the require that needed it fails
// the pack's load.
var stdlibLibraries = lazy.Values[map[string]*luaapi.Script]{F: func() (map[string]*luaapi.Script, error) {
	out := map[string]*luaapi.Script{}
	// Read when required too: reading them all was a fortieth of
	// monad-hooks run (BenchmarkCLIRun).
	for _, name := range stdlib.LibraryNames() {
		out[name] = luaapi.LazyScript(name, func() (*luaapi.Script, error) {
			src, ok := stdlib.Library(name)
			if !ok {
				return nil, fmt.Errorf("no stdlib library %s", name)
			}
			return compileScript(luaScript{name: name, src: src, stdlib: true})
		})
	}
	out[stdlib.RulesLibraryName] = luaapi.LazyScript(stdlib.RulesLibraryName, rulesLibrary)
	for i, file := range ruleFileNames() {
		name := stdlib.RulesFamilyLibrary(i)
		out[name] = luaapi.LazyScript(name, func() (*luaapi.Script, error) { return ruleFamilyLibrary(name, file) })
	}
	return out, nil
}}

// ruleFileNames returns the names of the embedded rule files in name
// order, the order of stdlibRules: the i-th is the family library
// stdlib.RulesFamilyLibrary(i).
func ruleFileNames() []string {
	entries, err := fs.ReadDir(stdlib.RuleSources(), ".")
	if err != nil {
		return nil // the rules library fails to load: stdlibRules fails too
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && isRuleFile(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// ruleFamilyLibrary is the compiled library name of the rules library's
// families, rendered from the rule file called file: decoded when its
// compiled form was made from that very file (ruleFamilyKey), else
// rendered and compiled.
func ruleFamilyLibrary(name, file string) (*luaapi.Script, error) {
	src := stdlib.RuleSources()
	if info, err := fs.Stat(src, file); err == nil {
		head := rulesKeyHead(file, int(info.Size()))
		if n, sum, err := sumFile(src, file, crc32.Update(0, crc32.IEEETable, head)); err == nil && int64(n) == info.Size() {
			if s := precompiled.ScriptSum(name, len(head)+n, sum); s != nil {
				return s, nil
			}
		}
	}
	files, err := stdlibRules.Get()
	if err != nil {
		return nil, err
	}
	lib, ok := stdlib.RulesLibraries(files)[name]
	if !ok {
		return nil, fmt.Errorf("no rule file makes the library %s", name)
	}
	return compileScript(luaScript{name: name, src: lib, stdlib: true})
}

// ruleFamilyKey is what the family library of the rule file called file is
// made from (see precompiled.Build): its name, length and content.
func ruleFamilyKey(file string) ([]byte, error) {
	data, err := fs.ReadFile(stdlib.RuleSources(), file)
	if err != nil {
		return nil, err
	}
	return append(rulesKeyHead(file, len(data)), data...), nil
}

// rulesLibrary is the compiled rules library. It is rendered from the
// embedded rule files, whose decoding is most of a start that loads it: its
// compiled form is checked against the files themselves.
func rulesLibrary() (*luaapi.Script, error) {
	if n, sum, ok := rulesLibraryKeySum(); ok {
		if s := precompiled.ScriptSum(stdlib.RulesLibraryName, n, sum); s != nil {
			return s, nil
		}
	}
	files, err := stdlibRules.Get()
	if err != nil {
		return nil, err
	}
	return compileScript(luaScript{name: stdlib.RulesLibraryName, src: stdlib.RulesLibraries(files)[stdlib.RulesLibraryName], stdlib: true})
}

// stdlibLibrarySources returns the sources of the stdlib's libraries by
// require name, the rules libraries rendered from the embedded rule files.
func stdlibLibrarySources() (map[string][]byte, error) {
	libs := stdlib.Libraries()
	files, err := stdlibRules.Get()
	if err != nil {
		return nil, err
	}
	maps.Copy(libs, stdlib.RulesLibraries(files))
	return libs, nil
}

// rulesLibraryKey is what the rules library is made from: the embedded
// rule files in name order, each as its name, its length and its content
// (see precompiled.Build).
func rulesLibraryKey() []byte {
	var key []byte
	if !walkRuleFiles(func(name string, data []byte) { key = append(append(key, rulesKeyHead(name, len(data))...), data...) }) {
		return nil
	}
	return key
}

// rulesLibraryKeySum returns the length and CRC-32 of rulesLibraryKey,
// computed file by file.
func rulesLibraryKeySum() (n int, sum uint32, ok bool) {
	// Read in blocks: copying the 220 KB of rule files was a fiftieth of
	// the start of monad-hooks run (BenchmarkCLIRun).
	src := stdlib.RuleSources()
	entries, err := fs.ReadDir(src, ".")
	if err != nil {
		return 0, 0, false
	}
	for _, e := range entries { // sorted by name
		info, err := e.Info()
		if err != nil {
			return 0, 0, false
		}
		head := rulesKeyHead(e.Name(), int(info.Size()))
		k, s, err := sumFile(src, e.Name(), crc32.Update(sum, crc32.IEEETable, head))
		if err != nil || int64(k) != info.Size() {
			return 0, 0, false
		}
		n, sum = n+len(head)+k, s
	}
	return n, sum, true
}

// rulesKeyHead is what precedes a rule file's content in rulesLibraryKey.
func rulesKeyHead(name string, size int) []byte {
	head := append([]byte(name), 0)
	head = strconv.AppendInt(head, int64(size), 10)
	return append(head, 0)
}

// walkRuleFiles calls f for each embedded rule file, in name order; false
// when one cannot be read (never, in a sound build).
func walkRuleFiles(f func(name string, data []byte)) bool {
	src := stdlib.RuleSources()
	entries, err := fs.ReadDir(src, ".")
	if err != nil {
		return false
	}
	for _, e := range entries { // sorted by name
		data, err := fs.ReadFile(src, e.Name())
		if err != nil {
			return false
		}
		f(e.Name(), data)
	}
	return true
}

// precompiledSources returns every script the engine may load from the
// stdlib, by the name it compiles it with: the packs ("stdlib/<name>") and
// the libraries, and the keys of the scripts checked against what they are
// made from (see precompiled.Build). They make
// engine/internal/precompiled's stdlib.luac.
//
//go:generate go test -run ^TestPrecompiledUpToDate$ -update-precompiled .
func precompiledSources() (srcs, keys map[string][]byte, err error) {
	srcs, err = stdlibLibrarySources()
	if err != nil {
		return nil, nil, err
	}
	keys = map[string][]byte{stdlib.RulesLibraryName: rulesLibraryKey()}
	for i, file := range ruleFileNames() {
		if keys[stdlib.RulesFamilyLibrary(i)], err = ruleFamilyKey(file); err != nil {
			return nil, nil, err
		}
	}
	for _, p := range stdlib.Packs() {
		src, err := fs.ReadFile(stdlib.FS(), p.Script)
		if err != nil {
			return nil, nil, err
		}
		srcs["stdlib/"+p.Name] = src
	}
	return srcs, keys, nil
}

// stdlibScript resolves an embedded pack and validates its parameters
// against the pack's declaration (one error per problem, at the position of
// the parameter's key when the pack comes from a configuration file; for a
// pack that evaluates the rule files, the families, groups and rules its
// parameters name) and what it needs from the host (Files.Home,
// Files.Root): a pack that would run weakened is refused.
func (s *fileSource) stdlibScript(a luaAtom) (luaScript, ConfigErrors) {
	info, known := stdlib.Lookup(a.stdlib)
	var rules func() []*stdlib.RuleFile
	err := stdlib.ValidateParams(a.stdlib, a.with)
	if err == nil && known && info.Rules {
		// The embedded rule files are decoded when parameters name
		// their families or something asks for them, not at every start
		// (BenchmarkCLIRun): without parameters there is nothing to check.
		rules = stdlibRuleFiles
		if len(a.with) > 0 {
			var files []*stdlib.RuleFile
			if files, err = stdlibRules.Get(); err == nil {
				err = stdlib.ValidateRuleParams(a.stdlib, files, a.with)
			}
		}
	}
	if err != nil {
		return luaScript{}, paramErrors(err, a.pos, a.withPos)
	}
	var unmet ConfigErrors
	for _, n := range info.Needs {
		switch {
		case n == stdlib.NeedHome && s.f.Home == "":
			unmet = append(unmet, atomError(CodeUnmetNeed, a.pos, fmt.Errorf(
				"stdlib pack %s needs the home directory for its ~ and $HOME rules: set Files.Home (the CLI sets it from $HOME, else from the user database); without it the pack would run weakened", a.stdlib)))
		case n == stdlib.NeedRoot && s.f.Root == "":
			unmet = append(unmet, atomError(CodeUnmetNeed, a.pos, fmt.Errorf(
				"stdlib pack %s needs the project root for calls without a cwd: set Files.Root (the CLI sets it from --root or the working directory); without it the pack would run weakened", a.stdlib)))
		}
	}
	if unmet != nil {
		return luaScript{}, unmet
	}
	return luaScript{name: "stdlib/" + a.stdlib, shown: "stdlib:" + a.stdlib, embedded: info.Script, params: a.with, pos: a.pos, rules: rules, stdlib: true}, nil
}

// paramErrors turns the problems of a parameter check (*stdlib.ParamError,
// joined) into ConfigErrors, each at the position of its parameter's key
// when the atom comes from a configuration file.
func paramErrors(err error, at config.Pos, withPos map[string]config.Pos) ConfigErrors {
	problems := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		problems = j.Unwrap()
	}
	var errs ConfigErrors
	for _, p := range problems {
		pos := at
		var pe *stdlib.ParamError
		if errors.As(p, &pe) {
			if kp, ok := withPos[pe.Param]; ok {
				pos = kp
			}
		}
		errs = append(errs, atomError(CodeBadAtom, pos, p))
	}
	return errs
}

// readLuaPath reads a script, or the *.lua files of a folder in lexical
// order, recording their stamps (and the folder's, so that an added or
// removed script is noticed). A file of a folder that cannot be read (a
// dangling link, a FIFO, a device, one too large) is an error of its own:
// the scripts that read are returned beside the errors, so that one bad
// file never takes its neighbours' hooks with it where the caller keeps
// what loads.
func (s *fileSource) readLuaPath(v *fileVersion, a luaAtom) ([]luaScript, error) {
	fi, err := s.f.FS.Stat(a.path)
	if err != nil {
		v.stamps = append(v.stamps, stamp{path: a.path})
		return nil, atomError(CodeRead, a.pos, err)
	}
	paths := []string{a.path}
	if fi.IsDir() {
		v.stamps = append(v.stamps, s.stampOf(a.path))
		entries, err := s.f.FS.ReadDir(a.path)
		if err != nil {
			return nil, atomError(CodeRead, a.pos, err)
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
	var errs ConfigErrors
	for _, p := range paths {
		src, err := s.read(v, p)
		var te *transientError
		if errors.As(err, &te) {
			return nil, te
		}
		if err != nil {
			errs = append(errs, readError(p, err))
			continue
		}
		out = append(out, luaScript{name: p, shown: shownPath(p, a.pos, s.f.Root), src: src, params: a.with, pos: a.pos})
	}
	if errs != nil {
		return out, errs
	}
	return out, nil
}

// luaError turns an error of luaapi into a ConfigError, with the code of
// its kind and its position.
func luaError(pos config.Pos, err error) *ConfigError {
	var se *luaapi.ScriptError
	if errors.As(err, &se) {
		code := CodeLuaLoad
		switch se.Kind {
		case luaapi.ScriptSyntax:
			code = CodeLuaSyntax
		case luaapi.ScriptHook:
			code = CodeLuaHook
		}
		return &ConfigError{Code: code, File: se.Script, Line: se.Line, Col: se.Col, Msg: se.Msg}
	}
	return atomError(CodeLuaLoad, pos, err)
}

// atomError is a problem of the atom configured at pos.
func atomError(code string, pos config.Pos, err error) *ConfigError {
	return &ConfigError{Code: code, File: pos.File, Line: pos.Line, Col: pos.Col, Msg: err.Error()}
}

// maxLogLines bounds the log lines of one hook call kept in its Record.
const maxLogLines = 20

// maxLogLine bounds one log line of a Record, fields included.
const maxLogLine = 1024

// logLines formats what a Lua hook logged for its Record: "level
// script:line: message", followed by the fields of log.info(msg, fields)
// as one JSON object (keys sorted), so that the audit keeps what the log
// shows.
func logLines(logs []luaapi.LogEntry) []string {
	if len(logs) == 0 {
		return nil
	}
	out := make([]string, 0, min(len(logs), maxLogLines))
	for _, l := range logs[:min(len(logs), maxLogLines)] {
		line := fmt.Sprintf("%s %s:%d: %s", strings.ToLower(l.Level.String()), l.Script, l.Line, l.Msg)
		if len(l.Fields) > 0 {
			// The fields came from Lua through luaapi's conversion:
			// JSON values, which always encode.
			if b, err := json.Marshal(l.Fields); err == nil {
				line += " " + string(b)
			}
		}
		out = append(out, truncate(line, maxLogLine))
	}
	return out
}

// readLuaFS reads the *.lua files of a folder of an fs.FS, in lexical
// order; as readLuaPath, it returns the scripts that read beside the
// errors of those that did not.
func readLuaFS(a luaAtom) ([]luaScript, error) {
	entries, err := fs.ReadDir(a.fsys, a.path)
	if err != nil {
		return nil, atomError(CodeRead, a.pos, err)
	}
	var out []luaScript
	var errs ConfigErrors
	for _, e := range entries { // fs.ReadDir sorts by name
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".lua") {
			continue
		}
		p := path.Join(a.path, e.Name())
		src, err := fs.ReadFile(a.fsys, p)
		switch {
		case err != nil:
			errs = append(errs, &ConfigError{Code: CodeRead, File: "fs:" + p, Msg: err.Error()})
		case len(src) > maxFileSize:
			errs = append(errs, &ConfigError{Code: CodeTooLarge, File: "fs:" + p, Msg: fmt.Sprintf("script is larger than the limit of %d bytes", maxFileSize)})
		default:
			out = append(out, luaScript{name: "fs:" + p, shown: "fs:" + p, src: src, params: a.with, pos: config.Pos{File: "fs:" + p}})
		}
	}
	if errs != nil {
		return out, errs
	}
	return out, nil
}
