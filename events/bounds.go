package events

import (
	"strconv"
	"unicode/utf8"
)

// The bounds of the text an [Output] hands to the host: what a hook says
// about the action (its reasons) and what it adds to the model's context.
// The engine cuts a longer text to its bound with [CutText], so that a
// hook cannot flood the host or the model with it; the decision stays what
// the hook returned (a deny with a cut reason is still a deny). Payload
// rewrites (mutatedPrompt, mutatedToolInput, updatedToolOutput,
// mutatedRequest, mutatedText) are never cut, since a cut payload is a
// different payload: they are bounded by what a hook can return at all.
const (
	// MaxReasonSize bounds a reason in bytes: Output.Reason and
	// ContinueWork.Reason (which an agent reads as its next prompt).
	MaxReasonSize = 16 << 10
	// MaxContextSize bounds additionalContext in bytes: what one hook
	// returns, and what one dispatch injects in total (the contexts of
	// all its hooks, and the context stashed at SessionStart).
	MaxContextSize = 64 << 10
	// MaxModelSize bounds modelOverride in bytes, a model's name: a
	// longer one is refused whole, never cut (a cut name is another
	// model).
	MaxModelSize = 1 << 10
)

// CutText returns s when it is at most max bytes long. Otherwise it
// returns a prefix of s, cut at a UTF-8 character boundary, followed by a
// marker that says the text was cut and to what bound, together at most
// max bytes (for max at least 64; a smaller max returns the prefix alone).
// A text cut to max, with more text joined after it and cut to max again,
// has one marker, at its end.
func CutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	marker := cutMarker(max)
	n := max - len(marker)
	if n < 0 {
		n, marker = max, ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + marker
}

// cutMarker is the marker CutText appends for the bound max.
func cutMarker(max int) string {
	bound := strconv.Itoa(max) + " bytes"
	if max >= 1<<10 && max%(1<<10) == 0 {
		bound = strconv.Itoa(max>>10) + " KiB"
	}
	return " … [cut to its " + bound + " bound by monad-hooks]"
}
