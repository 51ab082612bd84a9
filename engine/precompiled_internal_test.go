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

	"github.com/monad-hooks/monad-hooks/engine/hosts"
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
	records, err := stdlibRecords(t)
	require.NoError(t, err)
	want, err := precompiled.Build(strings.TrimSpace(string(out)), srcs, keys, records)
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
		if _, ok := records[name]; ok {
			require.NotNil(t, precompiled.RecordSum(name, len(src), crc32.ChecksumIEEE(src)), "the Record of %s is not served", name)
		}
	}
	require.Len(t, records, len(stdlib.Packs()), "every pack has a Record")
}

// recordHome and recordRoot are the home directory and project root the
// stdlib's Records are made with (a Record does not depend on them:
// TestStdlibRecordsAreWhatPacksRegister).
const (
	recordHome = "/home/user"
	recordRoot = "/home/user/project"
)

// stdlibLibrariesCompiled returns the stdlib's libraries compiled from
// their sources, by require name.
func stdlibLibrariesCompiled(t *testing.T) map[string]*luaapi.Script {
	srcs, err := stdlibLibrarySources()
	require.NoError(t, err)
	libs := map[string]*luaapi.Script{}
	for name, src := range srcs {
		libs[name], err = luaapi.Compile(name, src)
		require.NoError(t, err, name)
	}
	return libs
}

// packPool loads the stdlib pack name alone, compiled from its source,
// with params, as the engine would (its Record, when rec is set); the
// pool's Options are given the libraries, home, root and configuration
// paths.
func packPool(t *testing.T, libs map[string]*luaapi.Script, name string, params map[string]any, rec *luaapi.Record, home, root string, config []string) *luaapi.Pool {
	t.Helper()
	info, ok := stdlib.Lookup(name)
	require.True(t, ok, name)
	src, err := fs.ReadFile(stdlib.FS(), info.Script)
	require.NoError(t, err)
	s, err := luaapi.Compile("stdlib/"+name, src)
	require.NoError(t, err)
	p, err := luaapi.NewPool(context.Background(), []luaapi.Source{{Script: s, Params: params, Record: rec}}, luaapi.Options{
		Libraries: libs, PoolSize: 1, OnDemand: true, Home: home, Root: root, ConfigPaths: config, EventAlias: hosts.Alias,
		DefaultTimeout: luaapi.MaxTimeout, LoadTimeout: luaapi.MaxTimeout,
	})
	require.NoError(t, err, name)
	t.Cleanup(func() { p.Close() })
	return p
}

// stdlibRecords loads every stdlib pack alone, with its default parameters
// and no configuration paths, and returns its encoded luaapi.Record by
// script name: what stdlib.luac keeps beside the pack (go generate
// ./engine/...). A pack that fails to load fails the test.
func stdlibRecords(t *testing.T) (map[string][]byte, error) {
	libs := stdlibLibrariesCompiled(t)
	out := map[string][]byte{}
	for _, p := range stdlib.Packs() {
		rec, err := packPool(t, libs, p.Name, nil, nil, recordHome, recordRoot, nil).Record(0)
		if err != nil {
			return nil, err
		}
		if out["stdlib/"+p.Name], err = rec.MarshalBinary(); err != nil {
			return nil, err
		}
	}
	return out, nil
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
