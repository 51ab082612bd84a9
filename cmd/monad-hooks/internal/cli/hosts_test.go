package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostFixture is one file of spec/hosts: payloads shaped like a host's
// documentation and the answers `run --host` must give.
type hostFixture struct {
	Host  string `toml:"host"`
	Cases []struct {
		Name       string            `toml:"name"`
		Args       []string          `toml:"args"`
		Files      map[string]string `toml:"files"`
		Payload    string            `toml:"payload"`
		Exit       int               `toml:"exit"`
		Stdout     *string           `toml:"stdout"`
		StdoutJSON string            `toml:"stdoutJSON"`
		// JSON holds values stdout's JSON must have, by dotted path
		// ("hookSpecificOutput.permissionDecision").
		JSON   map[string]any `toml:"json"`
		Stderr *string        `toml:"stderr"`
	} `toml:"case"`
}

// TestE2EHosts runs every fixture of spec/hosts through the binary.
func TestE2EHosts(t *testing.T) {
	files, err := filepath.Glob("../../../../spec/hosts/*.toml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		var fx hostFixture
		md, err := toml.DecodeFile(f, &fx)
		require.NoError(t, err, f)
		require.Empty(t, md.Undecoded(), "%s: unknown keys", f)
		for _, c := range fx.Cases {
			t.Run(fx.Host+"/"+c.Name, func(t *testing.T) {
				dir := t.TempDir()
				for name, content := range c.Files {
					require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
				}
				o := mh(t, dir, c.Payload, append([]string{"run", "--host", fx.Host}, c.Args...)...)
				assert.Equal(t, c.Exit, o.code, "stdout %q stderr %q", o.stdout, o.stderr)
				for _, s := range []struct {
					name      string
					want, got *string
				}{{"stdout", c.Stdout, &o.stdout}, {"stderr", c.Stderr, &o.stderr}} {
					switch {
					case s.want == nil:
					case *s.want == "":
						assert.Empty(t, *s.got, s.name)
					default:
						assert.Contains(t, *s.got, *s.want, s.name)
					}
				}
				if c.StdoutJSON != "" {
					var v any
					require.NoError(t, json.Unmarshal([]byte(c.StdoutJSON), &v), "stdoutJSON")
					assert.JSONEq(t, c.StdoutJSON, strings.TrimSpace(o.stdout))
				}
				if len(c.JSON) > 0 {
					var got any
					require.NoError(t, json.Unmarshal([]byte(o.stdout), &got), "stdout is not JSON: %q", o.stdout)
					for path, want := range c.JSON {
						v, ok := jsonPath(got, path)
						if assert.True(t, ok, "stdout %s has no %s", o.stdout, path) {
							assert.Equal(t, normJSON(t, want), v, "%s in %s", path, o.stdout)
						}
					}
				}
			})
		}
	}
}

// jsonPath returns the value at a dotted path of a decoded JSON value.
func jsonPath(v any, path string) (any, bool) {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// normJSON is v as encoding/json decodes it (TOML integers become float64).
func normJSON(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// TestE2ECheckAndExplainTools: check lists the declared tools and the hooks
// that cover each; explain says what the engine knows of the input's tool.
func TestE2ECheckAndExplainTools(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "agents.json"), []byte(`{
  "tools": { "run_it": { "kind": "shell", "command": "line" }, "jot": { "kind": "other" } },
  "hooks": { "BeforeTool": [ { "kind": "shell", "hooks": [{ "command": "true" }] } ] } }`), 0o644))
	o := mh(t, dir, "", "check", "--config", "agents.json", "--stdlib", "deny-destructive")
	require.Equal(t, 0, o.code, o.stderr)
	assert.Contains(t, o.stdout, "kind=shell")
	assert.Contains(t, o.stdout, "Tools declared beyond the built-in table (2 of")
	assert.Regexp(t, `jot\s+other\s+\S*agents.json:2:64\s+no hook covers it`, o.stdout)
	assert.Regexp(t, `run_it\s+shell\s+\S*agents.json:2:14\s+BeforeTool: lua:stdlib:deny-destructive#1, true`, o.stdout)

	o = mh(t, dir, `{"toolName":"run_it","toolInput":{"line":"ls"}}`, "explain", "BeforeTool", "--config", "agents.json", "--stdlib", "none")
	assert.Contains(t, o.stdout, `Tool "run_it": kind shell, declared by`)
	assert.Contains(t, o.stdout, `tool "run_it" is of kind shell`)
	o = mh(t, dir, `{"toolName":"zap"}`, "explain", "BeforeTool", "--stdlib", "none")
	assert.Contains(t, o.stdout, `Tool "zap" is unguarded`)
	o = mh(t, dir, `{"toolName":"view"}`, "explain", "BeforeTool", "--stdlib", "none")
	assert.Contains(t, o.stdout, `Tool "view": kind read (built in: crush).`)
	o = mh(t, dir, "", "check", "--stdlib", "none")
	assert.Contains(t, o.stdout, "Tools: the built-in table (")
}
