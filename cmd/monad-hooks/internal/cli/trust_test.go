package cli

import (
	"os"
	"path/filepath"
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
