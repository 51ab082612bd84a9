package cli

import (
	"context"

	"github.com/monad-hooks/monad-hooks/engine"
)

func cmdCheck(ctx context.Context, inv *invocation, args []string) int {
	var c common
	fs := newFlagSet("check")
	c.register(fs)
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	all := fs.Bool("all", false, "list the stdlib's hooks too, in dispatch order")
	pos, code := parseArgs(inv, fs, helpCheck, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return inv.usageErr("unexpected argument %q", pos[0])
	}
	o, code := c.open(ctx, inv, false)
	if code >= 0 {
		return code
	}
	defer o.close(inv)
	if err := printPlan(ctx, inv.stdout, o.eng, *asJSON, *all, inv.env.Dir); err != nil {
		inv.errorf("%v", err)
		return ExitFail
	}
	// A command hook that cannot run is a warning where the engine runs
	// (the hook fails, its onError applies); in CI it is a failure.
	n := 0
	for _, w := range o.eng.Warnings() {
		if w.Code == engine.CodeBadScript {
			n++
		}
	}
	if n > 0 {
		inv.errorf("%d command %s cannot run: %s (see the %s above)", n, plural(n, "hook", "hooks"), plural(n, "its script is missing or not executable", "their scripts are missing or not executable"), plural(n, "warning", "warnings"))
		return ExitFail
	}
	return ExitOK
}

func cmdExplain(ctx context.Context, inv *invocation, args []string) int {
	var c common
	fs := newFlagSet("explain")
	c.register(fs)
	asJSON := fs.Bool("json", false, "print the explanation as JSON")
	hostName := fs.String("host", "monad", "the agent `HOST` whose hook payload stdin holds")
	in, code := explainInput(inv, fs, &c, hostName, args)
	if code >= 0 {
		return code
	}
	o, code := c.open(ctx, inv, false)
	if code >= 0 {
		return code
	}
	defer o.close(inv)
	if err := printExplain(ctx, inv.stdout, o.eng, in, *asJSON); err != nil {
		inv.errorf("%v", err)
		return ExitFail
	}
	return ExitOK
}
