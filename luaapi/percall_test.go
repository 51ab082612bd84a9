package luaapi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
)

// TestOutputListedOrLookedUp: readOutput reads a returned table the same
// whether it lists its entries (16 or fewer) or looks the fields up (more):
// numeric keys, a key in another case, json.null, a table over the bound.
func TestOutputListedOrLookedUp(t *testing.T) {
	for _, tc := range []struct {
		name, ret string
		want      events.Output
	}{
		{"padded", `local t = {decision = "deny", reason = "r"}; for i = 1, 30 do t["k" .. i] = i end; return t`,
			events.Output{Decision: events.Deny, Reason: "r"}},
		{"numeric keys", `local t = {decision = "deny", reason = "n"}; for i = 1, 40 do t[i] = "x" end; return t`,
			events.Output{Decision: events.Deny, Reason: "n"}},
		{"other case", `return {Decision = "allow", decision = "deny", REASON = "no", reason = "yes"}`,
			events.Output{Decision: events.Deny, Reason: "yes"}},
		{"null over the bound", `local t = {decision = json.null, reason = "z"}; for i = 1, 20 do t["p" .. i] = true end; return t`,
			events.Output{Reason: "z"}},
		{"null listed", `return {decision = json.null, reason = "z"}`, events.Output{Reason: "z"}},
		{"exactly 16", `local t = {decision = "deny"}; for i = 1, 15 do t[i] = i end; return t`, events.Output{Decision: events.Deny}},
		{"17", `local t = {decision = "deny"}; for i = 1, 16 do t[i] = i end; return t`, events.Output{Decision: events.Deny}},
		{"boolean keys", `return {[true] = "x", [false] = "y", decision = "deny"}`, events.Output{Decision: events.Deny}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := handlerPool(t, tc.ret)
			for range 3 { // the table shape must not matter from call to call
				out, err := p.Call(context.Background(), 0, bashInput("ls"))
				require.NoError(t, err)
				require.Equal(t, tc.want.Decision, out.Decision)
				require.Equal(t, tc.want.Reason, out.Reason)
			}
		})
	}
	// a metatable on the returned table is refused, listed or not
	for _, n := range []int{1, 20} {
		p := handlerPool(t, fmt.Sprintf(`local t = {}; for i = 1, %d do t[i] = i end; return setmetatable(t, {__index = {decision = "allow"}})`, n))
		_, err := p.Call(context.Background(), 0, bashInput("ls"))
		require.ErrorContains(t, err, "metatable")
	}
}

// TestInputIsolationWithPrediction: once a handler's reads are predicted,
// what one call (or hook) does to the input does not show in the next,
// and a field absent in a call is absent, predicted or not.
func TestInputIsolationWithPrediction(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "a.lua", `
hook{ event = "BeforeTool", handler = function(input)
  local ti = input.toolInput
  local seen = ti and tostring(ti.command) .. "|" .. tostring(ti.extra) or "none"
  seen = seen .. "|" .. tostring(input.prompt) .. "|" .. tostring(input.tool)
  if ti then ti.extra = "A-wrote"; ti.command = "A-cmd" end
  input.prompt = "A-prompt"
  input.toolInput = { command = "replaced" }
  return { reason = seen }
end }
hook{ event = "BeforeTool", handler = function(input)
  local ti = input.toolInput
  return { reason = (ti and tostring(ti.command) .. "|" .. tostring(ti.extra) or "none") .. "|" .. tostring(input.prompt) }
end }`)
	ctx := context.Background()
	for i := range 200 {
		cmd := fmt.Sprintf("c%d", i)
		var in *events.Input
		switch i % 3 {
		case 0:
			in = bashInput(cmd)
		case 1:
			in = &events.Input{Event: events.BeforeTool, ToolName: "bash"} // no toolInput
		case 2:
			in = &events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": cmd, "other": "o"}}
		}
		wantA, wantB := "none|nil|nil", "none|nil"
		if in.ToolInput != nil {
			wantA, wantB = cmd+"|nil|nil|nil", cmd+"|nil|nil"
		}
		out, err := p.Call(ctx, 0, in)
		require.NoError(t, err)
		require.Equal(t, wantA, out.Reason, "call %d", i)
		out, err = p.Call(ctx, 1, in)
		require.NoError(t, err)
		require.Equal(t, wantB, out.Reason, "call %d", i)
		if in.ToolInput != nil {
			m := in.ToolInput.(map[string]any)
			require.Equal(t, cmd, m["command"], "the host's input was written")
			require.NotContains(t, m, "extra")
		}
	}
}

// TestHotSlotNeverReturnsABadVM: under concurrent calls, a VM that timed
// out never serves again, no VM serves more than MaxUses calls, at most
// PoolSize VMs live, and each answer is its own input's. The spins run in
// a hook of their own, which times out at 50 ms; the other calls have the
// longest timeout, so that none of them times out on a loaded machine
// after waiting for a VM (one run in three did when they shared the 50 ms).
func TestHotSlotNeverReturnsABadVM(t *testing.T) {
	const size, maxUses = 3, 5
	p := newTestPool(t, Options{PoolSize: size, MaxUses: maxUses}, "h.lua", `
local uses, tainted = 0, false
hook{ event = "BeforeTool", timeoutMs = 50, handler = function(input)
  uses = uses + 1
  tainted = true
  while true do end
end }
hook{ event = "BeforeTool", handler = function(input)
  if tainted then return { decision = "allow", reason = "TAINTED" } end
  uses = uses + 1
  local cmd = input.toolInput.command
  if cmd:sub(1, 4) == "deny" then return { decision = "deny", reason = cmd .. "/" .. uses } end
  return { decision = "allow", reason = cmd .. "/" .. uses }
end }`)
	var wg sync.WaitGroup
	var bad atomic.Value
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for i := range 100 {
				cmd := fmt.Sprintf("allow-%d-%d", g, i)
				switch rng.IntN(10) {
				case 0:
					cmd = "spin"
				case 1, 2, 3:
					cmd = fmt.Sprintf("deny-%d-%d", g, i)
				}
				hook := 1
				if cmd == "spin" {
					hook = 0
				}
				out, err := p.Call(context.Background(), hook, bashInput(cmd))
				if cmd == "spin" {
					if err == nil {
						bad.Store(fmt.Sprintf("spin answered %+v", out))
					} else if !strings.Contains(err.Error(), "timed out") && !strings.Contains(err.Error(), "timeout") {
						bad.Store("spin: " + err.Error())
					}
					continue
				}
				if err != nil && strings.Contains(err.Error(), "waiting for a VM") {
					continue // the wait counts against the 50 ms (spins hold VMs)
				}
				if err != nil {
					bad.Store(fmt.Sprintf("%s: %v", cmd, err))
					continue
				}
				r, n, _ := strings.Cut(out.Reason, "/")
				var uses int
				fmt.Sscan(n, &uses)
				if r != cmd || uses < 1 || uses > maxUses {
					bad.Store(fmt.Sprintf("%s answered %q", cmd, out.Reason))
				}
				if (out.Decision == events.Deny) != strings.HasPrefix(cmd, "deny") {
					bad.Store(fmt.Sprintf("%s decided %v", cmd, out.Decision))
				}
				if s := p.Stats(); s.Created-s.Discarded > size {
					bad.Store(fmt.Sprintf("%d VMs live", s.Created-s.Discarded))
				}
			}
		})
	}
	wg.Wait()
	if s := bad.Load(); s != nil {
		t.Fatal(s)
	}
	t.Logf("%+v", p.Stats())
	require.NoError(t, p.Close())
	require.Eventually(t, func() bool { s := p.Stats(); return s.Created == s.Discarded }, 10*time.Second, time.Millisecond)
}

// TestReLastPatternSwitches: re's last-pattern cache answers each search
// with its own pattern: alternating patterns, flags inside the pattern, a
// bad pattern between good ones (it fails every time).
func TestReLastPatternSwitches(t *testing.T) {
	p := handlerPool(t, `local re = require("re")
local s = input.toolInput.command
local a = re.find(s, "abc") or 0
local b = re.find(s, "(?i)abc") or 0
local c = re.find(s, "abc") or 0
local ok = pcall(re.find, s, "(")
local d = re.find(s, "(?i)ABC") or 0
local ok2 = pcall(re.find, s, "(")
return { reason = a .. "," .. b .. "," .. c .. "," .. tostring(ok) .. "," .. d .. "," .. tostring(ok2) }`)
	for range 3 {
		out, err := p.Call(context.Background(), 0, bashInput("xxABCabc"))
		require.NoError(t, err)
		require.Equal(t, "6,3,6,false,3,false", out.Reason)
	}
}
