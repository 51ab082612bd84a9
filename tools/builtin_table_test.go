package tools_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/tools"
)

// TestBuiltinTableValid: every spec of the built-in table compiles (a
// table made by NewBuiltinTable compiles them on lookup, where a failure
// would be a panic).
func TestBuiltinTableValid(t *testing.T) {
	_, err := tools.NewTable(tools.Builtin()...)
	require.NoError(t, err)
}

// TestBuiltinTableSameAsEager: NewBuiltinTable(mine...) answers as
// NewTable(append(Builtin(), mine...)...) for every name: specs, kinds,
// views, and its own specs replace the built-in ones.
func TestBuiltinTableSameAsEager(t *testing.T) {
	mine := []tools.Spec{{Name: "Bash", Kind: events.ToolOther}, {Name: "my_tool", Kind: events.ToolRead, Paths: []string{"p"}}}
	eager, err := tools.NewTable(append(tools.Builtin(), mine...)...)
	require.NoError(t, err)
	lazy, err := tools.NewBuiltinTable(mine...)
	require.NoError(t, err)
	input := map[string]any{"command": "ls", "file_path": "/a", "path": "/b", "p": "/c", "url": "https://x", "content": "y"}
	names := []string{"unknown"}
	for _, s := range eager.Specs() {
		names = append(names, s.Name)
	}
	for _, n := range names {
		s1, ok1 := eager.Lookup(n)
		s2, ok2 := lazy.Lookup(n)
		assert.Equal(t, ok1, ok2, n)
		assert.Equal(t, s1, s2, n)
		assert.Equal(t, eager.Kind(n), lazy.Kind(n), n)
		assert.Equal(t, eager.View(n, input), lazy.View(n, input), n)
	}
	assert.Equal(t, eager.Specs(), lazy.Specs())
	assert.Equal(t, events.ToolOther, lazy.Kind("Bash"))
	agents, ok := tools.BuiltinAgents("Bash")
	assert.True(t, ok)
	assert.Equal(t, []string{"claude-code", "codex"}, agents)
	_, ok = tools.BuiltinAgents("my_tool")
	assert.False(t, ok)
}

// TestBuiltinTableCompilesOnLookup: a table made by NewBuiltinTable
// compiles its own specs, and a built-in spec when it is first looked up,
// not the whole built-in table (BenchmarkCLIRunNoStdlib).
func TestBuiltinTableCompilesOnLookup(t *testing.T) {
	before := tools.Compiles()
	tab, err := tools.NewBuiltinTable(tools.Spec{Name: "mine", Kind: events.ToolRead})
	require.NoError(t, err)
	assert.Equal(t, int64(1), tools.Compiles()-before, "its own spec")
	assert.Equal(t, events.ToolShell, tab.Kind("write_stdin"))
	assert.Equal(t, events.ToolShell, tab.Kind("write_stdin"))
	assert.LessOrEqual(t, tools.Compiles()-before, int64(2), "one built-in spec, once")
	assert.Nil(t, tab.View("not_a_tool", nil))
	assert.LessOrEqual(t, tools.Compiles()-before, int64(2))
}

// TestBuiltinTableConcurrentLookups: lookups from several goroutines (the
// table remembers the built-in specs it resolved) agree with the eager
// table; run with -race.
func TestBuiltinTableConcurrentLookups(t *testing.T) {
	eager, err := tools.NewTable(tools.Builtin()...)
	require.NoError(t, err)
	lazy, err := tools.NewBuiltinTable()
	require.NoError(t, err)
	specs := eager.Specs()
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range specs {
				s := specs[(i*(g+1))%len(specs)]
				if lazy.Kind(s.Name) != s.Kind {
					t.Errorf("%s: kind %q, want %q", s.Name, lazy.Kind(s.Name), s.Kind)
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
}

// TestBuiltinTableSortedByAgent: the table's agents are sorted and each is
// there once (Agents, AgentTools and the order of a merged spec's
// locations rely on it).
func TestBuiltinTableSortedByAgent(t *testing.T) {
	agents := tools.TableAgents()
	require.NotEmpty(t, agents)
	for i := 1; i < len(agents); i++ {
		assert.Less(t, agents[i-1], agents[i], "agentTable is not sorted by agent, or repeats one")
	}
}
