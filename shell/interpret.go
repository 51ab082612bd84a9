package shell

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/monad-hooks/monad-hooks/events"
)

// DefaultDenyReason is the reason of a deny whose hook printed nothing on
// stderr.
const DefaultDenyReason = "denied by command hook (exit 2)"

// Interpret maps what a command hook did to the hook contract. It is the
// one place that does, so a fake [Runner] gets the same treatment as
// [Exec]. The rules, in order:
//
//   - runErr non-nil (the hook could not start, timed out, was canceled or
//     overran its stdout cap): runErr itself, unchanged;
//   - ended by a signal (Signal set or ExitCode negative): an error
//     matching [ErrSignal];
//   - exit 2: a deny, whatever stdout holds, with stderr as the reason:
//     trimmed, made valid UTF-8 (invalid bytes become U+FFFD) and cut to
//     at most [MaxReason] bytes on a rune boundary (a cut reason ends in
//     "…"); [DefaultDenyReason] if stderr is blank. A stderr over its cap
//     (StderrTruncated) does not matter: the deny is not lost to a noisy
//     hook;
//   - exit 0 with output over a cap (StdoutTruncated or StderrTruncated):
//     an error matching [ErrOutputTooLarge];
//   - exit 0 with blank stdout: the zero Output (proceed) and nil;
//   - exit 0 with anything else on stdout: [events.DecodeOutput] of it; a
//     stdout that is not a single valid HookOutput object is an error
//     matching [ErrInvalidOutput] and wrapping DecodeOutput's error (an
//     [events.FieldError], [events.ErrNotObject], ...). Invalid UTF-8 inside
//     JSON strings is replaced by U+FFFD, as encoding/json does;
//   - any other exit status, including 126 (not executable) and 127
//     (command not found): an error matching [ErrExit] that quotes the
//     start of stderr.
//
// A failure is never a deny: whether a failing hook blocks (onError: deny)
// is the engine's decision. Interpret does not retain r and is safe for
// concurrent use.
func Interpret(r Result, runErr error) (events.Output, error) {
	if runErr != nil {
		return events.Output{}, runErr
	}
	switch {
	case r.Signal != "":
		return events.Output{}, fmt.Errorf("%w: %s%s", ErrSignal, r.Signal, excerpt(r.Stderr))
	case r.ExitCode < 0:
		return events.Output{}, fmt.Errorf("%w: no exit status (%d)%s", ErrSignal, r.ExitCode, excerpt(r.Stderr))
	case r.ExitCode == 2:
		reason := boundedText(r.Stderr, MaxReason)
		if reason == "" {
			reason = DefaultDenyReason
		}
		return events.Output{Decision: events.Deny, Reason: reason}, nil
	case r.ExitCode != 0:
		return events.Output{}, fmt.Errorf("%w: exit status %d%s%s", ErrExit, r.ExitCode, exitHint(r.ExitCode), excerpt(r.Stderr))
	case r.StdoutTruncated:
		return events.Output{}, fmt.Errorf("%w: stdout over its cap", ErrOutputTooLarge)
	case r.StderrTruncated:
		return events.Output{}, fmt.Errorf("%w: stderr over its cap", ErrOutputTooLarge)
	}
	if len(bytes.TrimSpace(r.Stdout)) == 0 {
		return events.Output{}, nil
	}
	out, err := events.DecodeOutput(r.Stdout)
	if err != nil {
		return events.Output{}, fmt.Errorf("%w: %w", ErrInvalidOutput, err)
	}
	return out, nil
}

// exitHint explains the exit statuses the shell itself uses.
func exitHint(code int) string {
	switch code {
	case 126:
		return " (not executable)"
	case 127:
		return " (command not found)"
	}
	return ""
}

// excerpt quotes the start of stderr for an error message, or "".
func excerpt(stderr []byte) string {
	s := boundedText(stderr, ExcerptLen)
	if s == "" {
		return ""
	}
	return ": " + s
}

// boundedText returns b trimmed of surrounding white space, as valid UTF-8
// and at most limit bytes long; a cut text ends in "…".
func boundedText(b []byte, limit int) string {
	const ellipsis = "…"
	b = bytes.TrimSpace(b)
	// Each invalid byte may become a 3-byte U+FFFD: bound the input first
	// so that the conversion costs O(limit).
	cut := len(b) > limit+utf8.UTFMax
	if cut {
		b = b[:limit+utf8.UTFMax]
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if !cut && len(s) <= limit {
		return s
	}
	i := max(min(len(s), limit-len(ellipsis)), 0)
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return strings.TrimRightFunc(s[:i], unicode.IsSpace) + ellipsis
}
