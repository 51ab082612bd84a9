package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

func readFixture(t testing.TB, name string) (string, []byte) {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", name))
	noErr(t, err)
	data, err := os.ReadFile(path)
	noErr(t, err)
	return path, data
}

// stripPos zeroes every Pos (and Path) so files of two formats compare.
func stripPos(f *File) *File {
	g := *f
	g.Path = ""
	g.Hooks = map[events.Event][]Group{}
	for ev, groups := range f.Hooks {
		out := make([]Group, len(groups))
		for i, gr := range groups {
			gr.Pos = Pos{}
			hooks := make([]Hook, len(gr.Hooks))
			for j, h := range gr.Hooks {
				h.Pos = Pos{}
				hooks[j] = h
			}
			gr.Hooks = hooks
			out[i] = gr
		}
		g.Hooks[ev] = out
	}
	g.Atoms = make([]Atom, len(f.Atoms))
	for i, a := range f.Atoms {
		a.Pos = Pos{}
		if a.WithPos != nil {
			a.WithPos = map[string]Pos{}
		}
		g.Atoms[i] = a
	}
	return &g
}

func TestParseAgentsJSON(t *testing.T) {
	path, data := readFixture(t, "agents.json")
	f, err := Parse(path, data, TierUser)
	noErr(t, err)
	dir := filepath.Dir(path)

	equal(t, path, f.Path)
	equal(t, TierUser, f.Tier)
	equal(t, Errors(nil), f.Warnings)
	if len(f.Hooks) != 2 {
		t.Fatalf("len(f.Hooks) = %d, want 2", len(f.Hooks))
	}
	bt := f.Hooks[events.BeforeTool]
	if len(bt) != 2 {
		t.Fatalf("len(bt) = %d, want 2", len(bt))
	}
	equal(t, "^(shell_exec|file_write)$", bt[0].Matcher)
	equal(t, Pos{path, 5, 7}, bt[0].Pos)
	equal(t, []Hook{
		{Command: "./guards/check.sh", TimeoutMs: 5000, OnError: OnErrorDeny, Pos: Pos{path, 7, 11}},
		{Command: "./guards/log.sh", Pos: Pos{path, 8, 11}},
	}, bt[0].Hooks)
	equal(t, "", bt[1].Matcher, `"*" is stored as ""`)
	equal(t, []Hook{{Command: "./guards/redact.sh", Pos: Pos{path, 12, 33}}}, f.Hooks[events.AfterModel][0].Hooks)

	equal(t, []Atom{
		{Path: filepath.Join(dir, "guards", "extra.lua"), Pos: Pos{path, 16, 5}},
		{Path: filepath.Join(dir, "guards", "dir"), Pos: Pos{path, 17, 5}},
		{Stdlib: "deny-destructive", With: map[string]any{
			"protectedBranches": []any{"main", "release/*"},
			"maxFiles":          json.Number("20"),
			"strict":            true,
		}, WithPos: map[string]Pos{
			"protectedBranches": {path, 18, 47},
			"maxFiles":          {path, 18, 91},
			"strict":            {path, 18, 107},
		}, Pos: Pos{path, 18, 5}},
		{Path: filepath.Join(filepath.Dir(dir), "shared", "x.lua"), With: map[string]any{"ratio": json.Number("0.5")},
			WithPos: map[string]Pos{"ratio": {path, 19, 44}}, Pos: Pos{path, 19, 5}},
	}, f.Atoms)
}

// TestPersistent: "persistent" is read in both formats; null and absent
// are false.
func TestPersistent(t *testing.T) {
	for _, c := range []struct {
		path, doc string
		want      []bool
	}{
		{"a.json", `{"hooks": {"BeforeTool": [{"hooks": [{"command": "a", "persistent": true}, {"command": "b", "persistent": false}, {"command": "c", "persistent": null}, {"command": "d"}]}]}}`, []bool{true, false, false, false}},
		{"a.toml", "[[hooks.BeforeTool]]\nhooks = [{ command = \"a\", persistent = true }, { command = \"b\", persistent = false }, { command = \"d\" }]\n", []bool{true, false, false}},
	} {
		f, err := Parse(c.path, []byte(c.doc), TierUser)
		noErr(t, err)
		var got []bool
		for _, h := range f.Hooks[events.BeforeTool][0].Hooks {
			got = append(got, h.Persistent)
		}
		equal(t, c.want, got, c.path)
	}
}

func TestJSONAndTOMLAgree(t *testing.T) {
	for _, c := range []struct {
		name string
		tier Tier
	}{{"agents", TierUser}, {"policy", TierPolicy}} {
		t.Run(c.name, func(t *testing.T) {
			jp, jd := readFixture(t, c.name+".json")
			tp, td := readFixture(t, c.name+".toml")
			jf, err := Parse(jp, jd, c.tier)
			noErr(t, err)
			tf, err := Parse(tp, td, c.tier)
			noErr(t, err)
			equal(t, stripPos(jf), stripPos(tf))
			if len(jf.Hooks) == 0 {
				t.Error("no hooks")
			}
		})
	}
}

func TestParseInvalidTier(t *testing.T) {
	_, err := Parse("a.json", []byte(`{}`), Tier(7))
	var es Errors
	if err == nil || errors.As(err, &es) {
		t.Errorf("Parse(Tier(7)) = %v, want a plain error", err)
	}
	equal(t, "Tier(7)", Tier(7).String())
	equal(t, "user", TierUser.String())
	equal(t, "policy", TierPolicy.String())
}

func TestParseEmptyAndNull(t *testing.T) {
	for _, c := range []struct {
		path, src string
		groups    int
	}{
		{"a.toml", "", 0},
		{"a.json", "{}", 0},
		{"a.json", `{"hooks": null, "atoms": null, "policyHooks": null}`, 0},
		{"a.json", "\xef\xbb\xbf{\"hooks\": {\"BeforeTool\": null}}", 0},
		{"a.json", `{"hooks": {"BeforeTool": [{"matcher": null, "hooks": [{"command": "x", "timeoutMs": null, "onError": null}]}]}}`, 1},
	} {
		f, err := Parse(c.path, []byte(c.src), TierUser)
		noErr(t, err)
		equal(t, c.groups, len(f.Hooks[events.BeforeTool]), c.src)
		equal(t, 0, len(f.Atoms), c.src)
	}
}

// TestParseInput: a hook entry's input names the agent whose hook contract
// the command speaks, with an optional event of that agent; "monad" is the
// default; an event the agent does not have for the hook's event is an
// error that lists the ones it has.
func TestParseInput(t *testing.T) {
	f, err := Parse("a.json", []byte(`{"hooks": {
  "BeforeTool": [{"hooks": [
    {"command": "a", "input": "claude-code"},
    {"command": "b", "input": "cursor:beforeShellExecution"},
    {"command": "c", "input": "monad"},
    {"command": "d"}]}]}}`), TierUser)
	noErr(t, err)
	var got []string
	for _, h := range f.Hooks[events.BeforeTool][0].Hooks {
		got = append(got, h.Input)
	}
	equal(t, []string{"claude-code", "cursor:beforeShellExecution", "", ""}, got)

	_, err = Parse("a.json", []byte(`{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "input": "cursor:stop"}]}]}}`), TierUser)
	equal(t, `a.json:1:64: bad_input: agent cursor has no event "stop" for BeforeTool (want cursor:preToolUse or cursor:beforeShellExecution or cursor:beforeMCPExecution or cursor:beforeReadFile)`, err.Error())
	_, err = Parse("a.json", []byte(`{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "input": "gemni-cli"}]}]}}`), TierUser)
	equal(t, `a.json:1:64: bad_input: unknown agent "gemni-cli" (did you mean "gemini-cli"?)`, err.Error())
	_, err = Parse("a.json", []byte(`{"hooks": {"BeforeModel": [{"hooks": [{"command": "x", "input": "crush"}]}]}}`), TierUser)
	equal(t, `a.json:1:65: bad_input: agent crush has no hook event for BeforeModel, so a hook written for it cannot run there`, err.Error())
}
