package engine_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

const denyBashLua = `hook{ event = "BeforeTool", matcher = "^bash$", handler = function() return { additionalContext = "lua" } end }
`

// v1Engine writes agents.json denying bash with reason v1 and returns its
// path and an engine on it that reads files through fsys (nil: the
// operating system's), closed at the end of the test.
func v1Engine(t *testing.T, fsys *testFS, lua ...string) (*engine.Engine, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agents.json")
	writeConfig(t, cfg, config("v1"))
	if fsys != nil {
		fsys.path = cfg
	}
	files := engine.Files{User: []string{cfg}, Lua: lua, Root: dir, Runner: fakeRunner}
	if fsys != nil {
		files.FS = fsys
	}
	eng, err := engine.New(t.Context(), testLuaPool, engine.WithFiles(files))
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	return eng, cfg
}

// wantReason dispatches a BeforeTool of bash and checks that it is denied
// with reason, and that no configuration error is reported.
func wantReason(t *testing.T, eng *engine.Engine, reason string) {
	t.Helper()
	res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash"})
	require.NoError(t, err)
	assert.Equal(t, reason, res.Reason)
	assert.Empty(t, res.ConfigError)
}

// TestCancelledDispatchDoesNotPinAReload: a load runs on its own context,
// so a dispatch whose caller hung up does not leave the new configuration
// unapplied and a "context canceled" pinned (issue 11.5).
func TestCancelledDispatchDoesNotPinAReload(t *testing.T) {
	// Work at the top level, so that loading the script checks its
	// context (the stdlib packs do as much).
	script := filepath.Join(t.TempDir(), "guard.lua")
	writeConfig(t, script, "local n = 0\nfor i = 1, 100000 do n = n + i end\n"+denyBashLua)
	eng, cfg := v1Engine(t, nil, script)
	writeConfig(t, cfg, config("v2"))
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	eng.Dispatch(cancelled, events.Input{Event: events.BeforeTool, ToolName: "bash"})
	require.NoError(t, eng.Reload(t.Context()))
	wantReason(t, eng, "v2")
}

// testFS is the operating system's filesystem, but for the reads of one
// file: the next one can fail with an I/O error (failOne), be cut short
// (cut), or wait until released (block).
type testFS struct {
	path    string
	failOne atomic.Bool
	cut     atomic.Bool
	block   atomic.Pointer[chan struct{}] // reads wait for it to close
	reading chan struct{}                 // a blocked read has started
	reads   atomic.Int64
}

func (f *testFS) ReadFile(name string) ([]byte, error) {
	if name != f.path {
		return os.ReadFile(name)
	}
	f.reads.Add(1)
	if f.failOne.Swap(false) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("input/output error")}
	}
	if ch := f.block.Load(); ch != nil {
		f.reading <- struct{}{}
		<-*ch
	}
	b, err := os.ReadFile(name)
	if f.cut.Swap(false) {
		b = b[:len(b)/2]
	}
	return b, err
}
func (f *testFS) Stat(name string) (os.FileInfo, error)      { return os.Stat(name) }
func (f *testFS) ReadDir(name string) ([]os.DirEntry, error) { return os.ReadDir(name) }

// TestFailedLoadIsRetried: a load that failed for a reason other than the
// files' content (an I/O error) is tried again, without waiting for the
// files to change (issue 11.5).
func TestFailedLoadIsRetried(t *testing.T) {
	fsys := &testFS{}
	eng, cfg := v1Engine(t, fsys)
	writeConfig(t, cfg, config("v2"))
	fsys.failOne.Store(true)
	assert.ErrorContains(t, eng.Reload(t.Context()), "input/output error")
	_, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash"}) // retries
	require.NoError(t, err)
	require.NoError(t, eng.Reload(t.Context()))
	wantReason(t, eng, "v2")
}

// TestCompilingNeverBlocksDispatch: while a new configuration is read and
// compiled, dispatches go on with the current plan; the new one is swapped
// in when ready (issue 11.7).
func TestCompilingNeverBlocksDispatch(t *testing.T) {
	fsys := &testFS{reading: make(chan struct{}, 1)}
	eng, cfg := v1Engine(t, fsys)
	in := events.Input{Event: events.BeforeTool, ToolName: "bash"}

	release := make(chan struct{})
	fsys.block.Store(&release)
	writeConfig(t, cfg, config("v2"))
	done := make(chan engine.Result, 3)
	go func() {
		for range 3 {
			res, _ := eng.Dispatch(context.Background(), in)
			done <- res
		}
	}()
	<-fsys.reading // the reload is reading the file, and stays there
	for range 3 {
		select {
		case res := <-done:
			assert.Equal(t, "v1", res.Reason, "a dispatch during the reload uses the current plan")
		case <-time.After(30 * time.Second):
			t.Fatal("Dispatch waited for the reload to finish")
		}
	}
	fsys.block.Store(nil)
	close(release)
	require.NoError(t, eng.Reload(t.Context()))
	wantReason(t, eng, "v2")
}

// rewriteInPlace rewrites a file the way an editor that does not rename
// does: truncate, pause, write part, pause, write the rest. A reader can
// catch it empty or cut short.
func rewriteInPlace(t *testing.T, path, content string, cut int) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	time.Sleep(time.Millisecond)
	f.WriteString(content[:cut])
	time.Sleep(time.Millisecond)
	f.WriteString(content[cut:])
}

// TestInPlaceRewritesNeverDropThePolicy: a writer truncates and rewrites a
// TOML policy and a Lua script in place every few milliseconds while
// dispatches run; no dispatch sees the policy or the Lua hook missing (a
// file read empty or cut short never replaces a plan that had hooks from
// it), and the last content is in force at the end (issue 11.6).
func TestInPlaceRewritesNeverDropThePolicy(t *testing.T) {
	dir := t.TempDir()
	pol, script := filepath.Join(dir, "policy.toml"), filepath.Join(dir, "guard.lua")
	policy := func(v int) string {
		return "# operator policy, version " + strings.Repeat("I", v) + "\n[[policyHooks.BeforeTool]]\nmatcher = \"^bash$\"\nhooks = [{ command = \"deny policy\" }]\n"
	}
	lua := func(v int) string { return "-- version " + strings.Repeat("I", v) + "\n" + denyBashLua }
	writeConfig(t, pol, policy(0))
	writeConfig(t, script, lua(0))
	eng, err := engine.New(t.Context(), testLuaPool, engine.WithFiles(engine.Files{Policy: []string{pol}, Lua: []string{script}, Root: dir, Runner: fakeRunner}))
	require.NoError(t, err)
	defer eng.Close()

	wait := hammer(eng, 2, events.Input{Event: events.BeforeTool, ToolName: "bash"}, func(res engine.Result, err error) bool {
		// The Lua hook is in the plan (on a loaded machine it may time
		// out: its record is there all the same), and the policy denies.
		if err != nil || res.Decision != events.Deny || res.Reason != "policy" || len(res.Audit) != 2 || res.Audit[0].Kind != "lua" {
			t.Errorf("a dispatch saw %q %q (err %v, configError %q, audit %+v), want the Lua hook and the policy deny",
				res.Decision, res.Reason, err, res.ConfigError, res.Audit)
			return false
		}
		return true
	})
	const rewrites = 60
	for i := 1; i <= rewrites; i++ {
		p, l := policy(i%7), lua(i%5)
		rewriteInPlace(t, pol, p, i%len(p))
		rewriteInPlace(t, script, l, i%len(l))
		if t.Failed() {
			break
		}
	}
	t.Logf("%d dispatches across %d in-place rewrites of each file", wait(), rewrites)
	// The files are still now: the next reload applies their last content.
	require.NoError(t, eng.Reload(t.Context()))
	wantReason(t, eng, "policy")
}

// TestShortReadIsReadAgain: a read that returns less than the file's size
// (the file changed while it was read) is read again, not parsed (issue
// 11.6).
func TestShortReadIsReadAgain(t *testing.T) {
	fsys := &testFS{}
	eng, cfg := v1Engine(t, fsys)
	writeConfig(t, cfg, config("v2"))
	fsys.cut.Store(true)
	before := fsys.reads.Load()
	require.NoError(t, eng.Reload(t.Context()))
	assert.Equal(t, int64(2), fsys.reads.Load()-before, "the short read and the read again")
	wantReason(t, eng, "v2")
}
