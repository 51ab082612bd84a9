package stdlib_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

// The quality targets of the packs, measured on the labelled corpora in
// testdata/ (all values fake; see expand). The measured figures are
// written into README.md (the <!-- quality:NAME --> blocks) by
// go test ./stdlib -run TestQuality -update, and a test fails when they are
// stale.
const (
	minDangerousDenied = 0.97
	minSecretsRedacted = 0.97
	// maxSafeTouched is the share of harmless commands a held-out corpus
	// may see denied or asked.
	maxSafeTouched = 0.01
)

func seedOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// corpusLine is one line of a corpus: its number, its text and its group
// (the last "## " heading before it, "" before the first).
type corpusLine struct {
	num         int
	group, text string
}

// readCorpus returns the lines of a testdata file that are neither blank
// nor comments ("#"), with their groups ("## heading" lines).
func readCorpus(tb testing.TB, name string) []corpusLine {
	tb.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	var out []corpusLine
	group := ""
	for i, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		if h, ok := strings.CutPrefix(t, "## "); ok {
			group = h
			continue
		}
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		out = append(out, corpusLine{num: i + 1, group: group, text: strings.TrimRight(l, " \t\r")})
	}
	return out
}

// readScriptCorpus is readCorpus for a corpus whose cases may span lines:
// a line starting with "> " (the shell's continuation prompt), or a lone
// ">", continues the case above it after a newline (here-documents,
// scripts of several lines).
func readScriptCorpus(tb testing.TB, name string) []corpusLine {
	tb.Helper()
	var out []corpusLine
	for _, l := range readCorpus(tb, name) {
		rest, more := strings.CutPrefix(l.text, "> ")
		if l.text == ">" {
			rest, more = "", true
		}
		if !more {
			out = append(out, l)
			continue
		}
		if len(out) == 0 {
			tb.Fatalf("%s:%d: a continuation line with no case above it", name, l.num)
		}
		out[len(out)-1].text += "\n" + rest
	}
	return out
}

// tally counts, per group in order of appearance, the cases and those that
// hit (denied, redacted, right, or for harmless cases touched).
type tally struct {
	groups []string
	n, hit map[string]int
}

func newTally() *tally { return &tally{n: map[string]int{}, hit: map[string]int{}} }

func (t *tally) add(group string, hit bool) {
	if _, ok := t.n[group]; !ok {
		t.groups = append(t.groups, group)
	}
	t.n[group]++
	if hit {
		t.hit[group]++
	}
}

func (t *tally) total() (n, hit int) {
	for _, g := range t.groups {
		n += t.n[g]
		hit += t.hit[g]
	}
	return n, hit
}

func (t *tally) rate() float64 {
	n, hit := t.total()
	if n == 0 {
		return 0
	}
	return float64(hit) / float64(n)
}

func pct(hit, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(hit)/float64(n))
}

// report builds the rows of a README quality table for one corpus: one row
// per group (when there are several) and one for the whole file.
func (t *tally) report(file, verb string) []string {
	var rows []string
	if len(t.groups) > 1 {
		for _, g := range t.groups {
			rows = append(rows, fmt.Sprintf("| `%s` | %s | %d/%d %s (%s) |", file, g, t.hit[g], t.n[g], verb, pct(t.hit[g], t.n[g])))
		}
	}
	n, hit := t.total()
	rows = append(rows, fmt.Sprintf("| `%s` | **all** | %d/%d %s (%s) |", file, hit, n, verb, pct(hit, n)))
	return rows
}

// checkQualitySection compares the README block <!-- quality:name --> with
// the table rows measured, and rewrites it with -update.
func checkQualitySection(t *testing.T, name string, rows []string) {
	t.Helper()
	body := "| corpus | group | result |\n|---|---|---|\n" + strings.Join(rows, "\n") + "\n"
	checkReadmeBlock(t, "quality:"+name, body, "go test ./stdlib -run TestQuality -update")
}

// checkReadmeBlock compares the README block <!-- block --> ... <!-- end
// block --> with body, and rewrites it with -update (run names the
// command that does it).
func checkReadmeBlock(t *testing.T, block, body, run string) {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	begin, end := "<!-- "+block+" -->\n", "<!-- end "+block+" -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q ... %q block", strings.TrimSpace(begin), end)
	}
	out := doc[:i+len(begin)] + body + doc[j:]
	if out == doc {
		return
	}
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile("README.md", []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md block %q is stale: run %s\nmeasured:\n%s", block, run, body)
}

// secretCase is one labelled secret: the input text, the expected output
// and the kind.
type secretCase struct {
	line        int
	group, kind string
	input, want string
}

func secretCases(tb testing.TB, file string) []secretCase {
	tb.Helper()
	var out []secretCase
	for _, l := range readCorpus(tb, file) {
		kind, tmpl, ok := strings.Cut(l.text, "\t")
		if !ok {
			tb.Fatalf("%s:%d: want KIND<TAB>TEMPLATE", file, l.num)
		}
		text := expand(tmpl, seedOf(tmpl))
		a, b := strings.Index(text, "«"), strings.Index(text, "»")
		if a < 0 || b < a {
			tb.Fatalf("%s:%d: no «secret»", file, l.num)
		}
		in := text[:a] + text[a+len("«"):b] + text[b+len("»"):]
		want := text[:a] + "[REDACTED:" + kind + "]" + text[b+len("»"):]
		out = append(out, secretCase{line: l.num, group: l.group, kind: kind, input: in, want: want})
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

// measureSecrets redacts every labelled secret of file: a case counts when
// the output is exactly the input with the secret replaced by its marker,
// and redacting the output again changes nothing.
func measureSecrets(t *testing.T, p *pack, file string) (*tally, map[string]bool) {
	cases := secretCases(t, file)
	kinds := map[string]bool{}
	res := newTally()
	for _, c := range cases {
		kinds[c.kind] = true
		got := redactText(t, p, c.input)
		ok := got == c.want
		if !ok {
			t.Errorf("%s:%d (%s):\n in: %q\ngot: %q\nwant: %q", file, c.line, c.kind, c.input, got, c.want)
		}
		if again := redactText(t, p, got); again != got {
			ok = false
			t.Errorf("%s:%d: redacting twice changed the text again: %q", file, c.line, again)
		}
		res.add(c.group, ok)
	}
	return res, kinds
}

// measureNearMisses counts the lines of file (templates expanded) that the
// pack changes.
func measureNearMisses(t *testing.T, p *pack, file string) *tally {
	res := newTally()
	for _, l := range readCorpus(t, file) {
		in := expand(l.text, seedOf(l.text))
		got := redactText(t, p, in)
		if got != in {
			t.Errorf("%s:%d: changed %q to %q", file, l.num, in, got)
		}
		res.add(l.group, got != in)
	}
	return res
}

func TestQualitySecrets(t *testing.T) {
	p := mustLoad(t, "redact-secrets", nil)
	var rows []string
	for _, f := range []string{"secrets.txt", "secrets-holdout.txt", "secrets-holdout-families.txt"} {
		res, kinds := measureSecrets(t, p, f)
		n, hit := res.total()
		t.Logf("redact-secrets: %s: %d/%d secrets redacted exactly (%.1f%%) over %d kinds", f, hit, n, 100*res.rate(), len(kinds))
		if f == "secrets.txt" && (n < 80 || len(kinds) < 30) {
			t.Errorf("corpus too small: %d secrets over %d kinds (want 80 over 30)", n, len(kinds))
		}
		if res.rate() < minSecretsRedacted {
			t.Errorf("%s: redaction rate %.3f below %.2f", f, res.rate(), minSecretsRedacted)
		}
		rows = append(rows, res.report(f, "redacted exactly")...)
	}
	for _, f := range []string{"secrets-near-misses.txt", "secrets-holdout-near-misses.txt", "secrets-holdout-families-near-misses.txt"} {
		res := measureNearMisses(t, p, f)
		n, hit := res.total()
		t.Logf("redact-secrets: %s: %d/%d near misses touched", f, hit, n)
		if f == "secrets-near-misses.txt" && n < 60 {
			t.Errorf("near-miss corpus too small: %d lines (want 60)", n)
		}
		rows = append(rows, res.report(f, "changed")...)
	}
	checkQualitySection(t, "redact-secrets", rows)
}

func TestQualityPII(t *testing.T) {
	p := mustLoad(t, "redact-pii", nil)
	ok := 0
	lines := readCorpus(t, "pii.txt")
	for _, l := range lines {
		kind, text, _ := strings.Cut(l.text, "\t")
		a, b := strings.Index(text, "«"), strings.Index(text, "»")
		in := text[:a] + text[a+len("«"):b] + text[b+len("»"):]
		want := text[:a] + "[REDACTED:" + kind + "]" + text[b+len("»"):]
		if got := redactText(t, p, in); got == want {
			ok++
		} else {
			t.Errorf("pii.txt:%d (%s): got %q, want %q", l.num, kind, got, want)
		}
	}
	t.Logf("redact-pii: %d/%d values redacted exactly", ok, len(lines))
	res := measureNearMisses(t, p, "pii-near-misses.txt")
	n, hit := res.total()
	t.Logf("redact-pii: %d/%d near misses touched", hit, n)
}

// measureCommands runs deny-destructive on every command of file: a
// dangerous command counts when it is denied (or asked, for the families
// where asking is enough), a harmless one when any decision touches it.
func measureCommands(t *testing.T, p *pack, file string, dangerous bool) *tally {
	res := newTally()
	for _, l := range readCorpus(t, file) {
		out := p.call(t, shellInput(l.text))
		if dangerous {
			hit := out.Decision == events.Deny || out.Decision == events.Ask
			if hit {
				checkReason(t, "deny-destructive", l.text, out.Reason)
			} else {
				t.Errorf("%s:%d: not denied: %s", file, l.num, l.text)
			}
			res.add(l.group, hit)
		} else {
			if out.Decision != "" {
				t.Errorf("%s:%d: %s: %s (%s)", file, l.num, out.Decision, l.text, out.Reason)
			}
			res.add(l.group, out.Decision != "")
		}
	}
	return res
}

// TestQualityCommands measures deny-destructive on its main corpus and on
// the held-out ones (written after the pack was tuned on the main corpus;
// see README.md for their first-run figures), and holds every corpus to
// the same targets: at least 97% of the dangerous commands denied, no
// harmless command of the main corpus and at most 1% of a held-out one
// touched.
func TestQualityCommands(t *testing.T) {
	p := mustLoad(t, "deny-destructive", nil)
	var rows []string
	for _, c := range []struct {
		dangerous, safe string
		maxSafe         float64
	}{
		{"commands-dangerous.txt", "commands-safe.txt", 0},
		{"commands-holdout-dangerous.txt", "commands-holdout-safe.txt", maxSafeTouched},
		{"commands-holdout-families-dangerous.txt", "commands-holdout-families-safe.txt", maxSafeTouched},
	} {
		d := measureCommands(t, p, c.dangerous, true)
		s := measureCommands(t, p, c.safe, false)
		dn, dh := d.total()
		sn, sh := s.total()
		t.Logf("deny-destructive: %s: %d/%d denied (%.1f%%); %s: %d/%d touched", c.dangerous, dh, dn, 100*d.rate(), c.safe, sh, sn)
		if c.dangerous == "commands-dangerous.txt" && (dn < 200 || sn < 100) {
			t.Errorf("corpus too small: %d dangerous, %d safe (want 200 and 100)", dn, sn)
		}
		if d.rate() < minDangerousDenied {
			t.Errorf("%s: deny rate %.3f below %.2f", c.dangerous, d.rate(), minDangerousDenied)
		}
		if s.rate() > c.maxSafe {
			t.Errorf("%s: %.3f of harmless commands touched, above %.2f", c.safe, s.rate(), c.maxSafe)
		}
		rows = append(rows, d.report(c.dangerous, "denied")...)
		rows = append(rows, s.report(c.safe, "touched")...)
	}
	checkQualitySection(t, "deny-destructive", rows)
}

// TestQualityPowerShell measures the default set on the project's own
// PowerShell corpus (the PowerShell tool): every dangerous line denied or
// asked, no look-alike touched.
func TestQualityPowerShell(t *testing.T) {
	p := loadDefaultSet(t)
	d := measurePwsh(t, p, "commands-pwsh-dangerous.txt", events.BeforeTool, true, false, events.Deny, events.Ask)
	s := measurePwsh(t, p, "commands-pwsh-safe.txt", events.BeforeTool, false, false, events.Deny, events.Ask)
	if n, hit := d.total(); hit < n {
		t.Errorf("commands-pwsh-dangerous.txt: %d of %d caught", hit, n)
	}
	checkQualitySection(t, "powershell", append(d.report("commands-pwsh-dangerous.txt", "caught"), s.report("commands-pwsh-safe.txt", "touched")...))
}

// checkReason checks the shape of a deny reason: one line, starting with the
// pack's name, short.
func checkReason(tb testing.TB, packName, input, reason string) {
	tb.Helper()
	if !strings.HasPrefix(reason, packName) || strings.Contains(reason, "\n") || len(reason) > 300 {
		tb.Errorf("%q: reason %q is not one line starting with %s", input, reason, packName)
	}
}

// readJSONCorpus returns the cases of a JSON-lines corpus of testdata:
// the lines with a "want", each with its group (the "group" of the last
// line that has one, a line that has no want only starting a group).
func readJSONCorpus(tb testing.TB, file string) []corpusLine {
	tb.Helper()
	data, err := os.ReadFile("testdata/" + file)
	if err != nil {
		tb.Fatal(err)
	}
	var out []corpusLine
	group := ""
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var head struct {
			Group string  `json:"group"`
			Want  *string `json:"want"`
		}
		if err := json.Unmarshal([]byte(line), &head); err != nil {
			tb.Fatalf("%s:%d: %v", file, i+1, err)
		}
		if head.Group != "" {
			group = head.Group
		}
		if head.Want != nil {
			out = append(out, corpusLine{num: i + 1, group: group, text: line})
		}
	}
	return out
}

// pathCase is one line of a paths corpus: a file tool call (tool, path or
// file_path), a shell command or a patch, in cwd (/work/proj unless set, no
// cwd at all with nocwd), with the pack's parameters and the decision
// wanted. A line with group (and no want) starts a group.
type pathCase struct {
	Note    string         `json:"note"`
	Group   string         `json:"group"`
	Tool    string         `json:"tool"`
	Path    string         `json:"path"`
	File    string         `json:"file_path"`
	Command string         `json:"command"`
	Patch   string         `json:"patch"`
	Cwd     string         `json:"cwd"`
	NoCwd   bool           `json:"nocwd"`
	With    map[string]any `json:"with"`
	Want    *string        `json:"want"`
}

// measurePaths runs protect-paths on every case of a JSON-lines corpus; a
// case hits when the decision is the one wanted.
func measurePaths(t *testing.T, file string, packs map[string]*pack) (right, wrongSafe *tally) {
	right, wrongSafe = newTally(), newTally()
	for _, l := range readJSONCorpus(t, file) {
		var c pathCase
		if err := json.Unmarshal([]byte(l.text), &c); err != nil {
			t.Fatalf("%s:%d: %v", file, l.num, err)
		}
		i, line, group := l.num-1, l.text, l.group
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
		if c.NoCwd {
			in.Cwd = ""
		}
		ti := map[string]any{}
		for k, v := range map[string]string{"path": c.Path, "file_path": c.File, "command": c.Command, "patch": c.Patch} {
			if v != "" {
				ti[k] = v
			}
		}
		in.ToolInput = ti
		out := p.call(t, in)
		ok := string(out.Decision) == *c.Want
		if ok && out.Decision != "" {
			checkReason(t, "protect-paths", line, out.Reason)
		}
		if !ok {
			t.Errorf("%s:%d: %s %s%s%s%s: got %q (%s), want %q", file, i+1, c.Tool, c.Path, c.File, c.Command, c.Patch, out.Decision, out.Reason, *c.Want)
		}
		right.add(group, ok)
		if *c.Want == "" {
			wrongSafe.add(group, !ok)
		}
	}
	return right, wrongSafe
}

func TestQualityPaths(t *testing.T) {
	packs := map[string]*pack{}
	var rows []string
	for _, f := range []string{"paths.jsonl", "paths-holdout.jsonl"} {
		right, safe := measurePaths(t, f, packs)
		n, hit := right.total()
		sn, sh := safe.total()
		t.Logf("protect-paths: %s: %d/%d path cases right; %d/%d harmless cases touched", f, hit, n, sh, sn)
		if f == "paths.jsonl" && n < 60 {
			t.Errorf("path corpus too small: %d cases (want 60)", n)
		}
		rows = append(rows, right.report(f, "right")...)
		rows = append(rows, fmt.Sprintf("| `%s` | harmless cases | %d/%d touched |", f, sh, sn))
	}
	checkQualitySection(t, "protect-paths", rows)
}
