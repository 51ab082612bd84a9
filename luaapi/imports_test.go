package luaapi

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the package boundary: luaapi and its subpackages import
// the standard library, gopher-lua (and gopher-luar), events and their own
// subpackages, shell/syntax, shell/pwsh, internal/suggest (the did-you-mean of
// errors) and internal/lazy (package-level values computed on first use),
// never engine or shell.
func TestImports(t *testing.T) {
	allowed := []string{
		"github.com/yuin/gopher-lua",
		"layeh.com/gopher-luar",
		"github.com/monad-hooks/monad-hooks/events",
		"github.com/monad-hooks/monad-hooks/luaapi",
		"github.com/monad-hooks/monad-hooks/shell/syntax",
		"github.com/monad-hooks/monad-hooks/shell/pwsh",
		"github.com/monad-hooks/monad-hooks/internal/suggest",
		"github.com/monad-hooks/monad-hooks/internal/lazy",
	}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.Contains(strings.Split(p, "/")[0], ".") {
				continue // standard library
			}
			ok := false
			for _, a := range allowed {
				if p == a || strings.HasPrefix(p, a+"/") {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s imports %s", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
