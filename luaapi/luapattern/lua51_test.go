package luapattern

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The results below are PUC Lua 5.1.5's (see also luaapi's
// TestPatternsMatchLua51, which compares the Lua functions with its
// recorded output).

// TestPositionBackReference: "()%1" refers to a position capture, which has
// no text; Lua 5.1 finds no match (it used to panic with a slice bound out
// of range).
func TestPositionBackReference(t *testing.T) {
	for _, c := range []struct{ src, pat string }{
		{"a", "()%1"}, {"aa", "(a)()%2"}, {"abc", "()%1"}, {"xx", "()x%1"}, {"l", "()%1"},
	} {
		_, found, err := FindPattern(c.src, c.pat, 0, Options{})
		require.NoError(t, err, "%q %q", c.src, c.pat)
		require.False(t, found, "%q %q", c.src, c.pat)
	}
	out, n, err := Gsub("abc", "()%1", "x", -1, Options{})
	require.NoError(t, err)
	require.Equal(t, "abc", out)
	require.Zero(t, n)
	_, found, err := Gmatch("abc", "()%1").Next(Options{})
	require.NoError(t, err)
	require.False(t, found)
}

// TestInitClamped: an init past the end of the subject is the end, where an
// empty pattern matches.
func TestInitClamped(t *testing.T) {
	m, found, err := Find("abc", "", 9, false, Options{})
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, Match{Start: 3, End: 3}, m)

	m, found, err = Find("abc", "", 9, true, Options{})
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, Match{Start: 3, End: 3}, m)

	m, found, err = FindPattern("abc", "()", 99, Options{})
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, Match{Start: 3, End: 3, Captures: []Capture{{Start: 3, End: 3, Position: true}}}, m)

	_, found, err = FindPattern("abc", ".", 99, Options{})
	require.NoError(t, err)
	require.False(t, found)
}

// TestGsubTrailingPercent: a '%' ending the replacement writes a NUL byte
// (Lua 5.1 reads the terminating NUL of its C string).
func TestGsubTrailingPercent(t *testing.T) {
	for _, c := range []struct{ src, pat, repl, want string }{
		{"abc", "b", "x%", "ax\x00c"},
		{"abc", "b", "%", "a\x00c"},
		{"abc", "", "%", "\x00a\x00b\x00c\x00"},
		{"abc", "(b)", "%1%", "ab\x00c"},
		{"abc", "b", "%%", "a%c"},
	} {
		out, _, err := Gsub(c.src, c.pat, c.repl, -1, Options{})
		require.NoError(t, err)
		require.Equal(t, c.want, out, "gsub(%q, %q, %q)", c.src, c.pat, c.repl)
	}
}

// TestGmatchCaret: gmatch does not anchor; a leading '^' matches a '^'.
func TestGmatchCaret(t *testing.T) {
	all := func(src, pat string) []string {
		var out []string
		it := Gmatch(src, pat)
		for {
			m, found, err := it.Next(Options{})
			require.NoError(t, err)
			if !found {
				return out
			}
			out = append(out, src[m.Start:m.End])
		}
	}
	require.Equal(t, []string{"^a", "^a"}, all("^a^a", "^a"))
	require.Nil(t, all("aaa", "^a"))
	require.Equal(t, []string{"^"}, all("a^b", "^"))
	require.Nil(t, all("hello", "^h"))
}
