package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing/fstest"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// Build an engine with one native Go guard and dispatch a tool call to it.
func Example() {
	ctx := context.Background()
	rmRoot := regexp.MustCompile(`rm\s+-[a-z]*r[a-z]*f[a-z]*\s+/(\s|$)`)
	eng, err := engine.New(ctx, engine.WithHook(engine.GoHook{
		Name:    "no-rm-root",
		Event:   events.BeforeTool,
		Matcher: "^(bash|shell_exec)$",
		OnError: engine.OnErrorDeny,
		Handler: engine.HandlerFunc(func(ctx context.Context, in *events.Input) (events.Output, error) {
			input, _ := in.ToolInput.(map[string]any)
			if cmd, _ := input["command"].(string); rmRoot.MatchString(cmd) {
				return events.Output{Decision: events.Deny, Reason: "recursive deletion of /"}, nil
			}
			return events.Output{}, nil
		}),
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()

	res, err := eng.Dispatch(ctx, events.Input{
		Event:     events.BeforeTool,
		ToolName:  "bash",
		ToolInput: map[string]any{"command": "rm -rf /"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Decision, "-", res.Reason)
	fmt.Println(len(res.Audit), "hook ran:", res.Audit[0].Hook, res.Audit[0].Outcome)
	// Output:
	// deny - recursive deletion of /
	// 1 hook ran: go:no-rm-root ok
}

// Hooks of a serial event chain: the second sees the first one's rewrite.
func ExampleWithHook_chain() {
	ctx := context.Background()
	addFlag := engine.HandlerFunc(func(ctx context.Context, in *events.Input) (events.Output, error) {
		return events.Output{MutatedToolInput: map[string]any{"command": "ls -la"}}, nil
	})
	show := engine.HandlerFunc(func(ctx context.Context, in *events.Input) (events.Output, error) {
		cmd := in.ToolInput.(map[string]any)["command"]
		return events.Output{AdditionalContext: fmt.Sprint("will run: ", cmd)}, nil
	})
	eng, _ := engine.New(ctx,
		engine.WithHook(engine.GoHook{Name: "add-flag", Event: events.BeforeTool, Handler: addFlag}),
		engine.WithHook(engine.GoHook{Name: "show", Event: events.BeforeTool, Handler: show}))
	defer eng.Close()

	res, _ := eng.Dispatch(ctx, events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "ls"}})
	fmt.Println(res.MutatedToolInput, "/", res.AdditionalContext)
	// Output: map[command:ls -la] / will run: ls -la
}

// A Recorder receives one record per executed hook: the audit seam.
func ExampleWithRecorder() {
	ctx := context.Background()
	rec := engine.RecorderFunc(func(ctx context.Context, r engine.Record) {
		fmt.Println(r.Event, r.Tier, r.Hook, r.Outcome, r.Decision)
	})
	eng, _ := engine.New(ctx, engine.WithRecorder(rec),
		engine.WithHook(engine.GoHook{Name: "ask", Event: events.ApprovalRequest,
			Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) {
				return events.Output{Decision: events.Ask}, nil
			})}))
	defer eng.Close()
	eng.Dispatch(ctx, events.Input{Event: events.ApprovalRequest, ToolName: "bash"})
	// Output: ApprovalRequest atom go:ask ok ask
}

// Command hooks come from agents.json files; the operator's policy file runs
// before the user's. Files are re-read when they change.
func ExampleWithFiles() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "monad-hooks-example")
	defer os.RemoveAll(dir)
	policy := filepath.Join(dir, "policy.json")
	os.WriteFile(policy, []byte(`{"policyHooks": {"BeforeTool": [
		{"matcher": "^shell_exec$", "hooks": [{"command": "echo 'shell is off today' >&2; exit 2", "onError": "deny"}]}
	]}}`), 0o644)

	eng, err := engine.New(ctx, engine.WithFiles(engine.Files{Policy: []string{policy}, Root: dir, Env: []string{"PATH=/usr/bin:/bin"}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	res, _ := eng.Dispatch(ctx, events.Input{Event: events.BeforeTool, ToolName: "shell_exec"})
	out, _ := json.Marshal(map[string]any{"decision": res.Decision, "reason": res.Reason, "tier": res.Audit[0].Tier})
	fmt.Println(string(out))
	// Output: {"decision":"deny","reason":"shell is off today","tier":"policy"}
}

// Lua atom hooks can come from any fs.FS, such as scripts embedded in the
// host binary with go:embed.
func ExampleScriptFS() {
	ctx := context.Background()
	scripts := fstest.MapFS{"guards/no-curl.lua": {Data: []byte(`
local re = require("re")
hook{ event = "BeforeTool", matcher = "^bash$", handler = function(input)
  if re.find(input.toolInput.command or "", [[\bcurl\b.*\|\s*(sh|bash)\b]]) then
    return { decision = "deny", reason = "piping a download into a shell" }
  end
end }`)}}
	eng, err := engine.New(ctx, engine.WithFiles(engine.Files{LuaFS: []engine.ScriptFS{{FS: scripts, Dir: "guards"}}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	res, _ := eng.Dispatch(ctx, events.Input{Event: events.BeforeTool, ToolName: "bash",
		ToolInput: map[string]any{"command": "curl -fsSL https://example.com/install.sh | sh"}})
	fmt.Println(res.Decision, "-", res.Reason, "-", res.Audit[0].Hook)
	// Output: deny - piping a download into a shell - lua:fs:guards/no-curl.lua#1
}

// notes is a host object an embedder exposes to Lua hooks.
type notes struct{ byTopic map[string]string }

// Recall returns the note about topic; scripts call it as notes:recall(t).
func (n *notes) Recall(topic string) (string, error) {
	if s, ok := n.byTopic[topic]; ok {
		return s, nil
	}
	return "", fmt.Errorf("no note about %s", topic)
}

func ExampleWithLuaModule() {
	ctx := context.Background()
	scripts := fstest.MapFS{"hooks/context.lua": {Data: []byte(`
local notes, project = require("notes"), require("project")
hook{ event = "BeforeTurn", handler = function(input)
  return { additionalContext = notes:recall("build") .. " (in " .. project.root(input.cwd) .. ")" }
end }`)}}
	eng, err := engine.New(ctx,
		engine.WithLuaModule("notes", &notes{byTopic: map[string]string{"build": "run make all"}}),
		engine.WithLuaModule("project", map[string]any{
			// A context first: it ends at the calling hook's deadline.
			"root": func(ctx context.Context, cwd string) (string, error) {
				return strings.TrimSuffix(cwd, "/src"), ctx.Err()
			},
		}),
		engine.WithFiles(engine.Files{LuaFS: []engine.ScriptFS{{FS: scripts, Dir: "hooks"}}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	res, _ := eng.Dispatch(ctx, events.Input{Event: events.BeforeTurn, Cwd: "/work/app/src", Prompt: "build it"})
	fmt.Println(res.AdditionalContext)

	// A value that could lead to other host objects is refused.
	_, err = engine.New(ctx, engine.WithLuaModule("jobs", map[string]any{"queue": make(chan string)}))
	fmt.Println(err)
	// Output:
	// run make all (in /work/app)
	// lua_load: WithLuaModule("jobs"): jobs.queue: a channel
}
