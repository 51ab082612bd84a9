package cli

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/monad-hooks/monad-hooks/spec"
)

func cmdSchema(_ context.Context, inv *invocation, args []string) int {
	fs := newFlagSet("schema")
	pos, code := parseArgs(inv, fs, helpSchema, args)
	if code >= 0 {
		return code
	}
	if len(pos) != 1 {
		return inv.usageErr("want one argument, input or output")
	}
	var b []byte
	switch pos[0] {
	case "input":
		b = spec.InputSchema()
	case "output":
		b = spec.OutputSchema()
	default:
		return inv.usageErr("unknown schema %q (want input or output)", pos[0])
	}
	if !bytes.HasSuffix(b, []byte("\n")) {
		b = append(b, '\n')
	}
	if _, err := inv.stdout.Write(b); err != nil {
		inv.errorf("%v", err)
		return ExitFail
	}
	return ExitOK
}

// Version returns the module version of the binary from its build
// information, or "devel" when it was not built from a released module.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return "devel"
	}
	return bi.Main.Version
}

func cmdVersion(_ context.Context, inv *invocation, args []string) int {
	fs := newFlagSet("version")
	pos, code := parseArgs(inv, fs, helpVersion, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return inv.usageErr("unexpected argument %q", pos[0])
	}
	extra := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev string
		var dirty bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			extra = " " + rev
			if dirty {
				extra += "+dirty"
			}
		}
	}
	fmt.Fprintf(inv.stdout, "monad-hooks %s%s %s %s/%s\n", Version(), extra, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return ExitOK
}
