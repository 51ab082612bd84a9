package engine

import (
	"context"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine/internal/precompiled"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

// withoutRecords loads the stdlib packs without their Records, as a pack
// with parameters loads: the plan the Records must give.
func withoutRecords() Option { return func(o *options) { o.noRecords = true } }

// recordOf returns the Record stdlib.luac serves for the embedded pack
// name.
func recordOf(t *testing.T, name string) *luaapi.Record {
	t.Helper()
	info, ok := stdlib.Lookup(name)
	require.True(t, ok, name)
	src, err := fs.ReadFile(stdlib.FS(), info.Script)
	require.NoError(t, err)
	rec := precompiled.RecordSum("stdlib/"+name, len(src), crc32.ChecksumIEEE(src))
	require.NotNil(t, rec, "stdlib.luac serves no Record for %s: run go generate ./engine/...", name)
	return rec
}

// encoded is r's encoding.
func encoded(t *testing.T, r *luaapi.Record, err error) string {
	t.Helper()
	require.NoError(t, err)
	data, err := r.MarshalBinary()
	require.NoError(t, err)
	return string(data)
}

// TestStdlibRecordsAreWhatPacksRegister: the Record stdlib.luac serves
// for each pack is what loading the pack registers (every field, the
// prefilters down to their keywords), with its default parameters, for
// other home directories and roots (a Record does not keep them), and
// without configuration paths, or with them for a pack that does not read
// them (one that does is loaded: its Record does not apply). The first VM
// the planned pool builds checks the registrations again.
func TestStdlibRecordsAreWhatPacksRegister(t *testing.T) {
	libs := stdlibLibrariesCompiled(t)
	envs := []struct{ home, root string }{{recordHome, recordRoot}, {"", ""}, {"/root", "/"}, {"/Users/Zoë X", "/tmp/a b/c"}}
	configs := [][]string{nil, {"/p/agents.json", "/p/.monad/hooks/", "/p/policy.toml"}}
	for _, p := range stdlib.Packs() {
		rec := recordOf(t, p.Name)
		for _, env := range envs {
			for _, config := range configs {
				eager := packPool(t, libs, p.Name, nil, nil, env.home, env.root, config)
				planned := packPool(t, libs, p.Name, nil, rec, env.home, env.root, config)
				if planned.Stats().Created == 1 {
					require.NotEmpty(t, config, "%s: its Record applies without configuration paths", p.Name)
					require.True(t, rec.ReadsConfig(), "%s: loaded although its Record applies", p.Name)
					continue
				}
				require.Zero(t, planned.Stats().Created, p.Name)
				er, err := eager.Record(0)
				want := encoded(t, er, err)
				pr, err := planned.Record(0)
				require.Equal(t, want, encoded(t, pr, err), "%s (home %q, root %q, config %q)", p.Name, env.home, env.root, config)
				require.Equal(t, encoded(t, rec, nil), want, p.Name)
				eh, ph := eager.Hooks(), planned.Hooks()
				require.Len(t, ph, len(eh))
				for i := range eh {
					require.Equal(t, eh[i].Timeout, ph[i].Timeout, p.Name)
					require.Equal(t, eh[i].Script, ph[i].Script, p.Name)
					require.Equal(t, eh[i].Source, ph[i].Source, p.Name)
				}
				// A call the prefilter cannot answer (no view of the tool)
				// builds the first VM, which checks the registrations.
				in := &events.Input{Event: ph[0].Event, SessionID: "s", ToolName: "x", ToolInput: map[string]any{}}
				_, err = planned.Call(context.Background(), 0, in)
				var he *luaapi.HookError
				require.False(t, errors.As(err, &he) && he.Kind == luaapi.FailVM, "%s: %v", p.Name, err)
				require.Equal(t, int64(1), planned.Stats().Created, p.Name)
			}
		}
	}
}

// lazyInput is a shell call every default-set hook's prefilter answers.
func lazyInput(cmd string) events.Input {
	return events.Input{Event: events.BeforeTool, SessionID: "s1", Cwd: "/work/proj", ToolName: "bash", ToolInput: map[string]any{"command": cmd}}
}

// sameDispatch dispatches the shell command cmd to both engines and fails
// unless they decide and audit alike; it returns lazy's result.
func sameDispatch(t *testing.T, lazy, eager *Engine, cmd string) Result {
	t.Helper()
	got, err := lazy.Dispatch(context.Background(), lazyInput(cmd))
	require.NoError(t, err)
	want, err := eager.Dispatch(context.Background(), lazyInput(cmd))
	require.NoError(t, err)
	require.Equal(t, want.Decision, got.Decision, cmd)
	require.Equal(t, want.Reason, got.Reason, cmd)
	require.Len(t, got.Audit, len(want.Audit), cmd)
	for i := range want.Audit {
		w, g := want.Audit[i], got.Audit[i]
		w.LatencyMs, g.LatencyMs = 0, 0
		require.Equal(t, w, g, cmd)
	}
	return got
}

// TestStdlibPlannedWithoutVM: an engine of stdlib packs with their default
// parameters builds no VM until a hook has to run Lua, and plans, decides
// and audits as the engine that loads them: an allowed shell command
// builds none, a destructive one builds one, with or without
// configuration files. A pack with parameters is loaded at once (a VM at
// New).
func TestStdlibPlannedWithoutVM(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	files := Files{Root: dir, Home: filepath.Join(dir, "home")}
	build := func(opts ...Option) *Engine {
		e, err := New(ctx, append([]Option{WithLuaPoolOnDemand(), WithLuaPool(1, luaapi.MaxTimeout), WithFiles(files)}, opts...)...)
		require.NoError(t, err)
		t.Cleanup(func() { e.Close() })
		return e
	}
	for _, packs := range [][]string{{"default"}, stdlib.Names()} {
		lazy, eager := build(WithStdlib(packs...)), build(WithStdlib(packs...), withoutRecords())
		require.Zero(t, lazy.Stats().Lua.Created, "%v: VMs built by New", packs)
		require.Equal(t, int64(1), eager.Stats().Lua.Created, "%v: the loaded engine's VM", packs)
		require.Equal(t, eager.Plan(ctx), lazy.Plan(ctx), "%v", packs)
		for _, c := range []struct {
			cmd string
			vms int64
		}{{"go test ./... -run TestFoo -count=1 2>&1 | tail -20", 0}, {"go vet ./... && go build -o bin ./cmd/x", 0}, {"rm -rf /", 1}, {"cat ~/.ssh/id_rsa", 1}} {
			sameDispatch(t, lazy, eager, c.cmd)
			if packs[0] == "default" { // the other packs have hooks without a prefilter
				require.Equal(t, c.vms, lazy.Stats().Lua.Created, "%v: VMs built after %q", packs, c.cmd)
			}
		}
	}

	// Parameters: the pack is loaded (its Record is of the default ones).
	withParams := build(WithFiles(Files{Root: dir, Home: files.Home, Stdlib: []Pack{{Name: "deny-destructive", With: map[string]any{"matcher": "^sh$"}}}}))
	require.Equal(t, int64(1), withParams.Stats().Lua.Created)

	// A configuration file: protect-paths's prefilter names it
	// (scan.config_names(), made from the engine's own configuration
	// paths), and the default set is still planned from the Records.
	cfg := filepath.Join(dir, "agents.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"hooks": {}}`), 0o600))
	cfgFiles := Files{Root: dir, Home: files.Home, User: []string{cfg}}
	lazy, eager := build(WithStdlib("default"), WithFiles(cfgFiles)), build(WithStdlib("default"), WithFiles(cfgFiles), withoutRecords())
	require.Zero(t, lazy.Stats().Lua.Created)
	for _, c := range []struct {
		cmd  string
		vms  int64
		deny bool
	}{{"go build ./...", 0, false}, {"sed -i s/a/b/ agents.json", 1, true}} {
		got := sameDispatch(t, lazy, eager, c.cmd)
		require.Equal(t, c.deny, got.Decision != "", "%s: %s", c.cmd, got.Reason)
		require.Equal(t, c.vms, lazy.Stats().Lua.Created, c.cmd)
	}
}
