// Package suggest finds the name a misspelt one was probably meant to be,
// for the "did you mean" hints of configuration errors (keys of a
// configuration file, parameters of a stdlib pack). It imports nothing of
// this module, and its functions are pure and safe for concurrent use.
package suggest

import "strings"

// maxName bounds the names compared: longer ones are never close, so that a
// hint costs at most 64 x 64 steps per candidate.
const maxName = 64

// Closest returns the name of known that name was most likely meant to be,
// or "" when none is close: the first that equals name but for case, else
// the first at the smallest edit distance (Levenshtein, in bytes, ignoring
// case) when that distance is 1 or 2 and at most a third of the
// candidate's length. A name or candidate longer than 64 bytes is never
// close.
func Closest(name string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(name, k) {
			return k
		}
	}
	best, bestD := "", 3
	lower := strings.ToLower(name)
	for _, k := range known {
		if d := distance(lower, strings.ToLower(k), bestD); d < bestD && d <= len(k)/3 {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b in bytes, or limit when it
// is at least limit (or either is longer than maxName).
func distance(a, b string, limit int) int {
	if len(a) > maxName || len(b) > maxName {
		return limit
	}
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}
