//go:build ignore

// Gen writes stdlib.luac: the stdlib's packs and libraries compiled by
// luaapi, for the gopher-lua version go.mod requires.
//
//	go generate ./engine/...
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/monad-hooks/monad-hooks/engine/internal/precompiled"
)

func main() {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/yuin/gopher-lua").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen: go list:", err)
		os.Exit(1)
	}
	data, err := precompiled.Build(strings.TrimSpace(string(out)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile("stdlib.luac", data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
