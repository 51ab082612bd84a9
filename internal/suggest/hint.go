package suggest

import (
	"fmt"
	"strings"
)

// DidYouMean returns ` (did you mean "x"?)` when name is probably x, one of
// known: alias(name) when alias is not nil and gives one of known (a name
// people write by habit, another tool's name for it), else [Closest]. It
// returns "" when none is close.
func DidYouMean(name string, known []string, alias func(string) string) string {
	if alias != nil {
		if a := alias(name); a != "" {
			for _, k := range known {
				if k == a {
					return fmt.Sprintf(" (did you mean %q?)", k)
				}
			}
		}
	}
	if k := Closest(name, known); k != "" {
		return fmt.Sprintf(" (did you mean %q?)", k)
	}
	return ""
}

// Hint returns [DidYouMean] followed by the list of the names known:
// ` (did you mean "x"?); want one of a, b, c`, or "; want one of a, b, c"
// when none is close. Use it where the names are few enough to list.
func Hint(name string, known []string, alias func(string) string) string {
	return DidYouMean(name, known, alias) + "; want one of " + strings.Join(known, ", ")
}
