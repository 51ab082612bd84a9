package engine_test

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/monad-hooks/monad-hooks"

type listedPackage struct {
	ImportPath string
	Doc        string
	Dir        string
	GoFiles    []string
	Imports    []string
	Deps       []string
}

func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	// go test puts its own go command first in PATH: a failure here is a
	// failure of the module (a package that does not load), never a
	// missing tool. Deps are those of the packages without their tests,
	// so test files may import more (stdlib's tests run packs through the
	// engine).
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestImportRules enforces the package boundaries of ARCHITECTURE.md by
// listing, for each package tree, the trees of ours it may depend on (the
// most specific rule applies): events, shell/syntax, shell/pwsh, luaapi/luapattern and
// luaapi/ahocorasick import nothing of ours; shell and luaapi know events but not engine or
// each other (luaapi may use shell/syntax and shell/pwsh, the pure command-line parsers,
// its own luaapi/luapattern, the pure Lua pattern matcher, and the leaf
// helpers under internal/); tools (the
// tool table) knows events, shell/syntax and shell/pwsh; stdlib imports nothing of ours
// but the leaf helpers under internal/ (which import nothing of ours);
// engine/hosts (the agents' hook contracts, which the engine's command
// hooks use) knows events and shell, not engine; nothing outside cmd imports
// cmd; no library imports "testing".
func TestImportRules(t *testing.T) {
	allowed := map[string][]string{
		"internal":              nil,
		"events":                nil,
		"shell/syntax":          nil,
		"shell/pwsh":            nil,
		"shell":                 {"events"},
		"luaapi":                {"internal", "events", "shell/syntax", "shell/pwsh"},
		"luaapi/luapattern":     nil,
		"luaapi/ahocorasick":    nil,
		"tools":                 {"events", "shell/syntax", "shell/pwsh"},
		"stdlib":                {"internal"},
		"engine":                {"internal", "events", "shell", "luaapi", "stdlib", "tools"},
		"engine/hosts":          {"events", "shell"},
		"engine/hosts/settings": {"events", "shell", "engine/hosts"},
		"spec":                  {"internal", "events", "shell", "luaapi", "stdlib", "engine", "tools"},
		"cmd":                   {"internal", "events", "shell", "luaapi", "stdlib", "engine", "spec", "tools"},
	}
	within := func(pkg, tree string) bool {
		return pkg == module+"/"+tree || strings.HasPrefix(pkg, module+"/"+tree+"/")
	}
	for _, p := range listPackages(t) {
		rule := ""
		for tree := range allowed {
			if within(p.ImportPath, tree) && len(tree) > len(rule) {
				rule = tree
			}
		}
		if rule == "" {
			t.Errorf("%s: no import rule covers this package; add one to the table", p.ImportPath)
			continue
		}
		for _, d := range p.Deps {
			if !strings.HasPrefix(d, module+"/") || within(d, rule) {
				continue
			}
			ok := false
			for _, tree := range allowed[rule] {
				ok = ok || within(d, tree)
			}
			if !ok {
				t.Errorf("%s depends on %s", p.ImportPath, d)
			}
		}
		for _, imp := range p.Imports {
			if imp == "testing" {
				t.Errorf("%s imports testing outside its tests", p.ImportPath)
			}
		}
	}
}

// TestPackageDocs requires a package doc comment on every package.
func TestPackageDocs(t *testing.T) {
	for _, p := range listPackages(t) {
		if strings.TrimSpace(p.Doc) == "" {
			t.Errorf("%s has no package doc comment", p.ImportPath)
		}
	}
}

// TestNoRegexpCompiledAtInit: no package of the module compiles a regular
// expression while it initialises (a package-level variable's value or an
// init function): package initialisation is part of every start of the
// CLI, whatever the command needs (BenchmarkCLIRunNoStdlib). Such a
// pattern is compiled on first use (sync.OnceValue).
func TestNoRegexpCompiledAtInit(t *testing.T) {
	compiles := map[string]bool{"Compile": true, "MustCompile": true, "CompilePOSIX": true, "MustCompilePOSIX": true}
	for _, p := range listPackages(t) {
		for _, name := range p.GoFiles {
			path := filepath.Join(p.Dir, name)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			var atInit []ast.Node // what runs at initialisation
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.GenDecl:
					if d.Tok == token.VAR {
						atInit = append(atInit, d)
					}
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.Name == "init" {
						atInit = append(atInit, d.Body)
					}
				}
			}
			for _, n := range atInit {
				ast.Inspect(n, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.FuncLit:
						return false // runs when called
					case *ast.CallExpr:
						if sel, ok := n.Fun.(*ast.SelectorExpr); ok && compiles[sel.Sel.Name] {
							if id, ok := sel.X.(*ast.Ident); ok && id.Name == "regexp" {
								t.Errorf("%s: regexp.%s at package initialisation", fset.Position(n.Pos()), sel.Sel.Name)
							}
						}
					}
					return true
				})
			}
		}
	}
}

// TestCLILinksNoPrometheusClient: monad-hooks serve --metrics writes the
// metrics with package promtext, so that the CLI links no Prometheus client
// library (nor the protobuf runtime it brings), whose initialisation was a
// fifth of every start of monad-hooks run (BenchmarkCLIRunNoStdlib).
func TestCLILinksNoPrometheusClient(t *testing.T) {
	found := false
	for _, p := range listPackages(t) {
		if p.ImportPath != module+"/cmd/monad-hooks" {
			continue
		}
		found = true
		for _, d := range p.Deps {
			if strings.HasPrefix(d, "github.com/prometheus/") || strings.HasPrefix(d, "google.golang.org/protobuf/") {
				t.Errorf("the CLI links %s", d)
			}
		}
	}
	if !found {
		t.Fatal("no package cmd/monad-hooks")
	}
}
