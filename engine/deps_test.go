package engine_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/monad-hooks/monad-hooks"

type listedPackage struct {
	ImportPath string
	Doc        string
	Imports    []string
	Deps       []string
}

func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
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

// TestImportRules enforces the package boundaries of ARCHITECTURE.md:
// events imports nothing of ours; shell and luaapi know events but not
// engine or each other; stdlib imports nothing of ours; nothing imports cmd;
// no library imports "testing".
func TestImportRules(t *testing.T) {
	forbidden := map[string][]string{
		module + "/events": {module + "/"},
		module + "/shell":  {module + "/engine", module + "/luaapi", module + "/stdlib", module + "/spec"},
		module + "/luaapi": {module + "/engine", module + "/shell", module + "/stdlib", module + "/spec"},
		module + "/stdlib": {module + "/"},
	}
	for _, p := range listPackages(t) {
		for _, d := range p.Deps {
			if strings.HasPrefix(d, module+"/cmd") && !strings.HasPrefix(p.ImportPath, module+"/cmd") {
				t.Errorf("%s depends on %s: nothing may import cmd/", p.ImportPath, d)
			}
			for prefix, bans := range forbidden {
				if p.ImportPath != prefix && !strings.HasPrefix(p.ImportPath, prefix+"/") {
					continue
				}
				for _, ban := range bans {
					if strings.HasPrefix(d, ban) && !strings.HasPrefix(d, prefix) {
						t.Errorf("%s depends on %s", p.ImportPath, d)
					}
				}
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
