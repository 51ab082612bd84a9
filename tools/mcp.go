package tools

import (
	"strings"
	"sync"

	"github.com/monad-hooks/monad-hooks/events"
)

const query = events.ToolQuery

// The MCP table: the tools of the MCP servers agents use most, by the
// tool's own name (the tool part of a host's MCP name, see the package
// documentation), with the kind and locations of each; mcp.md says where
// each comes from. A name several servers use is one entry, whose
// locations cover theirs.
//
// An entry applies to a call only when the call's input holds one of the
// fields its locations start with (an entry without locations, kind
// other, applies to every call) and none of its unless fields: a server
// whose tool has the same name but other fields (GitHub's delete_file,
// whose path is in a repository, not on the disk) stays unguarded rather
// than be read the wrong way.
var mcpTable = []mcpSpec{
	{spec: Spec{Name: "actions_run_trigger", Kind: shell}, keys: []string{"method"}, argv: ghRunTrigger},
	{spec: Spec{Name: "add_observations", Kind: others}},
	{spec: Spec{Name: "apply_migration", Kind: query, Contents: []string{"query"}}},
	{spec: Spec{Name: "bash", Kind: shell, Command: []string{"command"}}},
	{spec: Spec{Name: "browser_click", Kind: others}},
	{spec: Spec{Name: "browser_close", Kind: others}},
	{spec: Spec{Name: "browser_navigate", Kind: fetch, URLs: []string{"url"}}},
	{spec: Spec{Name: "browser_navigate_back", Kind: others}},
	{spec: Spec{Name: "browser_snapshot", Kind: others}},
	{spec: Spec{Name: "browser_take_screenshot", Kind: others}},
	{spec: Spec{Name: "browser_wait_for", Kind: others}},
	{spec: Spec{Name: "create_directory", Kind: write, Paths: []string{"path"}}},
	{spec: Spec{Name: "create_entities", Kind: others}},
	{spec: Spec{Name: "create_relations", Kind: others}},
	{spec: Spec{Name: "create_table", Kind: query, Contents: []string{"query", "sql"}}},
	{spec: Spec{Name: "delete_entities", Kind: others}},
	{spec: Spec{Name: "delete_file", Kind: del, Paths: []string{"path", "file_path"}}, unless: repoFields},
	{spec: Spec{Name: "delete_observations", Kind: others}},
	{spec: Spec{Name: "delete_relations", Kind: others}},
	{spec: Spec{Name: "delete_repository", Kind: shell}, keys: []string{"owner", "repo"}, argv: ghRepoDelete},
	{spec: Spec{Name: "describe_table", Kind: others}},
	{spec: Spec{Name: "directory_tree", Kind: read, Paths: []string{"path"}}},
	{spec: Spec{Name: "edit_block", Kind: edit, Paths: []string{"file_path"}, Contents: []string{"new_string"}}},
	{spec: Spec{Name: "edit_file", Kind: edit, Paths: []string{"path"}, Contents: []string{"edits[].newText"}}},
	{spec: Spec{Name: "execute-command", Kind: shell, Command: []string{"command"}}},
	{spec: Spec{Name: "execute_command", Kind: shell, Command: []string{"command"}}},
	{spec: Spec{Name: "execute_query", Kind: query, Contents: []string{"query", "sql"}}},
	{spec: Spec{Name: "execute_shell_command", Kind: shell, Command: []string{"command"}}},
	{spec: Spec{Name: "execute_sql", Kind: query, Contents: []string{"sql", "query"}}},
	{spec: Spec{Name: "fetch", Kind: fetch, URLs: []string{"url"}}},
	{spec: Spec{Name: "fetch_html", Kind: fetch, URLs: []string{"url"}}},
	{spec: Spec{Name: "fetch_json", Kind: fetch, URLs: []string{"url"}}},
	{spec: Spec{Name: "fetch_markdown", Kind: fetch, URLs: []string{"url"}}},
	{spec: Spec{Name: "fetch_txt", Kind: fetch, URLs: []string{"url"}}},
	{spec: Spec{Name: "fetch_url", Kind: fetch, URLs: []string{"url"}}},
	{spec: Spec{Name: "firecrawl_crawl", Kind: fetch, URLs: []string{"url"}}},
	{spec: Spec{Name: "firecrawl_map", Kind: fetch, URLs: []string{"url"}}},
	{spec: Spec{Name: "firecrawl_scrape", Kind: fetch, URLs: []string{"url"}}},
	{spec: Spec{Name: "get-library-docs", Kind: others}},
	{spec: Spec{Name: "get_file_info", Kind: read, Paths: []string{"path"}}},
	{spec: Spec{Name: "git_add", Kind: write, Paths: []string{"repo_path", "path"}}},
	{spec: Spec{Name: "git_branch", Kind: shell, Paths: gitDirs}, argv: gitBranch},
	{spec: Spec{Name: "git_checkout", Kind: shell, Paths: gitDirs}, argv: gitCheckout},
	{spec: Spec{Name: "git_clean", Kind: shell, Paths: gitDirs}, argv: gitClean},
	{spec: Spec{Name: "git_commit", Kind: write, Paths: []string{"repo_path", "path"}}},
	{spec: Spec{Name: "git_create_branch", Kind: write, Paths: []string{"repo_path"}}},
	{spec: Spec{Name: "git_diff", Kind: read, Paths: []string{"repo_path", "path"}}},
	{spec: Spec{Name: "git_diff_staged", Kind: read, Paths: []string{"repo_path"}}},
	{spec: Spec{Name: "git_diff_unstaged", Kind: read, Paths: []string{"repo_path"}}},
	{spec: Spec{Name: "git_init", Kind: write, Paths: []string{"repo_path"}}},
	{spec: Spec{Name: "git_log", Kind: read, Paths: []string{"repo_path", "path"}}},
	{spec: Spec{Name: "git_push", Kind: shell, Paths: gitDirs}, argv: gitPush},
	{spec: Spec{Name: "git_reset", Kind: shell, Paths: gitDirs}, argv: gitReset},
	{spec: Spec{Name: "git_show", Kind: read, Paths: []string{"repo_path", "path"}}},
	{spec: Spec{Name: "git_stash", Kind: shell, Paths: gitDirs}, argv: gitStash},
	{spec: Spec{Name: "git_status", Kind: read, Paths: []string{"repo_path", "path"}}},
	{spec: Spec{Name: "interact_with_process", Kind: shell, Command: []string{"input"}}},
	{spec: Spec{Name: "list_allowed_directories", Kind: others}},
	{spec: Spec{Name: "list_directory", Kind: read, Paths: []string{"path"}}},
	{spec: Spec{Name: "list_directory_with_sizes", Kind: read, Paths: []string{"path"}}},
	{spec: Spec{Name: "list_tables", Kind: others}},
	{spec: Spec{Name: "move_file", Kind: write, Paths: []string{"source", "destination"}}},
	{spec: Spec{Name: "mysql_query", Kind: query, Contents: []string{"sql", "query"}}},
	{spec: Spec{Name: "open_nodes", Kind: others}},
	{spec: Spec{Name: "puppeteer_click", Kind: others}},
	{spec: Spec{Name: "puppeteer_navigate", Kind: fetch, URLs: []string{"url"}}},
	{spec: Spec{Name: "puppeteer_screenshot", Kind: others}},
	// query is also the name of search tools whose query is text: only
	// its sql field is read (the reference postgres server's).
	{spec: Spec{Name: "query", Kind: query, Contents: []string{"sql"}}},
	{spec: Spec{Name: "read_file", Kind: read, Paths: []string{"path"}}},
	{spec: Spec{Name: "read_graph", Kind: others}},
	{spec: Spec{Name: "read_media_file", Kind: read, Paths: []string{"path"}}},
	{spec: Spec{Name: "read_multiple_files", Kind: read, Paths: []string{"paths[]"}}},
	// The sqlite server runs only SELECT statements given to read_query.
	{spec: Spec{Name: "read_query", Kind: others}},
	{spec: Spec{Name: "read_text_file", Kind: read, Paths: []string{"path"}}},
	{spec: Spec{Name: "resolve-library-id", Kind: others}},
	{spec: Spec{Name: "run_command", Kind: shell, Command: []string{"command"}}},
	{spec: Spec{Name: "run_process", Kind: shell, Command: []string{"command_line", "argv"}}},
	{spec: Spec{Name: "run_query", Kind: query, Contents: []string{"query", "sql"}}},
	{spec: Spec{Name: "run_shell_command", Kind: shell, Command: []string{"command"}}},
	{spec: Spec{Name: "run_sql", Kind: query, Contents: []string{"sql", "query"}}},
	{spec: Spec{Name: "search_code", Kind: read, Paths: []string{"path"}}},
	{spec: Spec{Name: "search_files", Kind: read, Paths: []string{"path"}}},
	{spec: Spec{Name: "search_nodes", Kind: others}},
	{spec: Spec{Name: "sequentialthinking", Kind: others}},
	{spec: Spec{Name: "shell", Kind: shell, Command: []string{"command"}}},
	{spec: Spec{Name: "shell_execute", Kind: shell, Command: []string{"command"}}},
	{spec: Spec{Name: "sql_query", Kind: query, Contents: []string{"sql", "query"}}},
	{spec: Spec{Name: "start_process", Kind: shell, Command: []string{"command"}}},
	{spec: Spec{Name: "start_search", Kind: read, Paths: []string{"path"}}},
	{spec: Spec{Name: "write_file", Kind: write, Paths: []string{"path"}, Contents: []string{"content"}}, unless: repoFields},
	{spec: Spec{Name: "write_query", Kind: query, Contents: []string{"query", "sql"}}},
}

// repoFields are the fields of a GitHub (or GitLab) tool's input that say
// its path lies in a repository, not on the disk.
var repoFields = []string{"owner", "repo", "project_id"}

// mcpSpec is one entry of the MCP table: a spec whose Name is the tool's
// own name, the fields of another server's tool of that name, and, for a
// tool that takes an action as fields rather than a command line (git
// tools, GitHub's), the argv of the command line it is the twin of (see
// mcpargv.go): the view's command.
type mcpSpec struct {
	spec   Spec
	unless []string
	argv   func(map[string]any) []string
	// keys, for an entry with argv and no locations, are the fields that
	// make it apply.
	keys []string
}

// fit says which inputs an MCP entry applies to (see mcpTable).
type fit struct {
	keys   []string // the first keys of its locations; none: every input
	unless []string
}

// fits reports whether c applies to a call with this input: always for a
// spec that is not an MCP entry.
func (c *compiled) fits(input any) bool {
	f := c.fit
	if f == nil {
		return true
	}
	m, ok := input.(map[string]any)
	if !ok {
		return len(f.keys) == 0
	}
	for _, k := range f.unless {
		if _, ok := m[k]; ok {
			return false
		}
	}
	if len(f.keys) == 0 {
		return true
	}
	for _, k := range f.keys {
		if m[k] != nil {
			return true
		}
	}
	return false
}

// mcpCompiled returns the MCP table compiled, by tool name, built when an
// MCP name is first looked up (over a sync.Once, not a sync.OnceValue,
// which package initialisation would build: BenchmarkCLIRunNoStdlib).
func mcpCompiled() map[string]*compiled {
	mcpOnce.Do(func() { mcpByName = compileMCP() })
	return mcpByName
}

var (
	mcpOnce   sync.Once
	mcpByName map[string]*compiled
)

// compileMCP is mcpCompiled's work.
func compileMCP() map[string]*compiled {
	out := make(map[string]*compiled, len(mcpTable))
	for _, e := range mcpTable {
		c, err := compile(e.spec)
		if err != nil {
			// The MCP specs are valid (TestMCPTable).
			panic("tools: MCP spec " + e.spec.Name + ": " + err.Error())
		}
		c.spec = e.spec.clone()
		c.argv = e.argv
		f := &fit{unless: e.unless, keys: e.keys}
		if e.keys != nil {
			// Its command is argv's alone, not the kind's default locations.
			c.command, c.paths, c.contents, c.urls = nil, nil, nil, nil
		}
		for _, locs := range [][]location{c.command, c.paths, c.contents, c.urls} {
			for _, l := range locs {
				if len(l) > 0 && !contains(f.keys, l[0].key) {
					f.keys = append(f.keys, l[0].key)
				}
			}
		}
		c.fit = f
		out[e.spec.Name] = c
	}
	return out
}

func contains(a []string, s string) bool {
	for _, x := range a {
		if x == s {
			return true
		}
	}
	return false
}

// mcpEntry returns the MCP entry of the tool called name when name has
// one of the hosts' MCP forms and its tool part is in the MCP table, nil
// otherwise. The forms (see the package documentation):
//
//	mcp__SERVER__TOOL   Claude Code, Codex
//	mcp_SERVER_TOOL     Gemini CLI (0.46 and later), Crush
//	MCP:TOOL            Cursor
//	SERVER__TOOL        Gemini CLI before 0.46, for a name two servers share
//
// In mcp_SERVER_TOOL, SERVER may hold underscores: the longest TOOL in the
// table wins.
func mcpEntry(name string) *compiled {
	switch {
	case strings.HasPrefix(name, "mcp__"):
		rest := name[len("mcp__"):]
		if i := strings.Index(rest, "__"); i > 0 {
			return mcpCompiled()[rest[i+2:]]
		}
		return nil
	case strings.HasPrefix(name, "MCP:"):
		return mcpCompiled()[name[len("MCP:"):]]
	case strings.HasPrefix(name, "mcp_"):
		rest := name[len("mcp_"):]
		for i := 1; i < len(rest)-1; i++ {
			if rest[i] == '_' {
				if c := mcpCompiled()[rest[i+1:]]; c != nil {
					return c
				}
			}
		}
		return nil
	}
	if i := strings.Index(name, "__"); i > 0 {
		return mcpCompiled()[name[i+2:]]
	}
	return nil
}
