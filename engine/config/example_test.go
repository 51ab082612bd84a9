package config_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/monad-hooks/monad-hooks/engine/config"
	"github.com/monad-hooks/monad-hooks/events"
)

func ExampleParse() {
	src := []byte(`{
  "model": "large",
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
	// agents.toml:5:9: unknown_event: unknown event "BeforeTol" (did you mean "BeforeTool"?)
	// agents.toml:6:32: unknown_key: unknown key "onErorr" in a hook entry: want "command", "timeoutMs" or "onError" (did you mean "onError"?)
}

func ExampleWriter() {
	dir, err := os.MkdirTemp("", "config-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "agents.json")
	if err := os.WriteFile(path, []byte(`{"model": "large"}`), 0o600); err != nil {
		fmt.Println(err)
		return
	}

	w := config.NewWriter(config.OSFS{})
	ref, err := w.AddHook(path, events.BeforeTool, "^shell_exec$",
		config.Hook{Command: "./guards/check.sh", OnError: config.OnErrorDeny})
	fmt.Println("added", ref, err)

	// An invalid hook is refused; the file is untouched.
	_, err = w.AddHook(path, events.BeforeTool, "", config.Hook{Command: "./slow.sh", TimeoutMs: -1})
	var errs config.Errors
	if errors.As(err, &errs) {
		fmt.Println("refused:", errs[0].Code, errs[0].Field)
	}

	// Policy hooks are never written.
	err = w.Edit(path, config.TierPolicy, func(map[events.Event][]config.Group) error { return nil })
	fmt.Println("policy:", errors.Is(err, config.ErrPolicyReadOnly))

	err = w.ReplaceHook(path, ref, config.Hook{Command: "./guards/check.sh --strict", TimeoutMs: 2000, OnError: config.OnErrorDeny})
	fmt.Println("replaced", err)

	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	// Output:
	// added hooks.BeforeTool[0].hooks[0] <nil>
	// refused: bad_timeout hooks.BeforeTool[1].hooks[0].timeoutMs
	// policy: true
	// replaced <nil>
	// {
	//   "model": "large",
	//   "hooks": {
	//     "BeforeTool": [
	//       {
	//         "matcher": "^shell_exec$",
	//         "hooks": [
	//           {
	//             "command": "./guards/check.sh --strict",
	//             "timeoutMs": 2000,
	//             "onError": "deny"
	//           }
	//         ]
	//       }
	//     ]
	//   }
	// }
}
