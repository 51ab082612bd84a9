package luaapi_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
)

func Example() {
	script, err := luaapi.Compile("guards/rm.lua", []byte(`
local re = require("re")
hook{ event = "BeforeTool", matcher = "^(shell_exec|bash)$", onError = "deny", timeoutMs = 5000,
      handler = function(input)
        local cmd = input.toolInput.command or ""
        if re.find(cmd, [[rm\s+-[a-z]*r[a-z]*f[a-z]*\s+/(\s|$)]]) then
          return { decision = "deny", reason = "recursive deletion of /" }
        end
      end }
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	pool, err := luaapi.NewPool(context.Background(), []luaapi.Source{{Script: script}}, luaapi.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()

	in := &events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "rm -rf /"}}
	for i, h := range pool.Hooks() {
		if h.Event != in.Event || !h.Matches(in.ToolName) {
			continue
		}
		out, err := pool.Call(context.Background(), i, in)
		fmt.Printf("%s:%d %s %q %v\n", h.Script, h.Line, out.Decision, out.Reason, err)
	}
	// Output: guards/rm.lua:3 deny "recursive deletion of /" <nil>
}

func ExampleCompile_error() {
	_, err := luaapi.Compile("bad.lua", []byte(`
local ok = true
local function check() return false end
ok = ok and (check() and true)
`))
	var se *luaapi.ScriptError
	if errors.As(err, &se) {
		fmt.Println(se.Script, se.Line)
	}
	// Output: bad.lua 4
}

func ExampleNewPool_params() {
	script := luaapi.MustCompile("branches.lua", []byte(`
hook{ event = "BeforeTool", handler = function(input)
  for _, b in ipairs(params.protectedBranches) do
    if (input.toolInput.command or ""):find("push origin " .. b, 1, true) then
      return { decision = "ask", reason = "push to " .. b }
    end
  end
end }
`))
	pool, err := luaapi.NewPool(context.Background(), []luaapi.Source{
		{Script: script, Params: map[string]any{"protectedBranches": []any{"main", "release"}}},
	}, luaapi.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	out, _ := pool.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: "bash",
		ToolInput: map[string]any{"command": "git push origin main"}})
	fmt.Println(out.Decision, out.Reason)
	// Output: ask push to main
}

func ExamplePool_CallLogs() {
	script := luaapi.MustCompile("audit.lua", []byte(`
local log = require("log")
hook{ event = "AfterTool", handler = function(input)
  log.info("tool finished", { tool = input.toolName, ok = input.ok })
  if not input.ok then error("tool failed: " .. (input.error or "?"), 0) end
end }
`))
	pool, err := luaapi.NewPool(context.Background(), []luaapi.Source{{Script: script}}, luaapi.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	failed := false
	_, logs, err := pool.CallLogs(context.Background(), 0, &events.Input{Event: events.AfterTool, ToolName: "bash", OK: &failed, Error: "exit 1"})
	for _, l := range logs {
		fmt.Println(l.Level, l.Msg, l.Fields["tool"], l.Fields["ok"], l.Script, l.Line)
	}
	var he *luaapi.HookError
	if errors.As(err, &he) {
		fmt.Println(he.Kind, he.Msg)
	}
	// Output:
	// INFO tool finished bash false audit.lua 4
	// error tool failed: exit 1
}
