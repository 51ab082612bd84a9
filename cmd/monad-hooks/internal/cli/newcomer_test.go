package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
)

// TestRunHomeDirectory: without $HOME the CLI takes the home directory from
// the user database; when that fails too, run fails closed at the events
// that can deny, naming the problem, and never runs the default set
// without protect-paths.
func TestRunHomeDirectory(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	env.Vars = []string{"PATH=/usr/bin:/bin"} // no HOME
	in := `{"toolName":"Read","toolInput":{"file_path":"src/main.go"}}`

	env.userHome = func() (string, error) { return "/home/someone", nil }
	code, out, errs := runCLI(t, env, in, "run", "BeforeTool")
	require.Equal(t, ExitOK, code, errs)
	res := decodeResult(t, out)
	assert.Equal(t, events.Proceed, res.Decision, res.Reason)
	assert.Empty(t, res.ConfigError)
	assert.True(t, strings.Contains(out, "protect-paths"), "protect-paths ran: %s", out)
	assert.Empty(t, errs)

	env.userHome = func() (string, error) { return "", errors.New("user: unknown userid 4242") }
	code, out, errs = runCLI(t, env, in, "run", "BeforeTool")
	require.Equal(t, ExitOK, code, errs)
	res = decodeResult(t, out)
	assert.Equal(t, events.Deny, res.Decision)
	assert.Contains(t, res.Reason, "stdlib pack protect-paths failed to load, so this dispatch fails closed")
	assert.Contains(t, res.Reason, "needs the home directory")
	assert.Contains(t, errs, "the home directory is unknown: $HOME is unset and the user database failed: user: unknown userid 4242")

	// An event that cannot deny runs what loaded.
	code, out, _ = runCLI(t, env, `{"toolName":"Read","toolInput":{"file_path":"x"},"toolResult":"AKIAZ7QXK3WPLM2NHB4T"}`, "run", "AfterTool")
	require.Equal(t, ExitOK, code)
	assert.Contains(t, out, "[REDACTED:aws-access-key-id]")

	// With no pack that needs it, nothing is said.
	code, _, errs = runCLI(t, env, in, "run", "BeforeTool", "--stdlib", "deny-destructive")
	require.Equal(t, ExitOK, code)
	assert.Empty(t, errs)
}

// writeFiles writes files (relative to dir), creating folders.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		require.NoError(t, os.WriteFile(p, []byte(body), mode))
	}
}

// TestFailedHooksOnStderr: run and serve print one line on stderr for
// every hook that failed, naming the hook, the event, what the failure
// meant and its cause; a guard returning decision = "block" no longer
// allows silently (issue 14.1).
func TestFailedHooksOnStderr(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	writeFiles(t, env.Dir, map[string]string{
		"guards/block.lua": `hook{ event = "BeforeTool", name = "blocker", handler = function() return { decision = "block" } end }`,
		"guards/boom.lua":  `hook{ event = "BeforeTool", onError = "deny", handler = function() error("boom\nsecond line") end }`,
		"guards/fine.lua":  `hook{ event = "BeforeTool", handler = function() end }`,
	})
	code, out, errs := runCLI(t, env, `{"toolName":"bash"}`, "run", "BeforeTool", "--stdlib", "none", "--lua", "guards")
	require.Equal(t, ExitOK, code, errs)
	assert.Equal(t, events.Deny, decodeResult(t, out).Decision)
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	require.Len(t, lines, 2, errs)
	assert.Regexp(t, `^monad-hooks run: hook lua:guards/block.lua#blocker failed at BeforeTool \(skipped\): .*unknown decision "block"`, lines[0])
	assert.Regexp(t, `^monad-hooks run: hook lua:guards/boom.lua#1 failed at BeforeTool \(onError: deny\): .*boom …$`, lines[1])

	var stdout, stderr syncBuffer
	in := `{"event":"BeforeTool","toolName":"bash"}` + "\n" + `{"event":"BeforeTool","toolName":"bash"}` + "\n"
	code = Run(t.Context(), []string{"serve", "--stdlib", "none", "--lua", "guards/block.lua"}, strings.NewReader(in), &stdout, &stderr, env)
	require.Equal(t, ExitOK, code, stderr.String())
	assert.Equal(t, 2, strings.Count(stderr.String(), "monad-hooks serve: hook lua:guards/block.lua#blocker failed at BeforeTool (skipped)"), stderr.String())
}
