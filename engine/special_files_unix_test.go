//go:build unix

package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// TestSpecialFilesAreRefusedWithoutBlocking: a configuration file or a
// script that is not a regular file (a FIFO with no writer, which open
// blocks on, a character device such as /dev/zero, which never ends) is a
// configuration error at once, never a load that hangs or reads without
// end. Whoever can write the project (the agent) can put one among the
// scripts of a folder; before the fix, monad-hooks run hung in open(2) and
// ignored the host's SIGTERM, so the host's timeout let the call proceed.
// specialFile makes a file that is not a regular one at path.
type specialFile struct {
	name string
	make func(t *testing.T, path string)
}

// specialFiles are what the agent can put where a script is expected and
// an open could block on or a read never end.
var specialFiles = []specialFile{
	{"fifo", func(t *testing.T, path string) { require.NoError(t, syscall.Mkfifo(path, 0o600)) }},
	{"dev-zero", func(t *testing.T, path string) { require.NoError(t, os.Symlink("/dev/zero", path)) }},
}

func TestSpecialFilesAreRefusedWithoutBlocking(t *testing.T) {
	for _, tc := range specialFiles {
		for _, where := range []string{"lua-folder", "user-file", "policy-file"} {
			t.Run(tc.name+"/"+where, func(t *testing.T) {
				dir := t.TempDir()
				files := engine.Files{Root: dir, Home: dir, Runner: fakeRunner}
				var special string
				switch where {
				case "lua-folder":
					guards := filepath.Join(dir, "guards")
					require.NoError(t, os.Mkdir(guards, 0o755))
					writeConfig(t, filepath.Join(guards, "a.lua"), denyBashLua)
					special = filepath.Join(guards, "b.lua")
					files.Lua = []string{guards}
				case "user-file":
					special = filepath.Join(dir, "agents.json")
					files.User = []string{special}
				case "policy-file":
					special = filepath.Join(dir, "policy.json")
					files.Policy = []string{special}
				}
				tc.make(t, special)
				type result struct {
					eng *engine.Engine
					err error
				}
				done := make(chan result, 1)
				go func() {
					eng, err := engine.New(context.Background(), testLuaPool, engine.WithFiles(files))
					done <- result{eng, err}
				}()
				var r result
				select {
				case r = <-done:
				case <-time.After(30 * time.Second): // far above the cost: New fails at once
					// Unblock the open of the FIFO so that the goroutine ends.
					if f, err := os.OpenFile(special, os.O_WRONLY, 0); err == nil {
						f.Close()
					}
					t.Fatalf("New did not return: reading %s blocked", special)
				}
				if r.eng != nil {
					r.eng.Close()
				}
				var ce engine.ConfigErrors
				require.True(t, errors.As(r.err, &ce), "want ConfigErrors, got %v", r.err)
				assert.Contains(t, r.err.Error(), special)
				assert.Contains(t, r.err.Error(), "not a regular file")
			})
		}
	}
}

// TestSpecialFileInDegradedRunFailsClosed: the one-shot run's degraded
// start with a FIFO as policy file answers at once, with a deny.
func TestSpecialFileInDegradedRunFailsClosed(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.json")
	require.NoError(t, syscall.Mkfifo(policy, 0o600))
	done := make(chan error, 1)
	var res engine.Result
	go func() {
		eng, err := engine.New(context.Background(), testLuaPool, engine.WithDegradedStart(),
			engine.WithFiles(engine.Files{Policy: []string{policy}, Root: dir, Runner: fakeRunner}))
		if err == nil {
			res, err = eng.Dispatch(context.Background(), events.Input{Event: events.BeforeTool, ToolName: "bash"})
			eng.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		if f, err := os.OpenFile(policy, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("New did not return: reading the FIFO blocked")
	}
	assert.Equal(t, events.Deny, res.Decision)
	assert.Contains(t, res.Reason, "not a regular file")
}

// TestBadScriptKeepsItsNeighbours: in the one-shot run's degraded start, a
// file of a Lua folder that cannot be read (a FIFO, a device, a dangling
// link, one too large: any of which the agent can put there) is left out
// alone, with an error of its own; the folder's other scripts still guard
// (before, the whole folder was left out, and its deny was lost).
func TestBadScriptKeepsItsNeighbours(t *testing.T) {
	for _, tc := range append(specialFiles,
		specialFile{"dangling", func(t *testing.T, path string) { require.NoError(t, os.Symlink("/nonexistent/x.lua", path)) }},
		specialFile{"too-large", func(t *testing.T, path string) { require.NoError(t, os.Truncate(writeFile(t, path), 1<<30)) }},
	) {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			guards := filepath.Join(dir, "guards")
			require.NoError(t, os.Mkdir(guards, 0o755))
			tc.make(t, filepath.Join(guards, "0-bad.lua"))
			writeConfig(t, filepath.Join(guards, "a.lua"), `hook{ event = "BeforeTool", handler = function() return { decision = "deny", reason = "a" } end }`)
			writeConfig(t, filepath.Join(guards, "z.lua"), `hook{ event = "BeforeTool", handler = function() end }`)
			eng, err := engine.New(t.Context(), testLuaPool, engine.WithDegradedStart(),
				engine.WithFiles(engine.Files{Lua: []string{guards}, Root: dir, Home: dir, Runner: fakeRunner}))
			require.NoError(t, err)
			defer eng.Close()
			res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "ls"}})
			require.NoError(t, err)
			assert.Equal(t, events.Deny, res.Decision, "a.lua still guards")
			assert.Contains(t, res.ConfigError, "0-bad.lua")
			assert.Equal(t, "a", res.Reason)
		})
	}
}

// writeFile creates an empty file at path and returns path.
func writeFile(t *testing.T, path string) string {
	t.Helper()
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	return path
}
