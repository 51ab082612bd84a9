package cli

import (
	"fmt"
	"os"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/spec"
)

// fileOptions returns the engine option that loads the configuration files,
// Lua scripts and stdlib packs of the flags (none when there is nothing to
// load). Command hooks run in --root with the process environment, which the
// engine strips of secrets. The home directory comes from homeDir; when it is
// unknown, Files.Home stays empty and the engine refuses the packs that need
// it (open says why on stderr).
func (c *common) fileOptions(env Env) ([]engine.Option, error) {
	names, err := c.stdlibList()
	if err != nil {
		return nil, err
	}
	root := c.rootDir(env)
	if fi, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("--root: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("--root %s: not a directory", root)
	}
	if len(c.config)+len(c.policy)+len(c.lua)+len(names) == 0 {
		return nil, nil
	}
	home, _ := env.homeDir()
	// The stdlib packs come from engine.WithStdlib, which embedders call
	// too, so the default set cannot drift between the CLI and a library
	// host. The packs' needs (home, root) come from the OS.
	return []engine.Option{engine.WithFiles(engine.Files{
		Policy: absAll(env, c.policy),
		User:   absAll(env, c.config),
		Lua:    absAll(env, c.lua),
		Root:   root,
		Home:   home,
		Env:    env.Vars,
	}), engine.WithStdlib(names...)}, nil
}

// extra wires the files, Lua scripts, stdlib packs and command hooks of spec
// cases into their engines, as go test does.
func (c *common) extra(Env) func(*spec.Case, string, spec.Generated) ([]engine.Option, error) {
	return spec.FileOptions
}
