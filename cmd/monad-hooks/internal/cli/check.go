package cli

import (
	"context"
)

func cmdCheck(ctx context.Context, inv *invocation, args []string) int {
	var c common
	fs := newFlagSet("check")
	c.register(fs)
	asJSON := fs.Bool("json", false, "print the plan as JSON")
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
	if err := printPlan(ctx, inv.stdout, o.eng, *asJSON); err != nil {
		inv.errorf("%v", err)
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
