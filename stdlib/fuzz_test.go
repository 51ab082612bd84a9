package stdlib_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

// markerRx matches the markers redact-secrets writes.
var markerRx = regexp.MustCompile(`\[REDACTED:[a-z0-9-]+\]`)

// FuzzRedactSecrets checks redact-secrets on arbitrary tool output:
//   - the hook never fails;
//   - the output is no longer than needed: every marker in the output that
//     the input did not have stands for at least one byte of the input, so
//     len(out) <= len(in) + (total length of the new markers) - (number of
//     new markers); and the text between the markers is the input's text
//     between the redacted spans, in order (nothing else is changed);
//   - redaction is idempotent: redacting the output changes nothing more.
func FuzzRedactSecrets(f *testing.F) {
	p := mustLoad(f, "redact-secrets", nil)
	redact := func(t *testing.T, s string) string {
		out := p.call(t, events.Input{Event: events.AfterTool, ToolName: "bash", ToolResult: s})
		if out.UpdatedToolOutput == nil {
			return s
		}
		r, ok := out.UpdatedToolOutput.(string)
		if !ok {
			t.Fatalf("redact %q: output of type %T", s, out.UpdatedToolOutput)
		}
		return r
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 {
			return
		}
		r := redact(t, s)
		if r == s {
			return
		}
		checkRedaction(t, s, r)
		if r2 := redact(t, r); r2 != r {
			t.Fatalf("not idempotent:\n in  %q\n out %q\n out2 %q", s, r, r2)
		}
	})
}

// checkRedaction checks that r is s with some non-empty spans replaced by
// markers: r, read as a pattern in which each marker stands for itself or
// for one or more bytes, matches all of s; and r is no longer than s plus
// the new markers' bytes minus one byte per new marker.
func checkRedaction(t *testing.T, s, r string) {
	t.Helper()
	// lits[i] is the text before markers[i]; lits[len(markers)] the rest.
	ms := markerRx.FindAllStringIndex(r, -1)
	lits := make([]string, 0, len(ms)+1)
	last := 0
	for _, m := range ms {
		lits = append(lits, r[last:m[0]])
		last = m[1]
	}
	lits = append(lits, r[last:])
	// fits(i, pos): s[pos:] is lits[i], markers[i], lits[i+1], ... with each
	// marker standing for itself or for one or more bytes.
	seen := map[[2]int]bool{}
	var fits func(i, pos int) bool
	fits = func(i, pos int) bool {
		if !strings.HasPrefix(s[pos:], lits[i]) {
			return false
		}
		pos += len(lits[i])
		if i == len(ms) {
			return pos == len(s)
		}
		key := [2]int{i, pos}
		if v, ok := seen[key]; ok {
			return v
		}
		ok := false
		marker := r[ms[i][0]:ms[i][1]]
		if strings.HasPrefix(s[pos:], marker) && fits(i+1, pos+len(marker)) {
			ok = true
		}
		for j := pos + 1; !ok && j <= len(s); j++ {
			ok = fits(i+1, j)
		}
		seen[key] = ok
		return ok
	}
	if !fits(0, 0) {
		t.Fatalf("the output is not the input with spans replaced by markers:\n in  %q\n out %q", s, r)
	}
	newMarkers, markerBytes := 0, 0
	for _, m := range markerRx.FindAllString(r, -1) {
		newMarkers++
		markerBytes += len(m)
	}
	for _, m := range markerRx.FindAllString(s, -1) {
		newMarkers--
		markerBytes -= len(m)
	}
	if len(r) > len(s)+markerBytes-newMarkers {
		t.Fatalf("output longer than needed: %d > %d + %d - %d\n in  %q\n out %q", len(r), len(s), markerBytes, newMarkers, s, r)
	}
}
