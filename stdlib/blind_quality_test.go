package stdlib_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// The blind held-out corpora (testdata/*-blind*) were written from the
// issues and the packs' contracts alone, before their writer read any pack,
// rule or other corpus. They measure what a user gets: the default set
// (engine.WithStdlib("default")), every pack at once, on commands, file-tool
// and shell inputs of several hosts, and texts.

// loadDefaultSet loads the default set as the CLI runs it.
func loadDefaultSet(tb testing.TB) *pack {
	tb.Helper()
	e, err := engine.New(context.Background(), engine.WithStdlib("default"), engine.WithFiles(engine.Files{Home: testHome, Root: testRoot}), engine.WithLuaPool(0, testLuaTimeout))
	if err != nil {
		tb.Fatalf("load the default set: %v", err)
	}
	tb.Cleanup(func() { e.Close() })
	return &pack{name: "default", eng: e}
}

// measureBlindCommands runs every command of file (templates expanded)
// through p: a dangerous command hits when it is denied or asked, a
// harmless one when anything decides on it.
func measureBlindCommands(t *testing.T, p *pack, file string, dangerous bool) *tally {
	res := newTally()
	for _, l := range readCorpus(t, file) {
		cmd := expand(l.text, seedOf(l.text))
		out := p.call(t, shellInput(cmd))
		caught := out.Decision == events.Deny || out.Decision == events.Ask
		switch {
		case dangerous && !caught:
			t.Logf("%s:%d: not caught: %s", file, l.num, l.text)
		case !dangerous && out.Decision != "":
			t.Logf("%s:%d: %s: %s (%s)", file, l.num, out.Decision, l.text, out.Reason)
		}
		if dangerous {
			res.add(l.group, caught)
		} else {
			res.add(l.group, out.Decision != "")
		}
	}
	return res
}

// measureBlindPair runs a corpus of dangerous commands and one of their
// harmless look-alikes through p and returns their README rows (verb says
// what a dangerous hit is). It fails when fewer than minDangerousDenied of
// the dangerous commands are caught or more than maxTouched of the
// harmless ones touched.
func measureBlindPair(t *testing.T, p *pack, dangerous, harmless, verb string, maxTouched float64) []string {
	d := measureBlindCommands(t, p, dangerous, true)
	s := measureBlindCommands(t, p, harmless, false)
	if d.rate() < minDangerousDenied {
		t.Errorf("%s: %s %.3f, below %.2f", dangerous, verb, d.rate(), minDangerousDenied)
	}
	if s.rate() > maxTouched {
		_, hit := s.total()
		t.Errorf("%s: %d harmless commands touched (%.3f), above %.2f", harmless, hit, s.rate(), maxTouched)
	}
	return append(d.report(dangerous, verb), s.report(harmless, "touched")...)
}

// measureHarmless runs every case of a corpus of harmless commands
// (readScriptCorpus: cases may span lines) through p and fails on each one
// anything decides on, except in a group whose name starts with
// "ambiguous": lines the contract cannot tell from dangerous ones, kept to
// be counted (README.md lists them).
func measureHarmless(t *testing.T, p *pack, file string) *tally {
	res := newTally()
	for _, l := range readScriptCorpus(t, file) {
		out := p.call(t, shellInput(l.text))
		touched := out.Decision != ""
		switch {
		case touched && strings.HasPrefix(l.group, "ambiguous"):
			t.Logf("%s:%d: %s (ambiguous): %s (%s)", file, l.num, out.Decision, l.text, out.Reason)
		case touched:
			t.Errorf("%s:%d: %s: %s (%s)", file, l.num, out.Decision, l.text, out.Reason)
		}
		res.add(l.group, touched)
	}
	return res
}

// measureBlindRedaction redacts the labelled values of file with p and
// the look-alikes of nearFile, and returns their README rows. It fails
// when fewer than minSecretsRedacted of the values are redacted or any
// look-alike is changed.
func measureBlindRedaction(t *testing.T, p *pack, file, nearFile string) []string {
	got := measureBlindSecrets(t, p, file)
	near := measureNearMisses(t, p, nearFile)
	if got.rate() < minSecretsRedacted {
		t.Errorf("%s: redacted %.3f, below %.2f", file, got.rate(), minSecretsRedacted)
	}
	if _, hit := near.total(); hit > 0 {
		t.Errorf("%s: %d harmless texts changed", nearFile, hit)
	}
	return append(got.report(file, "redacted"), near.report(nearFile, "changed")...)
}

// blindInput is one line of inputs-blind.jsonl: a tool call as a host sends
// it (tool name and input as that host spells them), in cwd (/work/proj
// unless set, none with nocwd), and the decision wanted ("" for none). A
// line with group (and no want) starts a group.
type blindInput struct {
	Tool  string         `json:"tool"`
	Input map[string]any `json:"input"`
	Cwd   string         `json:"cwd"`
	NoCwd bool           `json:"nocwd"`
	Want  *string        `json:"want"`
}

// measureBlindInputs runs the cases of file through p. A case that wants a
// decision is caught when it is denied or asked; one that wants none is
// touched when anything decides.
func measureBlindInputs(t *testing.T, p *pack, file string) (caught, touched *tally) {
	caught, touched = newTally(), newTally()
	for _, l := range readJSONCorpus(t, file) {
		var c blindInput
		if err := json.Unmarshal([]byte(l.text), &c); err != nil {
			t.Fatalf("%s:%d: %v", file, l.num, err)
		}
		i, line, group := l.num-1, l.text, l.group
		in := events.Input{Event: events.BeforeTool, ToolName: c.Tool, Cwd: testRoot, ToolInput: c.Input}
		if c.Cwd != "" {
			in.Cwd = c.Cwd
		}
		if c.NoCwd {
			in.Cwd = ""
		}
		out := p.call(t, in)
		if *c.Want == "" {
			if out.Decision != "" {
				t.Errorf("%s:%d: %s: %s", file, i+1, out.Decision, out.Reason)
			}
			touched.add(group, out.Decision != "")
			continue
		}
		hit := out.Decision == events.Deny || out.Decision == events.Ask
		if !hit {
			t.Logf("%s:%d: not caught (want %s): %s", file, i+1, *c.Want, line)
		}
		caught.add(group, hit)
	}
	return caught, touched
}

// measureBlindSecrets redacts every labelled secret of file with p: a case
// counts when the output is the input with the secret, and nothing else,
// replaced by one marker of any kind.
func measureBlindSecrets(t *testing.T, p *pack, file string) *tally {
	res := newTally()
	for _, c := range secretCases(t, file) {
		marker := "[REDACTED:" + c.kind + "]"
		i := strings.Index(c.want, marker)
		want := regexp.MustCompile("^" + regexp.QuoteMeta(c.want[:i]) + `\[REDACTED:[a-z0-9-]+\]` + regexp.QuoteMeta(c.want[i+len(marker):]) + "$")
		got := redactText(t, p, c.input)
		ok := want.MatchString(got)
		if !ok {
			t.Logf("%s:%d (%s):\n in: %q\ngot: %q", file, c.line, c.kind, c.input, got)
		}
		res.add(c.group, ok)
	}
	return res
}

// TestQualityBlind measures the default set on the blind held-out corpora
// and holds it to issue 13's targets: at least 97% of the dangerous
// commands, sensitive path operations and secrets caught, at most 1% of
// the harmless commands and no harmless path or text touched. Unlike the
// project's own corpora, a held-out corpus is not tuned to 100%: its
// misses are logged (go test -v) and only the targets fail the test.
func TestQualityBlind(t *testing.T) {
	p := loadDefaultSet(t)
	rows := measureBlindPair(t, p, "commands-blind-dangerous.txt", "commands-blind-safe.txt", "caught", maxSafeTouched)

	caught, touched := measureBlindInputs(t, p, "inputs-blind.jsonl")
	rows = append(rows, caught.report("inputs-blind.jsonl", "caught")...)
	rows = append(rows, touched.report("inputs-blind.jsonl", "touched")...)
	if caught.rate() < minDangerousDenied {
		t.Errorf("inputs: caught %.3f, below %.2f", caught.rate(), minDangerousDenied)
	}
	if _, hit := touched.total(); hit > 0 {
		t.Errorf("inputs: %d harmless inputs touched", hit)
	}

	rows = append(rows, measureHarmless(t, p, "commands-harmless-s24-blind.txt").report("commands-harmless-s24-blind.txt", "touched")...)

	rows = append(rows, measureBlindRedaction(t, mustLoad(t, "redact-secrets", nil), "secrets-blind.txt", "secrets-blind-near-misses.txt")...)
	t.Logf("default set on the blind corpora:\n%s", strings.Join(rows, "\n"))
	checkQualitySection(t, "blind", rows)
}

// measureBlindApprovals runs every command of file through p at
// ApprovalRequest: a line counts when the pack approves it (allow). For a
// read-only corpus that is a hit; for a corpus of writes every approval
// is logged.
func measureBlindApprovals(t *testing.T, p *pack, file string, readOnly bool) *tally {
	res := newTally()
	for _, l := range readCorpus(t, file) {
		cmd := expand(l.text, seedOf(l.text))
		in := shellInput(cmd)
		in.Event = events.ApprovalRequest
		out := p.call(t, in)
		approved := out.Decision == events.Allow
		switch {
		case readOnly && !approved:
			t.Logf("%s:%d: not approved: %s", file, l.num, l.text)
		case !readOnly && approved:
			t.Logf("%s:%d: approved: %s", file, l.num, l.text)
		}
		res.add(l.group, approved)
	}
	return res
}

// TestQualityBlind4 measures the fourth blind round (written before its
// writer read any pack, rule or other corpus): ask-irreversible's families
// on the default set, redact-pii, gate-network and approve-readonly on
// their own with their defaults. No harmless line may be touched, no write
// approved and no look-alike changed; the misses are logged (go test -v).
func TestQualityBlind4(t *testing.T) {
	rows := measureBlindPair(t, loadDefaultSet(t), "commands-blind4-irreversible-dangerous.txt", "commands-blind4-irreversible-safe.txt", "caught", 0)

	rows = append(rows, measureBlindRedaction(t, mustLoad(t, "redact-pii", nil), "pii-blind4.txt", "pii-blind4-near-misses.txt")...)

	rows = append(rows, measureBlindPair(t, mustLoad(t, "gate-network", nil), "network-blind4-gated.txt", "network-blind4-free.txt", "asked", 0)...)

	ro := mustLoad(t, "approve-readonly", nil)
	ra := measureBlindApprovals(t, ro, "readonly-blind4-approve.txt", true)
	rw := measureBlindApprovals(t, ro, "readonly-blind4-writes.txt", false)
	rows = append(rows, ra.report("readonly-blind4-approve.txt", "approved")...)
	rows = append(rows, rw.report("readonly-blind4-writes.txt", "approved")...)
	if _, hit := rw.total(); hit > 0 {
		t.Errorf("readonly: %d writes approved", hit)
	}
	t.Logf("fourth blind round:\n%s", strings.Join(rows, "\n"))
	checkQualitySection(t, "blind4", rows)
}

// pwshInput is a call of Claude Code's PowerShell tool at event.
func pwshInput(event events.Event, cmd string) events.Input {
	return events.Input{Event: event, ToolName: "PowerShell", Cwd: testRoot, ToolInput: map[string]any{"command": cmd}}
}

// measurePwsh runs the cases of file (readScriptCorpus: `> ` continues a
// case) through p as PowerShell tool calls at event, and counts those
// whose decision is one of hits. With want, a case that does not hit is
// logged; without, one that hits is an error, except in a group whose name
// starts with "ambiguous" (logged, and left out of the tally), or with
// logOnly (the caller holds the file to a rate).
func measurePwsh(t *testing.T, p *pack, file string, event events.Event, want, logOnly bool, hits ...events.Decision) *tally {
	res := newTally()
	for _, l := range readScriptCorpus(t, file) {
		out := p.call(t, pwshInput(event, l.text))
		hit := slices.Contains(hits, out.Decision)
		switch {
		case want && !hit:
			t.Logf("%s:%d: missed (%s): %s", file, l.num, out.Decision, l.text)
		case !want && hit && strings.HasPrefix(l.group, "ambiguous"):
			t.Logf("%s:%d: %s (ambiguous): %s (%s)", file, l.num, out.Decision, l.text, out.Reason)
			continue
		case !want && hit && logOnly:
			t.Logf("%s:%d: %s: %s (%s)", file, l.num, out.Decision, l.text, out.Reason)
		case !want && hit:
			t.Errorf("%s:%d: %s: %s (%s)", file, l.num, out.Decision, l.text, out.Reason)
		}
		if strings.HasPrefix(l.group, "ambiguous") {
			continue
		}
		res.add(l.group, hit)
	}
	return res
}

// TestQualityBlindPwsh measures the PowerShell blind round (session 25,
// written before its writer read any pack): PowerShell tool calls on the
// default set (dangerous: denied or asked; look-alikes: untouched), on
// gate-network, protect-paths and approve-readonly with their defaults.
// The dangerous, gated and denied files are held to minDangerousDenied;
// the default set's look-alikes to maxSafeTouched, as the other blind
// commands (TestQualityBlind), the other look-alikes to none touched; no
// write may be approved. The misses are logged (go test -v).
func TestQualityBlindPwsh(t *testing.T) {
	var rows []string
	pair := func(p *pack, bad, good, verb string, maxTouched float64, hits ...events.Decision) {
		d := measurePwsh(t, p, bad, events.BeforeTool, true, false, hits...)
		s := measurePwsh(t, p, good, events.BeforeTool, false, maxTouched > 0, hits...)
		if d.rate() < minDangerousDenied {
			t.Errorf("%s: %s %.3f, below %.2f", bad, verb, d.rate(), minDangerousDenied)
		}
		if s.rate() > maxTouched {
			t.Errorf("%s: %.3f touched, above %.2f", good, s.rate(), maxTouched)
		}
		rows = append(rows, d.report(bad, verb)...)
		rows = append(rows, s.report(good, "touched")...)
	}
	pair(loadDefaultSet(t), "pwsh-blind-dangerous.txt", "pwsh-blind-safe.txt", "caught", maxSafeTouched, events.Deny, events.Ask)
	pair(mustLoad(t, "gate-network", nil), "pwsh-blind-network-gated.txt", "pwsh-blind-network-free.txt", "asked", 0, events.Deny, events.Ask)
	pair(mustLoad(t, "protect-paths", nil), "pwsh-blind-secrets-denied.txt", "pwsh-blind-secrets-allowed.txt", "denied", 0, events.Deny, events.Ask)

	ro := mustLoad(t, "approve-readonly", nil)
	ra := measurePwsh(t, ro, "pwsh-blind-readonly-approve.txt", events.ApprovalRequest, true, false, events.Allow)
	rw := measurePwsh(t, ro, "pwsh-blind-readonly-writes.txt", events.ApprovalRequest, false, false, events.Allow)
	rows = append(rows, ra.report("pwsh-blind-readonly-approve.txt", "approved")...)
	rows = append(rows, rw.report("pwsh-blind-readonly-writes.txt", "approved")...)
	t.Logf("PowerShell blind round:\n%s", strings.Join(rows, "\n"))
	checkQualitySection(t, "blind-pwsh", rows)
}
