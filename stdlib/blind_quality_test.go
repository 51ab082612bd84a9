package stdlib_test

import (
	"context"
	"encoding/json"
	"regexp"
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
	var rows []string
	d := measureBlindCommands(t, p, "commands-blind-dangerous.txt", true)
	s := measureBlindCommands(t, p, "commands-blind-safe.txt", false)
	rows = append(rows, d.report("commands-blind-dangerous.txt", "caught")...)
	rows = append(rows, s.report("commands-blind-safe.txt", "touched")...)
	if d.rate() < minDangerousDenied {
		t.Errorf("commands: caught %.3f, below %.2f", d.rate(), minDangerousDenied)
	}
	if s.rate() > maxSafeTouched {
		t.Errorf("commands: %.3f of harmless commands touched, above %.2f", s.rate(), maxSafeTouched)
	}

	caught, touched := measureBlindInputs(t, p, "inputs-blind.jsonl")
	rows = append(rows, caught.report("inputs-blind.jsonl", "caught")...)
	rows = append(rows, touched.report("inputs-blind.jsonl", "touched")...)
	if caught.rate() < minDangerousDenied {
		t.Errorf("inputs: caught %.3f, below %.2f", caught.rate(), minDangerousDenied)
	}
	if _, hit := touched.total(); hit > 0 {
		t.Errorf("inputs: %d harmless inputs touched", hit)
	}

	rs := mustLoad(t, "redact-secrets", nil)
	sec := measureBlindSecrets(t, rs, "secrets-blind.txt")
	near := measureNearMisses(t, rs, "secrets-blind-near-misses.txt")
	rows = append(rows, sec.report("secrets-blind.txt", "redacted")...)
	rows = append(rows, near.report("secrets-blind-near-misses.txt", "changed")...)
	if sec.rate() < minSecretsRedacted {
		t.Errorf("secrets: redacted %.3f, below %.2f", sec.rate(), minSecretsRedacted)
	}
	if _, hit := near.total(); hit > 0 {
		t.Errorf("secrets: %d harmless texts changed", hit)
	}
	t.Logf("default set on the blind corpora:\n%s", strings.Join(rows, "\n"))
	checkQualitySection(t, "blind", rows)
}
