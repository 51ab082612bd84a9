// Package textdiff prints the difference between two texts as a unified
// diff (the format of diff -u and git diff), for a person to read before a
// file is changed. It imports nothing of this module; its functions are
// pure and safe for concurrent use.
package textdiff

import (
	"fmt"
	"strings"
)

// MaxLines bounds the lines compared line by line once the common start
// and end are set aside: a longer middle is shown as removed and added
// whole, so that a diff costs at most MaxLines x MaxLines steps.
const MaxLines = 2000

// context is the number of unchanged lines shown around a change.
const context = 3

// Unified returns the unified diff of a (called aName) and b (bName), or ""
// when they are equal. A text that does not end in a newline is compared
// as if it did.
func Unified(aName, bName, a, b string) string {
	if a == b {
		return ""
	}
	al, bl := lines(a), lines(b)
	ops := diff(al, bl)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk: from context lines before the change to context lines
		// after the last change that is at most 2*context lines away.
		start := max(i-context, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
			} else if j-end > 2*context {
				break
			}
		}
		end = min(end+context+1, len(ops))
		aStart, bStart, aN, bN := ops[start].a, ops[start].b, 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				aN++
			}
			if o.kind != '-' {
				bN++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", span(aStart, aN), span(bStart, bN))
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.text)
			out.WriteByte('\n')
		}
		i = end
	}
	return out.String()
}

// span is a hunk's line range: 1-based start and count (start is the line
// before when the count is 0).
func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// op is one line of the edit script: ' ' kept, '-' removed, '+' added;
// a and b are the numbers of lines of each text before it.
type op struct {
	kind byte
	text string
	a, b int
}

// diff returns the edit script turning a into b: the common start and end
// kept, the middle by longest common subsequence when it fits MaxLines.
func diff(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	var ops []op
	ai, bi := 0, 0
	emit := func(kind byte, text string) {
		ops = append(ops, op{kind, text, ai, bi})
		if kind != '+' {
			ai++
		}
		if kind != '-' {
			bi++
		}
	}
	for _, l := range a[:pre] {
		emit(' ', l)
	}
	if len(am) > MaxLines || len(bm) > MaxLines {
		for _, l := range am {
			emit('-', l)
		}
		for _, l := range bm {
			emit('+', l)
		}
	} else {
		// lcs[i][j] is the length of the LCS of am[i:] and bm[j:].
		w := len(bm) + 1
		lcs := make([]int32, (len(am)+1)*w)
		for i := len(am) - 1; i >= 0; i-- {
			for j := len(bm) - 1; j >= 0; j-- {
				if am[i] == bm[j] {
					lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
				} else {
					lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(am) || j < len(bm) {
			switch {
			case i < len(am) && j < len(bm) && am[i] == bm[j]:
				emit(' ', am[i])
				i, j = i+1, j+1
			case i < len(am) && (j == len(bm) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
				emit('-', am[i])
				i++
			default:
				emit('+', bm[j])
				j++
			}
		}
	}
	for _, l := range a[len(a)-suf:] {
		emit(' ', l)
	}
	return ops
}
