package tools

import (
	"slices"
	"sort"
	"strings"
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

// agentTable is the tool tables of the agents the project knows, sorted
// by agent: constant data, which the linker lays out, so that no start of
// the CLI builds it (BenchmarkCLIRunNoStdlib).
var agentTable = []agentSpecs{
	// Claude Code: the hook payload's tool_name and tool_input.
	{"claude-code", []Spec{
		{Name: "Bash", Kind: shell, Command: []string{"command"}},
		// PowerShell: Bash's input, run by PowerShell (on Windows without
		// Git Bash, every shell command goes through it)
		{Name: "PowerShell", Kind: shell, Command: []string{"command"}, Shell: "powershell"},
		{Name: "Read", Kind: read, Paths: []string{"file_path"}},
		{Name: "Write", Kind: write, Paths: []string{"file_path"}, Contents: []string{"content"}},
		{Name: "Edit", Kind: edit, Paths: []string{"file_path"}, Contents: []string{"new_string"}},
		{Name: "MultiEdit", Kind: edit, Paths: []string{"file_path", "edits[].file_path"}, Contents: []string{"edits[].new_string"}},
		{Name: "NotebookEdit", Kind: edit, Paths: []string{"notebook_path"}, Contents: []string{"new_source"}},
		{Name: "Glob", Kind: read, Paths: []string{"path"}},
		{Name: "Grep", Kind: read, Paths: []string{"path"}},
		{Name: "LS", Kind: read, Paths: []string{"path"}},
		{Name: "WebFetch", Kind: fetch, URLs: []string{"url"}},
		{Name: "WebSearch", Kind: others}, {Name: "Task", Kind: others}, {Name: "Agent", Kind: others},
		{Name: "TodoWrite", Kind: others}, {Name: "BashOutput", Kind: others}, {Name: "KillShell", Kind: others},
		{Name: "KillBash", Kind: others}, {Name: "ExitPlanMode", Kind: others}, {Name: "SlashCommand", Kind: others},
		{Name: "Skill", Kind: others},
	}},
	// Codex: the model's tools (shell takes an argv; write_stdin types into
	// a running exec_command session) and its hook payloads, which name
	// shell-like tools Bash and put an apply_patch body in command.
	{"codex", []Spec{
		{Name: "shell", Kind: shell, Command: []string{"command"}},
		{Name: "local_shell", Kind: shell, Command: []string{"command", "action.command"}},
		{Name: "exec_command", Kind: shell, Command: []string{"cmd", "command"}},
		{Name: "write_stdin", Kind: shell, Command: []string{"chars"}},
		{Name: "apply_patch", Kind: patch, Contents: []string{"input", "patch", "command", ""}},
		{Name: "view_image", Kind: read, Paths: []string{"path"}},
		{Name: "Bash", Kind: shell, Command: []string{"command"}},
		{Name: "update_plan", Kind: others},
	}},
	// Crush (internal/agent/tools): download saves a URL to file_path.
	{"crush", []Spec{
		{Name: "bash", Kind: shell, Command: []string{"command"}},
		{Name: "view", Kind: read, Paths: []string{"file_path"}},
		{Name: "write", Kind: write, Paths: []string{"file_path"}, Contents: []string{"content"}},
		{Name: "edit", Kind: edit, Paths: []string{"file_path"}, Contents: []string{"new_string"}},
		{Name: "multiedit", Kind: edit, Paths: []string{"file_path"}, Contents: []string{"edits[].new_string"}},
		{Name: "download", Kind: fetch, Paths: []string{"file_path"}, URLs: []string{"url"}},
		{Name: "fetch", Kind: fetch, URLs: []string{"url"}},
		{Name: "web_fetch", Kind: fetch, URLs: []string{"url"}},
		{Name: "agentic_fetch", Kind: fetch, URLs: []string{"url"}},
		{Name: "glob", Kind: read, Paths: []string{"path"}},
		{Name: "grep", Kind: read, Paths: []string{"path"}},
		{Name: "ls", Kind: read, Paths: []string{"path"}},
		{Name: "lsp_rename", Kind: edit, Paths: []string{"path"}},
		{Name: "lsp_replace_symbol", Kind: edit, Paths: []string{"file_path"}, Contents: []string{"replacement"}},
		{Name: "agent", Kind: others}, {Name: "web_search", Kind: others}, {Name: "sourcegraph", Kind: others},
		{Name: "job_output", Kind: others}, {Name: "job_kill", Kind: others}, {Name: "todos", Kind: others},
		{Name: "question", Kind: others}, {Name: "crush_info", Kind: others}, {Name: "crush_logs", Kind: others},
		{Name: "lsp_diagnostics", Kind: others}, {Name: "lsp_references", Kind: others}, {Name: "lsp_definition", Kind: others},
		{Name: "lsp_symbols", Kind: others}, {Name: "lsp_call_hierarchy", Kind: others}, {Name: "lsp_restart", Kind: others},
		{Name: "list_mcp_resources", Kind: others}, {Name: "read_mcp_resource", Kind: others},
	}},
	// Cursor: preToolUse names (Shell, Read, Write, Delete, ...) and the
	// agent's model-facing tools.
	{"cursor", []Spec{
		{Name: "Shell", Kind: shell, Command: []string{"command"}},
		{Name: "Read", Kind: read, Paths: []string{"file_path"}},
		{Name: "Write", Kind: write, Paths: []string{"file_path"}, Contents: []string{"content"}},
		{Name: "Delete", Kind: del, Paths: []string{"file_path", "path"}},
		{Name: "run_terminal_cmd", Kind: shell, Command: []string{"command"}},
		{Name: "read_file", Kind: read, Paths: []string{"target_file"}},
		{Name: "edit_file", Kind: edit, Paths: []string{"target_file"}, Contents: []string{"code_edit"}},
		{Name: "search_replace", Kind: edit, Paths: []string{"file_path"}, Contents: []string{"new_string"}},
		{Name: "write", Kind: write, Paths: []string{"file_path"}, Contents: []string{"contents"}},
		{Name: "delete_file", Kind: del, Paths: []string{"target_file"}},
		{Name: "list_dir", Kind: read, Paths: []string{"target_directory", "relative_workspace_path"}},
		{Name: "grep_search", Kind: read, Paths: []string{"target_directory"}},
		{Name: "glob_file_search", Kind: read, Paths: []string{"target_directory"}},
		{Name: "file_search", Kind: others}, {Name: "codebase_search", Kind: others}, {Name: "web_search", Kind: others},
		{Name: "todo_write", Kind: others}, {Name: "create_diagram", Kind: others}, {Name: "fetch_pull_request", Kind: others},
	}},
	// Gemini CLI (packages/core/src/tools): older versions named the read
	// path absolute_path and the search tool search_file_content.
	{"gemini-cli", []Spec{
		{Name: "run_shell_command", Kind: shell, Command: []string{"command"}},
		{Name: "read_file", Kind: read, Paths: []string{"file_path", "absolute_path", "path", "target_file"}},
		{Name: "read_many_files", Kind: read, Paths: []string{"include[]", "paths[]"}},
		{Name: "write_file", Kind: write, Paths: []string{"file_path", "path"}, Contents: []string{"content"}},
		{Name: "replace", Kind: edit, Paths: []string{"file_path"}, Contents: []string{"new_string"}},
		{Name: "list_directory", Kind: read, Paths: []string{"dir_path", "path"}},
		{Name: "glob", Kind: read, Paths: []string{"dir_path", "path"}},
		{Name: "grep_search", Kind: read, Paths: []string{"dir_path", "path", "target_directory"}},
		{Name: "search_file_content", Kind: read, Paths: []string{"dir_path", "path"}},
		{Name: "web_fetch", Kind: fetch, URLs: []string{"url", "prompt"}},
		{Name: "google_web_search", Kind: others}, {Name: "write_todos", Kind: others}, {Name: "save_memory", Kind: others},
		{Name: "ask_user", Kind: others}, {Name: "activate_skill", Kind: others}, {Name: "get_internal_docs", Kind: others},
		{Name: "enter_plan_mode", Kind: others}, {Name: "exit_plan_mode", Kind: others}, {Name: "complete_task", Kind: others},
	}},
	// The seed's own names (shell_exec, file_write) and the generic names
	// the stdlib packs matched before the table existed; their locations
	// are the kind's defaults.
	{"monad", []Spec{
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
	}},
	// OpenCode (packages/opencode/src/tool).
	{"opencode", []Spec{
		{Name: "bash", Kind: shell, Command: []string{"command"}},
		{Name: "read", Kind: read, Paths: []string{"filePath"}},
		{Name: "write", Kind: write, Paths: []string{"filePath"}, Contents: []string{"content"}},
		{Name: "edit", Kind: edit, Paths: []string{"filePath"}, Contents: []string{"newString"}},
		{Name: "multiedit", Kind: edit, Paths: []string{"filePath", "edits[].filePath"}, Contents: []string{"edits[].newString"}},
		{Name: "patch", Kind: patch, Contents: []string{"patchText"}},
		{Name: "apply_patch", Kind: patch, Contents: []string{"patchText"}},
		{Name: "glob", Kind: read, Paths: []string{"path"}},
		{Name: "grep", Kind: read, Paths: []string{"path"}},
		{Name: "list", Kind: read, Paths: []string{"path"}},
		{Name: "webfetch", Kind: fetch, URLs: []string{"url"}},
		{Name: "websearch", Kind: others}, {Name: "codesearch", Kind: others}, {Name: "todowrite", Kind: others},
		{Name: "todoread", Kind: others}, {Name: "task", Kind: others}, {Name: "skill", Kind: others},
		{Name: "lsp", Kind: others}, {Name: "question", Kind: others},
	}},
}

// agentSpecs is one agent's tools.
type agentSpecs struct {
	agent string
	specs []Spec
}

// builtin merges agentTable once: one spec per name, its locations the
// union of every agent's (a spec with none contributes its kind's
// defaults), its Agents sorted. It is a function over a sync.Once, not a
// sync.OnceValue, which package initialisation would build
// (BenchmarkCLIRunNoStdlib).
func builtin() []Spec {
	builtinOnce.Do(func() { builtinSpecs = mergeBuiltin() })
	return builtinSpecs
}

var (
	builtinOnce  sync.Once
	builtinSpecs []Spec
)

// mergeBuiltin is builtin's work.
func mergeBuiltin() []Spec {
	names := map[string]bool{}
	for _, a := range agentTable {
		for _, s := range a.specs {
			names[s.Name] = true
		}
	}
	out := make([]Spec, 0, len(names))
	for n := range names {
		s, _ := merged(n)
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// merged returns the built-in spec called name (see builtin), and false
// when no agent has a tool called name.
func merged(name string) (Spec, bool) {
	var m *Spec
	for _, a := range agentTable {
		for _, s := range a.specs {
			if s.Name != name {
				continue
			}
			loc := s.Locations()
			if m == nil {
				m = &Spec{Name: s.Name, Kind: s.Kind, Shell: s.Shell}
			}
			m.Agents = append(m.Agents, a.agent)
			m.Command = union(m.Command, loc.Command)
			m.Paths = union(m.Paths, loc.Paths)
			m.Contents = union(m.Contents, loc.Contents)
			m.URLs = union(m.URLs, loc.URLs)
		}
	}
	if m == nil {
		return Spec{}, false
	}
	return *m, true
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
	s, ok := merged(name)
	if !ok {
		return nil
	}
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
	out := make([]string, len(agentTable))
	for i, a := range agentTable {
		out[i] = a.agent
	}
	return out
}

// AgentTools returns the built-in specs of one agent (its own locations, not
// merged with other agents'), sorted by name, and false for an agent the
// table does not have. Host adapters use it to know a host's tools.
func AgentTools(agent string) ([]Spec, bool) {
	i, ok := slices.BinarySearchFunc(agentTable, agent, func(a agentSpecs, name string) int { return strings.Compare(a.agent, name) })
	if !ok {
		return nil, false
	}
	specs := agentTable[i].specs
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
