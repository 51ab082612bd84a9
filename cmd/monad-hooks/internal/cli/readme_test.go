package cli_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readme returns the project's README.md.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../../../README.md")
	require.NoError(t, err)
	return string(b)
}

// fenced returns the body of the first ```lang block after the heading.
func fenced(t *testing.T, doc, heading, lang string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+heading+"\n")
	require.GreaterOrEqual(t, i, 0, "README has no heading %q", heading)
	m := regexp.MustCompile("(?s)\n```" + lang + "\n(.*?)\n```\n").FindStringSubmatch(doc[i:])
	require.NotNil(t, m, "no ```%s block under %q", lang, heading)
	return m[1]
}

// TestReadmeResult runs the README's quick start command and compares its
// output with the Result the README shows, but for the latency (issue
// 14.4: the README's audit line is real output).
func TestReadmeResult(t *testing.T) {
	t.Parallel()
	doc := readme(t)
	cmd := fenced(t, doc, "## Quick start", "sh")
	m := regexp.MustCompile(`^echo '(.*)' \| go run \./cmd/monad-hooks (.*)$`).FindStringSubmatch(cmd)
	require.NotNil(t, m, "the quick start command changed shape: %q", cmd)
	dir := t.TempDir()
	o := mh(t, dir, m[1], strings.Fields(m[2])...)
	require.Equal(t, 0, o.code, o.stderr)

	var got, want map[string]any
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &got), o.stdout)
	require.NoError(t, json.Unmarshal([]byte(fenced(t, doc, "## The result", "json")), &want))
	for _, r := range []map[string]any{got, want} {
		for _, rec := range r["audit"].([]any) {
			rec.(map[string]any)["latencyMs"] = "varies"
		}
	}
	assert.Equal(t, want, got)
}
