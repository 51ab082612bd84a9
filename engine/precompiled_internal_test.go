package engine

import (
	"context"
	"flag"
	"hash/crc32"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine/internal/precompiled"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

var updatePrecompiled = flag.Bool("update-precompiled", false, "write engine/internal/precompiled/stdlib.luac (go generate ./engine/...)")

// TestPrecompiledUpToDate: engine/internal/precompiled/stdlib.luac holds
// every script the engine loads from the stdlib, compiled from its
// current source by the gopher-lua version go.mod requires. With
// -update-precompiled (go generate ./engine/...) it writes the file.
func TestPrecompiledUpToDate(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", precompiled.LuaModule).Output()
	require.NoError(t, err)
	srcs, keys, err := precompiledSources()
	require.NoError(t, err)
	want, err := precompiled.Build(strings.TrimSpace(string(out)), srcs, keys)
	require.NoError(t, err)
	if *updatePrecompiled {
		require.NoError(t, os.WriteFile("internal/precompiled/stdlib.luac", want, 0o644))
		return
	}
	require.True(t, string(want) == precompiled.File(), "stdlib.luac is stale (a pack, a library, a rule file, luaapi's compiler or gopher-lua changed): run go generate ./engine/...")
	for name, src := range srcs {
		if key, ok := keys[name]; ok {
			src = key
		}
		require.NotNil(t, precompiled.Script(name, src), "%s is not served", name)
	}
}

// TestRulesLibraryKeySum: the sum a start computes file by file is the
// key's.
func TestRulesLibraryKeySum(t *testing.T) {
	key := rulesLibraryKey()
	require.NotEmpty(t, key)
	n, sum, ok := rulesLibraryKeySum()
	require.True(t, ok)
	require.Equal(t, len(key), n)
	require.Equal(t, crc32.ChecksumIEEE(key), sum)
}

// TestEmbeddedPacksServedPrecompiled: an embedded pack's length and sum,
// read in blocks, are its source's, so that its compiled form is served
// without copying the source (BenchmarkCLIRun).
func TestEmbeddedPacksServedPrecompiled(t *testing.T) {
	for _, p := range stdlib.Packs() {
		src, err := fs.ReadFile(stdlib.FS(), p.Script)
		require.NoError(t, err)
		n, sum, err := sumFile(stdlib.FS(), p.Script, 0)
		require.NoError(t, err)
		require.Equal(t, len(src), n, p.Name)
		require.Equal(t, crc32.ChecksumIEEE(src), sum, p.Name)
		require.NotNil(t, precompiled.ScriptSum("stdlib/"+p.Name, n, sum), "%s is not served", p.Name)
		s, err := compileScript(luaScript{name: "stdlib/" + p.Name, embedded: p.Script, stdlib: true})
		require.NoError(t, err)
		require.Equal(t, "stdlib/"+p.Name, s.Name())
	}
}

// TestRuleFamiliesLoadedOnFirstUse: the rules library requires a family's
// library the first time a command names one of its programs, so that a
// pool given every library as a luaapi.LazyScript decodes only the
// families the commands it sees reach (counted, not timed).
func TestRuleFamiliesLoadedOnFirstUse(t *testing.T) {
	srcs, err := stdlibLibrarySources()
	require.NoError(t, err)
	var mu sync.Mutex
	loaded := map[string]int{}
	libs := map[string]*luaapi.Script{}
	for name, src := range srcs {
		libs[name] = luaapi.LazyScript(name, func() (*luaapi.Script, error) {
			mu.Lock()
			loaded[name]++
			mu.Unlock()
			return luaapi.Compile(name, src)
		})
	}
	families := func() (n int) {
		mu.Lock()
		defer mu.Unlock()
		for name, k := range loaded {
			require.Equal(t, 1, k, name)
			if strings.HasPrefix(name, stdlib.RulesLibraryName+".") {
				n++
			}
		}
		return n
	}
	pack, err := compileScript(luaScript{name: "stdlib/ask-irreversible", embedded: "ask-irreversible.lua", stdlib: true})
	require.NoError(t, err)
	p, err := luaapi.NewPool(context.Background(), []luaapi.Source{{Script: pack}}, luaapi.Options{Libraries: libs, PoolSize: 1, DefaultTimeout: luaapi.MaxTimeout, LoadTimeout: luaapi.MaxTimeout})
	require.NoError(t, err)
	defer p.Close()
	require.Zero(t, families(), "loading the pack loads no family")
	call := func(cmd string) events.Output {
		in := &events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": cmd},
			Tool: &events.ToolView{Kind: events.ToolShell, Command: cmd}}
		out, err := p.Call(context.Background(), 0, in)
		require.NoError(t, err)
		return out
	}
	call("go test ./... | tail -20")
	call("ls -la && echo done")
	require.Zero(t, families(), "commands that name no family's program")
	require.Equal(t, events.Ask, call("terraform destroy -auto-approve").Decision)
	one := families()
	require.Positive(t, one)
	require.Less(t, one, len(ruleFileNames()), "one command loads its families, not all")
}
