package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// TestWarningsPrinted: a warning of the configuration (a matcher on an event
// that is not tool-scoped) is printed on stderr by every command that loads
// the configuration, never dropped unseen (issue 11.3).
func TestWarningsPrinted(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	cfg := filepath.Join(env.Dir, "agents.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"hooks":{"AfterModel":[{"matcher":"^bash$","hooks":[{"command":"true"}]}]}}`), 0o644))
	want := cfg + `:1:36: matcher_ignored: matcher "^bash$" is ignored`
	for _, args := range [][]string{
		{"check", "--config", cfg},
		{"run", "AfterModel", "--stdlib", "none", "--config", cfg},
		{"explain", "AfterModel", "--stdlib", "none", "--config", cfg},
		{"serve", "--stdlib", "none", "--config", cfg},
	} {
		code, _, stderr := runCLI(t, env, `{"response":"hi"}`, args...)
		assert.Equal(t, ExitOK, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, "warning: "+want, "%v", args)
	}
}

// TestCheckAndExplainShowDedup: check and explain show the per-dispatch
// dedup the way Dispatch applies it (issue 11.1).
func TestCheckAndExplainShowDedup(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	cfg := filepath.Join(env.Dir, "agents.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"hooks":{"BeforeTool":[
  {"matcher":"^bash$","hooks":[{"command":"./g.sh"}]},
  {"hooks":[{"command":"./g.sh"}]}]}}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(env.Dir, "g.sh"), []byte("#!/bin/sh\n"), 0o755))
	code, out, stderr := runCLI(t, env, "", "check", "--stdlib", "none", "--config", cfg)
	require.Equal(t, ExitOK, code, stderr)
	assert.Regexp(t, `1\.\s+user\s+command\s+\S*/g\.sh\s+\S+:2:32\s+matcher="\^bash\$"`, out)
	assert.Regexp(t, `2\.\s+user\s+command\s+\S*/g\.sh\s+\S+:3:13\s+every tool\s.*\s+\(identical to user \S+:2:32: runs only for tools that one does not match\)`, out)

	code, out, stderr = runCLI(t, env, `{"toolName":"bash"}`, "explain", "BeforeTool", "--stdlib", "none", "--config", cfg)
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, out, "1 of 2 hooks would run")
	assert.Regexp(t, `Would not run:\n\s+-\s+user\s+command\s+\S*/g\.sh\s+\S+:3:13\s+the matcher matches every tool, but the identical command spec of user \S+:2:32 runs in its place`, out)

	code, out, stderr = runCLI(t, env, `{"toolName":"write_file"}`, "explain", "BeforeTool", "--stdlib", "none", "--config", cfg)
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, out, "1 of 2 hooks would run")
	assert.Regexp(t, `1\.\s+user\s+command\s+\S*/g\.sh\s+\S+:3:13\s+the matcher matches every tool`, out)
}

// TestCheckAndExplainShowRegisteredBy: check and explain say which file and
// line registered a stdlib pack's hooks (issue 11.2).
func TestCheckAndExplainShowRegisteredBy(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	cfg := filepath.Join(env.Dir, "agents.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"atoms":[{"stdlib":"deny-destructive","with":{"protectedBranches":["staging"]}}]}`), 0o644))
	code, out, stderr := runCLI(t, env, "", "check", "--all", "--stdlib", "deny-destructive,protect-paths", "--config", cfg)
	require.Equal(t, ExitOK, code, stderr)
	assert.Regexp(t, `stdlib:deny-destructive \(registered by agents\.json:1:11\)`, out)
	assert.Regexp(t, `lua:stdlib:protect-paths#1\s+stdlib:protect-paths\s`, out)
	assert.Equal(t, 1, strings.Count(out, "lua:stdlib:deny-destructive#1"), "one copy of the pack:\n%s", out)
	code, out, stderr = runCLI(t, env, `{"toolName":"bash","toolInput":{"command":"ls"}}`, "explain", "BeforeTool", "--stdlib", "deny-destructive", "--config", cfg)
	require.Equal(t, ExitOK, code, stderr)
	assert.Regexp(t, `stdlib:deny-destructive \(registered by \S+agents\.json:1:11\)`, out)
}

// TestRunWithABrokenUserFile: a host reads any exit but 0 and 2 as "the hook
// failed, proceed", so a broken user file must not switch the guards off:
// the policy, the stdlib and the other files still run, the Result carries
// configError, stderr says it, and run exits 0 (issue 11.8).
func TestRunWithABrokenUserFile(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	pol := filepath.Join(env.Dir, "policy.json")
	bad := filepath.Join(env.Dir, "agents.json")
	good := filepath.Join(env.Dir, "more.json")
	require.NoError(t, os.WriteFile(pol, []byte(`{"policyHooks":{"BeforeTool":[{"matcher":"^bash$","hooks":[{"command":"echo policy >&2; exit 2"}]}]}}`), 0o644))
	require.NoError(t, os.WriteFile(bad, []byte(`{"hooks":{"BeforeTool":[`), 0o644))
	require.NoError(t, os.WriteFile(good, []byte(`{"hooks":{"AfterModel":[{"hooks":[{"command":"echo '{\"mutatedText\":\"checked\"}'"}]}]}}`), 0o644))
	args := []string{"--policy", pol, "--config", bad, "--config", good}

	code, out, stderr := runCLI(t, env, `{"toolName":"bash","toolInput":{"command":"ls"}}`, append([]string{"run", "BeforeTool"}, args...)...)
	require.Equal(t, ExitOK, code, stderr)
	res := decodeResult(t, out)
	assert.Equal(t, "deny", string(res.Decision))
	assert.Equal(t, "policy", res.Reason)
	assert.Contains(t, res.ConfigError, bad+":1:25: syntax")
	assert.Contains(t, stderr, bad+":1:25: syntax")

	code, out, stderr = runCLI(t, env, `{"toolName":"shell_exec","toolInput":{"command":"rm -rf /"}}`, append([]string{"run", "BeforeTool"}, args...)...)
	require.Equal(t, ExitOK, code, stderr)
	res = decodeResult(t, out)
	assert.Equal(t, "deny", string(res.Decision), "the default stdlib set still runs")

	code, out, stderr = runCLI(t, env, `{"response":"hi"}`, append([]string{"run", "AfterModel"}, args...)...)
	require.Equal(t, ExitOK, code, stderr)
	res = decodeResult(t, out)
	require.NotNil(t, res.MutatedText, "the other user file still runs")
	assert.Equal(t, "checked", *res.MutatedText)
	assert.Contains(t, res.ConfigError, "syntax")

	code, _, stderr = runCLI(t, env, "", append([]string{"check"}, args...)...)
	assert.Equal(t, ExitFail, code, "check stays the place that fails on any configuration error")
	assert.Contains(t, stderr, "syntax")
}

// TestRunWithABrokenPolicyFile: a broken policy file fails closed. At events
// that can deny the Result is a deny whose reason names the configuration
// error; other events proceed with configError; run exits 0 (issue 11.9).
func TestRunWithABrokenPolicyFile(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	pol := filepath.Join(env.Dir, "policy.toml")
	usr := filepath.Join(env.Dir, "agents.json")
	require.NoError(t, os.WriteFile(pol, []byte("[[policyHooks.BeforeTool]]\nhooks = [{ command = \"./guard.sh\", timeoutMs = \"soon\" }]\n"), 0o644))
	require.NoError(t, os.WriteFile(usr, []byte(`{"hooks":{"BeforeTool":[{"hooks":[{"command":"echo '{\"decision\":\"allow\"}'"}]}],"AfterModel":[{"hooks":[{"command":"echo '{\"mutatedText\":\"checked\"}'"}]}]}}`), 0o644))
	args := []string{"--policy", pol, "--config", usr, "--stdlib", "none"}

	for _, ev := range []string{"BeforeTool", "ApprovalRequest", "BeforeTurn", "BeforeModel"} {
		code, out, stderr := runCLI(t, env, `{"toolName":"read_file","prompt":"hi"}`, append([]string{"run", ev}, args...)...)
		require.Equal(t, ExitOK, code, stderr)
		res := decodeResult(t, out)
		assert.Equal(t, "deny", string(res.Decision), ev)
		assert.Contains(t, res.Reason, pol+":2:48: bad_timeout", ev)
		assert.Contains(t, res.ConfigError, "bad_timeout", ev)
		require.Len(t, res.Audit, 1, "%s: no hook runs, the failure is the record", ev)
		assert.True(t, res.Audit[0].FailedClosed)
		assert.Equal(t, "policy", res.Audit[0].Tier.String())
		assert.Contains(t, stderr, "bad_timeout")
	}
	code, out, stderr := runCLI(t, env, `{"response":"hi"}`, append([]string{"run", "AfterModel"}, args...)...)
	require.Equal(t, ExitOK, code, stderr)
	res := decodeResult(t, out)
	require.NotNil(t, res.MutatedText, "events that cannot deny proceed")
	assert.Equal(t, "checked", *res.MutatedText)
	assert.Contains(t, res.ConfigError, "bad_timeout")
}

// TestCheckShowsResolvedPolicyPath: check shows the script a relative policy
// command resolves to (issue 11.10).
func TestCheckShowsResolvedPolicyPath(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	require.NoError(t, os.Mkdir(filepath.Join(env.Dir, "ops"), 0o755))
	pol := filepath.Join(env.Dir, "ops", "policy.json")
	require.NoError(t, os.WriteFile(pol, []byte(`{"policyHooks":{"BeforeTool":[{"hooks":[{"command":"./guard.sh --strict"}]}]}}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(env.Dir, "ops", "guard.sh"), []byte("#!/bin/sh\n"), 0o755))
	code, out, stderr := runCLI(t, env, "", "check", "--stdlib", "none", "--policy", pol)
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, out, "policy  command  ./ops/guard.sh --strict", "the script beside the policy, relative to the cwd")
}

// TestConcurrentRunsShareAStateFile: concurrent runs with one --state file
// never lose a session: every SessionStart's context is there for its
// session's first BeforeTurn (issue 11.13).
func TestConcurrentRunsShareAStateFile(t *testing.T) {
	t.Parallel()
	env := testEnv(t, engine.GoHook{Name: "ctx", Event: events.SessionStart, Handler: engine.HandlerFunc(func(_ context.Context, in *events.Input) (events.Output, error) {
		return events.Output{AdditionalContext: "context of " + in.SessionID}, nil
	})})
	state := filepath.Join(env.Dir, "state.json")
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			in := fmt.Sprintf(`{"sessionId":"s%d"}`, i)
			if code, _, stderr := runCLI(t, env, in, "run", "SessionStart", "--stdlib", "none", "--state", state); code != ExitOK {
				t.Errorf("SessionStart s%d: exit %d: %s", i, code, stderr)
			}
		})
	}
	wg.Wait()
	lost := 0
	for i := range n {
		_, out, _ := runCLI(t, env, fmt.Sprintf(`{"sessionId":"s%d","prompt":"hi"}`, i), "run", "BeforeTurn", "--stdlib", "none", "--state", state)
		if decodeResult(t, out).AdditionalContext != fmt.Sprintf("context of s%d", i) {
			lost++
		}
	}
	assert.Zero(t, lost, "sessions lost their SessionStart context")
}

// TestRunLocksStateForSessionEventsOnly: run takes the state lock around the
// read, the dispatch and the write of a session event, and neither locks,
// reads nor writes the state for the other events (issue 11.13).
func TestRunLocksStateForSessionEventsOnly(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	state := filepath.Join(env.Dir, "state.json")
	var locked, unlocked []string
	env.lockState = func(p string) (func() error, error) {
		locked = append(locked, p)
		_, err := os.Stat(p)
		assert.True(t, os.IsNotExist(err) || len(unlocked) < len(locked), "locked before the read")
		return func() error {
			_, err := os.Stat(p)
			assert.NoError(t, err, "unlocked after the write")
			unlocked = append(unlocked, p)
			return nil
		}, nil
	}
	code, _, stderr := runCLI(t, env, `{"toolName":"bash"}`, "run", "BeforeTool", "--stdlib", "none", "--state", state)
	require.Equal(t, ExitOK, code, stderr)
	assert.Empty(t, locked)
	_, err := os.Stat(state)
	assert.True(t, os.IsNotExist(err), "a BeforeTool run wrote the state")
	code, _, stderr = runCLI(t, env, `{"sessionId":"s"}`, "run", "SessionStart", "--stdlib", "none", "--state", state)
	require.Equal(t, ExitOK, code, stderr)
	assert.Equal(t, []string{state}, locked)
	assert.Equal(t, []string{state}, unlocked)
}
