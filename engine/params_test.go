package engine_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/monad-hooks/monad-hooks/engine"
)

// TestStdlibParamErrorsAtTheirKeys: the parameters of a stdlib pack in a
// configuration file are checked against the pack's declaration when the
// configuration loads; every problem is an error at the file, line and
// column of its key, and a misspelt key gets a suggestion.
func TestStdlibParamErrorsAtTheirKeys(t *testing.T) {
	for _, c := range []struct {
		file, body string
		want       []engine.ConfigError
	}{
		{"agents.json", `{"atoms": [
  {"stdlib": "deny-destructive",
   "with": {"protectedBranch": ["main"], "matcher": 3, "exempt": []}}
]}`, []engine.ConfigError{
			{Code: engine.CodeBadAtom, File: "agents.json", Line: 3, Col: 42, Msg: "stdlib pack deny-destructive: parameter matcher: want a regular expression string, got a number"},
			{Code: engine.CodeBadAtom, File: "agents.json", Line: 3, Col: 13, Msg: "stdlib pack deny-destructive: parameter protectedBranch: unknown parameter; did you mean protectedBranches? (have matcher, commandFields, protectedBranches, extraPatterns, exempt, exfiltration)"},
		}},
		{"agents.toml", `[[atoms]]
stdlib = "protect-paths"
with = { read = "block" }
`, []engine.ConfigError{
			{Code: engine.CodeBadAtom, File: "agents.toml", Line: 3, Col: 10, Msg: `stdlib pack protect-paths: parameter read: want one of deny, ask, off, got "block"`},
		}},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, c.file)
		writeConfig(t, path, c.body)
		_, err := engine.New(t.Context(), engine.WithFiles(engine.Files{User: []string{path}, Root: dir}))
		var errs engine.ConfigErrors
		if !errors.As(err, &errs) {
			t.Fatalf("%s: error %v, want ConfigErrors", c.file, err)
		}
		if len(errs) != len(c.want) {
			t.Fatalf("%s: %d errors, want %d:\n%v", c.file, len(errs), len(c.want), err)
		}
		for i, w := range c.want {
			w.File = filepath.Join(dir, w.File)
			if *errs[i] != w {
				t.Errorf("%s: error %d:\n got %+v\nwant %+v", c.file, i, *errs[i], w)
			}
		}
	}
}
