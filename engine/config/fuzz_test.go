package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"
)

// Seed corpora live in testdata/fuzz/<Name>/; the fixtures are added too.

func FuzzParseJSON(f *testing.F) {
	addFixtures(f, ".json")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, tier := range []Tier{TierUser, TierPolicy} {
			file := checkParse(t, "/cfg/agents.json", data, tier)
			if tier == TierUser && file != nil {
				checkRewrite(t, data, file)
			}
		}
		// Differential check against encoding/json: a syntax error exactly
		// when the standard library rejects the document. (It skips what this
		// package rejects before parsing: encoding, nesting beyond MaxDepth.)
		_, err := Parse("/cfg/agents.json", data, TierUser)
		var es Errors
		errors.As(err, &es)
		codes := es.Codes()
		body := bytes.TrimPrefix(data, []byte(bom))
		if len(codes) == 1 && (codes[0] == CodeBadEncoding || codes[0] == CodeTooDeep) {
			return
		}
		syntax := len(codes) == 1 && codes[0] == CodeSyntax
		if syntax == json.Valid(body) {
			t.Fatalf("syntax error %v but json.Valid = %v for %q", syntax, json.Valid(body), body)
		}
	})
}

func FuzzParseTOML(f *testing.F) {
	addFixtures(f, ".toml")
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			Parse("/cfg/agents.toml", data, TierUser)
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatalf("HANG %q", data)
		}
		checkParse(t, "/cfg/agents.toml", data, TierUser)
		checkParse(t, "/cfg/agents.toml", data, TierPolicy)
	})
}

func addFixtures(f *testing.F, ext string) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*"+ext))
	for _, n := range names {
		if b, err := os.ReadFile(n); err == nil {
			f.Add(b)
		}
	}
}

var allCodes = map[string]bool{
	CodeBadFormat: true, CodeTooLarge: true, CodeBadEncoding: true, CodeSyntax: true,
	CodeTooDeep: true, CodeWrongType: true, CodeUnknownKey: true, CodeDuplicateKey: true,
	CodeUnknownEvent: true, CodeBadMatcher: true, CodeMissingHooks: true,
	CodeMissingCommand: true, CodeBadCommand: true, CodeBadTimeout: true,
	CodeBadOnError: true, CodeBadAtom: true, CodePolicyInUser: true,
	CodeHooksInPolicy: true, CodeAtomsInPolicy: true, CodeTooManyErrors: true,
}

var warningCodes = map[string]bool{CodeLikelyTypo: true, CodeMatcherIgnored: true}

// checkParse checks the invariants of Parse on any input: no panic; a File
// or Errors, never both; every problem with a known code, a message and a
// position inside the document, in document order.
func checkParse(t *testing.T, path string, data []byte, tier Tier) *File {
	t.Helper()
	f, err := Parse(path, data, tier)
	body := bytes.TrimPrefix(data, []byte(bom))
	lines := newLineIndex(body)
	inside := func(e *Error) {
		t.Helper()
		if e.File != path || e.Msg == "" {
			t.Fatalf("bad problem %#v", e)
		}
		if e.Line == 0 && e.Code == CodeTooManyErrors {
			return
		}
		if e.Line < 1 || e.Line > len(lines.starts) {
			t.Fatalf("%v: line outside the document (%d lines)", e, len(lines.starts))
		}
		end := lines.size
		if e.Line < len(lines.starts) {
			end = lines.starts[e.Line] - 1
		}
		if max := end - lines.starts[e.Line-1] + 1; e.Col < 1 || e.Col > max {
			t.Fatalf("%v: column outside line %d (1..%d)", e, e.Line, max)
		}
	}
	ordered := func(es Errors) {
		t.Helper()
		for i := 1; i < len(es); i++ {
			a, b := es[i-1], es[i]
			if b.Line != 0 && (a.Line > b.Line || a.Line == b.Line && a.Col > b.Col) {
				t.Fatalf("problems out of order: %v before %v", a, b)
			}
		}
	}
	if err == nil {
		if f == nil {
			t.Fatal("nil File and nil error")
		}
		for _, w := range f.Warnings {
			if !warningCodes[w.Code] {
				t.Fatalf("unknown warning code %q", w.Code)
			}
			inside(w)
		}
		ordered(f.Warnings)
		for _, gs := range f.Hooks {
			for _, g := range gs {
				for _, h := range g.Hooks {
					if h.Command == "" || h.TimeoutMs < 0 || h.TimeoutMs > MaxTimeoutMs || h.OnError != "" && h.OnError != OnErrorDeny {
						t.Fatalf("invalid hook in a valid file: %+v", h)
					}
				}
			}
		}
		if tier == TierPolicy && len(f.Atoms) > 0 {
			t.Fatal("atoms in a policy file")
		}
		return f
	}
	if f != nil {
		t.Fatal("both a File and an error")
	}
	var es Errors
	if !errors.As(err, &es) || len(es) == 0 {
		t.Fatalf("error is not a non-empty Errors: %v", err)
	}
	if len(es) > MaxErrors+1 {
		t.Fatalf("%d problems, more than MaxErrors+1", len(es))
	}
	for _, e := range es {
		if !allCodes[e.Code] {
			t.Fatalf("unknown code %q", e.Code)
		}
		inside(e)
	}
	ordered(es)
	if !utf8.Valid(body) && es[0].Code != CodeBadEncoding {
		t.Fatalf("invalid UTF-8 reported as %v", es[0])
	}
	return f
}

// checkRewrite renders a valid JSON file as the Writer would, unchanged, and
// checks that it parses to the same hooks and atoms.
func checkRewrite(t *testing.T, data []byte, f *File) {
	t.Helper()
	body := bytes.TrimPrefix(data, []byte(bom))
	doc, perr := parseJSON(body, newLineIndex(body))
	if perr != nil {
		t.Fatalf("Parse accepted what parseJSON rejects: %v", perr)
	}
	out := render(body, doc, f.Hooks, eventOrder(doc))
	g, err := Parse("/cfg/agents.json", out, TierUser)
	if err != nil {
		t.Fatalf("rewritten file is invalid: %v\n%s", err, out)
	}
	if a, b := stripPos(f), stripPos(g); !equalFiles(a, b) {
		t.Fatalf("rewrite changed the file:\n%+v\n%+v\n%s", a, b, out)
	}
}

func equalFiles(a, b *File) bool {
	a.Warnings, b.Warnings = nil, nil
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}
