package hostkit_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
)

// TestREADMEShowsTheExample: README's embedding section is the glue of the
// package Example, line for line, and states its line count (at most 20).
func TestREADMEShowsTheExample(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	_, glue, ok := strings.Cut(string(src), "\t// glue: begin\n")
	require.True(t, ok)
	glue, _, ok = strings.Cut(glue, "\t// glue: end\n")
	require.True(t, ok)
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(glue, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	assert.LessOrEqual(t, len(lines), 20)

	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "## Embedding in Go\n")
	require.True(t, ok)
	n := strconv.Itoa(len(lines))
	assert.True(t, strings.Contains(section, "in "+n+" lines of glue"), "README does not say the glue is %s lines", n)
	_, block, ok := strings.Cut(section, "```go\n")
	require.True(t, ok)
	block, _, ok = strings.Cut(block, "```\n")
	require.True(t, ok)
	assert.Equal(t, strings.Join(lines, "\n")+"\n", block)
	assert.True(t, strings.Contains(string(src), "The glue is the "+n+" lines between the markers"), "the Example does not say the glue is %s lines", n)
}

// TestREADMEShowsTheLoop: README's agent loop is the loop of
// Example_agentLoop, line for line, and its table names the thirteen
// events.
func TestREADMEShowsTheLoop(t *testing.T) {
	src, err := os.ReadFile("loop_example_test.go")
	require.NoError(t, err)
	_, loop, ok := strings.Cut(string(src), "\t// loop: begin\n")
	require.True(t, ok)
	loop, _, ok = strings.Cut(loop, "\t// loop: end\n")
	require.True(t, ok)
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(loop, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "### A whole agent loop\n")
	require.True(t, ok)
	_, block, ok := strings.Cut(section, "```go\n")
	require.True(t, ok)
	block, _, ok = strings.Cut(block, "```\n")
	require.True(t, ok)
	assert.Equal(t, strings.Join(lines, "\n")+"\n", block)
	table, _, _ := strings.Cut(section, "```go\n")
	for _, ev := range events.All() {
		assert.Contains(t, table, "\n| "+ev.String()+" |", "the table lacks %s", ev)
	}
}
