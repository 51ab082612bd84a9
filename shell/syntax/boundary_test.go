package syntax

import (
	goparser "go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestStandardLibraryOnly keeps the package free of imports outside the
// standard library (its non-test files).
func TestStandardLibraryOnly(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := goparser.ParseFile(token.NewFileSet(), f, src, goparser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s", f, path)
			}
		}
	}
}

// TestConcurrent runs the functions from several goroutines (run with
// -race): they share only read-only tables.
func TestConcurrent(t *testing.T) {
	want := make([][]string, len(commandCases))
	for i, c := range commandCases {
		cmds, _ := Commands(c.in, Options{})
		want[i] = renderAll(cmds)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range commandCases {
				i := (k + g*17) % len(commandCases)
				cmds, _ := Commands(commandCases[i].in, Options{})
				if got := renderAll(cmds); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("%q: %q, want %q", commandCases[i].in, got, want[i])
				}
				words, _ := Split(commandCases[i].in)
				Unwrap(words)
			}
		}()
	}
	wg.Wait()
}
