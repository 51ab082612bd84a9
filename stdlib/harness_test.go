package stdlib_test

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"path"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"testing/fstest"

	"github.com/BurntSushi/toml"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

// testHome is the home directory the packs see in these tests, and testRoot
// the project root (the sandbox root, Files.Root): protect-paths needs both.
const (
	testHome = "/home/agent"
	testRoot = "/work/proj"
)

// pack is one stdlib pack loaded by the engine, as a host configures it:
// its parameters are checked where the engine checks them, its hooks run
// with the engine's Lua options, and call folds their outputs with the
// engine's dispatch. The tests test what ships.
type pack struct {
	name string
	eng  *engine.Engine
}

// loadPack loads the stdlib pack name with the parameters with, as
// engine.Files.Stdlib does; the error is engine.New's.
func loadPack(tb testing.TB, name string, with map[string]any) (*pack, error) {
	tb.Helper()
	return newPack(tb, name, engine.Files{Stdlib: []engine.Pack{{Name: name, With: with}}, Home: testHome, Root: testRoot})
}

// loadPackUnchecked loads the script of the stdlib pack name as a host's
// own Lua script with the parameters with: nothing checks them before the
// pack's own Lua does, as in a host that loads the packs without the
// engine's stdlib support.
func loadPackUnchecked(tb testing.TB, name string, with map[string]any) (*pack, error) {
	tb.Helper()
	info, ok := stdlib.Lookup(name)
	if !ok {
		tb.Fatalf("no pack %q", name)
	}
	src, err := fs.ReadFile(stdlib.FS(), info.Script)
	if err != nil {
		tb.Fatal(err)
	}
	fsys := fstest.MapFS{path.Base(info.Script): {Data: src}}
	return newPack(tb, name, engine.Files{LuaFS: []engine.ScriptFS{{FS: fsys, Dir: ".", With: with}}, Home: testHome, Root: testRoot})
}

func newPack(tb testing.TB, name string, files engine.Files) (*pack, error) {
	tb.Helper()
	e, err := engine.New(context.Background(), engine.WithFiles(files), engine.WithLuaPool(0, testLuaTimeout))
	if err != nil {
		return nil, err
	}
	tb.Cleanup(func() { e.Close() })
	return &pack{name: name, eng: e}, nil
}

// libraries compiles the packs' shared libraries and the library of the
// embedded rule files, as the engine does.
func libraries(tb testing.TB) map[string]*luaapi.Script {
	tb.Helper()
	out := map[string]*luaapi.Script{}
	srcs := stdlib.Libraries()
	maps.Copy(srcs, stdlib.RulesLibraries(embeddedRules(tb)))
	for name, src := range srcs {
		s, err := luaapi.Compile(name, src)
		if err != nil {
			tb.Fatalf("library %s: %v", name, err)
		}
		out[name] = s
	}
	return out
}

// embeddedRules returns the embedded rule files as the engine decodes and
// checks them, in family order.
func embeddedRules(tb testing.TB) []*stdlib.RuleFile {
	tb.Helper()
	files, err := engine.StdlibRules()
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// decodeRules decodes a TOML rule file without positions (the engine adds
// them) and checks it.
func decodeRules(name string, data []byte) (*stdlib.RuleFile, error) {
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return stdlib.ParseRules(name, doc)
}

// compilePack compiles an embedded pack as the engine names it.
func compilePack(tb testing.TB, info stdlib.PackInfo) *luaapi.Script {
	tb.Helper()
	src, err := fs.ReadFile(stdlib.FS(), info.Script)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := luaapi.Compile("stdlib/"+info.Script, src)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// mustLoad loads a pack (see loadPack); an error fails the test.
func mustLoad(tb testing.TB, name string, with map[string]any) *pack {
	tb.Helper()
	p, err := loadPack(tb, name, with)
	if err != nil {
		tb.Fatalf("load %s: %v", name, err)
	}
	return p
}

// hooks returns the pack's hooks as the engine plans them.
func (p *pack) hooks() []engine.PlannedHook {
	return p.eng.Plan(context.Background())
}

// testLuaTimeout is the Lua hooks' timeout in these tests. The packs set
// no timeoutMs: they time out after the engine's default (1 s), wall time,
// which a loaded machine running the race detector can exceed on a
// correct pack. Here a timeout is a failure, never retried: a pack that
// really runs without end still fails the test.
const testLuaTimeout = luaapi.MaxTimeout

// call dispatches in to the pack and returns the Result. Every hook that
// ran must have run to completion: a failed hook fails the test.
func (p *pack) call(tb testing.TB, in events.Input) engine.Result {
	tb.Helper()
	res, err := p.eng.Dispatch(context.Background(), in)
	if err != nil {
		tb.Fatalf("%s on %v: %v", p.name, in.Event, err)
	}
	if i := slices.IndexFunc(res.Audit, func(r engine.Record) bool { return r.Outcome != engine.OutcomeOK }); i >= 0 {
		r := res.Audit[i]
		tb.Fatalf("%s on %v: %s: %s: %s", p.name, in.Event, r.Hook, r.Outcome, r.Error)
	}
	return res
}

func shellInput(cmd string) events.Input {
	return events.Input{Event: events.BeforeTool, ToolName: "bash", Cwd: testRoot, ToolInput: map[string]any{"command": cmd}}
}

var placeholder = regexp.MustCompile(`\{\{([a-zA-Z]*):?([0-9]*)\}\}`)

var alphabets = map[string]string{
	"a": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	"A": "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
	"U": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	"l": "abcdefghijklmnopqrstuvwxyz",
	"L": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
	"h": "0123456789abcdef",
	"H": "0123456789ABCDEF",
	"d": "0123456789",
	"b": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
	"u": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
	"z": "abcdefghijklmnopqrstuvwxyz0123456789",
}

// expand fills a corpus template: {{a:36}} is 36 pseudo-random characters
// of alphabet a (see alphabets), {{}} is nothing (it splits literal token
// prefixes so that secret scanners do not flag the corpus), {{nl}} is a
// newline and {{jnl}} a JSON-escaped one. The characters depend only on
// seed, so every run builds the same fake values.
func expand(tmpl string, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	return placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		sub := placeholder.FindStringSubmatch(m)
		switch sub[1] {
		case "":
			return ""
		case "nl":
			return "\n"
		case "jnl":
			return `\n`
		}
		alpha, ok := alphabets[sub[1]]
		if !ok {
			panic("unknown alphabet in " + m)
		}
		n, _ := strconv.Atoi(sub[2])
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		return string(b)
	})
}
