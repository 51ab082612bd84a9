package events_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/monad-hooks/monad-hooks/events"
)

// TestCutText: a text over its bound is cut to at most the bound, at a
// character boundary, and ends in the marker; a text within it is itself;
// a cut text joined with more and cut again has one marker.
func TestCutText(t *testing.T) {
	assert.Equal(t, "short", events.CutText("short", 64))
	assert.Equal(t, strings.Repeat("x", 64), events.CutText(strings.Repeat("x", 64), 64))

	for _, s := range []string{strings.Repeat("x", 1<<20), strings.Repeat("é", 1<<19), strings.Repeat("日本", 1<<18)} {
		for _, max := range []int{64, 100, 1000, events.MaxReasonSize, events.MaxContextSize} {
			got := events.CutText(s, max)
			assert.LessOrEqual(t, len(got), max)
			assert.Greater(t, len(got), max-4, "cut at most a character below the bound")
			assert.True(t, utf8.ValidString(got), "cut at a character boundary")
			assert.True(t, strings.HasPrefix(s, got[:strings.Index(got, " … [cut to its")]), "a prefix of the text")
			assert.True(t, strings.HasSuffix(got, "bound by monad-hooks]"), got)

			again := events.CutText(got+"\n\n"+s, max)
			assert.LessOrEqual(t, len(again), max)
			assert.Equal(t, 1, strings.Count(again, "bound by monad-hooks]"), "one marker after a join")
		}
	}
	assert.True(t, strings.HasSuffix(events.CutText(strings.Repeat("x", 1<<20), events.MaxReasonSize), " … [cut to its 16 KiB bound by monad-hooks]"))
	assert.True(t, strings.HasSuffix(events.CutText(strings.Repeat("x", 200), 100), " … [cut to its 100 bytes bound by monad-hooks]"))
	assert.Equal(t, "xxxxx", events.CutText(strings.Repeat("x", 200), 5), "a bound below the marker's size: the prefix alone")
}
