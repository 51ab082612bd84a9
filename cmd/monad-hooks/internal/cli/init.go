package cli

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/monad-hooks/monad-hooks/luaapi"
)

// scaffold is what init writes, but for the type definitions (luaapi's).
//
//go:embed scaffold
var scaffold embed.FS

// scaffoldFile is one file init writes: its path in the new setup, its
// content, and what it is for.
type scaffoldFile struct {
	path, what string
	data       []byte
}

// typesFile is where init puts the LuaLS type definitions.
const typesFile = "types/monad-hooks.d.lua"

// scaffoldFiles lists the files of a new setup, in the order init reports
// them.
func scaffoldFiles() ([]scaffoldFile, error) {
	var out []scaffoldFile
	for _, f := range []struct{ src, dst, what string }{
		{"agents.json", "agents.json", "your configuration: the guard below (the default stdlib set runs too)"},
		{"guards/example.lua", "guards/example.lua", `a Lua guard, hook{ name = "no-publish" }: edit it, or copy it`},
		{"hook-tests/example.toml", "hook-tests/example.toml", "its tests"},
		{"luarc.json", ".luarc.json", "points the Lua language server (LuaLS) at the type definitions"},
	} {
		b, err := fs.ReadFile(scaffold, "scaffold/"+f.src)
		if err != nil {
			return nil, err // a defect of the build
		}
		out = append(out, scaffoldFile{f.dst, f.what, b})
	}
	return append(out, scaffoldFile{typesFile, "the API of hook{}, the input and output and the host modules, for completion", []byte(luaapi.TypeDefinitions)}), nil
}

func cmdInit(_ context.Context, inv *invocation, args []string) int {
	flags := newFlagSet("init")
	force := flags.Bool("force", false, "overwrite files that exist")
	pos, code := parseArgs(inv, flags, helpInit, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 1 {
		return inv.usageErr("want at most one DIR, got %d arguments", len(pos))
	}
	dir := "."
	if len(pos) == 1 {
		dir = pos[0]
	}
	root := abs(inv.env, dir)
	files, err := scaffoldFiles()
	if err != nil {
		inv.errorf("%v", err)
		return ExitFail
	}
	if !*force {
		var exist []string
		for _, f := range files {
			if _, err := os.Lstat(filepath.Join(root, f.path)); err == nil {
				exist = append(exist, f.path)
			}
		}
		if len(exist) > 0 {
			inv.errorf("%s already holds %s: nothing was written (--force overwrites)", dir, strings.Join(exist, ", "))
			return ExitFail
		}
	}
	for _, f := range files {
		p := filepath.Join(root, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			inv.errorf("%v", err)
			return ExitFail
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			inv.errorf("%v", err)
			return ExitFail
		}
	}
	w := inv.stdout
	fmt.Fprintf(w, "Created in %s:\n", dir)
	for _, f := range files {
		fmt.Fprintf(w, "  %-25s %s\n", f.path, f.what)
	}
	fmt.Fprintln(w, "\nNext:")
	if dir != "." {
		fmt.Fprintf(w, "  cd %s\n", shellQuote(dir))
	}
	fmt.Fprint(w, `  monad-hooks check --config agents.json
  monad-hooks test --config agents.json hook-tests/
  echo '{"toolName":"Bash","toolInput":{"command":"npm publish"}}' | monad-hooks run BeforeTool --config agents.json
  monad-hooks serve --config agents.json --listen 127.0.0.1:8787
`)
	return ExitOK
}

func cmdTypes(_ context.Context, inv *invocation, args []string) int {
	flags := newFlagSet("types")
	pos, code := parseArgs(inv, flags, helpTypes, args)
	if code >= 0 {
		return code
	}
	switch len(pos) {
	case 0:
		if _, err := fmt.Fprint(inv.stdout, luaapi.TypeDefinitions); err != nil {
			inv.errorf("%v", err)
			return ExitFail
		}
		return ExitOK
	case 1:
		p := abs(inv.env, pos[0])
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			p = filepath.Join(p, filepath.Base(typesFile))
		}
		err := os.WriteFile(p, []byte(luaapi.TypeDefinitions), 0o644)
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%w (create the folder first)", err)
		}
		if err != nil {
			inv.errorf("%v", err)
			return ExitFail
		}
		return ExitOK
	}
	return inv.usageErr("want at most one FILE or DIR, got %d arguments", len(pos))
}

// shellQuote quotes s for a shell command line when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@%,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
