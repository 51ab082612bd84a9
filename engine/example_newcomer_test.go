package engine_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// The CLI's default guards, a Lua guard of the host's and a Go hook in one
// engine: the stdlib denies rm -rf /, the Lua guard npm publish, and the Go
// hook sees every shell command that got through.
func ExampleWithStdlib_withLuaAndGo() {
	ctx := context.Background()
	guards := fstest.MapFS{"no-publish.lua": {Data: []byte(`
hook{ event = "BeforeTool", name = "no-publish", kind = "shell", handler = function(input)
  if (input.tool.command or ""):find("npm publish", 1, true) then return { decision = "deny", reason = "ask a person" } end
end }`)}}
	eng, err := engine.New(ctx, engine.WithStdlib("default"),
		engine.WithFiles(engine.Files{Root: "/work/project", Home: "/home/me", LuaFS: []engine.ScriptFS{{FS: guards, Dir: "."}}}),
		engine.WithHook(engine.GoHook{Name: "log", Event: events.BeforeTool, Kinds: []events.ToolKind{events.ToolShell},
			Handler: engine.HandlerFunc(func(_ context.Context, in *events.Input) (events.Output, error) {
				fmt.Println("  go hook saw:", in.Tool.Command)
				return events.Output{}, nil
			})}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	for _, cmd := range []string{"rm -rf /", "npm publish", "npm test"} {
		res, _ := eng.Dispatch(ctx, events.Input{Event: events.BeforeTool, ToolName: "Bash", ToolInput: map[string]any{"command": cmd}})
		fmt.Printf("%s: %s\n", cmd, res.Decision)
	}
	// Output:
	//   go hook saw: rm -rf /
	// rm -rf /: deny
	//   go hook saw: npm publish
	// npm publish: deny
	//   go hook saw: npm test
	// npm test: proceed
}
