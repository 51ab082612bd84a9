package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/engine/hosts"
	"github.com/monad-hooks/monad-hooks/events"
)

// TestRunSideFailuresKeepTheDecision: an --audit file that cannot be opened
// and a --state file that cannot be read cost run nothing but a note on
// stderr: the dispatch runs and its decision is answered as the host reads
// it (before, an unwritable --audit exited 1, which a host reads as
// "proceed", or blocked every call of a --host as a broken configuration).
func TestRunSideFailuresKeepTheDecision(t *testing.T) {
	t.Parallel()
	deny := fixedHook("deny-rm", events.BeforeTool, "", events.Output{Decision: events.Deny, Reason: "no rm"})
	env := testEnv(t, deny)
	file := filepath.Join(env.Dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	sides := []string{"--stdlib", "none", "--audit", filepath.Join(file, "audit.jsonl"), "--state", env.Dir}
	cc := `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm x"}}`

	code, stdout, stderr := runCLI(t, env, `{"toolName":"bash"}`, append([]string{"run", "BeforeTool"}, sides...)...)
	assert.Equal(t, ExitOK, code, stderr)
	assert.Equal(t, events.Deny, decodeResult(t, stdout).Decision)
	assert.Contains(t, stderr, "audit")

	code, stdout, stderr = runCLI(t, env, cc, append([]string{"run", "--host", "claude-code"}, sides...)...)
	assert.Equal(t, ExitOK, code, stderr)
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}`, stdout)
	assert.Contains(t, stderr, "the dispatch runs without the audit log")

	code, _, stderr = runCLI(t, env, cc, append([]string{"run", "--host", "crush"}, sides...)...)
	assert.Equal(t, 2, code)
	assert.Equal(t, "no rm\n", stderr, "at exit 2 stderr is the reason alone")

	// Nothing to deny: the call proceeds, the note is on stderr.
	allowEnv := testEnv(t)
	code, stdout, stderr = runCLI(t, allowEnv, cc, append([]string{"run", "--host", "claude-code"}, sides...)...)
	assert.Equal(t, ExitOK, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "audit")
}

// TestRunExitTwoStderrIsTheReason: where the answer is exit 2 the host reads
// all of stderr as the reason of the block (Crush's deny; a refusal at no
// known event), so the notes of the run (a failed hook, a broken
// configuration) are not mixed into it; at other answers they are on
// stderr as before.
func TestRunExitTwoStderrIsTheReason(t *testing.T) {
	t.Parallel()
	fail := engine.GoHook{Name: "broken", Event: events.BeforeTool,
		Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) {
			return events.Output{}, errors.New("boom")
		})}
	deny := fixedHook("deny-rm", events.BeforeTool, "", events.Output{Decision: events.Deny, Reason: "no rm"})
	env := testEnv(t, fail, deny)
	require.NoError(t, os.WriteFile(filepath.Join(env.Dir, "agents.json"), []byte(`{"hooks":{"BeforeTool":[{"comand":"x"}]}}`), 0o600))
	crush := `{"session_id":"s","cwd":"/w","event":"PreToolUse","tool_name":"bash","tool_input":{"command":"rm x"}}`

	code, _, stderr := runCLI(t, env, crush, "run", "--host", "crush", "--stdlib", "none", "--config", "agents.json")
	assert.Equal(t, 2, code)
	assert.Equal(t, "no rm\n", stderr)

	code, _, stderr = runCLI(t, env, `{"event":"Bogus"}`, "run", "--host", "crush", "--stdlib", "none", "--config", "agents.json")
	assert.Equal(t, 2, code)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	assert.Contains(t, stderr, `unknown event "Bogus"`)

	// Claude Code answers a deny as JSON with exit 0: the notes stay.
	cc := `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm x"}}`
	code, stdout, stderr := runCLI(t, env, cc, "run", "--host", "claude-code", "--stdlib", "none", "--config", "agents.json")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, stdout, `"permissionDecision":"deny"`)
	assert.Contains(t, stderr, "hook go:broken failed")
	assert.Contains(t, stderr, "unknown_key")
}

// TestAuditReportsFailureAtOnce: serve runs for days; an audit file that
// stops taking lines (a full disk) is reported when it happens, once, not
// only at the exit (before: only by Close, at the exit).
func TestAuditReportsFailureAtOnce(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	var reported []error
	a, err := openAudit(p, func(err error) { reported = append(reported, err) })
	require.NoError(t, err)
	ro, err := os.Open(p) // writes to it fail, as on a full disk
	require.NoError(t, err)
	a.f.Close()
	a.f = ro
	rec := engine.Record{Event: events.BeforeTool, Hook: "h", Outcome: engine.OutcomeOK}
	a.Record(context.Background(), rec)
	require.Len(t, reported, 1, "reported when it happens")
	assert.Contains(t, reported[0].Error(), "audit: write")
	a.Record(context.Background(), rec)
	assert.Len(t, reported, 1, "reported once")
	assert.NoError(t, a.Close(), "not reported again at the exit")
}

// TestServeSlowBodyHoldsNothingBack: a client that declares a 16 MiB body
// and stalls (which the agent can start in the background) holds the body
// memory of every other request only until the body timeout; before, until
// the server's read timeout (a minute), and with no read timeout for ever,
// while the host's hook calls timed out.
func TestServeSlowBodyHoldsNothingBack(t *testing.T) {
	t.Parallel()
	h := testHandler(t)
	h.bodyTimeout = 100 * time.Millisecond
	_, dial := startConnServer(t, h)
	slow, _ := dial()
	_, err := fmt.Fprintf(slow, "POST /v1/dispatch HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", MaxInputSize)
	require.NoError(t, err)
	// Let the slow request take the body memory (it holds it for the body
	// timeout only, which a loaded machine may let pass unseen: the wait
	// is bounded, and the test fails before the fix whenever it ends).
	for deadline := time.Now().Add(time.Second); h.mem.available() > 0 && time.Now().Before(deadline); {
		runtime.Gosched()
	}
	c, br := dial()
	_, err = io.WriteString(c, rawPost(allowedCall))
	require.NoError(t, err)
	resp, body := readAnswer(t, br, "POST")
	assert.Equal(t, 200, resp.StatusCode, body)
}

// available is the units not taken (tests).
func (s *weighted) available() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.free
}

// TestServeHostOversizeIsABlock: a payload over the input limit (the agent
// makes one by writing a large file) is refused with the host's block, on
// a 2xx: Claude Code's HTTP hooks read an error status (before: 413) as
// "proceed", and the lines transport answered {"error"} in no host's shape.
func TestServeHostOversizeIsABlock(t *testing.T) {
	t.Parallel()
	host, _ := hosts.Lookup("claude-code")
	h := testHandler(t)
	h.maxBody, h.host = 64, host
	payload := `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/root/.ssh/authorized_keys","content":"` + strings.Repeat("x", 100) + `"}}`
	for _, chunked := range []bool{false, true} {
		req := httptest.NewRequest("POST", "/v1/dispatch", strings.NewReader(payload))
		if chunked {
			req.ContentLength = -1
		}
		req.Host = "127.0.0.1:8787"
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		viaNetHTTP(h.mux()).ServeHTTP(rec, req)
		assert.Equal(t, 200, rec.Code, "chunked %v", chunked)
		assert.Contains(t, rec.Body.String(), `"decision":"block"`, "chunked %v", chunked)
	}

	line := `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"` + strings.Repeat("x", MaxInputSize) + `"}}`
	code, stdout, stderr := runCLI(t, testEnv(t), line+"\n", "serve", "--stdlib", "none", "--host", "claude-code")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stdout, `"decision":"block"`)
	assert.Contains(t, stdout, "line longer than")
}

// TestRunStateLockHeldForEver: a --state lock that another process holds
// for ever (the agent can) costs a run of a session event its state, not
// its guards: run waits a bounded time, says so and dispatches (before, it
// waited until the host's timeout, which the host reads as "proceed").
func TestRunStateLockHeldForEver(t *testing.T) {
	t.Parallel()
	env := testEnv(t, fixedHook("no-prompt", events.BeforeTurn, "", events.Output{Decision: events.Deny, Reason: "no"}))
	state := filepath.Join(env.Dir, "state.json")
	held, err := lockFile(state)
	require.NoError(t, err)
	defer held()
	done := make(chan struct{})
	var code int
	var stdout, stderr string
	go func() {
		code, stdout, stderr = runCLI(t, env, `{"sessionId":"s","prompt":"p"}`, "run", "BeforeTurn", "--stdlib", "none", "--state", "state.json")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatal("run waited for the lock without bound")
	}
	assert.Equal(t, ExitOK, code)
	assert.Equal(t, events.Deny, decodeResult(t, stdout).Decision)
	assert.Contains(t, stderr, "still held by another process")
}

// TestRunCatchesSignalsBeforeHooksOnly: run starts catching SIGINT and
// SIGTERM (a thread and a goroutine) only when it is about to wait for the
// state lock or to run a hook, whose decision a signal's default action would
// lose; a dispatch that runs no hook catches nothing
// (BenchmarkCLIRunNoStdlib). The other commands catch them as they start.
func TestRunCatchesSignalsBeforeHooksOnly(t *testing.T) {
	t.Parallel()
	var catches atomic.Int32
	counted := func(env Env) Env {
		env.catchSignals = func() { catches.Add(1) }
		return env
	}
	bash := `{"toolName":"bash","toolInput":{"command":"ls"}}`

	catches.Store(0)
	code, _, stderr := runCLI(t, counted(testEnv(t)), bash, "run", "BeforeTool", "--stdlib", "none")
	require.Equal(t, ExitOK, code, stderr)
	assert.Zero(t, catches.Load(), "no hook ran")

	var atHook int32 = -1
	seen := engine.GoHook{Name: "seen", Event: events.BeforeTool,
		Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) {
			atHook = catches.Load()
			return events.Output{}, nil
		})}
	catches.Store(0)
	code, _, stderr = runCLI(t, counted(testEnv(t, seen)), bash, "run", "BeforeTool", "--stdlib", "none")
	require.Equal(t, ExitOK, code, stderr)
	assert.Equal(t, int32(1), atHook, "caught before the hook ran")

	env := counted(testEnv(t))
	var atLock int32 = -1
	env.lockState = func(string) (func() error, error) {
		atLock = catches.Load()
		return func() error { return nil }, nil
	}
	catches.Store(0)
	code, _, stderr = runCLI(t, env, `{"sessionId":"s"}`, "run", "SessionStart", "--stdlib", "none", "--state", filepath.Join(env.Dir, "state.json"))
	require.Equal(t, ExitOK, code, stderr)
	assert.Equal(t, int32(1), atLock, "caught before the lock is waited for")

	catches.Store(0)
	code, _, stderr = runCLI(t, counted(testEnv(t)), "", "check", "--stdlib", "none")
	require.Equal(t, ExitOK, code, stderr)
	assert.Equal(t, int32(1), catches.Load(), "other commands catch as they start")
}
