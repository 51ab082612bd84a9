package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/spec"
)

// This file holds what depends on configuration files, Lua scripts and the
// stdlib. Until the engine can load them (engine.WithFiles) the CLI runs Go-free
// configurations only: no hooks.

// fileOptions returns the engine options that load the configuration files,
// Lua scripts and stdlib packs of the flags.
func (c *common) fileOptions(env Env) ([]engine.Option, error) {
	if len(c.config)+len(c.policy)+len(c.lua) > 0 {
		return nil, errors.New("--config, --policy and --lua are not supported by this build (the engine cannot load files yet)")
	}
	if _, err := c.stdlibList(); err != nil {
		return nil, err
	}
	return nil, nil
}

// defaultPacks is the default stdlib set.
func defaultPacks() []string { return nil }

// packNames lists the embedded stdlib packs.
func packNames() []string { return nil }

func knownPack(name string) bool { return false }

// registerServe adds the flags of serve that need the file-loading engine.
func (c *common) registerServe(fs *flag.FlagSet) {}

// serveOptions are the engine options of those flags.
func (c *common) serveOptions() []engine.Option { return nil }

// printPlan prints the plan of eng, event by event.
func printPlan(w io.Writer, eng *engine.Engine) error {
	_, err := fmt.Fprintln(w, "configuration ok (this build cannot list the plan yet)")
	return err
}

// printExplain prints which hooks in would run, and why the others would not.
func printExplain(w io.Writer, eng *engine.Engine, in events.Input) error {
	return errors.New("explain is not supported by this build (the engine cannot explain yet)")
}

// extra wires the files, Lua scripts, stdlib packs and command hooks of spec
// cases into their engines.
func (c *common) extra(env Env) func(*spec.Case, string, spec.Generated) ([]engine.Option, error) {
	return nil
}

// cmdStdlib lists the stdlib packs, or documents one.
func cmdStdlib(ctx context.Context, inv *invocation, args []string) int {
	fs := newFlagSet("stdlib")
	pos, code := parseArgs(inv, fs, helpStdlib, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 1 {
		return inv.usageErr("want at most one pack name, got %d arguments", len(pos))
	}
	inv.errorf("this build has no embedded stdlib")
	return ExitFail
}
