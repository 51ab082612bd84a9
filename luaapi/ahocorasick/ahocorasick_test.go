package ahocorasick

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type hit struct{ start, k int }

// naive lists the occurrences as Scan promises them: by end, the longest
// first among those that end at the same byte (then in keyword order).
func naive(keywords []string, text string) []hit {
	var out []hit
	for end := 1; end <= len(text); end++ {
		var at []hit
		for k, w := range keywords {
			if end >= len(w) && text[end-len(w):end] == w {
				at = append(at, hit{end - len(w), k})
			}
		}
		for i := range at { // stable by length, longest first
			for j := i; j > 0 && len(keywords[at[j].k]) > len(keywords[at[j-1].k]); j-- {
				at[j], at[j-1] = at[j-1], at[j]
			}
		}
		out = append(out, at...)
	}
	return out
}

func scanAll(t *testing.T, m *Matcher, text string, chunk int) []hit {
	var out []hit
	state := int32(0)
	for lo := 0; lo < len(text); lo += chunk {
		var done bool
		state, done = m.Scan(text, lo, min(lo+chunk, len(text)), state, func(start, k int) bool {
			out = append(out, hit{start, k})
			return true
		})
		require.True(t, done)
	}
	return out
}

// wordsOf returns a function that draws words of n bytes of alpha from r.
func wordsOf(r *rand.Rand) func(alpha string, n int) string {
	return func(alpha string, n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(alpha[r.IntN(len(alpha))])
		}
		return b.String()
	}
}

func TestMatchesNaiveSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := wordsOf(r)
	for round := range 300 {
		alpha := "abc"
		if round%3 == 0 {
			alpha = "ab\x00\xff-"
		}
		kws := make([]string, 1+r.IntN(12))
		for i := range kws {
			kws[i] = word(alpha, 1+r.IntN(5))
		}
		m, err := New(kws)
		require.NoError(t, err)
		text := word(alpha+"xyz", r.IntN(200))
		want := naive(kws, text)
		for _, chunk := range []int{1, 7, 1 << 20} {
			require.Equal(t, want, scanAll(t, m, text, chunk), "keywords %q text %q chunk %d", kws, text, chunk)
		}
	}
}

// TestFoldedMatchesLowercase: NewFolded's matcher over a text finds what
// New's matcher of the lowercased keywords finds in the text with its
// ASCII letters lowercased.
func TestFoldedMatchesLowercase(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	word := wordsOf(r)
	lower := func(s string) string {
		b := []byte(s)
		for i := range b {
			b[i] = lowerASCII(b[i])
		}
		return string(b)
	}
	for range 300 {
		alpha := "aAbB-_\xff["
		kws := make([]string, 1+r.IntN(12))
		for i := range kws {
			kws[i] = word(alpha, 1+r.IntN(5))
		}
		folded, err := NewFolded(kws)
		require.NoError(t, err)
		low := make([]string, len(kws))
		for i, k := range kws {
			low[i] = lower(k)
		}
		plain, err := New(low)
		require.NoError(t, err)
		text := word(alpha+"xyzXYZ@`{", r.IntN(200))
		want := scanAll(t, plain, lower(text), 1<<20)
		require.Equal(t, naive(low, lower(text)), want)
		for _, chunk := range []int{1, 7, 1 << 20} {
			require.Equal(t, want, scanAll(t, folded, text, chunk), "keywords %q text %q chunk %d", kws, text, chunk)
		}
	}
}

func TestEveryByte(t *testing.T) {
	var kws []string
	for b := range 256 {
		kws = append(kws, string([]byte{byte(b), byte(255 - b)}))
	}
	m, err := New(kws)
	require.NoError(t, err)
	text := "\x00\xff\x01\xfe\x10"
	require.Equal(t, naive(kws, text), scanAll(t, m, text, 3))
}

func TestStopsWhenEmitSaysSo(t *testing.T) {
	m, err := New([]string{"a"})
	require.NoError(t, err)
	n := 0
	_, done := m.Scan("aaaa", 0, 4, 0, func(int, int) bool { n++; return n < 2 })
	require.False(t, done)
	require.Equal(t, 2, n)
}

func TestBounds(t *testing.T) {
	_, err := New([]string{"a", ""})
	require.ErrorIs(t, err, ErrEmptyKeyword)
	var kws []string
	for b := range 256 {
		kws = append(kws, strings.Repeat(string(rune('a'+b%26)), 64)+string([]byte{byte(b)}))
	}
	_, err = New(append(kws, strings.Repeat("z", MaxTable/256)))
	require.ErrorContains(t, err, "table of more than")
}

// TestCheckAgreesWithNew: Check fails exactly where New fails, with the
// same error, at the bound of the table and around it.
func TestCheckAgreesWithNew(t *testing.T) {
	var every []string // every byte: 256 classes
	for b := range 256 {
		every = append(every, string([]byte{byte(b)}))
	}
	few := []string{"ab", "abc", "b"}
	cases := [][]string{nil, {"a"}, {"a", ""}, few, every}
	for _, base := range [][]string{few, every} {
		classes := 257
		if len(base) == len(few) {
			classes = 4
		}
		total := 0
		for _, k := range base {
			total += len(k)
		}
		// the longest extra keyword of a byte already used that fits, and one more
		fit := MaxTable/min(classes, 256) - 1 - total
		cases = append(cases, append(slices.Clone(base), strings.Repeat("a", fit)), append(slices.Clone(base), strings.Repeat("a", fit+1)))
	}
	for i, kws := range cases {
		_, err := New(kws)
		cerr := Check(kws)
		if err == nil {
			require.NoError(t, cerr, "case %d", i)
		} else {
			require.EqualError(t, cerr, err.Error(), "case %d", i)
		}
	}
	require.Error(t, Check(cases[len(cases)-1]))
	require.NoError(t, Check(cases[len(cases)-2]))
}

func BenchmarkScan(b *testing.B) {
	kws := []string{"ghp_", "github_pat_", "AKIA", "xox", "sk-", "-----BEGIN", "eyJ", "://", "AIza", "glpat-", "npm_", "hf_", "SK", "key-"}
	text := strings.Repeat("2026-01-15T10:20:30Z INFO  server: listening on 0.0.0.0:8080 (pid 4242) and more plain text\n", 1<<13)
	m, err := New(kws)
	require.NoError(b, err)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		m.Scan(text, 0, len(text), 0, func(int, int) bool { return true })
	}
}
