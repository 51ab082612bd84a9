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

// TestServeHostLines: serve --host reads the host's payloads, one per line,
// and answers each with the JSON the host reads: a deny in its shape, {}
// for no opinion and for an event with no Monad equivalent, the block of a
// refusal at an unknown event, {"error"} where the host would read exit 1;
// SessionStart's context comes back at SessionStart and is not injected a
// second time at the first prompt.
func TestServeHostLines(t *testing.T) {
	t.Parallel()
	env := testEnv(t,
		fixedHook("deny-bash", events.BeforeTool, "^Bash$", events.Output{Decision: events.Deny, Reason: "no"}),
		fixedHook("remember", events.SessionStart, "", events.Output{AdditionalContext: "ctx"}))
	stdin := strings.Join([]string{
		`{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}`,
		`{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/w/a"},"tool_use_id":"t2"}`,
		`{"session_id":"s","cwd":"/w","hook_event_name":"Notification","message":"m"}`,
		`{"session_id":"s","cwd":"/w","hook_event_name":"Bogus"}`,
		`{"session_id":1,"cwd":"/w","hook_event_name":"SessionEnd"}`,
		`{"session_id":"s","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`,
		`{"session_id":"s","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"hi"}`,
	}, "\n")
	code, stdout, stderr := runCLI(t, env, stdin, "serve", "--stdlib", "none", "--host", "claude-code")
	require.Equal(t, ExitOK, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 7, stdout)
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, lines[0])
	assert.Equal(t, `{}`, lines[1])
	assert.Equal(t, `{}`, lines[2])
	assert.Contains(t, lines[3], `"decision":"block"`)
	assert.Contains(t, lines[3], `unknown event \"Bogus\"`)
	assert.Contains(t, lines[4], `{"error":"monad-hooks: invalid input: field session_id: want a string"}`)
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}`, lines[5])
	assert.Equal(t, `{}`, lines[6], "the context is not injected twice")
}

// TestServeHostHTTP: with --listen, a Claude Code HTTP hook's POST gets the
// JSON Claude Code reads from an HTTP hook.
func TestServeHostHTTP(t *testing.T) {
	t.Parallel()
	env := testEnv(t, fixedHook("deny-bash", events.BeforeTool, "^Bash$", events.Output{Decision: events.Deny, Reason: "no"}))
	base, c, stop := startServe(t, env, "--listen", "127.0.0.1:0", "--host", "claude-code")
	status, body := post(t, c, base+"/v1/dispatch", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
	assert.Equal(t, 200, status)
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, body)
	status, body = post(t, c, base+"/v1/dispatch", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"a"}}`)
	assert.Equal(t, 200, status)
	assert.Equal(t, "{}", strings.TrimSpace(body))
	status, body = post(t, c, base+"/v1/dispatch", `nope`)
	assert.Equal(t, 200, status, "an undecodable payload is a block, which a Claude Code HTTP hook reads only from a 2xx")
	assert.Contains(t, body, `"decision":"block"`)
	assert.Equal(t, ExitOK, stop())
}

// TestServeHostRefusesExitCodeHosts: Crush reads a deny from the exit code
// only, which serve cannot give.
func TestServeHostRefusesExitCodeHosts(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCLI(t, testEnv(t), "", "serve", "--host", "crush")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, "use run --host crush")
	code, _, stderr = runCLI(t, testEnv(t), "", "serve", "--host", "vim")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, `unknown host "vim"`)
}

// TestExplainHost: explain --host says how a payload maps, that an event
// with no Monad equivalent runs nothing, and what a refusal answers.
func TestExplainHost(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	code, stdout, stderr := runCLI(t, env, `{"hook_event_name":"Notification","message":"m"}`, "explain", "--host", "claude-code", "--stdlib", "none")
	assert.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stdout, `claude-code event "Notification" has no Monad equivalent: run --host claude-code proceeds with nothing to say (exit 0, no output)`)

	code, stdout, stderr = runCLI(t, env, `{"hook_event_name":"beforeShellExecution","command":"rm -rf /"}`, "explain", "--host", "cursor", "--stdlib", "deny-destructive")
	assert.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stdout, `cursor event "beforeShellExecution" is BeforeTool of tool "Shell".`)
	assert.Contains(t, stdout, "Note (beforeShellExecution): ")
	assert.Contains(t, stdout, `Tool "Shell": kind shell (built in: cursor).`)
	assert.Contains(t, stdout, "1 of 2 hooks would run") // not deny-destructive's hook of kind query

	code, stdout, _ = runCLI(t, env, `{"hook_event_name":"Nope"}`, "explain", "--host", "gemini-cli", "--stdlib", "none")
	assert.Equal(t, ExitFail, code)
	assert.Contains(t, stdout, `The payload is refused: invalid input: unknown event "Nope" for host gemini-cli`)
	assert.Contains(t, stdout, "run --host gemini-cli answers with exit 2")

	code, _, stderr = runCLI(t, env, `{}`, "explain", "--host=vim")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, `unknown host "vim"`)
}

// TestHelpHosts: help hosts lists every host with its events, the events
// with no Monad equivalent, and what each host cannot express.
func TestHelpHosts(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCLI(t, testEnv(t), "", "help", "hosts")
	require.Equal(t, ExitOK, code)
	for _, want := range []string{"\nclaude-code\n", "\ngemini-cli\n", "\ncodex\n", "\ncursor\n", "\ncrush\n",
		"PreToolUse -> BeforeTool", "BeforeAgent -> BeforeTurn", "beforeShellExecution -> BeforeTool",
		"no Monad equivalent (proceed, nothing to say): Setup", "which a Codex hook cannot give", "Example"} {
		assert.Contains(t, stdout, want)
	}
}

// TestInstallUninstall: install shows a diff and writes the agent's project
// file atomically with a backup, is idempotent, never writes with --dry-run
// or through a link to a managed file, and uninstall gives the file back.
// HOME is a temporary folder: nothing is written in the real one.
func TestInstallUninstall(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	home := t.TempDir()
	env.Vars = append(env.Vars, "HOME="+home)
	settingsPath := filepath.Join(env.Dir, ".claude", "settings.json")

	code, stdout, stderr := runCLI(t, env, "", "install", "--host", "claude-code", "--project", "--dry-run")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stdout, "+++ "+settingsPath)
	assert.Contains(t, stdout, `+            "command": "monad-hooks run --host claude-code --state \"$HOME/.claude/monad-hooks-state.json\""`)
	assert.Contains(t, stdout, "--dry-run")
	_, err := os.Stat(settingsPath)
	assert.True(t, errors.Is(err, os.ErrNotExist), "--dry-run writes nothing")

	orig := "{\n  \"model\": \"opus\"\n}\n"
	require.NoError(t, os.MkdirAll(filepath.Dir(settingsPath), 0o755))
	require.NoError(t, os.WriteFile(settingsPath, []byte(orig), 0o640))
	code, stdout, stderr = runCLI(t, env, "", "install", "--host", "claude-code", "--config", "agents.json")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stdout, "-  \"model\": \"opus\"\n+  \"model\": \"opus\",\n")
	assert.Contains(t, stdout, "wrote "+settingsPath)
	b, err := os.ReadFile(settingsPath)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"model": "opus",`)
	assert.Contains(t, string(b), `--config agents.json`)
	fi, err := os.Stat(settingsPath)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "the file keeps its mode")
	bak, err := os.ReadFile(settingsPath + ".monad-hooks.bak")
	require.NoError(t, err)
	assert.Equal(t, orig, string(bak))
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(settingsPath), ".*.tmp"))
	assert.Empty(t, leftovers)

	code, stdout, _ = runCLI(t, env, "", "install", "--host", "claude-code", "--config", "agents.json")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, stdout, "monad-hooks is installed already; nothing to change.")

	code, stdout, stderr = runCLI(t, env, "", "uninstall", "--host", "claude-code")
	require.Equal(t, ExitOK, code, stderr)
	b, _ = os.ReadFile(settingsPath)
	assert.JSONEq(t, orig, string(b))

	// --user writes under HOME; a link to a managed file is refused.
	code, _, stderr = runCLI(t, env, "", "install", "--host", "cursor", "--user")
	require.Equal(t, ExitOK, code, stderr)
	b, err = os.ReadFile(filepath.Join(home, ".cursor", "hooks.json"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"failClosed": true`)
	managed := filepath.Join(t.TempDir(), "managed-settings.json")
	require.NoError(t, os.WriteFile(managed, []byte("{}"), 0o644))
	other := testEnv(t)
	other.Vars = append(other.Vars, "HOME="+home)
	require.NoError(t, os.MkdirAll(filepath.Join(other.Dir, ".claude"), 0o755))
	require.NoError(t, os.Symlink(managed, filepath.Join(other.Dir, ".claude", "settings.json")))
	code, _, stderr = runCLI(t, other, "", "install", "--host", "claude-code")
	assert.Equal(t, ExitFail, code)
	assert.Contains(t, stderr, "never writes it")
	b, _ = os.ReadFile(managed)
	assert.Equal(t, "{}", string(b))

	// A file with comments is never rewritten.
	require.NoError(t, os.WriteFile(settingsPath, []byte("{ // mine\n}"), 0o644))
	code, _, stderr = runCLI(t, env, "", "install", "--host", "claude-code")
	assert.Equal(t, ExitFail, code)
	assert.Contains(t, stderr, "it is left as it is")

	for _, bad := range [][]string{{"install"}, {"install", "--host", "vim"}, {"install", "--host", "codex", "--user", "--project"}, {"install", "--host", "codex", "--command", "/bin/sh"}} {
		code, _, _ = runCLI(t, env, "", bad...)
		assert.Equal(t, ExitUsage, code, "%v", bad)
	}
}

// TestImportCommand: import prints agents.json, lists what it cannot carry
// over, and exits 1 when a hook is not imported.
func TestImportCommand(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	p := filepath.Join(env.Dir, "settings.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./guard.sh","timeout":5}]}]}}`), 0o644))
	code, stdout, stderr := runCLI(t, env, "", "import", "--from", "claude-code", "settings.json")
	require.Equal(t, ExitOK, code, stderr)
	assert.JSONEq(t, `{"hooks":{"BeforeTool":[{"matcher":"^(?:Bash)$","hooks":[{"command":"./guard.sh","timeoutMs":5000,"input":"claude-code"}]}]}}`, stdout)
	assert.Contains(t, stderr, "1 hook imported")

	require.NoError(t, os.WriteFile(p, []byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"prompt","prompt":"safe?"}]}],"Stop":[{"hooks":[{"type":"command","command":"./stop.sh"}]}]}}`), 0o644))
	code, stdout, stderr = runCLI(t, env, "", "import", "--from", "claude-code", "--toml", "-o", "agents.toml", "settings.json")
	assert.Equal(t, ExitFail, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, `settings.json: hooks.PreToolUse[0].hooks[0]: not imported: a "prompt" hook`)
	assert.Contains(t, stderr, "1 hook imported, 1 not imported (listed above)")
	b, err := os.ReadFile(filepath.Join(env.Dir, "agents.toml"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `input = "claude-code"`)
	// check also wants the script the imported hook runs (bad_script).
	require.NoError(t, os.WriteFile(filepath.Join(env.Dir, "stop.sh"), []byte("#!/bin/sh\n"), 0o755))
	code, _, stderr = runCLI(t, env, "", "check", "--config", "agents.toml", "--stdlib", "none")
	assert.Equal(t, ExitOK, code, stderr)

	code, _, stderr = runCLI(t, env, "", "import", "--from", "claude-code", "-o", "agents.toml", "settings.json")
	assert.Equal(t, ExitFail, code)
	assert.Contains(t, stderr, "use --force")
	code, _, _ = runCLI(t, env, "", "import", "settings.json")
	assert.Equal(t, ExitUsage, code)
	code, _, _ = runCLI(t, env, "", "import", "--from", "vim", "settings.json")
	assert.Equal(t, ExitUsage, code)
}
