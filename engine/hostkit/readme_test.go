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

// marked returns the lines of file between "\t// NAME: begin" and
// "\t// NAME: end", one tab less indented.
func marked(t *testing.T, file, name string) []string {
	t.Helper()
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	_, body, ok := strings.Cut(string(src), "\t// "+name+": begin\n")
	require.True(t, ok)
	body, _, ok = strings.Cut(body, "\t// "+name+": end\n")
	require.True(t, ok)
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	return lines
}

// readmeSection returns README's text after heading, and the first Go
// code block in it.
func readmeSection(t *testing.T, heading string) (section, code string) {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), heading+"\n")
	require.True(t, ok)
	_, code, ok = strings.Cut(section, "```go\n")
	require.True(t, ok)
	code, _, ok = strings.Cut(code, "```\n")
	require.True(t, ok)
	return section, code
}

// TestREADMEShowsTheExample: README's embedding section is the glue of the
// package Example, line for line, and states its line count (at most 20).
func TestREADMEShowsTheExample(t *testing.T) {
	lines := marked(t, "example_test.go", "glue")
	assert.LessOrEqual(t, len(lines), 20)
	section, block := readmeSection(t, "## Embedding in Go")
	n := strconv.Itoa(len(lines))
	assert.True(t, strings.Contains(section, "in "+n+" lines of glue"), "README does not say the glue is %s lines", n)
	assert.Equal(t, strings.Join(lines, "\n")+"\n", block)
	src, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(src), "The glue is the "+n+" lines between the markers"), "the Example does not say the glue is %s lines", n)
}

// TestREADMEShowsTheLoop: README's agent loop is the loop of
// Example_agentLoop, line for line, and its table names the thirteen
// events.
func TestREADMEShowsTheLoop(t *testing.T) {
	lines := marked(t, "loop_example_test.go", "loop")
	section, block := readmeSection(t, "### A whole agent loop")
	assert.Equal(t, strings.Join(lines, "\n")+"\n", block)
	table, _, _ := strings.Cut(section, "```go\n")
	for _, ev := range events.All() {
		assert.Contains(t, table, "\n| "+ev.String()+" |", "the table lacks %s", ev)
	}
}
