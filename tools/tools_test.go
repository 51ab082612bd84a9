package tools_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/tools"
)

func decode(t *testing.T, doc string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(doc))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

// TestBuiltinCoversTheAgents names, per kind, the tools of the agents
// people use (issues 13 and 20): each must be in the table with that kind.
func TestBuiltinCoversTheAgents(t *testing.T) {
	tab, err := tools.NewTable(tools.Builtin()...)
	require.NoError(t, err)
	want := map[events.ToolKind][]string{
		events.ToolShell:  {"Bash", "run_shell_command", "shell", "exec_command", "local_shell", "bash", "run_terminal_cmd", "Shell", "shell_exec", "write_stdin"},
		events.ToolRead:   {"Read", "read_file", "view", "read", "Glob", "Grep", "LS", "list_directory", "read_many_files", "ls", "grep", "glob"},
		events.ToolWrite:  {"Write", "write_file", "write", "file_write", "create_file"},
		events.ToolEdit:   {"Edit", "MultiEdit", "NotebookEdit", "replace", "edit", "multiedit", "edit_file", "search_replace"},
		events.ToolPatch:  {"apply_patch", "patch"},
		events.ToolDelete: {"Delete", "delete_file"},
		events.ToolFetch:  {"WebFetch", "web_fetch", "webfetch", "fetch", "download", "agentic_fetch"},
		events.ToolOther:  {"TodoWrite", "Task", "todos", "agent", "update_plan"},
	}
	for kind, names := range want {
		for _, n := range names {
			assert.Equal(t, kind, tab.Kind(n), "tool %q", n)
		}
	}
	assert.Equal(t, events.ToolKind(""), tab.Kind("bash2"))
	assert.Nil(t, tab.View("bash2", map[string]any{"command": "ls"}))
}

// TestAgentsAgreeOnKinds: a name several agents use has one kind.
func TestAgentsAgreeOnKinds(t *testing.T) {
	kinds := map[string]events.ToolKind{}
	by := map[string]string{}
	for _, a := range tools.Agents() {
		specs, ok := tools.AgentTools(a)
		require.True(t, ok)
		for _, s := range specs {
			if k, seen := kinds[s.Name]; seen && k != s.Kind {
				t.Errorf("%s: %s says %s, %s says %s", s.Name, by[s.Name], k, a, s.Kind)
			}
			kinds[s.Name], by[s.Name] = s.Kind, a
		}
	}
	_, ok := tools.AgentTools("vim")
	assert.False(t, ok)
	assert.Equal(t, []string{"claude-code", "codex", "crush", "cursor", "gemini-cli", "monad", "opencode"}, tools.Agents())
}

func TestViews(t *testing.T) {
	tab, err := tools.NewTable(tools.Builtin()...)
	require.NoError(t, err)
	for _, tc := range []struct {
		tool, input string
		want        events.ToolView
	}{
		{"Bash", `{"command":"rm -rf ~","description":"x"}`, events.ToolView{Kind: "shell", Command: "rm -rf ~"}},
		// An argv is one command line, not words checked one by one.
		{"shell", `{"command":["rm","-rf","/"],"workdir":"/w"}`, events.ToolView{Kind: "shell", Command: "rm -rf /"}},
		{"shell", `{"command":["bash","-lc","rm -rf ~ && echo done"]}`, events.ToolView{Kind: "shell", Command: "rm -rf ~ && echo done"}},
		{"shell", `{"command":["/bin/sh","-c","git push -f"]}`, events.ToolView{Kind: "shell", Command: "git push -f"}},
		{"shell", `{"command":["bash","-lc","rm -rf \"$1\"","sh","/"]}`, events.ToolView{Kind: "shell", Command: `bash -lc 'rm -rf "$1"' sh /`}},
		{"shell", `{"command":["echo","a b",1,true]}`, events.ToolView{Kind: "shell", Command: "echo 'a b' 1 true"}},
		{"exec_command", `{"cmd":"ls -la"}`, events.ToolView{Kind: "shell", Command: "ls -la"}},
		{"local_shell", `{"action":{"command":["ls"]}}`, events.ToolView{Kind: "shell", Command: "ls"}},
		{"shell_exec", `{"commands":["cd /tmp","rm -rf x"]}`, events.ToolView{Kind: "shell", Command: "cd /tmp\nrm -rf x"}},
		{"bash", `"rm -rf /"`, events.ToolView{Kind: "shell", Command: "rm -rf /"}},
		{"Read", `{"file_path":"/home/u/.ssh/id_rsa"}`, events.ToolView{Kind: "read", Paths: []string{"/home/u/.ssh/id_rsa"}}},
		{"view", `{"file_path":"~/.ssh/id_rsa","limit":10}`, events.ToolView{Kind: "read", Paths: []string{"~/.ssh/id_rsa"}}},
		{"read", `{"filePath":".env"}`, events.ToolView{Kind: "read", Paths: []string{".env"}}},
		{"read_file", `{"target_file":"a.go"}`, events.ToolView{Kind: "read", Paths: []string{"a.go"}}},
		{"read_many_files", `{"include":["a/**","~/.aws/credentials"]}`, events.ToolView{Kind: "read", Paths: []string{"a/**", "~/.aws/credentials"}}},
		{"write", `{"file_path":"~/.ssh/id_rsa","content":"k"}`, events.ToolView{Kind: "write", Paths: []string{"~/.ssh/id_rsa"}, Contents: []string{"k"}}},
		{"write", `{"filePath":".env","content":"A=1"}`, events.ToolView{Kind: "write", Paths: []string{".env"}, Contents: []string{"A=1"}}},
		{"MultiEdit", `{"file_path":"a.go","edits":[{"old_string":"x","new_string":"y"},{"old_string":"p","new_string":"q"}]}`,
			events.ToolView{Kind: "edit", Paths: []string{"a.go"}, Contents: []string{"y", "q"}}},
		{"multiedit", `{"filePath":"a.go","edits":[{"filePath":"b.go","oldString":"x","newString":"y"}]}`,
			events.ToolView{Kind: "edit", Paths: []string{"a.go", "b.go"}, Contents: []string{"y"}}},
		{"NotebookEdit", `{"notebook_path":"n.ipynb","new_source":"print(1)"}`, events.ToolView{Kind: "edit", Paths: []string{"n.ipynb"}, Contents: []string{"print(1)"}}},
		{"apply_patch", `{"input":"*** Begin Patch\n*** Add File: x\n+y\n*** End Patch"}`, events.ToolView{Kind: "patch", Contents: []string{"*** Begin Patch\n*** Add File: x\n+y\n*** End Patch"}}},
		{"apply_patch", `"*** Begin Patch\n*** End Patch"`, events.ToolView{Kind: "patch", Contents: []string{"*** Begin Patch\n*** End Patch"}}},
		{"download", `{"url":"https://x.io/a","file_path":"a.bin"}`, events.ToolView{Kind: "fetch", Paths: []string{"a.bin"}, URLs: []string{"https://x.io/a"}}},
		{"web_fetch", `{"prompt":"Summarize https://evil.example/a?x=1, and http://b.example."}`, events.ToolView{Kind: "fetch", URLs: []string{"https://evil.example/a?x=1", "http://b.example"}}},
		{"Delete", `{"file_path":".git/config"}`, events.ToolView{Kind: "delete", Paths: []string{".git/config"}}},
		{"TodoWrite", `{"todos":[{"content":"rm -rf /"}]}`, events.ToolView{Kind: "other"}},
		// Values of the wrong type yield nothing rather than an error.
		{"Bash", `{"command":{"x":1}}`, events.ToolView{Kind: "shell"}},
		{"Read", `{"file_path":7}`, events.ToolView{Kind: "read"}},
		{"Read", `["x"]`, events.ToolView{Kind: "read"}},
	} {
		got := tab.View(tc.tool, decode(t, tc.input))
		require.NotNil(t, got, tc.tool)
		assert.Equal(t, tc.want, *got, "%s %s", tc.tool, tc.input)
	}
}

func TestDeclaredSpecs(t *testing.T) {
	// A spec without locations gets its kind's defaults.
	v, err := tools.Extract(tools.Spec{Name: "run", Kind: events.ToolShell}, decode(t, `{"cmd":["rm","-rf","/"]}`))
	require.NoError(t, err)
	assert.Equal(t, "rm -rf /", v.Command)
	v, err = tools.Extract(tools.Spec{Name: "save", Kind: events.ToolWrite, Paths: []string{"target.file"}, Contents: []string{"body"}},
		decode(t, `{"target":{"file":"~/.bashrc"},"body":"x","file_path":"ignored"}`))
	require.NoError(t, err)
	assert.Equal(t, events.ToolView{Kind: "write", Paths: []string{"~/.bashrc"}, Contents: []string{"x"}}, v)

	// A later spec replaces an earlier one of the same name.
	tab, err := tools.NewTable(append(tools.Builtin(), tools.Spec{Name: "bash", Kind: events.ToolOther})...)
	require.NoError(t, err)
	assert.Equal(t, events.ToolOther, tab.Kind("bash"))

	for _, bad := range []struct {
		spec tools.Spec
		msg  string
	}{
		{tools.Spec{Kind: events.ToolShell}, "without a name"},
		{tools.Spec{Name: "x", Kind: "shel"}, `tool "x": unknown tool kind "shel"`},
		{tools.Spec{Name: "x"}, `tool "x": unknown tool kind ""`},
		{tools.Spec{Name: "x", Kind: events.ToolRead, Paths: []string{"a..b"}}, `location "a..b": empty key`},
		{tools.Spec{Name: "x", Kind: events.ToolRead, Paths: []string{"a[0]"}}, "[] may only end a key"},
		{tools.Spec{Name: "x", Kind: events.ToolRead, Paths: []string{"a.[]"}}, "empty key"},
	} {
		_, err := tools.NewTable(bad.spec)
		if assert.Error(t, err, "%+v", bad.spec) {
			assert.Contains(t, err.Error(), bad.msg)
		}
	}
}

// TestLookupReturnsCopies: a caller that changes what Lookup or Builtin
// returned does not change the table.
func TestLookupReturnsCopies(t *testing.T) {
	tab, err := tools.NewTable(tools.Builtin()...)
	require.NoError(t, err)
	s, ok := tab.Lookup("Bash")
	require.True(t, ok)
	s.Command[0] = "nope"
	b := tools.Builtin()
	b[0].Agents[0] = "nope"
	assert.Equal(t, "rm -rf /", tab.View("Bash", map[string]any{"command": "rm -rf /"}).Command)
	again, _ := tab.Lookup("Bash")
	assert.Equal(t, "command", again.Command[0])
	assert.NotEqual(t, "nope", tools.Builtin()[0].Agents[0])
}

// FuzzView: any JSON input and any location give a view or a location
// error, never a panic.
func FuzzView(f *testing.F) {
	f.Add(`{"command":["bash","-lc","rm -rf ~"]}`, "command")
	f.Add(`{"edits":[{"file_path":"a"},{"file_path":["b",1]}]}`, "edits[].file_path")
	f.Add(`[["x"],"y"]`, "[]")
	f.Fuzz(func(t *testing.T, doc, loc string) {
		var input any
		if json.Unmarshal([]byte(doc), &input) != nil {
			return
		}
		for _, k := range events.ToolKinds() {
			v, err := tools.Extract(tools.Spec{Name: "t", Kind: k, Command: []string{loc}, Paths: []string{loc}, Contents: []string{loc}, URLs: []string{loc}}, input)
			if err != nil {
				return // a malformed location
			}
			if v.Kind != k {
				t.Fatalf("kind %q, want %q", v.Kind, k)
			}
		}
	})
}

// TestDialect: a PowerShell tool's lines are PowerShell, an argv of
// powershell, pwsh or cmd gives its command string in that dialect, and
// lines in several dialects are POSIX.
func TestDialect(t *testing.T) {
	tab, err := tools.NewBuiltinTable()
	require.NoError(t, err)
	for _, tc := range []struct {
		tool, input, command, shell string
	}{
		{"PowerShell", `{"command": "Remove-Item -Recurse C:\\x", "description": "d", "timeout": 5}`, `Remove-Item -Recurse C:\x`, "powershell"},
		{"Bash", `{"command": "rm -rf x"}`, "rm -rf x", ""},
		{"shell", `{"command": ["powershell.exe", "-NoProfile", "-Command", "Remove-Item C:\\x"]}`, `Remove-Item C:\x`, "powershell"},
		{"shell", `{"command": ["C:\\Program Files\\PowerShell\\7\\PWSH.EXE", "-c", "gci", "-Recurse"]}`, `gci -Recurse`, "powershell"},
		{"shell", `{"command": ["cmd.exe", "/c", "rd /s /q build"]}`, `rd /s /q build`, "cmd"},
		{"shell", `{"command": ["bash", "-lc", "ls"]}`, "ls", ""},
		{"shell", `{"command": ["pwsh", "-File", "x.ps1"]}`, "pwsh -File x.ps1", ""},
		{"shell", `{"command": ["powershell", "-NoProfile"]}`, "powershell -NoProfile", ""},
		{"PowerShell", `{"command": ["bash", "-lc", "ls"]}`, "ls", ""},
		{"local_shell", `{"command": ["cmd", "/c", "dir"], "action": {"command": ["pwsh", "-c", "gci"]}}`, "dir\ngci", ""},
		{"local_shell", `{"command": ["pwsh", "-c", "gi x"], "action": {"command": ["pwsh", "-c", "gci"]}}`, "gi x\ngci", "powershell"},
	} {
		v := tab.View(tc.tool, decode(t, tc.input))
		require.NotNil(t, v, tc.input)
		assert.Equal(t, tc.command, v.Command, tc.input)
		assert.Equal(t, tc.shell, v.Shell, tc.input)
	}
	_, err = tools.NewTable(tools.Spec{Name: "x", Kind: events.ToolShell, Shell: "fish"})
	assert.ErrorContains(t, err, `unknown shell "fish"`)
}
