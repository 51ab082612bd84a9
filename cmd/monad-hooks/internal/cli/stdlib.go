package cli

import "context"

// defaultPacks is the default stdlib set.
func defaultPacks() []string { return nil }

// packNames lists the embedded stdlib packs.
func packNames() []string { return nil }

func knownPack(name string) bool { return false }

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
	inv.errorf("%v", errNoStdlib)
	return ExitFail
}
