package settings_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/engine/hosts/settings"
	"github.com/monad-hooks/monad-hooks/events"
)

// load checks that an imported document is an agents file the engine
// loads, and returns its plan.
func load(t *testing.T, name string, data []byte) []engine.PlannedHook {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, data, 0o644))
	eng, err := engine.New(context.Background(), engine.WithFiles(engine.Files{Root: dir, User: []string{p}}))
	require.NoError(t, err, "%s", data)
	defer eng.Close()
	return eng.Plan(context.Background())
}

func notes(im *settings.Imported) []string {
	var out []string
	for _, n := range im.Notes {
		out = append(out, n.String())
	}
	return out
}

// TestImportClaudeCode: a .claude/settings.json shaped like Claude Code's
// reference: events and matchers map, seconds become milliseconds, the exec
// form is quoted, and everything else is listed.
func TestImportClaudeCode(t *testing.T) {
	im, err := settings.Import("claude-code", ".claude/settings.json", []byte(`{
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh", "timeout": 5}]},
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/lint.js", "it's"], "if": "Edit(*.ts)"}]},
      {"matcher": "mcp__memory__.*", "hooks": [{"type": "http", "url": "http://localhost:8080/h"}]}
    ],
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "cat context.md", "statusMessage": "Loading"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "./verify.sh", "async": true}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    "PostToolUseFailure": [{"hooks": [{"type": "command", "command": "./fail.sh"}]}],
    "PostToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "./post.sh", "timeout": 1200}]}]
  }
}`))
	require.NoError(t, err)
	assert.Equal(t, 3, im.Imported)
	assert.Equal(t, 5, im.Dropped)
	assert.Equal(t, []settings.Group{
		{Matcher: "^(?:Bash)$", Hooks: []settings.Hook{{Command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh`, TimeoutMs: 5000, Input: "claude-code"}}},
		{Matcher: "^(?:Edit|Write)$", Hooks: []settings.Hook{{Command: `node '${CLAUDE_PLUGIN_ROOT}/lint.js' 'it'\''s'`, Input: "claude-code"}}},
	}, im.Hooks[events.BeforeTool])
	assert.Equal(t, []settings.Group{{Hooks: []settings.Hook{{Command: "cat context.md", Input: "claude-code"}}}}, im.Hooks[events.SessionStart])
	assert.Equal(t, []string{
		`hooks.PreToolUse[1].hooks[0]: condition if "Edit(*.ts)" dropped: the hook runs for every call its matcher matches`,
		`hooks.PreToolUse[2].hooks[0]: not imported: a "http" hook: monad-hooks runs command hooks only`,
		`hooks.SessionStart[0].matcher: "startup" dropped: a Monad SessionStart has no matcher, so the hook runs at every SessionStart`,
		`hooks.SessionStart[0].hooks[0]: statusMessage ignored`,
		`hooks.Stop[0].hooks[0]: not imported: an async hook: claude-code runs it in the background and does not read its answer, which monad-hooks would`,
		`hooks.Notification: not imported: claude-code event Notification has no Monad equivalent`,
		`hooks.PostToolUseFailure: not imported: PostToolUseFailure would become AfterTool, which runs after every tool call, not only the failed ones`,
		"hooks.PostToolUse[0].matcher: \"(\" is not an RE2 regular expression: error parsing regexp: missing closing ): `(`",
		`hooks.PostToolUse[0]: not imported: its matcher cannot be carried over`,
	}, notes(im))
	plan := load(t, "agents.json", im.JSON())
	assert.Len(t, plan, 3)
}

// TestImportGemini: Gemini's timeouts are already milliseconds; its env is
// set by the command; a matcher that is not a regular expression is an
// exact name, as Gemini reads it; a disabled hook stays out.
func TestImportGemini(t *testing.T) {
	im, err := settings.Import("gemini-cli", ".gemini/settings.json", []byte(`{
  "hooksConfig": {"enabled": true, "disabled": ["old-check"]},
  "hooks": {
    "BeforeTool": [{"matcher": "write_file|replace", "sequential": true, "hooks": [
      {"name": "security-check", "type": "command", "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/security.sh", "timeout": 5000, "env": {"MODE": "strict mode"}},
      {"name": "old-check", "type": "command", "command": "./old.sh"}]}],
    "AfterTool": [{"matcher": "read_file[", "hooks": [{"type": "command", "command": "./after.sh"}]}],
    "BeforeAgent": [{"hooks": [{"type": "command", "command": "./ctx.sh"}]}],
    "BeforeToolSelection": [{"hooks": [{"type": "command", "command": "./sel.sh"}]}]
  }
}`))
	require.NoError(t, err)
	assert.Equal(t, 3, im.Imported)
	assert.Equal(t, 2, im.Dropped)
	assert.Equal(t, []settings.Group{{Matcher: "write_file|replace", Hooks: []settings.Hook{
		{Command: "export MODE='strict mode'; $GEMINI_PROJECT_DIR/.gemini/hooks/security.sh", TimeoutMs: 5000, Input: "gemini-cli"}}}}, im.Hooks[events.BeforeTool])
	assert.Equal(t, `^read_file\[$`, im.Hooks[events.AfterTool][0].Matcher)
	assert.Equal(t, "gemini-cli", im.Hooks[events.BeforeTurn][0].Hooks[0].Input)
	assert.Contains(t, notes(im), `hooks.BeforeTool[0].hooks[1]: not imported: "old-check" is disabled in hooksConfig.disabled`)
	assert.Contains(t, notes(im), `hooks.BeforeTool[0].sequential: ignored: monad-hooks runs the hooks of a serial event one after another, in order, anyway`)
	load(t, "agents.json", im.JSON())
}

// TestImportCodex: Codex's config.toml [hooks] tables; a matcher for Edit
// or Write also matches apply_patch, as Codex's aliases do.
func TestImportCodex(t *testing.T) {
	im, err := settings.Import("codex", "config.toml", []byte(`
model = "gpt-5-codex"

[[hooks.PreToolUse]]
matcher = "^Bash$"

[[hooks.PreToolUse.hooks]]
type = "command"
command = '/usr/bin/python3 "$(git rev-parse --show-toplevel)/.codex/hooks/pre_tool_use_policy.py"'
timeout = 30
statusMessage = "Checking Bash command"

[[hooks.PostToolUse]]
matcher = "Edit|Write"
hooks = [{ type = "command", command = "./fmt.sh" }]

[[hooks.Stop]]
hooks = [{ type = "command", command = "./stop.py", timeout = 30 }]
`))
	require.NoError(t, err)
	assert.Equal(t, 3, im.Imported)
	assert.Equal(t, 0, im.Dropped)
	assert.Equal(t, []settings.Group{{Matcher: "^Bash$", Hooks: []settings.Hook{{
		Command: `/usr/bin/python3 "$(git rev-parse --show-toplevel)/.codex/hooks/pre_tool_use_policy.py"`, TimeoutMs: 30000, Input: "codex"}}}}, im.Hooks[events.BeforeTool])
	assert.Equal(t, "(?:^(?:Edit|Write)$)|^apply_patch$", im.Hooks[events.AfterTool][0].Matcher)
	toml, err := im.TOML()
	require.NoError(t, err)
	load(t, "agents.toml", toml)
	load(t, "agents.json", im.JSON())
}

// TestImportCursor: a hooks.json of flat entries; failClosed is onError
// deny; beforeShellExecution keeps its own payload and only runs for shell
// tools.
func TestImportCursor(t *testing.T) {
	im, err := settings.Import("cursor", ".cursor/hooks.json", []byte(`{
  "version": 1,
  "hooks": {
    "beforeShellExecution": [{"command": ".cursor/hooks/audit.sh", "timeout": 10, "failClosed": true}, {"type": "prompt", "prompt": "Safe?"}],
    "stop": [{"command": ".cursor/hooks/finish.sh", "loop_limit": 3}],
    "afterFileEdit": [{"command": ".cursor/hooks/format.sh"}]
  }
}`))
	require.NoError(t, err)
	assert.Equal(t, 2, im.Imported)
	assert.Equal(t, 2, im.Dropped)
	assert.Equal(t, []settings.Group{{Kind: events.ToolShell, Hooks: []settings.Hook{
		{Command: ".cursor/hooks/audit.sh", TimeoutMs: 10000, OnError: "deny", Input: "cursor:beforeShellExecution"}}}}, im.Hooks[events.BeforeTool])
	assert.Contains(t, notes(im), "hooks.stop[0]: loop_limit 3 dropped: the bound on continuations is --max-stop-continues (default 3) for every hook")
	load(t, "agents.json", im.JSON())
}

// TestImportRefusesOtherFiles: a file that is not settings is an error
// naming where it stopped.
func TestImportRefusesOtherFiles(t *testing.T) {
	_, err := settings.Import("claude-code", "s.json", []byte("{\n  // comment\n}"))
	assert.ErrorContains(t, err, "s.json: line 2, column")
	_, err = settings.Import("claude-code", "s.json", []byte(`[]`))
	assert.ErrorContains(t, err, "not a JSON object")
	_, err = settings.Import("vim", "s.json", []byte(`{}`))
	assert.ErrorContains(t, err, `no settings known for agent "vim"`)
}

// TestInstall: install adds one entry per event, keeps the rest of the file
// (keys in order, indentation), is idempotent, replaces an entry of ours
// with another command, and uninstall reverses it exactly.
func TestInstall(t *testing.T) {
	cmd, err := settings.Command("claude-code", "monad-hooks", []string{"--config", "my agents.json"})
	require.NoError(t, err)
	assert.Equal(t, `monad-hooks run --host claude-code --state "$HOME/.claude/monad-hooks-state.json" --config 'my agents.json'`, cmd)
	orig := []byte(`{
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "./mine.sh"}]
            }
        ]
    },
    "env": {"A": "1"}
}
`)
	out, changed, err := settings.Install("claude-code", orig, cmd)
	require.NoError(t, err)
	require.True(t, changed)
	s := string(out)
	assert.True(t, strings.HasPrefix(s, "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"PreToolUse\": [\n"), s)
	assert.True(t, strings.HasSuffix(s, "    \"env\": {\n        \"A\": \"1\"\n    }\n}\n"), s)
	assert.Equal(t, 11, strings.Count(s, "run --host claude-code"), "one entry per event")
	assert.Contains(t, s, `"command": "./mine.sh"`)
	assert.Less(t, strings.Index(s, "./mine.sh"), strings.Index(s, "run --host"), "the person's hook stays first")

	again, changed, err := settings.Install("claude-code", out, cmd)
	require.NoError(t, err)
	assert.False(t, changed, "idempotent")
	assert.Equal(t, out, again)

	cmd2, _ := settings.Command("claude-code", "/usr/local/bin/monad-hooks", nil)
	out2, changed, err := settings.Install("claude-code", out, cmd2)
	require.NoError(t, err)
	assert.True(t, changed)
	assert.Equal(t, 11, strings.Count(string(out2), "run --host claude-code"), "replaced, not added")
	assert.NotContains(t, string(out2), "my agents.json")

	back, changed, err := settings.Uninstall("claude-code", out2)
	require.NoError(t, err)
	assert.True(t, changed)
	assert.JSONEq(t, string(orig), string(back))
	_, changed, err = settings.Uninstall("claude-code", orig)
	require.NoError(t, err)
	assert.False(t, changed)

	_, _, err = settings.Install("claude-code", []byte("{ // no\n}"), cmd)
	assert.Error(t, err, "a file with comments is never rewritten")
	_, err = settings.Command("claude-code", "/bin/other", nil)
	assert.Error(t, err)
}

// TestInstallEveryAgent: from an empty file, every agent gets entries of
// its own shape, and uninstall empties it again.
func TestInstallEveryAgent(t *testing.T) {
	for _, host := range settings.Agents() {
		cmd, err := settings.Command(host, "monad-hooks", nil)
		require.NoError(t, err)
		out, changed, err := settings.Install(host, nil, cmd)
		require.NoError(t, err, host)
		assert.True(t, changed)
		s := string(out)
		switch host {
		case "cursor":
			assert.Contains(t, s, `"version": 1`)
			assert.Contains(t, s, `"failClosed": true`)
			assert.Contains(t, s, `"preToolUse": [`)
		case "gemini-cli":
			assert.Contains(t, s, `"name": "monad-hooks"`)
			assert.NotContains(t, s, "AfterModel", "a process per streamed chunk is not installed")
		case "crush":
			assert.Contains(t, s, `"PreToolUse": [`)
		}
		back, changed, err := settings.Uninstall(host, out)
		require.NoError(t, err)
		assert.True(t, changed)
		if host == "cursor" {
			assert.JSONEq(t, `{"version": 1}`, string(back))
		} else {
			assert.JSONEq(t, `{}`, string(back), host)
		}
	}
}

// TestLocate: the project and user files of each agent, never a managed
// one.
func TestLocate(t *testing.T) {
	p, err := settings.Locate("claude-code", settings.Project, "/w/p", "/home/me")
	require.NoError(t, err)
	assert.Equal(t, filepath.FromSlash("/w/p/.claude/settings.json"), p)
	p, err = settings.Locate("cursor", settings.User, "/w/p", "/home/me")
	require.NoError(t, err)
	assert.Equal(t, filepath.FromSlash("/home/me/.cursor/hooks.json"), p)
	_, err = settings.Locate("codex", settings.User, "/w/p", "")
	assert.ErrorContains(t, err, "no home folder")
	assert.True(t, settings.Managed("claude-code", "/etc/claude-code/managed-settings.json"))
	assert.True(t, settings.Managed("claude-code", "/anywhere/managed-settings.json"))
	assert.True(t, settings.Managed("cursor", "/etc/cursor/hooks.json"))
	assert.False(t, settings.Managed("cursor", "/home/me/.cursor/hooks.json"))
	_, err = settings.Locate("claude-code", settings.Project, "/etc/claude-code/x/..", "")
	assert.NoError(t, err, "a project's .claude/settings.json is not the managed file beside it")
}

// FuzzImportInstall: whatever the file, Import, Install and Uninstall
// return or refuse, never panic; what Install writes is JSON that Uninstall
// takes back to the same value, and a second Install changes nothing.
func FuzzImportInstall(f *testing.F) {
	for _, s := range []string{
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x","timeout":5}]}]}}`,
		`{"version":1,"hooks":{"stop":[{"command":"y","loop_limit":2,"failClosed":true}]}}`,
		`{"hooks":{"BeforeTool":[{"hooks":[{"command":"z","env":{"A":"b"},"timeout":1e99}]}]}}`,
		`{"hooks":{"PreToolUse":{}}}`, `{"hooks":[]}`, `{"a":[{"b":null}],"hooks":{"Stop":[1,"x",{"hooks":[null]}]}}`, ``, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, host := range settings.Agents() {
			_, _ = settings.Import(host, "s.json", data)
			cmd, _ := settings.Command(host, "monad-hooks", nil)
			out, changed, err := settings.Install(host, data, cmd)
			if err != nil {
				continue
			}
			again, changed2, err := settings.Install(host, out, cmd)
			require.NoError(t, err)
			assert.False(t, changed2, "%s: a second install changes %q", host, out)
			assert.Equal(t, out, again)
			if !changed {
				continue
			}
			back, _, err := settings.Uninstall(host, out)
			require.NoError(t, err)
			_, _, err = settings.Uninstall(host, back)
			require.NoError(t, err)
		}
	})
}
