package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readme returns the project's README.md.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../../../README.md")
	require.NoError(t, err)
	return string(b)
}

// fenced returns the body of the first ```lang block after the heading.
func fenced(t *testing.T, doc, heading, lang string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+heading+"\n")
	require.GreaterOrEqual(t, i, 0, "README has no heading %q", heading)
	m := regexp.MustCompile("(?s)\n```" + lang + "\n(.*?)\n```\n").FindStringSubmatch(doc[i:])
	require.NotNil(t, m, "no ```%s block under %q", lang, heading)
	return m[1]
}

// TestReadmeResult runs the README's quick start command and compares its
// output with the Result the README shows, but for the latency (issue
// 14.4: the README's audit line is real output).
func TestReadmeResult(t *testing.T) {
	t.Parallel()
	doc := readme(t)
	cmd := fenced(t, doc, "## Quick start", "sh")
	m := regexp.MustCompile(`^echo '(.*)' \| go run \./cmd/monad-hooks (.*)$`).FindStringSubmatch(cmd)
	require.NotNil(t, m, "the quick start command changed shape: %q", cmd)
	dir := t.TempDir()
	o := mh(t, dir, m[1], strings.Fields(m[2])...)
	require.Equal(t, 0, o.code, o.stderr)

	var got, want map[string]any
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &got), o.stdout)
	require.NoError(t, json.Unmarshal([]byte(fenced(t, doc, "## The result", "json")), &want))
	for _, r := range []map[string]any{got, want} {
		for _, rec := range r["audit"].([]any) {
			rec.(map[string]any)["latencyMs"] = "varies"
		}
	}
	assert.Equal(t, want, got)
}

// TestReadmeWalkthrough is the newcomer's path, in the README's words and
// with the built binary: from nothing, init gives a Lua guard of one's own
// with a passing test, and serve runs it over HTTP (issue 14, "done when").
// The test runs each line of the README's block: init and cd, test, serve
// (on a free port instead of 8787) and the curl (as an HTTP request).
func TestReadmeWalkthrough(t *testing.T) {
	t.Parallel()
	block := fenced(t, readme(t), "## Your own guard, tested, in serve", "sh")
	lines := strings.Split(strings.ReplaceAll(block, "\\\n", ""), "\n")
	require.Len(t, lines, 4, "the walkthrough changed: update this test with it\n%s", block)
	home := t.TempDir()
	dir := home

	m := regexp.MustCompile(`^monad-hooks (init \S+) && cd (\S+)$`).FindStringSubmatch(lines[0])
	require.NotNil(t, m, lines[0])
	o := mh(t, dir, "", strings.Fields(m[1])...)
	require.Equal(t, 0, o.code, o.stderr)
	dir = filepath.Join(dir, m[2])

	m = regexp.MustCompile(`^monad-hooks (test .*)$`).FindStringSubmatch(lines[1])
	require.NotNil(t, m, lines[1])
	o = mhEnv(t, dir, procEnv(home), "", strings.Fields(m[1])...)
	require.Equal(t, 0, o.code, o.stdout+o.stderr)
	assert.Contains(t, o.stdout, "3 passed, 0 failed", "the README says so")

	m = regexp.MustCompile(`^monad-hooks serve (.*) --listen 127\.0\.0\.1:8787 &$`).FindStringSubmatch(lines[2])
	require.NotNil(t, m, lines[2])
	s := startServer(t, dir, procEnv(home), append(strings.Fields(m[1]), "--listen", "127.0.0.1:0")...)

	m = regexp.MustCompile(`^curl -s localhost:8787/v1/dispatch -H 'Content-Type: application/json' +-d '(.*)'$`).FindStringSubmatch(lines[3])
	require.NotNil(t, m, lines[3])
	status, body, err := s.post(m[1])
	require.NoError(t, err)
	require.Equal(t, 200, status, body)
	var res struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
		Audit    []struct {
			Hook string `json:"hook"`
		} `json:"audit"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &res), body)
	assert.Equal(t, "deny", res.Decision)
	assert.Contains(t, res.Reason, "publishing npm packages is for a person")
	require.NotEmpty(t, res.Audit)
	assert.Equal(t, "lua:guards/example.lua#no-publish", res.Audit[len(res.Audit)-1].Hook, "the README names it so")

	// "Edit the guard ... serve picks the edit up at its next dispatch."
	guard := filepath.Join(dir, "guards", "example.lua")
	src, err := os.ReadFile(guard)
	require.NoError(t, err)
	edited := strings.Replace(string(src), "cargo = { publish = true }", "cargo = { publish = true, yank = true }", 1)
	require.NotEqual(t, string(src), edited)
	writeFile(t, guard+".tmp", edited)
	require.NoError(t, os.Rename(guard+".tmp", guard))
	deadline := time.Now().Add(hangGuard)
	for {
		_, body, err = s.post(`{"event":"BeforeTool","toolName":"Bash","toolInput":{"command":"cargo yank --version 1.0.0"}}`)
		require.NoError(t, err)
		if strings.Contains(body, `"decision":"deny"`) {
			break
		}
		require.True(t, time.Now().Before(deadline), "serve did not pick the edit up: %s", body)
		time.Sleep(20 * time.Millisecond)
	}
	assert.Empty(t, s.stderr.String()[strings.Index(s.stderr.String(), "\n")+1:], "serve said nothing but where it listens")
}

// TestReadmeTOMLIsTheJSON: the README's agents.toml example is the same
// configuration as its agents.json example (issue 14.7).
func TestReadmeTOMLIsTheJSON(t *testing.T) {
	t.Parallel()
	doc := readme(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agents.json"), fenced(t, doc, "## Configuration files", "json"))
	writeFile(t, filepath.Join(dir, "agents.toml"), fenced(t, doc, "## Configuration files", "toml"))
	writeFile(t, filepath.Join(dir, "guards", "extra.lua"), `hook{ event = "AfterTool", handler = function() end }`)
	writeFile(t, filepath.Join(dir, "guards", "check.sh"), "#!/bin/sh\n")
	require.NoError(t, os.Chmod(filepath.Join(dir, "guards", "check.sh"), 0o755))
	plan := func(cfg string) []map[string]any {
		o := mh(t, dir, "", "check", "--json", "--stdlib", "none", "--config", cfg)
		require.Equal(t, 0, o.code, o.stderr)
		var hooks []map[string]any
		require.NoError(t, json.Unmarshal([]byte(o.stdout), &hooks))
		for _, h := range hooks {
			delete(h, "source") // positions differ
			delete(h, "registeredBy")
		}
		return hooks
	}
	j := plan("agents.json")
	assert.Len(t, j, 4, "the command, the Lua guard and deny-destructive's hooks (shell, query)")
	assert.Equal(t, j, plan("agents.toml"))
}
