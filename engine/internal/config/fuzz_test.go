package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/monad-hooks/monad-hooks/internal/docpos"
)

// Seed corpora live in testdata/fuzz/<Name>/; the fixtures are added too.

func FuzzParseJSON(f *testing.F) {
	addFixtures(f, ".json")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, tier := range []Tier{TierUser, TierPolicy} {
			checkParse(t, "/cfg/agents.json", data, tier)
			if tier == TierUser {
				checkTOMLAgrees(t, data)
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
		checkParse(t, "/cfg/agents.toml", data, TierUser)
		checkParse(t, "/cfg/agents.toml", data, TierPolicy)
		for _, tier := range []Tier{TierUser, TierPolicy} {
			_, err := Parse("/cfg/agents.toml", data, tier)
			var es Errors
			if errors.As(err, &es) {
				checkTOMLPositions(t, data, es)
			}
		}
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
	CodeTooDeep: true, CodeEmptyKey: true, CodeWrongType: true, CodeUnknownKey: true, CodeDuplicateKey: true,
	CodeUnknownEvent: true, CodeBadMatcher: true, CodeMissingHooks: true,
	CodeMissingCommand: true, CodeBadCommand: true, CodeBadTimeout: true,
	CodeBadOnError: true, CodeBadInput: true, CodeBadAtom: true, CodePolicyInUser: true,
	CodeHooksInPolicy: true, CodeAtomsInPolicy: true, CodeTooManyErrors: true,
}

var warningCodes = map[string]bool{CodeMatcherIgnored: true}

// checkParse checks the invariants of Parse on any input: no panic; a File
// or Errors, never both; every problem with a known code, a message and a
// position inside the document, in document order.
func checkParse(t *testing.T, path string, data []byte, tier Tier) *File {
	t.Helper()
	f, err := Parse(path, data, tier)
	body := bytes.TrimPrefix(data, []byte(bom))
	lines := docpos.NewLines(body)
	inside := func(e *Error) {
		t.Helper()
		if e.File != path || e.Msg == "" {
			t.Fatalf("bad problem %#v", e)
		}
		if e.Line == 0 && e.Code == CodeTooManyErrors {
			return
		}
		if e.Line < 1 || e.Line > lines.Len() {
			t.Fatalf("%v: line outside the document (%d lines)", e, lines.Len())
		}
		if max := lines.LineLen(e.Line) + 1; e.Col < 1 || e.Col > max {
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

func equalFiles(a, b *File) bool {
	a.Warnings, b.Warnings = nil, nil
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// checkTOMLAgrees converts a JSON document to TOML (with the toml package's
// encoder) and checks that both parse to the same File, or to the same
// problems (code and field; positions differ). This drives the TOML locator
// and tree with every shape the JSON fuzzer finds.
func checkTOMLAgrees(t *testing.T, data []byte) {
	t.Helper()
	jf, jerr := Parse("/cfg/agents.json", data, TierUser)
	var jes Errors
	if errors.As(jerr, &jes) {
		for _, c := range jes.Codes() {
			switch c {
			case CodeSyntax, CodeBadEncoding, CodeTooDeep, CodeDuplicateKey, CodeTooManyErrors:
				return // not representable in TOML, or order-dependent
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte(bom))))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	conv, ok := tomlable(m)
	if !ok {
		return
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(conv); err != nil {
		return
	}
	tf, terr := Parse("/cfg/agents.toml", buf.Bytes(), TierUser)
	var tes Errors
	errors.As(terr, &tes)
	if len(tes) == 1 && tes[0].Code == CodeEmptyKey {
		return // refused in TOML only
	}
	if jerr == nil && terr == nil {
		a, b := normalize(stripPos(jf)), normalize(stripPos(tf))
		if !equalFiles(a, b) {
			t.Fatalf("JSON and TOML files differ:\n%+v\n%+v\nTOML:\n%s", a, b, buf.Bytes())
		}
		return
	}
	if a, b := problemSet(jes), problemSet(tes); !equalStrings(a, b) {
		t.Fatalf("JSON and TOML problems differ:\n%v\n%v\nTOML:\n%s", a, b, buf.Bytes())
	}
	checkTOMLPositions(t, buf.Bytes(), tes)
}

// checkTOMLPositions checks that TOML problems point at the right place: a
// misplaced key's own name, or the first byte of a bad value.
func checkTOMLPositions(t *testing.T, doc []byte, es Errors) {
	t.Helper()
	doc = bytes.TrimPrefix(doc, []byte(bom))
	lines := docpos.NewLines(doc)
	for _, e := range es {
		switch e.Code {
		case CodeSyntax, CodeBadEncoding, CodeTooDeep, CodeEmptyKey, CodeTooManyErrors:
			continue // not located by this package
		}
		if e.Line < 1 {
			t.Fatalf("TOML problem without a position: %v", e)
		}
		at := string(doc[lines.Offset(e.Line, e.Col):])
		switch e.Code {
		case CodeUnknownKey, CodeUnknownEvent, CodePolicyInUser, CodeHooksInPolicy, CodeAtomsInPolicy:
			key := e.Field[max(strings.LastIndexAny(e.Field, ".]")+1, 0):]
			quoted := at != "" && (at[0] == '"' || at[0] == '\'') // may hold escapes
			if !quoted && (strings.HasSuffix(e.Field, "\"]") || !strings.HasPrefix(at, key)) {
				t.Fatalf("%v: position is not at key %q but at %.20q\nTOML:\n%s", e, key, at, doc)
			}
		default:
			if at == "" || strings.IndexByte(" \t\r\n=#,]}", at[0]) >= 0 {
				t.Fatalf("%v: position is not at a value but at %.20q\nTOML:\n%s", e, at, doc)
			}
		}
	}
}

// tomlable converts JSON values to what the TOML encoder writes faithfully:
// integer literals to int64, other numbers to float64. It reports false for
// a null, which TOML cannot express.
func tomlable(v any) (any, bool) {
	switch v := v.(type) {
	case nil:
		return nil, false
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i, true
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, false
		}
		return f, true
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			c, ok := tomlable(e)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			c, ok := tomlable(e)
			if !ok {
				return nil, false
			}
			out[k] = c
		}
		return out, true
	}
	return v, true
}

// normalize makes numbers in atom parameters comparable across formats.
func normalize(f *File) *File {
	var num func(v any) any
	num = func(v any) any {
		switch v := v.(type) {
		case json.Number:
			x, _ := strconv.ParseFloat(string(v), 64)
			return x
		case []any:
			for i := range v {
				v[i] = num(v[i])
			}
		case map[string]any:
			for k := range v {
				v[k] = num(v[k])
			}
		}
		return v
	}
	for i := range f.Atoms {
		if f.Atoms[i].With != nil {
			num(f.Atoms[i].With)
		}
	}
	return f
}

func problemSet(es Errors) []string {
	var out []string
	for _, e := range es {
		out = append(out, fmt.Sprintf("%s %s", e.Code, e.Field))
	}
	sort.Strings(out)
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
