package cli

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
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

// TestRelativePathRule: a relative path is relative to where it is
// written. A script at the start of a command line in a configuration file
// is beside that file, like an atoms entry (and like a policy file's
// scripts); the command still runs in the root. check reports a command
// whose script is missing or not executable (issue 14.5).
func TestRelativePathRule(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	writeFiles(t, env.Dir, map[string]string{
		"conf/agents.json": `{"hooks": {"BeforeTool": [{"hooks": [{"command": "./guards/check.sh"}]}]},
 "atoms": ["guards/extra.lua"]}`,
		"conf/guards/check.sh":  "#!/bin/sh\necho \"beside the config, run in $(pwd)\" >&2\nexit 2\n",
		"conf/guards/extra.lua": `hook{ event = "BeforeTool", handler = function() return { additionalContext = "extra" } end }`,
		"guards/check.sh":       "#!/bin/sh\nexit 0\n", // in the root: not the one meant
	})
	code, out, errs := runCLI(t, env, `{"toolName":"bash"}`, "run", "BeforeTool", "--stdlib", "none", "--config", "conf/agents.json")
	require.Equal(t, ExitOK, code, errs)
	res := decodeResult(t, out)
	assert.Equal(t, events.Deny, res.Decision)
	assert.Equal(t, "beside the config, run in "+env.Dir, res.Reason)
	assert.Equal(t, "extra", res.AdditionalContext)
	code, _, errs = runCLI(t, env, "", "check", "--stdlib", "none", "--config", "conf/agents.json")
	assert.Equal(t, ExitOK, code, errs)
	assert.Empty(t, errs)

	writeFiles(t, env.Dir, map[string]string{
		"bad.json":  `{"hooks": {"BeforeTool": [{"hooks": [{"command": "./missing.sh --x"}, {"command": "./plain.txt"}, {"command": "echo fine"}]}]}}`,
		"plain.txt": "not a script",
	})
	code, out, errs = runCLI(t, env, "", "check", "--stdlib", "none", "--config", "bad.json")
	assert.Equal(t, ExitFail, code)
	assert.Contains(t, out, "3 hooks at 1 event", "the plan is printed all the same")
	assert.Regexp(t, `warning: \S+/bad.json:1:38: bad_script: command "\./missing.sh --x": its script \S+/missing.sh cannot be run: no such file or directory`, errs)
	assert.Regexp(t, `warning: \S+/bad.json:1:71: bad_script: command "\./plain.txt": its script \S+/plain.txt is not executable \(chmod \+x it`, errs)
	assert.Contains(t, errs, "monad-hooks check: 2 command hooks cannot run")

	// run warns and runs: the hook fails when it runs, and says so.
	code, _, errs = runCLI(t, env, `{"toolName":"bash"}`, "run", "BeforeTool", "--stdlib", "none", "--config", "bad.json")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, errs, "bad_script")
	assert.Regexp(t, `hook \S+/missing.sh --x failed at BeforeTool \(skipped\)`, errs)
}

// TestCheckFitsAndLeadsWithYourHooks: check's output fits 100 columns, lists
// the user's own hooks first and sums the stdlib up in a line per pack,
// unless --all lists every hook (issue 14.6).
func TestCheckFitsAndLeadsWithYourHooks(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	writeFiles(t, env.Dir, map[string]string{
		"agents.json": `{"hooks": {"BeforeTool": [{"matcher": "^(shell_exec|file_write|run_shell_command|apply_patch|Bash|Write|Edit|MultiEdit)$",
  "hooks": [{"command": "./guards/check.sh --with a --very long --list of --arguments that --goes on --and on --and on --and on", "timeoutMs": 5000, "onError": "deny"}]}]},
 "tools": {"my_very_long_tool_name_for_running_shell_commands_in_the_sandbox": {"kind": "shell", "command": "line"}},
 "atoms": ["guards/example.lua"]}`,
		"guards/check.sh":    "#!/bin/sh\n",
		"guards/example.lua": `hook{ event = "BeforeTool", name = "no-force-push", kind = "shell", handler = function() end }`,
	})
	// The packs are named so that the numbers stay when the default set grows.
	packs := "deny-destructive,protect-paths,redact-secrets"
	code, out, errs := runCLI(t, env, "", "check", "--config", "agents.json", "--stdlib", packs)
	require.Equal(t, ExitOK, code, errs)
	for _, l := range strings.Split(out, "\n") {
		assert.LessOrEqual(t, utf8.RuneCountInString(l), 100, "too wide: %q", l)
	}
	assert.Regexp(t, `(?s)^Your hooks.*BeforeTool \(serial\)\n  6\. atom  lua  lua:guards/example.lua#no-force-push\n.*  7\. user  command\n\s+\./guards/check\.sh --with`, out)
	assert.Contains(t, out, "  + 5 stdlib hooks (--all lists them)")
	assert.Regexp(t, `(?s)The stdlib packs.*\n  deny-destructive: BeforeTool\n  protect-paths: BeforeTool\n  redact-secrets: BeforeModel, AfterTool,`, out)
	assert.NotContains(t, out[:strings.Index(out, "Tools declared")], "lua:stdlib:")
	assert.Less(t, strings.Index(out, "Your hooks"), strings.Index(out, "The stdlib packs"))

	code, out, errs = runCLI(t, env, "", "check", "--config", "agents.json", "--stdlib", packs, "--all")
	require.Equal(t, ExitOK, code, errs)
	for _, l := range strings.Split(out, "\n") {
		assert.LessOrEqual(t, utf8.RuneCountInString(l), 100, "too wide: %q", l)
	}
	assert.Regexp(t, `(?s)  1\. atom  lua  lua:stdlib:deny-destructive#1\n.*  6\. atom  lua  lua:guards/example.lua#no-force-push`, out)
	assert.Contains(t, out, "…", "an overlong command is cut short")
}

// TestTestShowsWhy: a failing case of monad-hooks test shows the hook that
// decided and its reason, and every hook that failed; a case file with an
// unknown key is refused at its file:line:col (issue 14.2).
func TestTestShowsWhy(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	writeFiles(t, env.Dir, map[string]string{
		"guards/block.lua": `hook{ event = "BeforeTool", handler = function() return { decision = "block" } end }`,
		"guards/deny.lua":  `hook{ event = "BeforeTool", name = "no-rm", handler = function(i) if i.toolInput.command == "rm" then return { decision = "deny", reason = "no rm" } end end }`,
		"hook-tests/cases.toml": `[[case]]
name = "ls is denied"
event = "BeforeTool"
input = { toolName = "bash", toolInput = { command = "ls" } }
want = { decision = "deny" }

[[case]]
name = "rm is allowed"
event = "BeforeTool"
input = { toolName = "bash", toolInput = { command = "rm" } }
want = { decision = "" }
`,
		"bad-tests/cases.toml": "[[case]]\nname = \"x\"\nevent = \"BeforeTool\"\nwant = { decison = \"deny\" }\n",
	})
	code, out, errs := runCLI(t, env, "", "test", "--lua-timeout", "1m", "--stdlib", "none", "--lua", "guards", "hook-tests")
	require.Equal(t, ExitFail, code, errs)
	assert.Contains(t, out, `--- FAIL: ls is denied`)
	assert.Contains(t, out, "    step 1: decision: want deny, got proceed\n    step 1: no hook decided (2 ran)\n"+
		`    step 1: hook lua:guards/block.lua#1 failed (error): lua hook `)
	assert.Contains(t, out, `unknown decision "block"`)
	assert.Contains(t, out, "    step 1: decision: want proceed, got deny\n    step 1: deny by hook lua:guards/deny.lua#no-rm: \"no rm\"\n"+
		"    step 1: hook lua:guards/block.lua#1 failed (error)")

	code, _, errs = runCLI(t, env, "", "test", "--lua-timeout", "1m", "--stdlib", "none", "bad-tests")
	require.Equal(t, ExitFail, code)
	assert.Contains(t, errs, `bad-tests/cases.toml:4:10: unknown key "decison" in [case.want] (did you mean "decision"?)`)
}

// TestServeLinesEchoID: a JSON line's optional id comes back in its answer,
// errors included, so that answers can be matched without relying on their
// order (issue 14.10).
func TestServeLinesEchoID(t *testing.T) {
	t.Parallel()
	env := testEnv(t, fixedHook("deny-bash", events.BeforeTool, "^bash$", events.Output{Decision: events.Deny, Reason: "no"}))
	in := strings.Join([]string{
		`{"id":"a-1","event":"BeforeTool","toolName":"bash"}`,
		`{"event":"BeforeTool","toolName":"ls","id":7}`,
		`{"id":"a-3","event":"Nope"}`,
		`{"id":{"x":1},"event":"BeforeTool"}`,
		`{"event":"BeforeTool","toolName":"ls"}`,
		`{"id":"` + strings.Repeat("x", 300) + `","event":"BeforeTool"}`,
	}, "\n") + "\n"
	var stdout, stderr syncBuffer
	code := Run(t.Context(), []string{"serve", "--stdlib", "none"}, strings.NewReader(in), &stdout, &stderr, env)
	require.Equal(t, ExitOK, code, stderr.String())
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	require.Len(t, lines, 6)
	assert.Equal(t, `{"id":"a-1","event":"BeforeTool","decision":"deny","reason":"no","audit":[`, lines[0][:len(`{"id":"a-1","event":"BeforeTool","decision":"deny","reason":"no","audit":[`)])
	assert.Equal(t, `{"id":7,"event":"BeforeTool"}`, lines[1])
	assert.Regexp(t, `^\{"id":"a-3","error":"invalid input: .*unknown event \\"Nope\\"`, lines[2])
	assert.Equal(t, `{"error":"invalid input: id: want a string or a number of at most 256 bytes"}`, lines[3])
	assert.Equal(t, `{"event":"BeforeTool"}`, lines[4], "no id, no id")
	assert.Equal(t, `{"error":"invalid input: id: want a string or a number of at most 256 bytes"}`, lines[5])
}

// TestServeHTTPHealthReadyMetrics: the HTTP transport echoes X-Request-Id
// (errors included); /healthz says ok or degraded (while a broken edit
// keeps the last good configuration), with the plan's generation and the
// error; /readyz fails until the first plan is loaded; --metrics serves
// Prometheus metrics (issue 14.10, 14.11, 14.12).
func TestServeHTTPHealthReadyMetrics(t *testing.T) {
	t.Parallel()
	// Before the configuration is loaded.
	h := newHTTPHandler(nil, "tcp", "127.0.0.1:8787", 1, MaxInputSize, DefaultBodyMemory)
	do := func(h http.Handler, method, path, body string, hdr ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "http://127.0.0.1:8787"+path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	mux := viaNetHTTP(h.mux())
	w := do(mux, "GET", "/readyz", "")
	assert.Equal(t, 503, w.Code)
	assert.JSONEq(t, `{"status":"starting","generation":0}`, w.Body.String())
	w = do(mux, "POST", "/v1/dispatch", `{"event":"BeforeTool"}`, "X-Request-Id", "r1")
	assert.Equal(t, 503, w.Code)
	assert.Equal(t, "r1", w.Header().Get("X-Request-Id"))
	assert.Equal(t, 200, do(mux, "GET", "/healthz", "").Code, "alive while it starts")

	env := testEnv(t)
	writeFiles(t, env.Dir, map[string]string{"g.lua": `hook{ event = "BeforeTool", handler = function() return { decision = "deny", reason = "v1" } end }`})
	base, c, _ := startServe(t, env, "--listen", "127.0.0.1:0", "--stdlib", "none", "--lua", "g.lua", "--metrics")
	get := func(path string, hdr ...string) (int, string, http.Header) {
		req, err := http.NewRequest("GET", base+path, nil)
		require.NoError(t, err)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := c.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	status, body, _ := get("/readyz")
	assert.Equal(t, 200, status)
	assert.JSONEq(t, `{"status":"ok","generation":1}`, body)

	req, _ := http.NewRequest("POST", base+"/v1/dispatch", strings.NewReader(`{"event":"BeforeTool","toolName":"bash"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", "req-42")
	resp, err := c.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "req-42", resp.Header.Get("X-Request-Id"))
	status, _, hdr := get("/nope", "X-Request-Id", "req-43")
	assert.Equal(t, 404, status)
	assert.Equal(t, "req-43", hdr.Get("X-Request-Id"), "errors included")

	// A broken edit: degraded, the last good plan in force.
	writeFiles(t, env.Dir, map[string]string{"g.lua": `hook{ event = `})
	status, body = post(t, c, base+"/v1/dispatch", `{"event":"BeforeTool","toolName":"bash"}`)
	require.Equal(t, 200, status)
	assert.Equal(t, "v1", decodeResult(t, body).Reason)
	require.Eventually(t, func() bool {
		_, body, _ := get("/healthz")
		return strings.Contains(body, `"degraded"`)
	}, hangGuard, 10*time.Millisecond)
	_, body, _ = get("/healthz")
	assert.Regexp(t, `^\{"status":"degraded","generation":1,"configError":"configuration reload failed, the last good configuration stays in force: \S+g.lua:1:15: lua_syntax: `, body)
	status, _, _ = get("/readyz")
	assert.Equal(t, 200, status, "degraded is still ready: the last good plan serves")

	status, body, _ = get("/metrics")
	require.Equal(t, 200, status)
	for _, want := range []string{
		`monad_hooks_dispatches_total{decision="deny",event="BeforeTool"} 2`,
		`monad_hooks_hook_duration_seconds_count{hook="lua:g.lua#1",outcome="ok"} 2`,
		"monad_hooks_config_error 1",
		"monad_hooks_reload_failures_total 1",
		"monad_hooks_plan_generation 1",
		"monad_hooks_lua_pool_size ",
		"go_goroutines ",
	} {
		assert.Contains(t, body, want)
	}

	code, _, errs := runCLI(t, env, "", "serve", "--metrics")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errs, "--metrics needs --listen")
}

// TestInit: init scaffolds a setup whose tests pass and whose check is
// clean, with the LuaLS definitions an editor needs; it never overwrites
// without --force; types writes the definitions alone (issue 14.8).
func TestInit(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	code, out, errs := runCLI(t, env, "", "init", "my-hooks")
	require.Equal(t, ExitOK, code, errs)
	assert.Contains(t, out, "cd my-hooks\n  monad-hooks check --config agents.json\n")
	dir := filepath.Join(env.Dir, "my-hooks")
	for _, f := range []string{"agents.json", "guards/example.lua", "hook-tests/example.toml", ".luarc.json", "types/monad-hooks.d.lua"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	defs, err := os.ReadFile(filepath.Join(dir, "types/monad-hooks.d.lua"))
	require.NoError(t, err)
	assert.Equal(t, luaapi.TypeDefinitions, string(defs))
	var luarc map[string]any
	b, err := os.ReadFile(filepath.Join(dir, ".luarc.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &luarc))
	assert.Equal(t, []any{"types"}, luarc["workspace.library"])

	in := env
	in.Dir = dir
	code, out, errs = runCLI(t, in, "", "test", "--lua-timeout", "1m", "--config", "agents.json", "hook-tests/")
	assert.Equal(t, ExitOK, code, out+errs)
	assert.Contains(t, out, "3 passed, 0 failed")
	code, out, errs = runCLI(t, in, "", "check", "--config", "agents.json")
	assert.Equal(t, ExitOK, code, errs)
	assert.Empty(t, errs, "check is clean")
	assert.Contains(t, out, "lua:guards/example.lua#no-publish")
	code, out, errs = runCLI(t, in, `{"toolName":"Bash","toolInput":{"command":"npm publish"}}`, "run", "BeforeTool", "--config", "agents.json")
	require.Equal(t, ExitOK, code, errs)
	res := decodeResult(t, out)
	assert.Equal(t, events.Deny, res.Decision)
	assert.Equal(t, "lua:guards/example.lua#no-publish", res.Audit[len(res.Audit)-1].Hook)
	assert.Regexp(t, `^info \S+guards/example.lua:\d+: denied a publish {"program":"npm","tool":"Bash"}$`, res.Audit[len(res.Audit)-1].Logs[0])

	code, _, errs = runCLI(t, env, "", "init", "my-hooks")
	assert.Equal(t, ExitFail, code)
	assert.Contains(t, errs, "my-hooks already holds agents.json, guards/example.lua")
	code, _, errs = runCLI(t, env, "", "init", "--force", "my-hooks")
	assert.Equal(t, ExitOK, code, errs)

	code, out, _ = runCLI(t, env, "", "types")
	assert.Equal(t, ExitOK, code)
	assert.Equal(t, luaapi.TypeDefinitions, out)
	require.NoError(t, os.Mkdir(filepath.Join(env.Dir, "t"), 0o755))
	code, _, errs = runCLI(t, env, "", "types", "t")
	require.Equal(t, ExitOK, code, errs)
	assert.FileExists(t, filepath.Join(env.Dir, "t", "monad-hooks.d.lua"))
}
