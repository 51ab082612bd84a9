package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

// brief renders problems as "line:col code field" for comparison.
func brief(es Errors) []string {
	var out []string
	for _, e := range es {
		out = append(out, fmt.Sprintf("%d:%d %s %s", e.Line, e.Col, e.Code, e.Field))
	}
	return out
}

func parseErrors(t *testing.T, path, src string, tier Tier) Errors {
	t.Helper()
	f, err := Parse(path, []byte(src), tier)
	if err == nil {
		t.Fatalf("Parse succeeded: %+v", f)
	}
	if f != nil {
		t.Errorf("Parse returned a File with an error")
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error %T is not Errors: %v", err, err)
	}
	for _, e := range es {
		if e.File != path {
			t.Errorf("error names file %q, want %q", e.File, path)
		}
	}
	return es
}

// TestErrorCodes has at least one case per code, in each format where it can
// arise, with the exact position.
func TestErrorCodes(t *testing.T) {
	cases := []struct {
		name string
		path string
		tier Tier
		src  string
		want []string
	}{
		// Whole-file problems.
		{"bad_format", "agents.yaml", TierUser, `{}`, []string{"0:0 bad_format "}},
		{"too_large", "a.json", TierUser, `{"x": "` + strings.Repeat("a", MaxFileSize) + `"}`, []string{"0:0 too_large "}},
		{"bad_encoding/utf8", "a.json", TierUser, "{\n  \"a\": \"\xff\"\n}", []string{"2:9 bad_encoding "}},
		{"bad_encoding/nul", "a.json", TierUser, "{}\n\x00", []string{"2:1 bad_encoding "}},
		{"bad_encoding/toml", "a.toml", TierUser, "a = 1\nb = \"\xc3\"", []string{"2:6 bad_encoding "}},

		// Syntax: the first error only.
		{"syntax/empty", "a.json", TierUser, "  \n", []string{"2:1 syntax "}},
		{"syntax/json", "a.json", TierUser, "{\"hooks\": {,}}", []string{"1:12 syntax "}},
		{"syntax/trailing", "a.json", TierUser, "{}\n}", []string{"2:1 syntax "}},
		{"syntax/unterminated", "a.json", TierUser, "{\"a\": \"b", []string{"1:7 syntax "}},
		{"syntax/escape", "a.json", TierUser, `{"a": "\x"}`, []string{"1:8 syntax "}},
		{"syntax/control", "a.json", TierUser, "{\"a\": \"\t\"}", []string{"1:8 syntax "}},
		{"syntax/number", "a.json", TierUser, `{"a": 01}`, []string{"1:8 syntax "}},
		{"syntax/toml", "a.toml", TierUser, "a = 1\nb = = 2\n", []string{"2:5 syntax "}},
		{"syntax/toml-duplicate", "a.toml", TierUser, "a = 1\na = 2\n", []string{"2:6 syntax "}},
		{"empty_key", "a.toml", TierUser, "[hooks]\nBeforeTool = []\nx.'' = [{}, 0]\n", []string{"3:3 empty_key "}},
		{"too_deep/json", "a.json", TierUser, strings.Repeat("[", MaxDepth+1), []string{fmt.Sprintf("1:%d too_deep ", MaxDepth+1)}},
		{"too_deep/toml", "a.toml", TierUser, "a = " + strings.Repeat("[", MaxDepth+1), []string{fmt.Sprintf("1:%d too_deep ", MaxDepth+5)}},
		{"too_deep/toml-dotted", "a.toml", TierUser, strings.Repeat("a.", MaxDepth) + "b = 1", []string{fmt.Sprintf("1:%d too_deep ", 2*MaxDepth)}},
		{"too_deep/toml-header", "a.toml", TierUser, "[[" + strings.Repeat("a.", MaxDepth) + "b]]", []string{fmt.Sprintf("1:%d too_deep ", 2*MaxDepth)}},
		{"too_deep/toml-inline", "a.toml", TierUser, "[t]\nx = [{ y = " + strings.Repeat("{ a.a = ", MaxDepth/2) + "1 }]", []string{"2:255 too_deep "}},

		// Structure.
		{"wrong_type/root", "a.json", TierUser, `[]`, []string{"1:1 wrong_type "}},
		{"wrong_type/hooks", "a.json", TierUser, `{"hooks": []}`, []string{"1:11 wrong_type hooks"}},
		{"wrong_type/event", "a.json", TierUser, `{"hooks": {"BeforeTool": {}}}`, []string{"1:26 wrong_type hooks.BeforeTool"}},
		{"wrong_type/group", "a.json", TierUser, `{"hooks": {"BeforeTool": [1]}}`, []string{"1:27 wrong_type hooks.BeforeTool[0]"}},
		{"wrong_type/hook-list", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": "x"}]}}`, []string{"1:37 wrong_type hooks.BeforeTool[0].hooks"}},
		{"wrong_type/hook", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": ["x"]}]}}`, []string{"1:38 wrong_type hooks.BeforeTool[0].hooks[0]"}},
		{"wrong_type/command", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": 1}]}]}}`, []string{"1:50 wrong_type hooks.BeforeTool[0].hooks[0].command"}},
		{"wrong_type/atoms", "a.json", TierUser, `{"atoms": "x.lua"}`, []string{"1:11 wrong_type atoms"}},
		{"wrong_type/atom", "a.json", TierUser, `{"atoms": [true]}`, []string{"1:12 wrong_type atoms[0]"}},
		{"wrong_type/with", "a.json", TierUser, `{"atoms": [{"stdlib": "p", "with": []}]}`, []string{"1:36 wrong_type atoms[0].with"}},
		{"wrong_type/toml-event", "a.toml", TierUser, "[hooks.BeforeTool]\nmatcher = \"x\"\n", []string{"1:1 wrong_type hooks.BeforeTool"}},
		{"wrong_type/toml-command", "a.toml", TierUser, "[[hooks.BeforeTool]]\nhooks = [{ command = 1 }]\n", []string{"2:22 wrong_type hooks.BeforeTool[0].hooks[0].command"}},

		{"unknown_key/group", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [], "match": "x"}]}}`, []string{"1:41 unknown_key hooks.BeforeTool[0].match"}},
		{"unknown_key/hook", "a.json", TierUser, "{\"hooks\": {\"BeforeTool\": [{\"hooks\": [\n  {\"command\": \"x\", \"timeout\": 5}]}]}}", []string{"2:20 unknown_key hooks.BeforeTool[0].hooks[0].timeout"}},
		{"unknown_key/atom", "a.json", TierUser, `{"atoms": [{"path": "x", "params": {}}]}`, []string{"1:26 unknown_key atoms[0].params"}},
		{"unknown_key/toml", "a.toml", TierUser, "[[hooks.BeforeTool]]\nhooks = []\n\"odd key\" = 1\n", []string{`3:1 unknown_key hooks.BeforeTool[0]["odd key"]`}},
		{"duplicate_key", "a.json", TierUser, `{"hooks": {}, "hooks": {}}`, []string{"1:15 duplicate_key hooks"}},
		{"duplicate_key/with", "a.json", TierUser, `{"atoms": [{"stdlib": "p", "with": {"a": 1, "a": 2}}]}`, []string{"1:45 duplicate_key atoms[0].with.a"}},

		{"unknown_event", "a.json", TierUser, `{"hooks": {"PreToolUse": []}}`, []string{"1:12 unknown_event hooks.PreToolUse"}},
		{"unknown_event/toml", "a.toml", TierUser, "[[hooks.beforeTool]]\nhooks = []\n", []string{"1:9 unknown_event hooks.beforeTool"}},

		{"bad_matcher/regexp", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"matcher": "(", "hooks": []}]}}`, []string{"1:39 bad_matcher hooks.BeforeTool[0].matcher"}},
		{"bad_matcher/type", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"matcher": 5, "hooks": []}]}}`, []string{"1:39 bad_matcher hooks.BeforeTool[0].matcher"}},
		{"bad_matcher/toml", "a.toml", TierUser, "[[hooks.AfterTool]]\nmatcher = 'a{2,1}'\nhooks = []\n", []string{"2:11 bad_matcher hooks.AfterTool[0].matcher"}},

		{"missing_hooks", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"matcher": "x"}]}}`, []string{"1:27 missing_hooks hooks.BeforeTool[0].hooks"}},
		{"missing_hooks/null", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": null}]}}`, []string{"1:27 missing_hooks hooks.BeforeTool[0].hooks"}},
		{"missing_hooks/toml", "a.toml", TierUser, "\"$schema\" = \"s\"\n[[hooks.BeforeTool]]\nmatcher = \"x\"\n", []string{"2:1 missing_hooks hooks.BeforeTool[0].hooks"}},

		{"missing_command/absent", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"timeoutMs": 5}]}]}}`, []string{"1:38 missing_command hooks.BeforeTool[0].hooks[0].command"}},
		{"missing_command/blank", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": " "}]}]}}`, []string{"1:50 missing_command hooks.BeforeTool[0].hooks[0].command"}},
		{"missing_command/toml", "a.toml", TierUser, "[[hooks.SessionEnd]]\n  [[hooks.SessionEnd.hooks]]\n  onError = \"deny\"\n", []string{"2:3 missing_command hooks.SessionEnd[0].hooks[0].command"}},
		{"bad_command", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": "a\u0000"}]}]}}`, []string{"1:50 bad_command hooks.BeforeTool[0].hooks[0].command"}},

		{"bad_timeout/zero", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "timeoutMs": 0}]}]}}`, []string{"1:68 bad_timeout hooks.BeforeTool[0].hooks[0].timeoutMs"}},
		{"bad_timeout/negative", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "timeoutMs": -1}]}]}}`, []string{"1:68 bad_timeout hooks.BeforeTool[0].hooks[0].timeoutMs"}},
		{"bad_timeout/huge", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "timeoutMs": 600001}]}]}}`, []string{"1:68 bad_timeout hooks.BeforeTool[0].hooks[0].timeoutMs"}},
		{"bad_timeout/overflow", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "timeoutMs": 99999999999999999999}]}]}}`, []string{"1:68 bad_timeout hooks.BeforeTool[0].hooks[0].timeoutMs"}},
		{"bad_timeout/fraction", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "timeoutMs": 1.5}]}]}}`, []string{"1:68 bad_timeout hooks.BeforeTool[0].hooks[0].timeoutMs"}},
		{"bad_timeout/exponent", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "timeoutMs": 5e3}]}]}}`, []string{"1:68 bad_timeout hooks.BeforeTool[0].hooks[0].timeoutMs"}},
		{"bad_timeout/string", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "timeoutMs": "5000"}]}]}}`, []string{"1:68 bad_timeout hooks.BeforeTool[0].hooks[0].timeoutMs"}},
		{"bad_timeout/toml-float", "a.toml", TierUser, "[[hooks.BeforeTool]]\nhooks = [{ command = \"x\", timeoutMs = 5000.0 }]\n", []string{"2:39 bad_timeout hooks.BeforeTool[0].hooks[0].timeoutMs"}},
		{"bad_timeout/toml-inf", "a.toml", TierUser, "[[hooks.BeforeTool]]\nhooks = [{ command = \"x\", timeoutMs = inf }]\n", []string{"2:39 bad_timeout hooks.BeforeTool[0].hooks[0].timeoutMs"}},

		{"bad_on_error/value", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "onError": "ignore"}]}]}}`, []string{"1:66 bad_on_error hooks.BeforeTool[0].hooks[0].onError"}},
		{"bad_on_error/type", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "onError": true}]}]}}`, []string{"1:66 bad_on_error hooks.BeforeTool[0].hooks[0].onError"}},
		{"bad_persistent/string", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "persistent": "yes"}]}]}}`, []string{"1:69 wrong_type hooks.BeforeTool[0].hooks[0].persistent"}},
		{"bad_persistent/toml-number", "a.toml", TierUser, "[[hooks.BeforeTool]]\nhooks = [{ command = \"x\", persistent = 1 }]\n", []string{"2:40 wrong_type hooks.BeforeTool[0].hooks[0].persistent"}},
		{"bad_on_error/case", "a.toml", TierUser, "[[hooks.BeforeTool]]\n[[hooks.BeforeTool.hooks]]\ncommand = \"x\"\nonError = \"Deny\"\n", []string{"4:11 bad_on_error hooks.BeforeTool[0].hooks[0].onError"}},

		{"bad_input/host", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "input": "claude"}]}]}}`, []string{"1:64 bad_input hooks.BeforeTool[0].hooks[0].input"}},
		{"bad_input/type", "a.json", TierUser, `{"hooks": {"BeforeTool": [{"hooks": [{"command": "x", "input": 1}]}]}}`, []string{"1:64 bad_input hooks.BeforeTool[0].hooks[0].input"}},
		{"bad_input/no-event", "a.json", TierUser, `{"hooks": {"BeforeModel": [{"hooks": [{"command": "x", "input": "claude-code"}]}]}}`, []string{"1:65 bad_input hooks.BeforeModel[0].hooks[0].input"}},
		{"bad_input/other-event", "a.toml", TierUser, "[[hooks.BeforeTool]]\n[[hooks.BeforeTool.hooks]]\ncommand = \"x\"\ninput = \"cursor:stop\"\n", []string{"4:9 bad_input hooks.BeforeTool[0].hooks[0].input"}},

		{"bad_atom/empty", "a.json", TierUser, `{"atoms": [""]}`, []string{"1:12 bad_atom atoms[0]"}},
		{"bad_atom/both", "a.json", TierUser, `{"atoms": [{"path": "a", "stdlib": "b"}]}`, []string{"1:12 bad_atom atoms[0]"}},
		{"bad_atom/neither", "a.json", TierUser, `{"atoms": [{"with": {}}]}`, []string{"1:12 bad_atom atoms[0]"}},
		{"bad_atom/empty-stdlib", "a.json", TierUser, `{"atoms": [{"stdlib": ""}]}`, []string{"1:23 bad_atom atoms[0].stdlib"}},
		{"bad_atom/datetime", "a.toml", TierUser, "[[atoms]]\nstdlib = \"p\"\nwith = { since = 2024-01-02 }\n", []string{"3:18 bad_atom atoms[0].with.since"}},
		{"bad_atom/nan", "a.toml", TierUser, "[[atoms]]\nstdlib = \"p\"\n[atoms.with]\nratio = nan\n", []string{"4:9 bad_atom atoms[0].with.ratio"}},

		// Tiers.
		{"policy_in_user_config", "a.json", TierUser, "{\n  \"policyHooks\": {}\n}", []string{"2:3 policy_in_user_config policyHooks"}},
		{"policy_in_user_config/toml", "a.toml", TierUser, "[policyHooks]\n", []string{"1:2 policy_in_user_config policyHooks"}},
		{"hooks_in_policy_config", "p.json", TierPolicy, `{"hooks": {}}`, []string{"1:2 hooks_in_policy_config hooks"}},
		{"atoms_in_policy_config", "p.toml", TierPolicy, "atoms = []\n", []string{"1:1 atoms_in_policy_config atoms"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			es := parseErrors(t, c.path, c.src, c.tier)
			equal(t, c.want, brief(es))
			if testing.Verbose() {
				t.Log(es.Error())
			}
			for _, e := range es {
				if e.Msg == "" {
					t.Errorf("%s has no message", e.Code)
				}
			}
		})
	}
}

func TestTooManyErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"hooks": {"BeforeTool": [`)
	for i := range MaxErrors + 20 {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(`{"hooks": [{"command": ""}]}`)
	}
	b.WriteString("]}}")
	es := parseErrors(t, "a.json", b.String(), TierUser)
	equal(t, MaxErrors+1, len(es))
	equal(t, "2:24 missing_command hooks.BeforeTool[1].hooks[0].command", brief(es[1:2])[0])
	last := es[len(es)-1]
	equal(t, CodeTooManyErrors, last.Code)
	equal(t, 0, last.Line)
}

// TestEveryProblemReported: one file, four different problems, four errors
// in document order, in both formats.
func TestEveryProblemReported(t *testing.T) {
	want := map[string][]string{
		"problems.json": {
			"4:20 bad_matcher hooks.BeforeTool[0].matcher",
			"5:45 bad_timeout hooks.BeforeTool[0].hooks[0].timeoutMs",
			"6:32 unknown_key hooks.BeforeTool[0].hooks[1].onErorr",
			"9:5 unknown_event hooks.BeforeTol",
		},
		"problems.toml": {
			"2:11 bad_matcher hooks.BeforeTool[0].matcher",
			"6:15 bad_timeout hooks.BeforeTool[0].hooks[0].timeoutMs",
			"10:3 unknown_key hooks.BeforeTool[0].hooks[1].onErorr",
			"13:1 unknown_event hooks.BeforeTol",
		},
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			path, data := readFixture(t, name)
			_, err := Parse(path, data, TierUser)
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("Parse = %v, want Errors", err)
			}
			equal(t, w, brief(es))
			// The whole message of one, as a user sees it.
			pos := strings.Fields(w[2])[0]
			equal(t, path+":"+pos+`: unknown_key: unknown key "onErorr" in a hook entry: want "command", "timeoutMs", "onError", "input" or "persistent" (did you mean "onError"?)`,
				es[2].Error())
		})
	}
}

func TestManyWarningsAreNotTooManyErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"hooks": {"AfterModel": [`)
	for range MaxErrors + 5 {
		b.WriteString(`{"matcher": "x", "hooks": [{"command": "c"}]},`)
	}
	b.WriteString(`{"hooks": [{"command": ""}]}]}}`)
	es := parseErrors(t, "a.json", b.String(), TierUser)
	equal(t, []string{CodeMissingCommand}, es.Codes())
	f, err := Parse("a.json", []byte(strings.Replace(b.String(), `"command": ""`, `"command": "d"`, 1)), TierUser)
	noErr(t, err)
	equal(t, MaxErrors, len(f.Warnings), "warnings are capped too")
}

func TestWarnings(t *testing.T) {
	src := `{
  "$schema": "x",
  "hooks": {
    "AfterModel": [{"matcher": "^x$", "hooks": [{"command": "a"}]}],
    "ApprovalRequest": [{"matcher": "^x$", "hooks": [{"command": "b"}]}]
  }
}`
	f, err := Parse("a.json", []byte(src), TierUser)
	noErr(t, err)
	equal(t, []string{"4:32 matcher_ignored hooks.AfterModel[0].matcher"}, brief(f.Warnings))
	equal(t, "^x$", f.Hooks[events.AfterModel][0].Matcher, "the matcher is kept")
}

// TestUnknownTopLevelKeys: a key the format does not define is an error at
// the top level too, with its position and a did-you-mean, in both formats
// and both tiers (issue 11.3); "$schema" is allowed.
func TestUnknownTopLevelKeys(t *testing.T) {
	for _, c := range []struct {
		path string
		tier Tier
		src  string
		want string
	}{
		{"a.json", TierUser, "{\n  \"Hooks\": {\"BeforeTool\": []}\n}",
			`a.json:2:3: unknown_key: unknown key "Hooks" in a user file: want "hooks", "atoms" or "tools" (did you mean "hooks"?)`},
		{"a.json", TierUser, `{"hooks": {}, "model": "large"}`,
			`a.json:1:15: unknown_key: unknown key "model" in a user file: want "hooks", "atoms" or "tools"`},
		{"a.json", TierUser, `{"atom": []}`,
			`a.json:1:2: unknown_key: unknown key "atom" in a user file: want "hooks", "atoms" or "tools" (did you mean "atoms"?)`},
		{"a.toml", TierUser, "[[hook.BeforeTool]]\nhooks = []\n",
			`a.toml:1:3: unknown_key: unknown key "hook" in a user file: want "hooks", "atoms" or "tools" (did you mean "hooks"?)`},
		{"p.toml", TierPolicy, "[[policyHook.BeforeTool]]\nhooks = []\n",
			`p.toml:1:3: unknown_key: unknown key "policyHook" in a policy file: want "policyHooks" or "tools" (did you mean "policyHooks"?)`},
		{"p.json", TierPolicy, `{"policy_hooks": {}}`,
			`p.json:1:2: unknown_key: unknown key "policy_hooks" in a policy file: want "policyHooks" or "tools" (did you mean "policyHooks"?)`},
		{"a.json", TierUser, `{"tool": {}}`,
			`a.json:1:2: unknown_key: unknown key "tool" in a user file: want "hooks", "atoms" or "tools" (did you mean "tools"?)`},
		{"p.json", TierPolicy, `{"Tools": {}}`,
			`p.json:1:2: unknown_key: unknown key "Tools" in a policy file: want "policyHooks" or "tools" (did you mean "tools"?)`},
		{"a.json", TierUser, `{"$schema": 1}`,
			`a.json:1:13: wrong_type: $schema must be a string, got a number (1)`},
	} {
		es := parseErrors(t, c.path, c.src, c.tier)
		equal(t, c.want, es.Error())
	}
	_, err := Parse("a.json", []byte(`{"$schema": "https://example.com/s.json", "hooks": {}}`), TierUser)
	noErr(t, err)
	// "tools" is a key of both tiers.
	_, err = Parse("a.json", []byte(`{"tools": {"run": {"kind": "shell"}}, "hooks": {}}`), TierUser)
	noErr(t, err)
	_, err = Parse("p.json", []byte(`{"tools": {"run": {"kind": "shell"}}, "policyHooks": {}}`), TierPolicy)
	noErr(t, err)
}

func TestErrorsFormatting(t *testing.T) {
	var none Errors
	equal(t, "", none.Error())
	equal(t, nil, none.Err())
	equal(t, 0, len(none.Unwrap()))
	es := Errors{
		{Code: CodeBadTimeout, File: "a.json", Line: 3, Col: 7, Msg: "too long"},
		{Code: CodeTooManyErrors, File: "a.json", Msg: "more"},
	}
	equal(t, "a.json:3:7: bad_timeout: too long\na.json: too_many_errors: more", es.Error())
	equal(t, []string{CodeBadTimeout, CodeTooManyErrors}, es.Codes())
	var e *Error
	if !errors.As(es.Err(), &e) || e != es[0] {
		t.Errorf("errors.As did not find the first *Error")
	}
	equal(t, Pos{"a.json", 3, 7}, e.Pos())
	equal(t, "a.json:3:7", e.Pos().String())
	equal(t, "a.json", Pos{File: "a.json"}.String())
}
