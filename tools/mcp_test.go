package tools_test

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/tools"
)

// TestMCPTable: the MCP table's specs compile, are sorted by name (one
// entry per name), name no tool of the built-in table's kind other with
// locations, and each is listed in mcp.md.
func TestMCPTable(t *testing.T) {
	specs, _ := tools.MCPTable()
	_, err := tools.NewTable(specs...)
	require.NoError(t, err)
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
		if s.Kind == events.ToolOther {
			assert.Empty(t, s.Locations(), s.Name)
		} else {
			l := s.Locations()
			assert.NotEmpty(t, len(l.Command)+len(l.Paths)+len(l.Contents)+len(l.URLs), s.Name)
		}
	}
	assert.True(t, slices.IsSorted(names), "sorted by name")
	assert.Equal(t, len(names), len(slices.Compact(slices.Clone(names))), "one entry per name")
	doc, err := os.ReadFile("mcp.md")
	require.NoError(t, err)
	for _, n := range names {
		assert.True(t, strings.Contains(string(doc), "`"+n+"`"), "mcp.md lists %s", n)
	}
}

// TestMCPNames: every host's form of an MCP tool name resolves by its tool
// part, whatever the server; a name of another form, or whose tool part
// the table lacks, stays unknown; the host's own declarations and the
// built-in table win.
func TestMCPNames(t *testing.T) {
	tab, err := tools.NewBuiltinTable(tools.Spec{Name: "mcp__mine__write_file", Kind: events.ToolOther})
	require.NoError(t, err)
	in := map[string]any{"path": "/etc/passwd", "content": "x"}
	for _, name := range []string{
		"mcp__filesystem__write_file", "mcp__fs-2__write_file", "mcp__plugin_a_b__write_file",
		"mcp_filesystem_write_file", "mcp_my_fs_server_write_file", "MCP:write_file", "filesystem__write_file",
	} {
		v := tab.View(name, in)
		if assert.NotNil(t, v, name) {
			assert.Equal(t, &events.ToolView{Kind: events.ToolWrite, Paths: []string{"/etc/passwd"}, Contents: []string{"x"}}, v, name)
		}
		s, ok := tab.Lookup(name)
		assert.True(t, ok, name)
		assert.Equal(t, name, s.Name)
		assert.True(t, tab.Known(name, in), name)
	}
	for _, name := range []string{"mcp__filesystem__", "mcp__write_file", "mcp_write_file", "MCP:nope", "mcp__x__nope", "x_write_file", "__write_file", "mcp__x__write_file_2"} {
		assert.Equal(t, events.ToolKind(""), tab.Kind(name), name)
		assert.False(t, tab.Known(name, in), name)
		assert.Nil(t, tab.View(name, in), name)
	}
	assert.Equal(t, events.ToolOther, tab.Kind("mcp__mine__write_file"), "declared wins")
	assert.Equal(t, &events.ToolView{Kind: events.ToolWrite, Paths: []string{"/a"}}, tab.View("write_file", map[string]any{"file_path": "/a"}), "built-in wins")
	// mcp_SERVER_TOOL: the longest tool part in the table.
	assert.Equal(t, events.ToolShell, tab.Kind("mcp_desktop_commander_execute_command"))
	assert.Equal(t, events.ToolQuery, tab.Kind("mcp_db_run_sql"))
	// A plain table (NewTable) knows only its specs.
	plain, err := tools.NewTable()
	require.NoError(t, err)
	assert.False(t, plain.Known("mcp__fs__write_file", in))
}

// TestMCPFit: an MCP entry applies only to inputs that hold one of the
// fields it reads and none of another server's; kind other applies to
// every input.
func TestMCPFit(t *testing.T) {
	tab, err := tools.NewBuiltinTable()
	require.NoError(t, err)
	cases := []struct {
		name  string
		input any
		want  *events.ToolView
	}{
		{"mcp__pg__query", map[string]any{"sql": "DROP TABLE users"}, &events.ToolView{Kind: events.ToolQuery, Contents: []string{"DROP TABLE users"}}},
		{"mcp__search__query", map[string]any{"query": "drop table tutorial"}, nil},
		{"mcp__pg__query", nil, nil},
		{"mcp__pg__query", "DROP TABLE users", nil},
		{"mcp__db__execute_sql", map[string]any{"query": "DELETE FROM t", "project_id": "p"}, &events.ToolView{Kind: events.ToolQuery, Contents: []string{"DELETE FROM t"}}},
		{"mcp__github__delete_file", map[string]any{"owner": "o", "repo": "r", "path": "src/a.go", "message": "m"}, nil},
		{"mcp__fs__delete_file", map[string]any{"path": "/etc/hosts"}, &events.ToolView{Kind: events.ToolDelete, Paths: []string{"/etc/hosts"}}},
		{"mcp__github__write_file", map[string]any{"owner": "o", "repo": "r", "path": "a", "content": "x"}, nil},
		{"mcp__fs__move_file", map[string]any{"source": "/a", "destination": "/b"}, &events.ToolView{Kind: events.ToolWrite, Paths: []string{"/a", "/b"}}},
		{"mcp__fs__edit_file", map[string]any{"path": "/a", "edits": []any{map[string]any{"oldText": "x", "newText": "y"}}}, &events.ToolView{Kind: events.ToolEdit, Paths: []string{"/a"}, Contents: []string{"y"}}},
		{"mcp__memory__read_graph", nil, &events.ToolView{Kind: events.ToolOther}},
		{"mcp__memory__create_entities", map[string]any{"entities": []any{}}, &events.ToolView{Kind: events.ToolOther}},
		{"mcp__shell__shell_execute", map[string]any{"command": []any{"rm", "-rf", "/"}}, &events.ToolView{Kind: events.ToolShell, Command: "rm -rf /"}},
		{"mcp__pw__browser_navigate", map[string]any{"url": "https://x.test/"}, &events.ToolView{Kind: events.ToolFetch, URLs: []string{"https://x.test/"}}},
		// Command-line twins of tools that take fields.
		{"mcp__git__git_push", map[string]any{"path": "/r", "branch": "main", "force": true}, &events.ToolView{Kind: events.ToolShell, Command: "git push --force origin main", Paths: []string{"/r"}}},
		{"mcp__git__git_push", map[string]any{"path": "/r", "remote": "up", "delete": true, "remoteBranch": "old branch"}, &events.ToolView{Kind: events.ToolShell, Command: "git push --delete up 'old branch'", Paths: []string{"/r"}}},
		{"mcp__git__git_reset", map[string]any{"repo_path": "/r"}, &events.ToolView{Kind: events.ToolShell, Command: "git reset", Paths: []string{"/r"}}},
		{"mcp__git__git_reset", map[string]any{"path": "/r", "mode": "hard", "target": "HEAD~1"}, &events.ToolView{Kind: events.ToolShell, Command: "git reset --hard 'HEAD~1'", Paths: []string{"/r"}}},
		{"mcp__git__git_reset", map[string]any{"path": "/r", "mode": "--hard; rm -rf /"}, &events.ToolView{Kind: events.ToolShell, Command: "git reset", Paths: []string{"/r"}}},
		{"mcp__git__git_clean", map[string]any{"path": "/r", "force": true, "directories": true, "ignored": true}, &events.ToolView{Kind: events.ToolShell, Command: "git clean -f -d -x", Paths: []string{"/r"}}},
		{"mcp__git__git_stash", map[string]any{"path": "/r", "mode": "drop", "stashRef": "stash@{0}"}, &events.ToolView{Kind: events.ToolShell, Command: "git stash drop 'stash@{0}'", Paths: []string{"/r"}}},
		{"mcp__git__git_branch", map[string]any{"path": "/r", "mode": "delete", "branchName": "main", "force": true}, &events.ToolView{Kind: events.ToolShell, Command: "git branch -D main", Paths: []string{"/r"}}},
		{"mcp__git__git_branch", map[string]any{"repo_path": "/r", "branch_type": "all"}, &events.ToolView{Kind: events.ToolShell, Command: "git branch -a", Paths: []string{"/r"}}},
		{"mcp__git__git_checkout", map[string]any{"path": "/r", "target": "HEAD", "paths": []any{"a b", "."}, "force": true}, &events.ToolView{Kind: events.ToolShell, Command: "git checkout -f HEAD -- 'a b' .", Paths: []string{"/r"}}},
		{"mcp__git__git_checkout", map[string]any{"repo_path": "/r", "branch_name": "main"}, &events.ToolView{Kind: events.ToolShell, Command: "git checkout main", Paths: []string{"/r"}}},
		{"mcp__github__delete_repository", map[string]any{"owner": "acme", "repo": "api"}, &events.ToolView{Kind: events.ToolShell, Command: "gh repo delete acme/api"}},
		{"mcp__github__actions_run_trigger", map[string]any{"method": "delete_workflow_run_logs", "run_id": float64(987654321)}, &events.ToolView{Kind: events.ToolShell, Command: "gh run delete 987654321"}},
		{"mcp__github__actions_run_trigger", map[string]any{"method": "list_workflows", "command": "rm -rf /"}, &events.ToolView{Kind: events.ToolShell}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, tab.View(c.name, c.input), "%s %v", c.name, c.input)
		assert.Equal(t, c.want != nil, tab.Known(c.name, c.input), "%s %v", c.name, c.input)
		assert.NotEqual(t, events.ToolKind(""), tab.Kind(c.name), c.name)
	}
}

// TestMCPNamesBounded: a table remembers a bounded number of MCP names,
// and answers the same beyond the bound.
func TestMCPNamesBounded(t *testing.T) {
	tab, err := tools.NewBuiltinTable()
	require.NoError(t, err)
	in := map[string]any{"command": "ls"}
	for i := range 3000 {
		name := "mcp__s" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strconv.Itoa(i) + "__run_command"
		require.True(t, tab.Known(name, in), name)
	}
	assert.LessOrEqual(t, tools.SeenNames(tab), tools.MaxSeen)
}
