package luaapi

import (
	"context"
	"fmt"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/stretchr/testify/require"
)

// TestInputDoesNotLeakBetweenCalls: whatever a handler does to its input
// table, the next call on the same VM (another script, another session)
// sees only its own input.
func TestInputDoesNotLeakBetweenCalls(t *testing.T) {
	mutations := map[string]string{
		"table.insert":        `table.insert(i, "leak")`,
		"table.insert at 1":   `table.insert(i, 1, "leak")`,
		"index assignment":    `i[1] = "leak"`,
		"new field":           `i.leak = "leak"`,
		"absent input field":  `i.prompt = "leak"`,
		"present field":       `i.sessionId = "leak"`,
		"nil then set":        `i.toolName = nil; i.toolName = "leak"`,
		"field to nil":        `i.cwd = nil`,
		"nested toolInput":    `i.toolInput.leak = "leak"; i.toolInput.command = "leak"`,
		"replace toolInput":   `i.toolInput = { leak = "leak" }`,
		"json.array":          `json.array(i)`,
		"json.object":         `json.object(i); i[1] = "leak"`,
		"setmetatable":        `pcall(setmetatable, i, { __index = function() return "leak" end })`,
		"rawset":              `pcall(function() rawset(i, "leak", "leak") end)`,
		"caller":              `if i.caller then i.caller.kind = "leak" end`,
		"numeric string keys": `table.insert(i, "leak"); i[2] = "leak"; table.remove(i, 1)`,
	}
	// B lists every key of its input with its value (and the toolInput's),
	// in a stable order.
	const dump = `
local function dump(t, prefix, out)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(ks) do
    local v = t[k]
    if type(v) == "table" then dump(v, prefix .. tostring(k) .. ".", out)
    else out[#out + 1] = prefix .. tostring(k) .. "=" .. tostring(v) end
  end
  return out
end
hook{ event = "BeforeTool", handler = function(i)
  return { reason = table.concat(dump(i, "", {}), " ") .. " #" .. #i .. " " .. tostring(getmetatable(i)) }
end }`
	inA := &events.Input{Event: events.BeforeTool, SessionID: "a", Cwd: "/a", ToolName: "bash", ToolInput: map[string]any{"command": "ls"}}
	inB := &events.Input{Event: events.BeforeTool, SessionID: "b", ToolName: "read", ToolInput: map[string]any{"path": "x"}}
	const wantB = "event=BeforeTool sessionId=b toolInput.path=x toolName=read #0 json.object"
	for name, m := range mutations {
		t.Run(name, func(t *testing.T) {
			p := newTestPool(t, Options{PoolSize: 1}, "a.lua",
				"local json = require('json')\nhook{ event = 'BeforeTool', handler = function(i) "+m+" end }",
				"b.lua", dump)
			for round := range 3 {
				_, err := p.Call(context.Background(), 0, inA)
				require.NoError(t, err)
				out, err := p.Call(context.Background(), 1, inB)
				require.NoError(t, err)
				require.Equal(t, wantB, out.Reason, fmt.Sprintf("round %d", round))
			}
			require.EqualValues(t, 1, p.Stats().Created, "the test must run on one VM")
		})
	}
}

// TestKeptInputIsEmptyLater: a handler that keeps its input table sees
// nothing of later calls in it: the table is emptied after each call (and
// one a handler tampered with is emptied and replaced).
func TestKeptInputIsEmptyLater(t *testing.T) {
	for _, tamper := range []string{"", "table.insert(i, 'x')", "i.extra = 1"} {
		p := newTestPool(t, Options{PoolSize: 1}, "a.lua", `
local kept
hook{ event = "BeforeTool", handler = function(i)
  local seen = "none"
  if kept then
    local n = 0
    for k, v in pairs(kept) do n = n + 1 end
    seen = tostring(n) .. " " .. tostring(kept.sessionId)
  end
  kept = i
  return { reason = seen }
end }`, "b.lua", `hook{ event = "BeforeTool", handler = function(i) `+tamper+` end }`)
		inA := &events.Input{Event: events.BeforeTool, SessionID: "a", ToolName: "bash"}
		inB := &events.Input{Event: events.BeforeTool, SessionID: "b-secret", ToolName: "bash", ToolInput: map[string]any{"command": "secret"}}
		out, err := p.Call(context.Background(), 0, inA)
		require.NoError(t, err)
		require.Equal(t, "none", out.Reason)
		_, err = p.Call(context.Background(), 1, inB)
		require.NoError(t, err)
		out, err = p.Call(context.Background(), 0, inA)
		require.NoError(t, err)
		if tamper == "" {
			// The same table, refilled for this call.
			require.Equal(t, "3 a", out.Reason)
		} else {
			require.Equal(t, "0 nil", out.Reason, tamper)
		}
	}
}
