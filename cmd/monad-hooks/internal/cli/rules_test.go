package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const teamRules = `family = "team"
summary = "Our own clusters"

[[rule]]
id = "drop-cluster"
program = "pgctl"
subcommand = "cluster drop"
reason = "drops the cluster and every database in it"
instead = "take a snapshot first"
match = ["pgctl cluster drop main"]
pass = ["pgctl cluster list"]
`

// TestUserRuleFileEndToEnd: a rule file beside agents.json is checked with
// positions, its cases run with test, run asks with its rule in the audit,
// and explain names the rule with its cases.
func TestUserRuleFileEndToEnd(t *testing.T) {
	env := testEnv(t)
	rules := filepath.Join(env.Dir, "team-rules.toml")
	require.NoError(t, os.WriteFile(rules, []byte(teamRules), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(env.Dir, "agents.json"), []byte(`{"atoms": ["team-rules.toml"]}`), 0o644))

	code, out, errOut := runCLI(t, env, "", "test", "--lua-timeout", "1m", "team-rules.toml")
	require.Equal(t, ExitOK, code, "%s%s", out, errOut)
	assert.Contains(t, out, "ok  \tteam-rules.toml")
	assert.Contains(t, out, "1 passed, 0 failed")

	in := `{"toolName":"bash","toolInput":{"command":"pgctl cluster drop main"}}`
	code, out, errOut = runCLI(t, env, in, "run", "BeforeTool", "--config", "agents.json", "--stdlib", "none")
	require.Equal(t, ExitOK, code, errOut)
	res := decodeResult(t, out)
	assert.Equal(t, "ask", string(res.Decision))
	require.Len(t, res.Audit, 1)
	assert.Equal(t, "team:drop-cluster", res.Audit[0].Rule)

	code, out, errOut = runCLI(t, env, in, "explain", "BeforeTool", "--config", "agents.json", "--stdlib", "none")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "rule team:drop-cluster ("+rules+", rule[0])")
	assert.Contains(t, out, "catches: pgctl cluster drop main")
	assert.Contains(t, out, "leaves alone: pgctl cluster list")

	code, out, errOut = runCLI(t, env, in, "explain", "BeforeTool", "--json", "--config", "agents.json", "--stdlib", "none")
	require.Equal(t, ExitOK, code, errOut)
	var list []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	require.Len(t, list, 1)
	rule := list[0]["rules"].(map[string]any)["rule"].(map[string]any)
	assert.Equal(t, "team:drop-cluster", rule["id"])

	// A misspelt key: check and test say where.
	require.NoError(t, os.WriteFile(rules, []byte(strings.Replace(teamRules, "subcommand", "subcomand", 1)), 0o644))
	code, _, errOut = runCLI(t, env, "", "check", "--config", "agents.json")
	assert.Equal(t, ExitFail, code)
	assert.Contains(t, errOut, rules+`:7:1: bad_rules: rule[0].subcomand: unknown key "subcomand" (did you mean "subcommand"?)`)
	code, _, errOut = runCLI(t, env, "", "test", "--lua-timeout", "1m", "team-rules.toml")
	assert.Equal(t, ExitFail, code)
	assert.Contains(t, errOut, rules+`:7:1: bad_rules`)

	// A rule whose case does not hold fails its test.
	require.NoError(t, os.WriteFile(rules, []byte(strings.Replace(teamRules, `pass = ["pgctl cluster list"]`, `pass = ["pgctl cluster drop x"]`, 1)), 0o644))
	code, out, _ = runCLI(t, env, "", "test", "--lua-timeout", "1m", "team-rules.toml")
	assert.Equal(t, ExitFail, code)
	assert.Contains(t, out, `step 2 (pass pgctl cluster drop x): decision: want proceed, got ask`)
}

// TestStdlibFamilies: stdlib lists the rule families, and documents one.
func TestStdlibFamilies(t *testing.T) {
	env := testEnv(t)
	code, out, _ := runCLI(t, env, "", "stdlib")
	require.Equal(t, ExitOK, code)
	assert.Regexp(t, `(?m)^  iac\s+cloud\s+7\s+ask\s+Infrastructure as code`, out)
	assert.Regexp(t, `(?m)^  git\s+git\s+\d+\s+ask\s+Git:`, out)
	code, out, _ = runCLI(t, env, "", "stdlib", "iac")
	require.Equal(t, ExitOK, code)
	assert.Contains(t, out, "iac:terraform-destroy")
	code, out, _ = runCLI(t, env, "", "stdlib", "ask-irreversible")
	require.Equal(t, ExitOK, code)
	assert.Contains(t, out, "Families:")
	code, _, errOut := runCLI(t, env, "", "stdlib", "nope")
	assert.Equal(t, ExitFail, code)
	assert.Contains(t, errOut, `unknown pack, family or group "nope"`)
}
