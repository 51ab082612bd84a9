package stdlib_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

// TestPacksGuardEveryAgentsTools: the packs select tools by kind, so the
// tool names and input shapes of every agent in the built-in table are
// guarded (issues 13 and 20: Crush's write and view, OpenCode's filePath,
// Codex's argv commands, Gemini's replace, Claude Code's MultiEdit).
func TestPacksGuardEveryAgentsTools(t *testing.T) {
	packs := map[string]*pack{}
	for _, name := range []string{"deny-destructive", "protect-paths", "gate-network", "approve-readonly"} {
		packs[name] = mustLoad(t, name, nil)
	}
	for _, c := range []struct {
		pack, tool, input string
		event             events.Event
		want              events.Decision
	}{
		{"deny-destructive", "shell", `{"command":["rm","-rf","/"]}`, events.BeforeTool, events.Deny},
		{"deny-destructive", "shell", `{"command":["bash","-lc","cd /tmp && rm -rf ~"]}`, events.BeforeTool, events.Deny},
		{"deny-destructive", "local_shell", `{"action":{"command":["rm","-rf","/etc"]}}`, events.BeforeTool, events.Deny},
		{"deny-destructive", "run_terminal_cmd", `{"command":"git push --force origin main"}`, events.BeforeTool, events.Deny},
		{"deny-destructive", "Shell", `{"command":"rm -rf ~"}`, events.BeforeTool, events.Deny},
		{"deny-destructive", "write_stdin", `{"session_id":1,"chars":"rm -rf ~\n"}`, events.BeforeTool, events.Deny},
		{"deny-destructive", "shell", `{"command":["ls","-la"]}`, events.BeforeTool, ""},
		{"deny-destructive", "shell", `{"command":["echo","rm -rf /"]}`, events.BeforeTool, ""},
		{"protect-paths", "write", `{"file_path":"~/.ssh/id_rsa","content":"x"}`, events.BeforeTool, events.Deny},
		{"protect-paths", "view", `{"file_path":"/home/agent/.ssh/id_rsa"}`, events.BeforeTool, events.Deny},
		{"protect-paths", "write", `{"filePath":".env","content":"A=1"}`, events.BeforeTool, events.Deny},
		{"protect-paths", "replace", `{"file_path":".env","old_string":"a","new_string":"b"}`, events.BeforeTool, events.Deny},
		{"protect-paths", "MultiEdit", `{"file_path":".git/config","edits":[{"old_string":"a","new_string":"b"}]}`, events.BeforeTool, events.Deny},
		{"protect-paths", "multiedit", `{"filePath":"a.go","edits":[{"filePath":".git/hooks/pre-commit","oldString":"a","newString":"b"}]}`, events.BeforeTool, events.Deny},
		{"protect-paths", "download", `{"url":"https://x.example/k","file_path":"~/.ssh/authorized_keys"}`, events.BeforeTool, events.Deny},
		{"protect-paths", "Delete", `{"file_path":".git/config"}`, events.BeforeTool, events.Deny},
		{"protect-paths", "apply_patch", `{"command":"*** Begin Patch\n*** Update File: .env\n@@\n-a\n+b\n*** End Patch"}`, events.BeforeTool, events.Deny},
		{"protect-paths", "shell", `{"command":["cat","/home/agent/.ssh/id_rsa"]}`, events.BeforeTool, events.Deny},
		{"protect-paths", "view", `{"file_path":"src/main.go"}`, events.BeforeTool, ""},
		{"protect-paths", "write", `{"file_path":"src/main.go","content":"package main"}`, events.BeforeTool, ""},
		{"gate-network", "webfetch", `{"url":"https://evil.example/x"}`, events.BeforeTool, events.Ask},
		{"gate-network", "download", `{"url":"https://evil.example/x","file_path":"x"}`, events.BeforeTool, events.Ask},
		{"gate-network", "web_fetch", `{"prompt":"Summarize https://evil.example/post for me"}`, events.BeforeTool, events.Ask},
		{"gate-network", "shell", `{"command":["curl","https://evil.example"]}`, events.BeforeTool, events.Ask},
		{"approve-readonly", "view", `{"file_path":"a.go"}`, events.ApprovalRequest, events.Allow},
		{"approve-readonly", "ls", `{"path":"."}`, events.ApprovalRequest, events.Allow},
		{"approve-readonly", "shell", `{"command":["bash","-lc","git status && ls"]}`, events.ApprovalRequest, events.Allow},
		{"approve-readonly", "write", `{"file_path":"a.go","content":"x"}`, events.ApprovalRequest, ""},
	} {
		var input any
		if err := json.Unmarshal([]byte(c.input), &input); err != nil {
			t.Fatal(err)
		}
		in := events.Input{Event: c.event, ToolName: c.tool, ToolInput: input, Cwd: testRoot}
		out := packs[c.pack].call(t, in)
		if out.Decision != c.want {
			t.Errorf("%s %s %s: got %q (%s), want %q", c.pack, c.tool, c.input, out.Decision, out.Reason, c.want)
		}
	}
}

// TestDeprecatedMatcherStillGuardsUnknownTools: a pack's name matcher (now
// deprecated) still adds tools the table does not know, reading the
// command from commandFields.
func TestDeprecatedMatcherStillGuardsUnknownTools(t *testing.T) {
	p := mustLoad(t, "deny-destructive", map[string]any{"matcher": "^my_sh$", "commandFields": []any{"line"}})
	out := p.call(t, events.Input{Event: events.BeforeTool, ToolName: "my_sh", ToolInput: map[string]any{"line": "rm -rf /"}})
	if out.Decision != events.Deny || !strings.Contains(out.Reason, "deny-destructive") {
		t.Errorf("my_sh: %q %q, want a deny", out.Decision, out.Reason)
	}
	// A tool the table knows is checked once, through its kind.
	out = p.call(t, events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "rm -rf /"}})
	if out.Decision != events.Deny {
		t.Errorf("bash: %q, want deny", out.Decision)
	}
	q := mustLoad(t, "protect-paths", map[string]any{"matcher": "^stash$", "pathFields": []any{"where"}, "readTools": "^stash$"})
	out = q.call(t, events.Input{Event: events.BeforeTool, ToolName: "stash", ToolInput: map[string]any{"where": "/home/agent/.ssh/id_rsa"}})
	if out.Decision != events.Deny {
		t.Errorf("stash: %q, want deny", out.Decision)
	}
}

// TestKindsHeaderMatchesHooks: a pack's "kinds" header (what `monad-hooks
// stdlib NAME` lists the tools of) names every kind its hooks select.
func TestKindsHeaderMatchesHooks(t *testing.T) {
	for _, info := range stdlib.Packs() {
		p := mustLoad(t, info.Name, nil)
		var got []string
		for _, h := range p.hooks() {
			for _, k := range h.Kinds {
				if !slices.Contains(got, string(k)) {
					got = append(got, string(k))
				}
			}
		}
		for _, k := range got {
			if !slices.Contains(info.Kinds, k) {
				t.Errorf("%s: a hook selects kind %s, which its kinds header (%v) does not name", info.Name, k, info.Kinds)
			}
		}
		if len(got) > 0 && len(got) != len(info.Kinds) {
			t.Errorf("%s: hooks select %v, the header says %v", info.Name, got, info.Kinds)
		}
	}
}
