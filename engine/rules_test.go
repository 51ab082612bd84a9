package engine_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
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

func bash(cmd string) events.Input {
	return events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": cmd}}
}

// TestUserRuleFile: an atoms path ending in .toml is a rule file: its rules
// ask, the audit names the rule, its parameters are checked against its
// rules, and ExplainRules finds the rule with its cases.
func TestUserRuleFile(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, filepath.Join(dir, "team-rules.toml"), teamRules)
	cfg := filepath.Join(dir, "agents.json")
	writeConfig(t, cfg, `{"atoms": ["team-rules.toml"]}`)
	eng, err := engine.New(t.Context(), testLuaPool, engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir}))
	require.NoError(t, err)
	defer eng.Close()

	res, err := eng.Dispatch(t.Context(), bash("sudo pgctl cluster drop main"))
	require.NoError(t, err)
	assert.Equal(t, events.Ask, res.Decision)
	assert.Equal(t, "team [team:drop-cluster]: drops the cluster and every database in it; instead: take a snapshot first", res.Reason)
	require.Len(t, res.Audit, 1)
	assert.Equal(t, "team:drop-cluster", res.Audit[0].Rule)

	res, err = eng.Dispatch(t.Context(), bash("pgctl cluster list"))
	require.NoError(t, err)
	assert.Empty(t, res.Decision)

	ms := eng.ExplainRules(t.Context(), bash("pgctl cluster drop main"))
	require.Len(t, ms, 1)
	assert.Equal(t, events.Ask, ms[0].Decision)
	require.NotNil(t, ms[0].Rule)
	assert.Equal(t, "team:drop-cluster", ms[0].Rule.ID)
	assert.Equal(t, []string{"pgctl cluster list"}, ms[0].Rule.Pass)
	assert.Equal(t, filepath.Join(dir, "team-rules.toml"), ms[0].File)
	assert.Empty(t, eng.ExplainRules(t.Context(), bash("pgctl cluster list")))
}

// TestUserRuleFileErrors: every problem of a rule file, and of the
// parameters of its atoms entry, is an error at its line and column.
func TestUserRuleFileErrors(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "team-rules.toml")
	writeConfig(t, rules, strings.Replace(teamRules, `subcommand = "cluster drop"`, "subcomand = \"cluster drop\"\nargs = \"(\"", 1))
	cfg := filepath.Join(dir, "agents.json")
	writeConfig(t, cfg, `{"atoms": [{"path": "team-rules.toml", "with": {"deny": ["team:drop"]}}]}`)
	_, err := engine.New(t.Context(), engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir}))
	var ce engine.ConfigErrors
	require.True(t, errors.As(err, &ce), "%v", err)
	var got []string
	for _, e := range ce {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		rules + `:8:1: bad_rules: rule[0].args: invalid regular expression: error parsing regexp: missing closing ): ` + "`(`",
		rules + `:7:1: bad_rules: rule[0].subcomand: unknown key "subcomand" (did you mean "subcommand"?)`,
	}, got)

	// A valid file with a bad parameter: the error is at the parameter.
	writeConfig(t, rules, teamRules)
	_, err = engine.New(t.Context(), engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), cfg+`:1:49: bad_atom: rule file of family team: parameter deny: item 1: unknown family, group or rule "team:drop"`)

	f, err := engine.LoadRuleFile(nil, rules)
	require.NoError(t, err)
	assert.Equal(t, "team", f.Family)
	_, err = engine.LoadRuleFile(nil, filepath.Join(dir, "missing.toml"))
	assert.ErrorContains(t, err, "read_error")

	// A file whose script would pass the bound of a script's source.
	var big strings.Builder
	big.WriteString("family = \"big\"\nsummary = \"many rules\"\n")
	for i := range 1500 {
		fmt.Fprintf(&big, "[[rule]]\nid = \"r%d\"\nprogram = \"pgctl\"\nsubcommand = \"drop%d\"\nreason = %q\ninstead = %q\nmatch = [\"pgctl drop%d\"]\npass = [\"pgctl list\"]\n", i, i, strings.Repeat("x", 150), strings.Repeat("y", 130), i)
	}
	writeConfig(t, rules, big.String())
	_, err = engine.LoadRuleFile(nil, rules)
	assert.ErrorContains(t, err, rules+": bad_rules: its 1500 rules make a script of ")
	assert.ErrorContains(t, err, "split the file")
}

// TestStdlibRuleParams: the families of ask-irreversible are checked at
// load, at the position of the parameter.
func TestStdlibRuleParams(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agents.json")
	writeConfig(t, cfg, `{"atoms": [{"stdlib": "ask-irreversible", "with": {"off": ["clod"]}}]}`)
	_, err := engine.New(t.Context(), engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "parameter off: item 1: unknown family, group or rule \"clod\"; did you mean cloud?")

	files, err := engine.StdlibRules()
	require.NoError(t, err)
	var families []string
	for _, f := range files {
		families = append(families, f.Family)
	}
	assert.Subset(t, families, []string{"git", "iac"})
}

// TestAuditRuleOfLuaPacks: the audit names the rule of the packs written
// in Lua too (pack:rule).
func TestAuditRuleOfLuaPacks(t *testing.T) {
	eng, err := engine.New(t.Context(), testLuaPool, engine.WithFiles(engine.Files{Stdlib: []engine.Pack{{Name: "deny-destructive"}}}))
	require.NoError(t, err)
	defer eng.Close()
	res, err := eng.Dispatch(t.Context(), bash("rm -rf /"))
	require.NoError(t, err)
	require.Equal(t, events.Deny, res.Decision)
	assert.Equal(t, "deny-destructive:delete-critical", res.Audit[0].Rule)
}
