package config_test

import (
	"errors"
	"fmt"

	"github.com/monad-hooks/monad-hooks/engine/internal/config"
	"github.com/monad-hooks/monad-hooks/events"
)

func ExampleParse() {
	src := []byte(`{
  "$schema": "https://example.com/agents.schema.json",
  "hooks": {
    "BeforeTool": [
      { "matcher": "^(shell_exec|file_write)$",
        "hooks": [{ "command": "./guards/check.sh", "timeoutMs": 5000, "onError": "deny" }] }
    ],
    "AfterModel": [ { "hooks": [{ "command": "./guards/redact.sh" }] } ]
  },
  "atoms": [ "guards/extra.lua", { "stdlib": "deny-destructive", "with": { "protectedBranches": ["main"] } } ]
}`)
	f, err := config.Parse("/home/me/.monad/agents.json", src, config.TierUser)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ev := range events.All() {
		for _, g := range f.Hooks[ev] {
			for _, h := range g.Hooks {
				fmt.Printf("%s %s matcher=%q command=%q timeoutMs=%d onError=%q\n", h.Pos, ev, g.Matcher, h.Command, h.TimeoutMs, h.OnError)
			}
		}
	}
	for _, a := range f.Atoms {
		fmt.Printf("%s atom path=%q stdlib=%q with=%v\n", a.Pos, a.Path, a.Stdlib, a.With)
	}
	// Output:
	// /home/me/.monad/agents.json:6:19 BeforeTool matcher="^(shell_exec|file_write)$" command="./guards/check.sh" timeoutMs=5000 onError="deny"
	// /home/me/.monad/agents.json:8:33 AfterModel matcher="" command="./guards/redact.sh" timeoutMs=0 onError=""
	// /home/me/.monad/agents.json:10:14 atom path="/home/me/.monad/guards/extra.lua" stdlib="" with=map[]
	// /home/me/.monad/agents.json:10:34 atom path="" stdlib="deny-destructive" with=map[protectedBranches:[main]]
}

// Every problem is reported, in document order, with its position and a
// stable code.
func ExampleParse_errors() {
	src := []byte(`[[hooks.BeforeTool]]
matcher = "^(shell_exec"
hooks = [{ command = "./a.sh", timeoutMs = -5 }]

[[hooks.BeforeTol]]
hooks = [{ command = "./b.sh", onErorr = "deny" }]
`)
	_, err := config.Parse("agents.toml", src, config.TierUser)
	var errs config.Errors
	if errors.As(err, &errs) {
		for _, e := range errs {
			fmt.Println(e)
		}
	}
	// Output:
	// agents.toml:2:11: bad_matcher: matcher "^(shell_exec" is not a valid RE2 regular expression: missing closing ): `^(shell_exec`
	// agents.toml:3:44: bad_timeout: timeoutMs must be between 1 and 600000 (10 minutes), got -5
	// agents.toml:5:9: unknown_event: unknown event "BeforeTol" (did you mean "BeforeTool"?); want one of SessionStart, BeforeTurn, BeforeModel, BeforeTool, ApprovalRequest, AfterTool, AfterModel, BeforeCompact, AfterCompact, BeforeSubagent, AfterSubagent, AfterTurn, SessionEnd
	// agents.toml:6:32: unknown_key: unknown key "onErorr" in a hook entry: want "command", "timeoutMs", "onError", "input" or "persistent" (did you mean "onError"?)
}
