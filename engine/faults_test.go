package engine_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// TestConfigFaults replaces a working policy file with broken ones: each keeps
// the last good policy in force, reports the problem in the result, and the
// engine recovers when the file is fixed.
func TestConfigFaults(t *testing.T) {
	good := config("policy")
	huge := `{"policyHooks":{},"pad":"` + strings.Repeat("x", 5<<20) + `"}`
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, path string)
		code  string
	}{
		{"truncated", func(t *testing.T, p string) { writeConfig(t, p, good[:len(good)/2]) }, "syntax"},
		{"binary", func(t *testing.T, p string) { writeConfig(t, p, "\x00\x01\x02\xff\xfe") }, "bad_encoding"},
		{"huge", func(t *testing.T, p string) { writeConfig(t, p, huge) }, "too_large"},
		{"removed", func(t *testing.T, p string) { os.Remove(p) }, "read_error"},
		{"dangling symlink", func(t *testing.T, p string) {
			os.Remove(p)
			if err := os.Symlink(filepath.Join(filepath.Dir(p), "missing.json"), p); err != nil {
				t.Fatal(err)
			}
		}, "read_error"},
		{"a directory", func(t *testing.T, p string) {
			os.Remove(p)
			os.Mkdir(p, 0o755)
		}, "read_error"},
		{"user keys in a policy file", func(t *testing.T, p string) { writeConfig(t, p, `{"hooks":{}}`) }, "hooks_in_policy_config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "policy.json")
			writeConfig(t, p, `{"policyHooks":{"BeforeTool":[{"hooks":[{"command":"deny policy"}]}]}}`)
			eng, err := engine.New(t.Context(), engine.WithFiles(engine.Files{Policy: []string{p}, Root: dir, Runner: fakeRunner}))
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			in := events.Input{Event: events.BeforeTool, ToolName: "bash"}
			tc.spoil(t, p)
			// A dispatch notices the change and loads in the background;
			// Reload waits for that load.
			eng.Dispatch(t.Context(), in)
			if err := eng.Reload(t.Context()); err == nil || !strings.Contains(err.Error(), tc.code) {
				t.Errorf("Reload() = %v, want an error naming %s", err, tc.code)
			}
			for range 3 {
				res, err := eng.Dispatch(t.Context(), in)
				if err != nil {
					t.Fatal(err)
				}
				if res.Decision != events.Deny || res.Reason != "policy" {
					t.Fatalf("after the file broke: %q %q, want the last good policy's deny", res.Decision, res.Reason)
				}
				if !strings.Contains(res.ConfigError, tc.code) {
					t.Fatalf("configError = %q, want it to name %s", res.ConfigError, tc.code)
				}
			}
			os.RemoveAll(p)
			writeConfig(t, p, `{"policyHooks":{"BeforeTool":[{"hooks":[{"command":"deny fixed"}]}]}}`)
			if err := eng.Reload(t.Context()); err != nil {
				t.Errorf("Reload() after the fix = %v", err)
			}
			res, _ := eng.Dispatch(t.Context(), in)
			if res.Reason != "fixed" || res.ConfigError != "" {
				t.Errorf("after the fix: %q, configError %q", res.Reason, res.ConfigError)
			}
		})
	}
}

// TestCommandHookVanishes deletes a command hook's script, then makes it
// non-executable, between dispatches: each is a failure that fails closed.
func TestCommandHookVanishes(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "guard.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho '{\"decision\":\"allow\"}'\n"), 0o755)
	cfg := filepath.Join(dir, "agents.json")
	os.WriteFile(cfg, []byte(`{"hooks":{"BeforeTool":[{"hooks":[{"command":"./guard.sh","onError":"deny"}]}]}}`), 0o644)
	eng, err := engine.New(t.Context(), engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir, Env: []string{"PATH=/usr/bin:/bin"}}))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	in := events.Input{Event: events.BeforeTool, ToolName: "bash"}
	if res, _ := eng.Dispatch(t.Context(), in); res.Decision != events.Allow {
		t.Fatalf("with the script: %q", res.Decision)
	}
	os.Chmod(script, 0o644)
	if res, _ := eng.Dispatch(t.Context(), in); res.Decision != events.Deny || !res.Audit[0].FailedClosed {
		t.Errorf("non-executable script: %q %+v, want a fail-closed deny", res.Decision, res.Audit)
	}
	os.Remove(script)
	if res, _ := eng.Dispatch(t.Context(), in); res.Decision != events.Deny || !res.Audit[0].FailedClosed {
		t.Errorf("deleted script: %q %+v, want a fail-closed deny", res.Decision, res.Audit)
	}
}

// TestLuaMemoryBomb runs handlers that try to exhaust memory: each is stopped
// (a failure that fails closed), and the process heap grows by less than the
// documented bound (luaapi.DefaultMaxCallAlloc, 256 MiB, plus what one
// watchdog interval lets through).
func TestLuaMemoryBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates hundreds of MiB")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "bomb.lua")
	writeConfig(t, script, `
hook{ event = "BeforeTool", onError = "deny", timeoutMs = 60000, handler = function(i)
  local t = {}
  if i.toolName == "tables" then
    for n = 1, 1e9 do t[n] = { n, n, n, n } end
  elseif i.toolName == "strings" then
    for n = 1, 1e9 do t[n] = ("x"):rep(1000) .. n end
  else
    local s = "xxxxxxxxxxxxxxxx"
    while true do s = s .. s end
  end
end }`)
	eng, err := engine.New(t.Context(), engine.WithFiles(engine.Files{Lua: []string{script}, Root: dir}))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, tool := range []string{"tables", "strings", "doubling"} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: tool})
		runtime.ReadMemStats(&after)
		if err != nil || res.Decision != events.Deny || !res.Audit[len(res.Audit)-1].FailedClosed {
			t.Fatalf("%s: %v %+v, want a fail-closed deny", tool, err, res)
		}
		grew := int64(after.HeapSys) - int64(before.HeapSys)
		t.Logf("%s: stopped (%s) after %.0f ms; heap reserved grew by %d MiB, total allocated %d MiB",
			tool, res.Audit[0].Outcome, res.Audit[0].LatencyMs, grew>>20, (after.TotalAlloc-before.TotalAlloc)>>20)
		// How far a bomb gets before the watchdog stops it depends on when
		// the watchdog goroutine runs (a probe every ~4 ms; `s = s .. s`
		// doubles per instruction): on a loaded machine it ran two
		// doublings late (1,983 MiB), so the peak is a timing check
		// (MONAD_TIMING=1, scripts/bench.sh). What holds on any machine:
		// the call is stopped, fails closed, and leaves nothing behind.
		if grew > 1<<30 && os.Getenv("MONAD_TIMING") == "1" {
			t.Errorf("%s: the heap grew by %d MiB, more than 1 GiB", tool, grew>>20)
		}
		runtime.GC()
		var later runtime.MemStats
		runtime.ReadMemStats(&later)
		if kept := int64(later.HeapAlloc) - int64(before.HeapAlloc); kept > 64<<20 {
			t.Errorf("%s: %d MiB still live after the call was stopped", tool, kept>>20)
		}
	}
	if res, _ := eng.Dispatch(t.Context(), events.Input{Event: events.AfterTool, ToolName: "x"}); res.Event != events.AfterTool {
		t.Error("the engine does not dispatch after the bombs")
	}
}

// TestPaddedShellLines: padding a command line until the shell parser hits a
// limit must not hide the command (regression: limit errors were ignored).
func TestPaddedShellLines(t *testing.T) {
	dir := t.TempDir()
	eng, err := engine.New(t.Context(), testLuaPool, engine.WithFiles(engine.Files{Stdlib: []engine.Pack{{Name: "deny-destructive"}}, Root: dir, Home: dir}))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for name, line := range map[string]string{
		"10,001 commands first": strings.Repeat("true; ", 10001) + "rm -rf /",
		"1 MiB of blanks first": strings.Repeat(" ", 1<<20) + "; rm -rf /",
	} {
		res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": line}})
		if err != nil || res.Decision != events.Deny {
			t.Errorf("%s: %v %q %+v, want a deny", name, err, res.Decision, res.Audit)
		}
	}
}
