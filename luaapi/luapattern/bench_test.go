package luapattern

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkGsub times gsub on two subject sizes; TestLinearWork is the
// proof of linear cost, this only gives figures.
func BenchmarkGsub(b *testing.B) {
	for _, n := range []int{20000, 200000} {
		src := strings.Repeat("a ", n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, _, err := Gsub(src, "%s+", "_", -1, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFind times a typical guard pattern on a short command line.
func BenchmarkFind(b *testing.B) {
	const line = "cd /tmp && sudo rm -rf --no-preserve-root / 2>/dev/null"
	for b.Loop() {
		if _, ok, err := Find(line, "rm%s+%-[%a]*r[%a]*f", 0, false, Options{}); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkBacktrack times CheckEvery steps of a catastrophically
// backtracking pattern: the longest a call runs between two checks of
// Options.Stop.
func BenchmarkBacktrack(b *testing.B) {
	for b.Loop() {
		_, _, err := Find(catastrophicSrc, catastrophicPat, 0, false, Options{MaxSteps: CheckEvery})
		if err != ErrTooManySteps {
			b.Fatal(err)
		}
	}
}
