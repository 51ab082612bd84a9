package tools

import (
	"slices"
	"sort"
	"sync"

	"github.com/monad-hooks/monad-hooks/events"
)

// The built-in table: the tools of the agents the project knows, as each
// agent's own documentation and source name them (their hook payloads and
// their model-facing tool definitions). A name several agents use is one
// spec: its locations are the union of theirs (a test checks that they
// agree on the kind).
const (
	shell  = events.ToolShell
	read   = events.ToolRead
	write  = events.ToolWrite
	edit   = events.ToolEdit
	patch  = events.ToolPatch
	del    = events.ToolDelete
	fetch  = events.ToolFetch
	others = events.ToolOther
)

// t builds a spec with explicit locations; paths, contents and urls may be
// nil.
func t(name string, kind events.ToolKind, command, paths, contents, urls []string) Spec {
	return Spec{Name: name, Kind: kind, Command: command, Paths: paths, Contents: contents, URLs: urls}
}

// o builds specs of kind other (known tools no guard reads).
func o(names ...string) []Spec {
	out := make([]Spec, len(names))
	for i, n := range names {
		out[i] = Spec{Name: n, Kind: others}
	}
	return out
}

func l(s ...string) []string { return s }

// agentTools are the tool tables of the agents the project knows, built on
// first use: package initialisation is part of every start of the CLI
// (BenchmarkCLIRunNoStdlib).
var agentTools = sync.OnceValue(agentTables)

// agentTables returns agentTools' content.
func agentTables() map[string][]Spec {
	return map[string][]Spec{
		// Claude Code: the hook payload's tool_name and tool_input.
		"claude-code": append([]Spec{
			t("Bash", shell, l("command"), nil, nil, nil),
			t("Read", read, nil, l("file_path"), nil, nil),
			t("Write", write, nil, l("file_path"), l("content"), nil),
			t("Edit", edit, nil, l("file_path"), l("new_string"), nil),
			t("MultiEdit", edit, nil, l("file_path", "edits[].file_path"), l("edits[].new_string"), nil),
			t("NotebookEdit", edit, nil, l("notebook_path"), l("new_source"), nil),
			t("Glob", read, nil, l("path"), nil, nil),
			t("Grep", read, nil, l("path"), nil, nil),
			t("LS", read, nil, l("path"), nil, nil),
			t("WebFetch", fetch, nil, nil, nil, l("url")),
		}, o("WebSearch", "Task", "Agent", "TodoWrite", "BashOutput", "KillShell", "KillBash", "ExitPlanMode", "SlashCommand", "Skill")...),
		// Gemini CLI (packages/core/src/tools): older versions named the read
		// path absolute_path and the search tool search_file_content.
		"gemini-cli": append([]Spec{
			t("run_shell_command", shell, l("command"), nil, nil, nil),
			t("read_file", read, nil, l("file_path", "absolute_path", "path", "target_file"), nil, nil),
			t("read_many_files", read, nil, l("include[]", "paths[]"), nil, nil),
			t("write_file", write, nil, l("file_path", "path"), l("content"), nil),
			t("replace", edit, nil, l("file_path"), l("new_string"), nil),
			t("list_directory", read, nil, l("dir_path", "path"), nil, nil),
			t("glob", read, nil, l("dir_path", "path"), nil, nil),
			t("grep_search", read, nil, l("dir_path", "path", "target_directory"), nil, nil),
			t("search_file_content", read, nil, l("dir_path", "path"), nil, nil),
			t("web_fetch", fetch, nil, nil, nil, l("url", "prompt")),
		}, o("google_web_search", "write_todos", "save_memory", "ask_user", "activate_skill", "get_internal_docs", "enter_plan_mode", "exit_plan_mode", "complete_task")...),
		// Codex: the model's tools (shell takes an argv; write_stdin types into
		// a running exec_command session) and its hook payloads, which name
		// shell-like tools Bash and put an apply_patch body in command.
		"codex": append([]Spec{
			t("shell", shell, l("command"), nil, nil, nil),
			t("local_shell", shell, l("command", "action.command"), nil, nil, nil),
			t("exec_command", shell, l("cmd", "command"), nil, nil, nil),
			t("write_stdin", shell, l("chars"), nil, nil, nil),
			t("apply_patch", patch, nil, nil, l("input", "patch", "command", ""), nil),
			t("view_image", read, nil, l("path"), nil, nil),
			t("Bash", shell, l("command"), nil, nil, nil),
		}, o("update_plan")...),
		// Cursor: preToolUse names (Shell, Read, Write, Delete, ...) and the
		// agent's model-facing tools.
		"cursor": append([]Spec{
			t("Shell", shell, l("command"), nil, nil, nil),
			t("Read", read, nil, l("file_path"), nil, nil),
			t("Write", write, nil, l("file_path"), l("content"), nil),
			t("Delete", del, nil, l("file_path", "path"), nil, nil),
			t("run_terminal_cmd", shell, l("command"), nil, nil, nil),
			t("read_file", read, nil, l("target_file"), nil, nil),
			t("edit_file", edit, nil, l("target_file"), l("code_edit"), nil),
			t("search_replace", edit, nil, l("file_path"), l("new_string"), nil),
			t("write", write, nil, l("file_path"), l("contents"), nil),
			t("delete_file", del, nil, l("target_file"), nil, nil),
			t("list_dir", read, nil, l("target_directory", "relative_workspace_path"), nil, nil),
			t("grep_search", read, nil, l("target_directory"), nil, nil),
			t("glob_file_search", read, nil, l("target_directory"), nil, nil),
		}, o("file_search", "codebase_search", "web_search", "todo_write", "create_diagram", "fetch_pull_request")...),
		// OpenCode (packages/opencode/src/tool).
		"opencode": append([]Spec{
			t("bash", shell, l("command"), nil, nil, nil),
			t("read", read, nil, l("filePath"), nil, nil),
			t("write", write, nil, l("filePath"), l("content"), nil),
			t("edit", edit, nil, l("filePath"), l("newString"), nil),
			t("multiedit", edit, nil, l("filePath", "edits[].filePath"), l("edits[].newString"), nil),
			t("patch", patch, nil, nil, l("patchText"), nil),
			t("apply_patch", patch, nil, nil, l("patchText"), nil),
			t("glob", read, nil, l("path"), nil, nil),
			t("grep", read, nil, l("path"), nil, nil),
			t("list", read, nil, l("path"), nil, nil),
			t("webfetch", fetch, nil, nil, nil, l("url")),
		}, o("websearch", "codesearch", "todowrite", "todoread", "task", "skill", "lsp", "question")...),
		// Crush (internal/agent/tools): download saves a URL to file_path.
		"crush": append([]Spec{
			t("bash", shell, l("command"), nil, nil, nil),
			t("view", read, nil, l("file_path"), nil, nil),
			t("write", write, nil, l("file_path"), l("content"), nil),
			t("edit", edit, nil, l("file_path"), l("new_string"), nil),
			t("multiedit", edit, nil, l("file_path"), l("edits[].new_string"), nil),
			t("download", fetch, nil, l("file_path"), nil, l("url")),
			t("fetch", fetch, nil, nil, nil, l("url")),
			t("web_fetch", fetch, nil, nil, nil, l("url")),
			t("agentic_fetch", fetch, nil, nil, nil, l("url")),
			t("glob", read, nil, l("path"), nil, nil),
			t("grep", read, nil, l("path"), nil, nil),
			t("ls", read, nil, l("path"), nil, nil),
			t("lsp_rename", edit, nil, l("path"), nil, nil),
			t("lsp_replace_symbol", edit, nil, l("file_path"), l("replacement"), nil),
		}, o("agent", "web_search", "sourcegraph", "job_output", "job_kill", "todos", "question", "crush_info", "crush_logs",
			"lsp_diagnostics", "lsp_references", "lsp_definition", "lsp_symbols", "lsp_call_hierarchy", "lsp_restart",
			"list_mcp_resources", "read_mcp_resource")...),
		// The seed's own names (shell_exec, file_write) and the generic names
		// the stdlib packs matched before the table existed; their locations
		// are the kind's defaults.
		"monad": {
			{Name: "shell_exec", Kind: shell}, {Name: "shell", Kind: shell}, {Name: "bash", Kind: shell}, {Name: "terminal", Kind: shell},
			{Name: "exec_command", Kind: shell}, {Name: "run_shell_command", Kind: shell},
			{Name: "read_file", Kind: read}, {Name: "file_read", Kind: read}, {Name: "view_file", Kind: read},
			{Name: "list_dir", Kind: read}, {Name: "list_directory", Kind: read}, {Name: "list_files", Kind: read},
			{Name: "grep", Kind: read}, {Name: "glob", Kind: read}, {Name: "search", Kind: read},
			{Name: "write_file", Kind: write}, {Name: "file_write", Kind: write}, {Name: "create_file", Kind: write},
			{Name: "edit_file", Kind: edit}, {Name: "file_edit", Kind: edit},
			{Name: "delete_file", Kind: del}, {Name: "file_delete", Kind: del},
			{Name: "apply_patch", Kind: patch}, {Name: "ApplyPatch", Kind: patch}, {Name: "patch", Kind: patch},
			{Name: "web_fetch", Kind: fetch}, {Name: "fetch", Kind: fetch}, {Name: "fetch_url", Kind: fetch},
			{Name: "http_request", Kind: fetch}, {Name: "browser_navigate", Kind: fetch}, {Name: "navigate", Kind: fetch},
		},
	}
}

// builtin merges agentTools once: one spec per name, its locations the
// union of every agent's (a spec with none contributes its kind's
// defaults), its Agents sorted.
var builtin = sync.OnceValue(func() []Spec {
	names := builtinNames()
	out := make([]Spec, 0, len(names))
	for n := range names {
		out = append(out, merged(n))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
})

// builtinNames is the set of the names of the built-in table.
var builtinNames = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	for _, specs := range agentTools() {
		for _, s := range specs {
			names[s.Name] = true
		}
	}
	return names
})

// merged returns the built-in spec called name (see builtin); the name
// must be one of builtinNames.
func merged(name string) Spec {
	agents := make([]string, 0, len(agentTools()))
	for a := range agentTools() {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	var m *Spec
	for _, a := range agents {
		for _, s := range agentTools()[a] {
			if s.Name != name {
				continue
			}
			loc := s.Locations()
			if m == nil {
				m = &Spec{Name: s.Name, Kind: s.Kind}
			}
			m.Agents = append(m.Agents, a)
			m.Command = union(m.Command, loc.Command)
			m.Paths = union(m.Paths, loc.Paths)
			m.Contents = union(m.Contents, loc.Contents)
			m.URLs = union(m.URLs, loc.URLs)
		}
	}
	return *m
}

// builtinCompiled holds the compiled built-in specs looked up so far, by
// name (the table a Table made by NewBuiltinTable falls back to): merging
// and compiling the whole built-in table was half of the CLI's own work in
// a start of monad-hooks run --stdlib none, which looks one tool up
// (BenchmarkCLIRunNoStdlib).
var builtinCompiled sync.Map // string -> *compiled

// builtinEntry returns the compiled built-in spec called name, nil when the
// built-in table has none.
func builtinEntry(name string) *compiled {
	if c, ok := builtinCompiled.Load(name); ok {
		return c.(*compiled)
	}
	if !builtinNames()[name] {
		return nil
	}
	s := merged(name)
	c, err := compile(s)
	if err != nil {
		// The built-in specs are valid (TestBuiltinTableValid).
		panic("tools: built-in spec " + name + ": " + err.Error())
	}
	c.spec = s
	actual, _ := builtinCompiled.LoadOrStore(name, c)
	return actual.(*compiled)
}

// BuiltinAgents returns the agents whose tool called name is in the
// built-in table, sorted, and false when the table has no such tool.
func BuiltinAgents(name string) ([]string, bool) {
	c := builtinEntry(name)
	if c == nil {
		return nil, false
	}
	return slices.Clone(c.spec.Agents), true
}

func union(a, b []string) []string {
	for _, x := range b {
		if !slices.Contains(a, x) {
			a = append(a, x)
		}
	}
	return a
}

// Builtin returns the built-in table: one spec per tool name of the agents
// the project knows, sorted by name, each with its locations and the agents
// that use the name. The caller owns the slice and everything in it.
func Builtin() []Spec {
	b := builtin()
	out := make([]Spec, len(b))
	for i, s := range b {
		out[i] = s.clone()
	}
	return out
}

// Agents returns the names of the agents of the built-in table, sorted:
// claude-code, codex, crush, cursor, gemini-cli, monad (the seed's names)
// and opencode.
func Agents() []string {
	out := make([]string, 0, len(agentTools()))
	for a := range agentTools() {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// AgentTools returns the built-in specs of one agent (its own locations, not
// merged with other agents'), sorted by name, and false for an agent the
// table does not have. Host adapters use it to know a host's tools.
func AgentTools(agent string) ([]Spec, bool) {
	specs, ok := agentTools()[agent]
	if !ok {
		return nil, false
	}
	out := make([]Spec, len(specs))
	for i, s := range specs {
		out[i] = s.clone()
		out[i].Agents = []string{agent}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, true
}

func (s Spec) clone() Spec {
	s.Command = slices.Clone(s.Command)
	s.Paths = slices.Clone(s.Paths)
	s.Contents = slices.Clone(s.Contents)
	s.URLs = slices.Clone(s.URLs)
	s.Agents = slices.Clone(s.Agents)
	return s
}
