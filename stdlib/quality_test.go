package stdlib_test

import (
	"encoding/json"
	"hash/fnv"
	"os"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

// The quality targets of the packs, measured on the labelled corpora in
// testdata/ (all values fake; see expand). The measured rates are printed
// with -v and recorded in README.md.
const (
	minDangerousDenied = 0.97
	minSecretsRedacted = 0.97
)

func seedOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// secretCase is one labelled secret: the input text, the expected output
// and the kind.
type secretCase struct {
	line        int
	kind        string
	input, want string
}

func secretCases(tb testing.TB) []secretCase {
	lines, nums := readLines(tb, "secrets.txt")
	var out []secretCase
	for i, l := range lines {
		kind, tmpl, ok := strings.Cut(l, "\t")
		if !ok {
			tb.Fatalf("secrets.txt:%d: want KIND<TAB>TEMPLATE", nums[i])
		}
		text := expand(tmpl, seedOf(tmpl))
		a, b := strings.Index(text, "«"), strings.Index(text, "»")
		if a < 0 || b < a {
			tb.Fatalf("secrets.txt:%d: no «secret»", nums[i])
		}
		in := text[:a] + text[a+len("«"):b] + text[b+len("»"):]
		want := text[:a] + "[REDACTED:" + kind + "]" + text[b+len("»"):]
		out = append(out, secretCase{line: nums[i], kind: kind, input: in, want: want})
	}
	return out
}

func redactText(tb testing.TB, p *pack, s string) string {
	out := p.call(tb, events.Input{Event: events.AfterModel, Response: s})
	if out.MutatedText == nil {
		return s
	}
	return *out.MutatedText
}

func TestQualitySecrets(t *testing.T) {
	p := mustLoad(t, "redact-secrets", nil)
	cases := secretCases(t)
	kinds := map[string]bool{}
	redacted := 0
	for _, c := range cases {
		kinds[c.kind] = true
		got := redactText(t, p, c.input)
		if got == c.want {
			redacted++
		} else {
			t.Errorf("secrets.txt:%d (%s):\n in: %q\ngot: %q\nwant: %q", c.line, c.kind, c.input, got, c.want)
		}
		if again := redactText(t, p, got); again != got {
			t.Errorf("secrets.txt:%d: redacting twice changed the text again: %q", c.line, again)
		}
	}
	rate := float64(redacted) / float64(len(cases))
	t.Logf("redact-secrets: %d/%d secrets redacted exactly (%.1f%%) over %d kinds", redacted, len(cases), 100*rate, len(kinds))
	if len(cases) < 80 || len(kinds) < 30 {
		t.Errorf("corpus too small: %d secrets over %d kinds (want 80 over 30)", len(cases), len(kinds))
	}
	if rate < minSecretsRedacted {
		t.Errorf("redaction rate %.3f below %.2f", rate, minSecretsRedacted)
	}

	lines, nums := readLines(t, "secrets-near-misses.txt")
	touched := 0
	for i, l := range lines {
		if got := redactText(t, p, l); got != l {
			touched++
			t.Errorf("secrets-near-misses.txt:%d: changed %q to %q", nums[i], l, got)
		}
	}
	t.Logf("redact-secrets: %d/%d near misses touched", touched, len(lines))
	if len(lines) < 60 {
		t.Errorf("near-miss corpus too small: %d lines (want 60)", len(lines))
	}
}

func TestQualityPII(t *testing.T) {
	p := mustLoad(t, "redact-pii", nil)
	lines, nums := readLines(t, "pii.txt")
	ok := 0
	for i, l := range lines {
		kind, text, _ := strings.Cut(l, "\t")
		a, b := strings.Index(text, "«"), strings.Index(text, "»")
		in := text[:a] + text[a+len("«"):b] + text[b+len("»"):]
		want := text[:a] + "[REDACTED:" + kind + "]" + text[b+len("»"):]
		if got := redactText(t, p, in); got == want {
			ok++
		} else {
			t.Errorf("pii.txt:%d (%s): got %q, want %q", nums[i], kind, got, want)
		}
	}
	t.Logf("redact-pii: %d/%d values redacted exactly", ok, len(lines))
	lines, nums = readLines(t, "pii-near-misses.txt")
	touched := 0
	for i, l := range lines {
		if got := redactText(t, p, l); got != l {
			touched++
			t.Errorf("pii-near-misses.txt:%d: changed %q to %q", nums[i], l, got)
		}
	}
	t.Logf("redact-pii: %d/%d near misses touched", touched, len(lines))
}

func TestQualityCommands(t *testing.T) {
	p := mustLoad(t, "deny-destructive", nil)
	dangerous, dn := readLines(t, "commands-dangerous.txt")
	denied := 0
	for i, c := range dangerous {
		out := p.call(t, shellInput(c))
		if out.Decision == events.Deny {
			denied++
			checkReason(t, "deny-destructive", c, out.Reason)
		} else {
			t.Errorf("commands-dangerous.txt:%d: not denied: %s", dn[i], c)
		}
	}
	safe, sn := readLines(t, "commands-safe.txt")
	wrong := 0
	for i, c := range safe {
		if out := p.call(t, shellInput(c)); out.Decision != "" {
			wrong++
			t.Errorf("commands-safe.txt:%d: %s: %s (%s)", sn[i], out.Decision, c, out.Reason)
		}
	}
	rate := float64(denied) / float64(len(dangerous))
	t.Logf("deny-destructive: %d/%d dangerous commands denied (%.1f%%); %d/%d safe commands denied", denied, len(dangerous), 100*rate, wrong, len(safe))
	if len(dangerous) < 200 || len(safe) < 100 {
		t.Errorf("corpus too small: %d dangerous, %d safe (want 200 and 100)", len(dangerous), len(safe))
	}
	if rate < minDangerousDenied {
		t.Errorf("deny rate %.3f below %.2f", rate, minDangerousDenied)
	}
}

// checkReason checks the shape of a deny reason: one line, starting with the
// pack's name, short.
func checkReason(tb testing.TB, packName, input, reason string) {
	tb.Helper()
	if !strings.HasPrefix(reason, packName) || strings.Contains(reason, "\n") || len(reason) > 300 {
		tb.Errorf("%q: reason %q is not one line starting with %s", input, reason, packName)
	}
}

// TestQualityCommandsHoldout measures the held-out corpus, written after
// the pack was tuned on the main one. It holds the pack to the same
// targets.
func TestQualityCommandsHoldout(t *testing.T) {
	p := mustLoad(t, "deny-destructive", nil)
	dangerous, dn := readLines(t, "commands-holdout-dangerous.txt")
	denied := 0
	for i, c := range dangerous {
		if out := p.call(t, shellInput(c)); out.Decision == events.Deny {
			denied++
		} else {
			t.Errorf("commands-holdout-dangerous.txt:%d: not denied: %s", dn[i], c)
		}
	}
	safe, sn := readLines(t, "commands-holdout-safe.txt")
	wrong := 0
	for i, c := range safe {
		if out := p.call(t, shellInput(c)); out.Decision != "" {
			wrong++
			t.Errorf("commands-holdout-safe.txt:%d: %s: %s (%s)", sn[i], out.Decision, c, out.Reason)
		}
	}
	rate := float64(denied) / float64(len(dangerous))
	t.Logf("deny-destructive (held out): %d/%d dangerous denied (%.1f%%); %d/%d safe denied", denied, len(dangerous), 100*rate, wrong, len(safe))
	if rate < minDangerousDenied {
		t.Errorf("deny rate %.3f below %.2f", rate, minDangerousDenied)
	}
}

type pathCase struct {
	Note    string         `json:"note"`
	Tool    string         `json:"tool"`
	Path    string         `json:"path"`
	File    string         `json:"file_path"`
	Command string         `json:"command"`
	Patch   string         `json:"patch"`
	Cwd     string         `json:"cwd"`
	With    map[string]any `json:"with"`
	Want    *string        `json:"want"`
}

func TestQualityPaths(t *testing.T) {
	data, err := os.ReadFile("testdata/paths.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	packs := map[string]*pack{}
	right, total := 0, 0
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var c pathCase
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("paths.jsonl:%d: %v", i+1, err)
		}
		if c.Want == nil {
			continue
		}
		key, _ := json.Marshal(c.With)
		p := packs[string(key)]
		if p == nil {
			p = mustLoad(t, "protect-paths", c.With)
			packs[string(key)] = p
		}
		in := events.Input{Event: events.BeforeTool, ToolName: c.Tool, Cwd: "/work/proj"}
		if c.Cwd != "" {
			in.Cwd = c.Cwd
		}
		ti := map[string]any{}
		for k, v := range map[string]string{"path": c.Path, "file_path": c.File, "command": c.Command, "patch": c.Patch} {
			if v != "" {
				ti[k] = v
			}
		}
		in.ToolInput = ti
		total++
		out := p.call(t, in)
		if string(out.Decision) == *c.Want {
			right++
			if out.Decision != "" {
				checkReason(t, "protect-paths", line, out.Reason)
			}
		} else {
			t.Errorf("paths.jsonl:%d: %s %s%s%s%s: got %q (%s), want %q", i+1, c.Tool, c.Path, c.File, c.Command, c.Patch, out.Decision, out.Reason, *c.Want)
		}
	}
	t.Logf("protect-paths: %d/%d path cases right", right, total)
	if total < 60 {
		t.Errorf("path corpus too small: %d cases (want 60)", total)
	}
}

// TestQualitySecretsHoldout measures the held-out secrets (see
// secrets-holdout.txt) against the same targets.
func TestQualitySecretsHoldout(t *testing.T) {
	p := mustLoad(t, "redact-secrets", nil)
	lines, nums := readLines(t, "secrets-holdout.txt")
	ok := 0
	for i, l := range lines {
		kind, tmpl, _ := strings.Cut(l, "\t")
		text := expand(tmpl, seedOf(tmpl))
		a, b := strings.Index(text, "«"), strings.Index(text, "»")
		in := text[:a] + text[a+len("«"):b] + text[b+len("»"):]
		want := text[:a] + "[REDACTED:" + kind + "]" + text[b+len("»"):]
		if got := redactText(t, p, in); got == want {
			ok++
		} else {
			t.Errorf("secrets-holdout.txt:%d (%s):\n got %q\nwant %q", nums[i], kind, got, want)
		}
	}
	rate := float64(ok) / float64(len(lines))
	t.Logf("redact-secrets (held out): %d/%d secrets redacted exactly (%.1f%%)", ok, len(lines), 100*rate)
	if rate < minSecretsRedacted {
		t.Errorf("rate %.3f below %.2f", rate, minSecretsRedacted)
	}
	lines, nums = readLines(t, "secrets-holdout-near-misses.txt")
	touched := 0
	for i, l := range lines {
		if got := redactText(t, p, l); got != l {
			touched++
			t.Errorf("secrets-holdout-near-misses.txt:%d: changed %q to %q", nums[i], l, got)
		}
	}
	t.Logf("redact-secrets (held out): %d/%d near misses touched", touched, len(lines))
}
