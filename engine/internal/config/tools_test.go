package config

import (
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

func TestToolsAndKinds(t *testing.T) {
	const doc = `{
  "tools": {
    "run": { "kind": "shell", "command": ["cmd", "argv"] },
    "save": { "kind": "write", "paths": "target", "contents": ["body"] },
    "todo": { "kind": "other" }
  },
  "hooks": {
    "BeforeTool": [
      { "kind": "shell", "hooks": [{ "command": "./a.sh" }] },
      { "kind": ["write", "edit"], "matcher": "^s", "hooks": [{ "command": "./b.sh" }] }
    ]
  }
}`
	f, err := Parse("/w/agents.json", []byte(doc), TierUser)
	noErr(t, err)
	equal(t, []Tool{
		{Name: "run", Kind: events.ToolShell, Command: []string{"cmd", "argv"}, Pos: Pos{File: "/w/agents.json", Line: 3, Col: 5}},
		{Name: "save", Kind: events.ToolWrite, Paths: []string{"target"}, Contents: []string{"body"}, Pos: Pos{File: "/w/agents.json", Line: 4, Col: 5}},
		{Name: "todo", Kind: events.ToolOther, Pos: Pos{File: "/w/agents.json", Line: 5, Col: 5}},
	}, f.Tools)
	groups := f.Hooks[events.BeforeTool]
	equal(t, []events.ToolKind{events.ToolShell}, groups[0].Kinds)
	equal(t, []events.ToolKind{events.ToolWrite, events.ToolEdit}, groups[1].Kinds)
	equal(t, "^s", groups[1].Matcher)

	// The same in TOML, in a policy file.
	const toml = `
[tools.run]
kind = "shell"
command = ["cmd"]
shell = "powershell"

[[policyHooks.ApprovalRequest]]
kind = "shell"
hooks = [{ command = "./a.sh" }]
`
	f, err = Parse("/w/policy.toml", []byte(toml), TierPolicy)
	noErr(t, err)
	equal(t, 1, len(f.Tools))
	equal(t, "powershell", f.Tools[0].Shell)
	equal(t, []events.ToolKind{events.ToolShell}, f.Hooks[events.ApprovalRequest][0].Kinds)
}

func TestToolAndKindProblems(t *testing.T) {
	for _, tc := range []struct {
		doc, code, msg string
	}{
		{`{"hooks":{"BeforeTool":[{"kind":"shel","hooks":[{"command":"x"}]}]}}`, CodeBadKind, `unknown tool kind "shel" (did you mean "shell"?)`},
		{`{"hooks":{"BeforeTool":[{"kind":"file","hooks":[{"command":"x"}]}]}}`, CodeBadKind, `want one of shell, read, write, edit, patch, delete, fetch, query, other`},
		{`{"hooks":{"BeforeTool":[{"kind":[],"hooks":[{"command":"x"}]}]}}`, CodeBadKind, "non-empty list"},
		{`{"hooks":{"BeforeTool":[{"kind":3,"hooks":[{"command":"x"}]}]}}`, CodeBadKind, "got a number"},
		{`{"hooks":{"BeforeTool":[{"kind":["shell",3],"hooks":[{"command":"x"}]}]}}`, CodeBadKind, "must be a string"},
		{`{"hooks":{"AfterModel":[{"kind":"shell","hooks":[{"command":"x"}]}]}}`, CodeBadKind, "not at AfterModel"},
		{`{"hooks":{"BeforeTool":[{"kinds":"shell","hooks":[{"command":"x"}]}]}}`, CodeUnknownKey, `did you mean "kind"?`},
		{`{"tools":[]}`, CodeWrongType, "tools must be an object"},
		{`{"tools":{"x":"shell"}}`, CodeBadTool, `a tool declaration must be an object with a "kind"`},
		{`{"tools":{"x":{}}}`, CodeBadTool, `tool declaration has no "kind"`},
		{`{"tools":{"x":{"kind":"shell","command":[1]}}}`, CodeBadTool, "a location must be a string"},
		{`{"tools":{"x":{"kind":"shell","command":{}}}}`, CodeBadTool, "a string or a list of strings"},
		{`{"tools":{"x":{"kind":"shell","path":["p"]}}}`, CodeUnknownKey, `did you mean "paths"?`},
		{`{"tools":{"x":{"kind":"shell","shell":"pwsh"}}}`, CodeBadTool, `a tool's shell must be "sh", "powershell" or "cmd"`},
		{`{"tools":{"x":{"kind":"shell","shell":"powershel"}}}`, CodeBadTool, `did you mean "powershell"?`},
	} {
		_, err := Parse("a.json", []byte(tc.doc), TierUser)
		es, ok := err.(Errors)
		if !ok || len(es) == 0 {
			t.Errorf("%s: err = %v, want %s", tc.doc, err, tc.code)
			continue
		}
		if es[0].Code != tc.code || !strings.Contains(es[0].Msg, tc.msg) {
			t.Errorf("%s: got %s %q, want %s containing %q", tc.doc, es[0].Code, es[0].Msg, tc.code, tc.msg)
		}
	}
}
