package shell

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBoundedText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		limit int
		want  string
	}{
		{"", 10, ""},
		{"  \n", 10, ""},
		{" hi \n", 10, "hi"},
		{"0123456789", 10, "0123456789"},
		{"0123456789a", 10, "0123456…"},
		{"0123 56789a", 10, "0123 56…"},
		{"012345 789a", 10, "012345…"}, // no space before the ellipsis
		{"ééééé", 10, "ééééé"},
		{"éééééé", 10, "ééé…"},
		{"\xff\xfe", 10, "\uFFFD"},
		{strings.Repeat("\xff ", 100), 10, "\uFFFD \uFFFD…"},
		{"abc", 2, "…"},
		{"abc", 0, "…"},
	} {
		got := boundedText([]byte(tc.in), tc.limit)
		if got != tc.want {
			t.Errorf("boundedText(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
		if !utf8.ValidString(got) || (len(got) > tc.limit && tc.limit >= 3) {
			t.Errorf("boundedText(%q, %d) = %q: invalid or too long", tc.in, tc.limit, got)
		}
	}
}

// TestImports keeps the package a leaf: the standard library and the
// events contract only (never engine or luaapi).
func TestImports(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	const allowed = "github.com/monad-hooks/monad-hooks/events"
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if path != allowed && strings.Contains(first, ".") {
				t.Errorf("%s imports %s", name, path)
			}
			if path == "testing" {
				t.Errorf("%s imports testing", name)
			}
		}
	}
}
