package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	code, out, stderr := runCLI(t, env, "", "check", "--stdlib", "none", "--config", cfg)
	require.Equal(t, ExitOK, code, stderr)
	assert.Regexp(t, `1\.\s+user\s+command\s+\./g\.sh\s+\S+:2:32\s+matcher="\^bash\$"`, out)
	assert.Regexp(t, `2\.\s+user\s+command\s+\./g\.sh\s+\S+:3:13\s+every tool.*\(identical to user \S+:2:32: runs only for tools that one does not match\)`, out)

	code, out, stderr = runCLI(t, env, `{"toolName":"bash"}`, "explain", "BeforeTool", "--stdlib", "none", "--config", cfg)
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, out, "1 of 2 hooks would run")
	assert.Regexp(t, `Would not run:\n\s+-\s+user\s+command\s+\./g\.sh\s+\S+:3:13\s+the matcher matches every tool, but the identical command spec of user \S+:2:32 runs in its place`, out)

	code, out, stderr = runCLI(t, env, `{"toolName":"write_file"}`, "explain", "BeforeTool", "--stdlib", "none", "--config", cfg)
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, out, "1 of 2 hooks would run")
	assert.Regexp(t, `1\.\s+user\s+command\s+\./g\.sh\s+\S+:3:13\s+the matcher matches every tool`, out)
}

// TestCheckAndExplainShowRegisteredBy: check and explain say which file and
// line registered a stdlib pack's hooks (issue 11.2).
func TestCheckAndExplainShowRegisteredBy(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	cfg := filepath.Join(env.Dir, "agents.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"atoms":[{"stdlib":"deny-destructive","with":{"protectedBranches":["staging"]}}]}`), 0o644))
	code, out, stderr := runCLI(t, env, "", "check", "--stdlib", "deny-destructive,protect-paths", "--config", cfg)
	require.Equal(t, ExitOK, code, stderr)
	assert.Regexp(t, `stdlib/deny-destructive:\d+ \(registered by \S+agents\.json:1:11\)`, out)
	assert.Regexp(t, `stdlib/protect-paths:\d+ \(registered by stdlib protect-paths\)`, out)
	assert.Equal(t, 1, strings.Count(out, "lua:stdlib/deny-destructive:"), "one copy of the pack:\n%s", out)
	code, out, stderr = runCLI(t, env, `{"toolName":"bash","toolInput":{"command":"ls"}}`, "explain", "BeforeTool", "--stdlib", "deny-destructive", "--config", cfg)
	require.Equal(t, ExitOK, code, stderr)
	assert.Regexp(t, `stdlib/deny-destructive:\d+ \(registered by \S+agents\.json:1:11\)`, out)
}
