package stdlib

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
)

var update = flag.Bool("update", false, "rewrite the generated parts of README.md")

func TestPacksParse(t *testing.T) {
	list, err := parseAll(embedded, "packs")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 6 {
		t.Fatalf("want at least 6 packs, got %d", len(list))
	}
	for _, p := range list {
		if _, err := fs.Stat(FS(), p.Script); err != nil {
			t.Errorf("%s: script %s: %v", p.Name, p.Script, err)
		}
		// events in firing order
		var idx []int
		for _, e := range p.Events {
			ev, err := events.ParseEvent(e)
			if err != nil {
				t.Errorf("%s: %v", p.Name, err)
			}
			idx = append(idx, int(ev))
		}
		if !slices.IsSorted(idx) {
			t.Errorf("%s: events %v are not in firing order", p.Name, p.Events)
		}
		for _, q := range p.Params {
			var v any
			if err := json.Unmarshal([]byte(q.Default), &v); err != nil {
				t.Errorf("%s.%s: default %q is not JSON", p.Name, q.Name, q.Default)
			}
		}
	}
}

func TestToolKindNames(t *testing.T) {
	var want []string
	for _, k := range events.ToolKinds() {
		want = append(want, string(k))
	}
	if !slices.Equal(toolKindNames, want) {
		t.Fatalf("toolKindNames = %v, want %v", toolKindNames, want)
	}
}

func TestEventNames(t *testing.T) {
	var want []string
	for _, e := range events.All() {
		want = append(want, e.String())
	}
	if !slices.Equal(eventNames, want) {
		t.Fatalf("eventNames = %v, want %v", eventNames, want)
	}
}

func TestDefaultPacksExist(t *testing.T) {
	for _, n := range Default() {
		if _, ok := Lookup(n); !ok {
			t.Errorf("default pack %q is not embedded", n)
		}
	}
}

// TestLibraries: every library is a lib/*.lua file required as
// monad.<name>, and every pack requires only libraries that exist (or the
// rules library a host renders, RulesLibraryName) and checks its
// parameters through monad.params.
func TestLibraries(t *testing.T) {
	libs := Libraries()
	require.Equal(t, slices.Sorted(maps.Keys(libs)), LibraryNames())
	for name, src := range libs {
		one, ok := Library(name)
		require.True(t, ok, name)
		require.Equal(t, src, one, name)
	}
	for _, name := range []string{"monad.nope", "params", "monad.lib/params", "monad.rules.stdlib", ""} {
		_, ok := Library(name)
		require.False(t, ok, name)
	}
	for _, want := range []string{"monad.params", "monad.commands", "monad.paths", "monad.redact", "monad.rules"} {
		if len(libs[want]) == 0 {
			t.Errorf("no library %s", want)
		}
	}
	required := regexp.MustCompile(`require\("(monad\.[a-z.]+)"\)`)
	used := map[string]bool{}
	for _, p := range Packs() {
		src, err := fs.ReadFile(FS(), p.Script)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "\nlocal P = require(\"monad.params\").check(PACK, SPEC, params)\n") {
			t.Errorf("%s does not check its parameters with monad.params", p.Name)
		}
		for _, m := range required.FindAllStringSubmatch(string(src), -1) {
			if libs[m[1]] == nil && m[1] != RulesLibraryName { // the host renders that one (RulesLibraries)
				t.Errorf("%s requires %s, which is not a library", p.Name, m[1])
			}
			used[m[1]] = true
		}
	}
	for name := range libs {
		if !used[name] {
			t.Errorf("library %s is required by no pack", name)
		}
	}
}

func TestValidateParams(t *testing.T) {
	cases := []struct {
		pack string
		with map[string]any
		want string // substring of the error; "" for none
	}{
		{"deny-destructive", nil, ""},
		{"deny-destructive", map[string]any{"protectedBranches": []any{"main", "release/*"}}, ""},
		{"deny-destructive", map[string]any{"protectedBranches": []string{"main"}}, ""},
		{"deny-destructive", map[string]any{"protectedBranches": "main"}, "stdlib pack deny-destructive: parameter protectedBranches: want a list of strings, got a string"},
		{"deny-destructive", map[string]any{"protectedBranches": []any{"main", 3}}, "want a list of strings"},
		{"deny-destructive", map[string]any{"protectedBranch": []any{"main"}}, "parameter protectedBranch: unknown parameter; did you mean protectedBranches?"},
		{"deny-destructive", map[string]any{"nonsense": 1}, "parameter nonsense: unknown parameter (have "},
		{"deny-destructive", map[string]any{"extraPatterns": []any{"("}}, "item 1: invalid regular expression"},
		{"deny-destructive", map[string]any{"matcher": "^(bash"}, "parameter matcher: invalid regular expression"},
		{"deny-destructive", map[string]any{"matcher": 3}, "want a regular expression string, got a number"},
		{"redact-secrets", map[string]any{"minEntropy": json.Number("2.5"), "generic": false}, ""},
		{"redact-secrets", map[string]any{"minEntropy": int64(3)}, ""},
		{"redact-secrets", map[string]any{"minEntropy": "3"}, "want a number, got a string"},
		{"redact-secrets", map[string]any{"generic": "yes"}, "want true or false, got a string"},
		{"redact-secrets", map[string]any{"events": []any{"AfterTool", "AfterModel"}}, ""},
		{"redact-secrets", map[string]any{"events": []any{"AfterTool", "BeforeTool"}}, `parameter events: item 2: want one of BeforeModel, AfterTool, AfterModel, AfterSubagent, AfterTurn, got "BeforeTool"`},
		{"protect-paths", map[string]any{"read": "ask"}, ""},
		{"protect-paths", map[string]any{"read": "block"}, `parameter read: want one of deny, ask, off, got "block"`},
		{"protect-paths", map[string]any{"root": map[string]any{}}, "want a string, got a table"},
		{"no-such-pack", nil, `unknown stdlib pack "no-such-pack" (have approve-readonly, `},
	}
	for _, c := range cases {
		err := ValidateParams(c.pack, c.with)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %v: unexpected error %v", c.pack, c.with, err)
		case c.want != "" && err == nil:
			t.Errorf("%s %v: no error, want %q", c.pack, c.with, c.want)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("%s %v: error %q, want it to contain %q", c.pack, c.with, err, c.want)
		}
	}
	if err := ValidateParams("nope", nil); !errors.Is(err, ErrUnknownPack) {
		t.Errorf("unknown pack: %v is not ErrUnknownPack", err)
	}
	var pe *ParamError
	if err := ValidateParams("deny-destructive", map[string]any{"x": 1}); !errors.As(err, &pe) || pe.Pack != "deny-destructive" || pe.Param != "x" {
		t.Errorf("want a *ParamError naming the pack and the param, got %#v", err)
	}
}

// TestValidateParamsReportsAll: every problem is reported, in
// parameter-name order, each a *ParamError.
func TestValidateParamsReportsAll(t *testing.T) {
	err := ValidateParams("deny-destructive", map[string]any{"zzz": 1, "matcher": 3, "exempt": []any{}, "protectedBranch": "main"})
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("want a joined error, got %#v", err)
	}
	var got []string
	for _, e := range j.Unwrap() {
		var pe *ParamError
		if !errors.As(e, &pe) {
			t.Fatalf("%v is not a *ParamError", e)
		}
		got = append(got, pe.Param)
	}
	if want := []string{"matcher", "protectedBranch", "zzz"}; !slices.Equal(got, want) {
		t.Errorf("problems %v, want %v", got, want)
	}
	var pe *ParamError
	if !errors.As(err, &pe) || pe.Param != "matcher" {
		t.Errorf("errors.As finds %v, want the first problem", pe)
	}
}

func TestReturnedValuesAreCopies(t *testing.T) {
	p, _ := Lookup("deny-destructive")
	p.Params[0].Name = "changed"
	p.Events[0] = "changed"
	q, _ := Lookup("deny-destructive")
	if q.Params[0].Name == "changed" || q.Events[0] == "changed" {
		t.Fatal("Lookup returned shared slices")
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"--- pack: x\n--- summary: s\n--- events: Nope\n", "unknown event"},
		{"--- pack: y\n--- summary: s\n--- events: BeforeTool\n", "must be in y.lua"},
		{"--- pack: x\n--- summary: s\n--- events: BeforeTool\n", "no parameter table"},
		{"--- pack: x\n--- summary: s\n--- events: BeforeTool\nlocal SPEC = {\n  a = { \"string\", \"\" },\n}\n", "has no documentation"},
		{"--- pack: x\n--- summary: s\n--- events: BeforeTool\nlocal SPEC = {\n  -- doc\n  a = { \"bool\", \"x\" },\n}\n", "does not have type bool"},
		{"--- pack: x\n--- summary: s\n--- events: BeforeTool\nlocal SPEC = {\n  -- doc\n  a = { \"[]string\", { \"a\" \"b\" } },\n}\n", "want , between"},
		{"--- pack: x\n--- bogus: s\n", "unknown header key"},
		{"--- pack: x\n--- summary: s\n--- events: BeforeTool\n--- kinds: shell, bash\n", `unknown tool kind "bash"`},
		{"--- pack: x\n--- summary: s\n--- events: BeforeTool\n--- needs: home, cwd\n", `unknown need "cwd"`},
	} {
		_, err := parsePack("x.lua", c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
	p, err := parsePack("x.lua", "--- pack: x\n--- summary: s\n--- events: BeforeTool, AfterTool\n--- kinds: shell, fetch\n--- needs: root\n---\n--- Doc\n--- more\nlocal SPEC = {\n  -- one\n  -- two\n  a = { \"[]string\", { \"a\", 'b\\\"' } },\n  -- n\n  n = { \"number\", 2.5 },\n  -- e\n  e = { \"x|y\", \"y\" },\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", p)
	want := `{Name:x Summary:s Doc:Doc
more Events:[BeforeTool AfterTool] Kinds:[shell fetch] Needs:[root] Params:[{Name:a Type:[]string Default:["a","b\""] Doc:one two} {Name:n Type:number Default:2.5 Doc:n} {Name:e Type:x|y Default:"y" Doc:e}] Script:x.lua Rules:false}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestREADME keeps stdlib/README.md in step with the packs: every pack has a
// section generated from its header and parameter table (run
// go test ./stdlib -run TestREADME -update to rewrite them).
func TestREADME(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	out := doc
	for _, p := range Packs() {
		if !strings.Contains(doc, "\n## "+p.Name+"\n") {
			t.Errorf("README.md has no section \"## %s\"", p.Name)
		}
		begin, end := "<!-- pack:"+p.Name+" -->\n", "<!-- end pack:"+p.Name+" -->"
		i, j := strings.Index(out, begin), strings.Index(out, end)
		if i < 0 || j < i {
			t.Errorf("README.md has no %q ... %q block", strings.TrimSpace(begin), end)
			continue
		}
		out = out[:i+len(begin)] + packSection(p) + out[j:]
	}
	names := strings.Join(Default(), "`, `")
	if !strings.Contains(doc, "`"+names+"`") {
		t.Errorf("README.md does not name the default set `%s`", names)
	}
	if out != doc {
		if *update {
			if err := os.WriteFile("README.md", []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("README.md pack sections are stale: run go test ./stdlib -run TestREADME -update")
	}
}

// packSection is the generated part of a pack's README section: its
// summary, its documentation and its parameter table.
func packSection(p PackInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nEvents: %s.\n\n", p.Summary, strings.Join(p.Events, ", "))
	if len(p.Kinds) > 0 {
		fmt.Fprintf(&b, "Tools: every tool of kind %s in the engine's tool table (`monad-hooks stdlib %s` lists them).\n\n", strings.Join(p.Kinds, ", "), p.Name)
	}
	if len(p.Needs) > 0 {
		fmt.Fprintf(&b, "Needs: %s (the engine refuses to load the pack without them: set `Files.Home` and `Files.Root`; the CLI sets them from `$HOME` (else the user database) and `--root`).\n\n", strings.Join(p.Needs, ", "))
	}
	fmt.Fprintf(&b, "%s\n\n### Parameters\n\n", p.Doc)
	fmt.Fprintf(&b, "| parameter | type | default | what it does |\n|---|---|---|---|\n")
	for _, q := range p.Params {
		def := strings.ReplaceAll(q.Default, "|", `\|`)
		typ := strings.ReplaceAll(q.Type, "|", `\|`)
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s |\n", q.Name, typ, def, strings.ReplaceAll(q.Doc, "|", `\|`))
	}
	return b.String()
}

// TestImportsOnlyStandardLibrary keeps the package free of this module's
// other packages (engine, luaapi) but its leaf helpers under internal/, and
// of third-party code.
func TestImportsOnlyStandardLibrary(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "github.com/monad-hooks/monad-hooks/internal/") {
				continue // imports nothing of ours (engine/deps_test.go)
			}
			if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s: the stdlib package may import only the standard library", f, p)
			}
		}
	}
}

// TestReadHeaderReadsTheHeader: readHeader reads a pack up to the end of
// its parameter table, which parses as the whole file does, and not the
// rest of a large pack (BenchmarkCLIRun).
func TestReadHeaderReadsTheHeader(t *testing.T) {
	for _, name := range Names() {
		src, err := fs.ReadFile(embedded, "packs/"+name+".lua")
		require.NoError(t, err)
		head, err := readHeader("packs/" + name + ".lua")
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(src), head), name)
		require.Equal(t, headerPart(string(src)), headerPart(head), name)
		want, err := parsePack(name+".lua", string(src))
		require.NoError(t, err)
		got, err := parsePack(name+".lua", head)
		require.NoError(t, err)
		require.Equal(t, want, got, name)
		if len(src) > 64<<10 {
			require.Less(t, len(head), 32<<10, "%s: the header of a large pack is read alone", name)
		}
	}
}
