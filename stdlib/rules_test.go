package stdlib_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

const teamRules = `
family = "team"
summary = "Our own data stores"

[programs.pgctl]
values = ["-D"]

[[rule]]
id = "drop-cluster"
program = ["pgctl", "python manage.py"]
subcommand = "cluster drop"
notFlags = ["--dry-run*"]
reason = "drops the cluster and every database in it"
instead = "take a snapshot first"
match = ["pgctl cluster drop main", "pgctl -D /data cluster drop main"]
pass = ["pgctl cluster list", "pgctl cluster drop main --dry-run"]

[[rule]]
id = "wipe"
http = { method = "DELETE", url = "/clusters/" }
decision = "deny"
reason = "deletes a cluster through the API"
instead = "use the console"
match = ["curl -X DELETE https://pg.example.com/clusters/main"]
pass = ["curl https://pg.example.com/clusters/main"]
`

func TestParseRules(t *testing.T) {
	f, err := decodeRules("team.toml", []byte(teamRules))
	require.NoError(t, err)
	assert.Equal(t, "team", f.Family)
	assert.Equal(t, "team", f.Group, "the group defaults to the family")
	require.Len(t, f.Rules, 2)
	assert.Equal(t, "team:drop-cluster", f.Rules[0].ID)
	assert.Equal(t, "rule[0]", f.Rules[0].Field)
	assert.Equal(t, stdlib.DecisionAsk, f.Rules[0].Decision)
	assert.Equal(t, []string{"pgctl", "python manage.py"}, f.Rules[0].Programs)
	assert.Equal(t, stdlib.DecisionDeny, f.Rules[1].Decision)
	assert.Contains(t, f.Rules[1].Programs, "curl", "an HTTP rule without program applies to the HTTP clients")
}

func TestParseRulesErrors(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		want      []string // "field: message" substrings, in order
	}{
		{"missing keys", `rule = []`, []string{"family: missing", "summary: missing"}},
		{"misspelt top-level key", "family = \"x\"\nsummary = \"s\"\nrules = []\n", []string{`rules: unknown key "rules" (did you mean "rule"?)`, "rule: missing"}},
		{"misspelt rule key", "family = \"x\"\nsummary = \"s\"\n[[rule]]\nid = \"a\"\nprogram = \"p\"\nnotflags = [\"-x\"]\nreason = \"r\"\ninstead = \"i\"\nmatch = [\"p\"]\npass = [\"q\"]\n", []string{`rule[0].notflags: unknown key "notflags" (did you mean "notFlags"?)`}},
		{"bad values", "family = \"X\"\nsummary = \"s\"\ndecision = \"block\"\n[[rule]]\nid = \"a b\"\nprogram = \"p/q\"\nsubcommand = \"a||b\"\nflags = [\"x\"]\nargs = \"(\"\nminArgs = -1\nreason = \"r\\nr\"\ninstead = \"\"\nmatch = []\npass = [\"q\"]\n",
			[]string{`decision: want "ask" or "deny", got "block"`, `family: "X" is not a family name`, `rule[0].args: invalid regular expression`, `rule[0].flags[0]: "x" is not an option`, `rule[0].id: "a b" is not a rule name`, `rule[0].instead: is empty`, `rule[0].minArgs: want an integer`, `rule[0].program[0]: "p/q" is not a program name`, `rule[0].reason: must be one line`, `rule[0].subcommand[0]: "a||b" is not a word pattern`}},
		{"duplicate ids and no cases", "family = \"x\"\nsummary = \"s\"\n[[rule]]\nid = \"a\"\nprogram = \"p\"\nreason = \"r\"\ninstead = \"i\"\n[[rule]]\nid = \"a\"\nprogram = \"p\"\nreason = \"r\"\ninstead = \"i\"\nmatch = [\"p\"]\npass = [\"q\"]\n", []string{"rule[0].match: missing", "rule[0].pass: missing", `rule[1].id: duplicate rule id "x:a" (first at rule[0])`}},
		{"a manual word that is an option", "family = \"x\"\nsummary = \"s\"\n[programs.p]\nmanual = [\"--help\", \"help\"]\n[[rule]]\nid = \"a\"\nprogram = \"p\"\nreason = \"r\"\ninstead = \"i\"\nmatch = [\"p\"]\npass = [\"q\"]\n", []string{`programs.p.manual[0]: "--help" is not a plain word`}},
		{"globalOptions not a boolean", "family = \"x\"\nsummary = \"s\"\n[programs.p]\nglobalOptions = \"yes\"\n[[rule]]\nid = \"a\"\nprogram = \"p\"\nreason = \"r\"\ninstead = \"i\"\nmatch = [\"p\"]\npass = [\"q\"]\n", []string{`programs.p.globalOptions: want true or false, got a string`}},
		{"every program needs keywords", "family = \"x\"\nsummary = \"s\"\n[[rule]]\nid = \"a\"\nprogram = \"*\"\nwrites = \"x\"\nreason = \"r\"\ninstead = \"i\"\nmatch = [\"p\"]\npass = [\"q\"]\n", []string{"rule[0].keywords: missing"}},
	} {
		_, err := decodeRules("x.toml", []byte(c.doc))
		var list stdlib.RuleErrors
		if !assert.True(t, errors.As(err, &list), "%s: want RuleErrors, got %v", c.name, err) {
			continue
		}
		var got []string
		for _, e := range list {
			assert.Equal(t, "x.toml", e.File)
			got = append(got, e.Field+": "+e.Msg)
		}
		require.GreaterOrEqual(t, len(got), len(c.want), "%s: %q", c.name, got)
		i := 0
		for _, g := range got {
			if i < len(c.want) && strings.Contains(g, c.want[i]) {
				i++
			}
		}
		assert.Equal(t, len(c.want), i, "%s: got %q, want in order %q", c.name, got, c.want)
	}
}

// TestRulesScript: a user's rule file becomes a script that takes the
// parameters of ask-irreversible under its family name, and whose rules
// match their own cases.
func TestRulesScript(t *testing.T) {
	f, err := decodeRules("team.toml", []byte(teamRules))
	require.NoError(t, err)
	src := stdlib.RulesScript(f)
	_, err = luaapi.Compile("team.toml", src)
	require.NoError(t, err, "%s", src)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "team.toml"), []byte(teamRules), 0o644))
	load := func(with map[string]any) (*pack, error) {
		atom, err := json.Marshal(map[string]any{"atoms": []any{map[string]any{"path": "team.toml", "with": with}}})
		require.NoError(t, err)
		cfg := filepath.Join(dir, "agents.json")
		require.NoError(t, os.WriteFile(cfg, atom, 0o644))
		return newPack(t, "team", engine.Files{User: []string{cfg}, Home: testHome})
	}
	p, err := load(nil)
	require.NoError(t, err)
	for _, r := range f.Rules {
		for _, c := range r.Match {
			out := p.call(t, shellInput(c))
			assert.Equal(t, r.Decision, string(out.Decision), c)
			assert.True(t, strings.HasPrefix(out.Reason, "team ["+r.ID+"]: "), out.Reason)
		}
		for _, c := range r.Pass {
			assert.Empty(t, p.call(t, shellInput(c)).Decision, c)
		}
	}

	// The family can be turned to deny, or off, by name.
	p2, err := load(map[string]any{"deny": []any{"team:drop-cluster"}, "off": []any{"team:wipe"}})
	require.NoError(t, err)
	assert.Equal(t, events.Deny, p2.call(t, shellInput("pgctl cluster drop main")).Decision)
	assert.Empty(t, p2.call(t, shellInput("curl -X DELETE https://pg.example.com/clusters/main")).Decision)

	// An unknown name is refused in Go (with a suggestion), at load.
	err = stdlib.ValidateRuleParams("team", []*stdlib.RuleFile{f}, map[string]any{"deny": []any{"team:drop-clustr"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rule file of family team: parameter deny: item 1: unknown family, group or rule \"team:drop-clustr\"; did you mean team:drop-cluster?")
	_, err = load(map[string]any{"deny": []any{"nope"}})
	assert.ErrorContains(t, err, "rule file of family team: parameter deny: item 1: unknown family, group or rule \"nope\"")
	err = stdlib.ValidateRuleParams("team", []*stdlib.RuleFile{f}, map[string]any{"deny": []any{"team"}, "off": []any{"team"}})
	assert.ErrorContains(t, err, `"team" is in deny too`)
}

// TestRuleDecisionSettings: the most specific name wins: rule, family,
// group, all.
func TestRuleDecisionSettings(t *testing.T) {
	terraform := shellInput("terraform destroy -auto-approve")
	stash := shellInput("git stash drop")
	for _, c := range []struct {
		with      map[string]any
		tf, stash events.Decision
	}{
		{nil, events.Ask, events.Ask},
		{map[string]any{"deny": []any{"all"}}, events.Deny, events.Deny},
		{map[string]any{"deny": []any{"cloud"}, "ask": []any{"iac:terraform-destroy"}}, events.Ask, events.Ask},
		{map[string]any{"off": []any{"all"}, "deny": []any{"git"}}, "", events.Deny},
		{map[string]any{"off": []any{"iac"}}, "", events.Ask},
		{map[string]any{"deny": []any{"cloud"}}, events.Deny, events.Ask},
	} {
		p := mustLoad(t, "ask-irreversible", c.with)
		assert.Equal(t, c.tf, p.call(t, terraform).Decision, "%v terraform", c.with)
		assert.Equal(t, c.stash, p.call(t, stash).Decision, "%v git stash drop", c.with)
	}
}

// TestRulesRegisterReadsNamesOnlyForSettings counts the calls of the rule
// set's names() while monad.rules registers its hook: none when the
// parameters name no family, group or rule (the set's count of the rules
// on by default is enough), one when they do (the names are checked).
func TestRulesRegisterReadsNamesOnlyForSettings(t *testing.T) {
	script, err := luaapi.Compile("count.lua", []byte(`
local set = require("monad.rules.stdlib")
local calls = 0
local function load()
  local rs = set.load()
  local names = rs.names
  rs.names = function() calls = calls + 1; return names() end
  return rs
end
local deny = {}
if params.deny then deny = { params.deny } end
require("monad.rules").register("count", { matcher = "", commandFields = { "command" }, deny = deny, ask = {}, off = {}, exempt = {} }, load)
if calls ~= params.want then
  error("names() called " .. calls .. " times, want " .. params.want, 0)
end
`))
	require.NoError(t, err)
	libs := libraries(t)
	for _, with := range []map[string]any{
		{"want": int64(0)},
		{"want": int64(1), "deny": "access"},
	} {
		p, err := luaapi.NewPool(context.Background(), []luaapi.Source{{Script: script, Params: with}}, luaapi.Options{Libraries: libs, PoolSize: 1, DefaultTimeout: testLuaTimeout})
		require.NoError(t, err, "params %v", with)
		p.Close()
	}
}
