//go:build unix

package engine_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// residentGuard is a resident hook: it appends its pid to the file starts
// when it starts, then denies "rm" commands and reports an error for
// "boom", line after line. It sleeps on "hang".
func residentGuard(starts string) string {
	return `echo $$ >> ` + starts + `; while IFS= read -r line; do case "$line" in
  *'"rm '*) echo '{"decision":"deny","reason":"resident says no"}';;
  *boom*) echo '{"error":"boom"}';;
  *hang*) sleep 600;;
  *) echo '{}';;
esac; done`
}

func writeResidentConfig(t *testing.T, path, hooks string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(`{"hooks":{"BeforeTool":[{"hooks":[`+hooks+`]}]}}`), 0o644))
}

// residentEngine builds an engine in dir whose agents.json has the
// BeforeTool hooks given (closed when the test ends), and returns it and
// the file.
func residentEngine(t *testing.T, dir, hooks string) (*engine.Engine, string) {
	t.Helper()
	cfg := filepath.Join(dir, "agents.json")
	writeResidentConfig(t, cfg, hooks)
	eng, err := engine.New(t.Context(), engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir}))
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	return eng, cfg
}

func hookEntry(cmd string, extra string) string {
	return fmt.Sprintf(`{"command":%s,"persistent":true%s}`, strconv.Quote(cmd), extra)
}

func startedPids(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		out = append(out, pid)
	}
	return out
}

// processGone waits (at most 30 s, a hang guard) for pid to be gone.
func processGone(pid int) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X') {
			return true
		}
	}
	return false
}

func shellCall(cmd string) events.Input {
	return events.Input{Event: events.BeforeTool, SessionID: "s", ToolName: "bash", ToolInput: map[string]any{"command": cmd}}
}

// TestResidentHook: a persistent command hook answers dispatch after
// dispatch from one process, its deny and its reported error count as a
// spawned hook's would, Close ends it.
func TestResidentHook(t *testing.T) {
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	eng, _ := residentEngine(t, dir, hookEntry(residentGuard(starts), `,"onError":"deny"`))
	require.Empty(t, startedPids(t, starts), "started on first use, not at load")
	require.True(t, eng.Plan(t.Context())[0].Persistent)
	for range 3 {
		res, err := eng.Dispatch(t.Context(), shellCall("ls"))
		require.NoError(t, err)
		require.Equal(t, events.Proceed, res.Decision)
		res, err = eng.Dispatch(t.Context(), shellCall("rm -rf /"))
		require.NoError(t, err)
		require.Equal(t, events.Deny, res.Decision)
		require.Equal(t, "resident says no", res.Reason)
	}
	res, err := eng.Dispatch(t.Context(), shellCall("boom"))
	require.NoError(t, err)
	require.Equal(t, events.Deny, res.Decision, "a reported error with onError deny")
	require.Equal(t, engine.OutcomeError, res.Audit[0].Outcome)
	require.Contains(t, res.Audit[0].Error, "boom")
	pids := startedPids(t, starts)
	require.Len(t, pids, 1, "one process for every call")
	require.NoError(t, eng.Close())
	require.True(t, processGone(pids[0]), "Close ends the process")
}

// TestResidentHookTimeout: a call that times out kills the process; the
// next dispatch starts a fresh one.
func TestResidentHookTimeout(t *testing.T) {
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	// The timeout is far above starting sh and answering a line on a
	// loaded machine (a 300 ms timeout let a slow start time out before
	// the process wrote its pid); "hang" reaches it whatever the machine.
	eng, _ := residentEngine(t, dir, hookEntry(residentGuard(starts), `,"timeoutMs":5000,"onError":"deny"`))
	res, err := eng.Dispatch(t.Context(), shellCall("ls"))
	require.NoError(t, err)
	require.Equal(t, events.Proceed, res.Decision, "the first call starts the process")
	first := startedPids(t, starts)
	require.Len(t, first, 1)
	res, err = eng.Dispatch(t.Context(), shellCall("hang"))
	require.NoError(t, err)
	require.Equal(t, events.Deny, res.Decision)
	require.Equal(t, engine.OutcomeTimeout, res.Audit[0].Outcome)
	require.Equal(t, first, startedPids(t, starts), "the timed-out call ran in the started process")
	require.True(t, processGone(first[0]), "the timed-out process is killed")
	res, err = eng.Dispatch(t.Context(), shellCall("rm -rf /"))
	require.NoError(t, err)
	require.Equal(t, "resident says no", res.Reason)
	require.Len(t, startedPids(t, starts), 2)
}

// TestResidentHookReload: a reload that keeps the hook's spec keeps its
// process; one that changes it ends the old process, and the next call
// starts the new one.
func TestResidentHookReload(t *testing.T) {
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	eng, cfg := residentEngine(t, dir, hookEntry(residentGuard(starts), ""))
	_, err := eng.Dispatch(t.Context(), shellCall("ls"))
	require.NoError(t, err)
	pids := startedPids(t, starts)
	require.Len(t, pids, 1)

	// The same spec, another hook beside it.
	writeResidentConfig(t, cfg, hookEntry(residentGuard(starts), "")+`,{"command":"true"}`)
	touch(t, cfg)
	require.NoError(t, eng.Reload(t.Context()))
	res, err := eng.Dispatch(t.Context(), shellCall("rm x"))
	require.NoError(t, err)
	require.Equal(t, events.Deny, res.Decision)
	require.Equal(t, pids, startedPids(t, starts), "the process survives a reload that keeps its spec")

	// A changed spec (its timeout): the old process ends.
	writeResidentConfig(t, cfg, hookEntry(residentGuard(starts), `,"timeoutMs":20000`))
	touch(t, cfg)
	require.NoError(t, eng.Reload(t.Context()))
	require.True(t, processGone(pids[0]), "a reload that changes the spec ends the old process")
	res, err = eng.Dispatch(t.Context(), shellCall("rm x"))
	require.NoError(t, err)
	require.Equal(t, events.Deny, res.Decision)
	require.Len(t, startedPids(t, starts), 2)
}

// touch moves path's modification time on, so that a reload sees the
// change whatever the file system's time granularity.
func touch(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	later := fi.ModTime().Add(2 * time.Second)
	require.NoError(t, os.Chtimes(path, later, later))
}

// TestResidentReadmeExample: the sh example of README.md's "Resident
// command hooks" works as it says.
func TestResidentReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "### Resident command hooks")
	require.True(t, ok)
	_, block, ok := strings.Cut(section, "```sh\n")
	require.True(t, ok)
	script, _, ok := strings.Cut(block, "```")
	require.True(t, ok)
	dir := t.TempDir()
	path := filepath.Join(dir, "resident.sh")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	eng, _ := residentEngine(t, dir, hookEntry(path, ""))
	res, err := eng.Dispatch(t.Context(), shellCall("rm -rf build"))
	require.NoError(t, err)
	require.Equal(t, events.Deny, res.Decision)
	require.Equal(t, "no rm -rf", res.Reason)
	res, err = eng.Dispatch(t.Context(), shellCall("ls"))
	require.NoError(t, err)
	require.Equal(t, events.Proceed, res.Decision)
	require.Equal(t, engine.OutcomeOK, res.Audit[0].Outcome)
}
