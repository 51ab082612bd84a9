package luapattern

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// work runs f with a counter and returns the steps and result bytes it
// counted.
func work(t *testing.T, f func(o Options) error) counter {
	t.Helper()
	var c counter
	require.NoError(t, f(Options{count: &c}))
	return c
}

// linearCases are calls whose cost Lua 5.1's matcher keeps linear in the
// subject (built by repeating unit n times).
var linearCases = []struct {
	name, unit string
	run        func(src string, o Options) error
}{
	{"gsub blanks", "a ", func(src string, o Options) error {
		_, _, err := Gsub(src, "%s+", "_", -1, o)
		return err
	}},
	{"gsub captures", "key=value; ", func(src string, o Options) error {
		_, _, err := Gsub(src, "(%w+)=(%w+)", "%2=%1", -1, o)
		return err
	}},
	{"gsub func", "word ", func(src string, o Options) error {
		_, _, err := GsubFunc(src, "%a+", -1, o, func(m *Match) (string, bool, error) { return "W", false, nil })
		return err
	}},
	{"gsub empty matches", "ab", func(src string, o Options) error {
		_, _, err := Gsub(src, "x*", "-", -1, o)
		return err
	}},
	{"gmatch", "one two ", func(src string, o Options) error {
		it := Gmatch(src, "(%a+)")
		for {
			_, ok, err := it.Next(o)
			if err != nil || !ok {
				return err
			}
		}
	}},
	{"find at end", "a1", func(src string, o Options) error {
		_, _, err := Find(src+"!", "%d+!$", 0, false, o)
		return err
	}},
	{"trim", "x", func(src string, o Options) error {
		_, _, err := FindPattern("  "+src+"  ", "^%s*(.-)%s*$", 0, o)
		return err
	}},
	{"balanced", "(a)", func(src string, o Options) error {
		_, _, err := Gsub(src, "%b()", "", -1, o)
		return err
	}},
	{"plain find", "ab", func(src string, o Options) error {
		_, _, err := Find(src, "abc", 0, false, o)
		return err
	}},
}

// TestLinearWork proves linear cost by counting, not by timing: for each
// case, ten times the subject costs at most ten times the matcher steps and
// result bytes, plus a constant.
func TestLinearWork(t *testing.T) {
	const n, slack = 2000, 64
	for _, c := range linearCases {
		t.Run(c.name, func(t *testing.T) {
			small := work(t, func(o Options) error { return c.run(strings.Repeat(c.unit, n), o) })
			large := work(t, func(o Options) error { return c.run(strings.Repeat(c.unit, 10*n), o) })
			require.LessOrEqual(t, large.Steps, 10*small.Steps+slack, "steps: %d for n, %d for 10n", small.Steps, large.Steps)
			require.LessOrEqual(t, large.Bytes, 10*small.Bytes+slack, "bytes: %d for n, %d for 10n", small.Bytes, large.Bytes)
		})
	}
}

// TestCountSeesBacktracking shows that the step count measures the
// matcher's work: a pattern that backtracks over the whole rest of the
// subject at each position costs quadratically many steps.
func TestCountSeesBacktracking(t *testing.T) {
	run := func(n int) counter {
		return work(t, func(o Options) error {
			_, found, err := Find(strings.Repeat("a", n), ".-b", 0, false, o)
			require.False(t, found)
			return err
		})
	}
	small, large := run(200), run(2000)
	require.Greater(t, large.Steps, 50*small.Steps, "steps: %d for n, %d for 10n", small.Steps, large.Steps)
}

// TestGsubBytesCounted: the bytes counted are the bytes of the result.
func TestGsubBytesCounted(t *testing.T) {
	var out string
	c := work(t, func(o Options) (err error) {
		out, _, err = Gsub("a b c", " ", "--", -1, o)
		return err
	})
	require.Equal(t, "a--b--c", out)
	require.Equal(t, len(out), c.Bytes)
}

var errStop = errors.New("stopped")

// catastrophic is a subject and pattern that would take about n^3/6 steps
// (4.5e9 here), far more than any test waits for.
const catastrophicPat = ".-.-.-b"

var catastrophicSrc = strings.Repeat("a", 3000)

// TestStopInterrupts: Stop is called every CheckEvery steps, and the call
// ends at the first Stop that returns an error, with that error.
func TestStopInterrupts(t *testing.T) {
	calls := map[string]func(o Options) error{
		"find": func(o Options) error {
			_, _, err := Find(catastrophicSrc, catastrophicPat, 0, false, o)
			return err
		},
		"match": func(o Options) error {
			_, _, err := FindPattern(catastrophicSrc, catastrophicPat, 0, o)
			return err
		},
		"gmatch": func(o Options) error {
			_, _, err := Gmatch(catastrophicSrc, catastrophicPat).Next(o)
			return err
		},
		"gsub": func(o Options) error {
			_, _, err := Gsub(catastrophicSrc, catastrophicPat, "", -1, o)
			return err
		},
		"gsub func": func(o Options) error {
			_, _, err := GsubFunc(catastrophicSrc, catastrophicPat, -1, o, func(*Match) (string, bool, error) { return "", true, nil })
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			var c counter
			stops := 0
			err := call(Options{count: &c, Stop: func() error {
				stops++
				if stops == 3 {
					return errStop
				}
				return nil
			}})
			require.ErrorIs(t, err, errStop)
			require.Equal(t, 3, stops)
			require.Equal(t, 3*CheckEvery, c.Steps)
		})
	}
}

// TestMaxSteps: a call ends with ErrTooManySteps at the first step past
// MaxSteps, also between two calls of Stop.
func TestMaxSteps(t *testing.T) {
	for _, budget := range []int{1, 100, CheckEvery - 1, CheckEvery, CheckEvery + 1, 3*CheckEvery + 17} {
		var c counter
		stops := 0
		_, _, err := Find(catastrophicSrc, catastrophicPat, 0, false, Options{
			count: &c, MaxSteps: budget,
			Stop: func() error { stops++; return nil },
		})
		require.ErrorIs(t, err, ErrTooManySteps, "budget %d", budget)
		require.Equal(t, budget+1, c.Steps, "budget %d", budget)
		require.Equal(t, budget/CheckEvery, stops, "budget %d", budget)
	}
	// Within the budget, the call completes.
	m, found, err := Find("hello", "l+", 0, false, Options{MaxSteps: 100})
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, Match{Start: 2, End: 4}, m)
}

// TestMaxSize: Gsub and GsubFunc fail with ErrTooLarge instead of building
// a result longer than MaxSize, and never build more than MaxSize bytes.
func TestMaxSize(t *testing.T) {
	src := strings.Repeat("a", 100)
	var c counter
	_, _, err := Gsub(src, "", "xx", -1, Options{MaxSize: 150, count: &c})
	require.ErrorIs(t, err, ErrTooLarge)
	require.LessOrEqual(t, c.Bytes, 150)
	_, _, err = GsubFunc(src, "a", -1, Options{MaxSize: 150}, func(*Match) (string, bool, error) { return "yy", false, nil })
	require.ErrorIs(t, err, ErrTooLarge)
	out, n, err := Gsub(src, "a", "b", -1, Options{MaxSize: 100})
	require.NoError(t, err)
	require.Equal(t, strings.Repeat("b", 100), out)
	require.Equal(t, 100, n)
}
