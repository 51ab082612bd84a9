package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

// TestPooledCallsConcurrent: Lua-only dispatches (a pooled call, the lazy
// tool view, predicted reads, the hot VM slot) from many goroutines, mixed
// rewrites, denies, errors and timeouts, parallel events between them:
// every answer is its own input's, and a failing fail-closed hook denies.
// The spins run in a hook of their own ("spin", 200 ms), which the
// prefilter skips for every other command without a VM; the other hooks
// have the test engines' long timeout. When the spins shared a's 200 ms,
// a call that waited for a VM the spins held, then ran, timed out on a
// loaded machine (1 run in 40 under -race): the wait is charged to the
// hook's timeout by design, so only a timeout far above the cost of the
// calls that must succeed makes them deterministic.
func TestPooledCallsConcurrent(t *testing.T) {
	eng := luaEngine(t, "chain.lua", `
local scan = require("scan")
hook{ event = "BeforeTool", name = "spin", kind = "shell", prefilter = scan.keywords({ "spin" }), onError = "deny", timeoutMs = 200, handler = function(i)
  if i.toolInput.command == "spin" then while true do end end
end }
hook{ event = "BeforeTool", name = "a", onError = "deny", handler = function(i)
  local c = i.toolInput.command
  if c == "err" then error("boom") end
  if c:sub(1, 8) == "rewrite:" then return { mutatedToolInput = { command = c:sub(9) } } end
end }
hook{ event = "BeforeTool", name = "b", onError = "deny", handler = function(i)
  local seen = i.tool.kind .. ":" .. i.tool.command .. "|" .. i.toolInput.command
  if i.tool.command:find("rm", 1, true) then return { decision = "deny", reason = seen } end
  return { additionalContext = seen }
end }
hook{ event = "BeforeCompact", handler = function(i) return { additionalContext = "s:" .. i.sessionId } end }
hook{ event = "BeforeCompact", handler = function(i) return { additionalContext = "t:" .. i.sessionId } end }`)
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 4))
			for n := range 60 {
				sid := fmt.Sprintf("s%d-%d", g, n)
				if rng.IntN(6) == 0 {
					res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeCompact, SessionID: sid})
					if err != nil || res.AdditionalContext != "s:"+sid+"\n\nt:"+sid {
						errs <- fmt.Sprintf("BeforeCompact %s: %+v %v", sid, res, err)
					}
					continue
				}
				var cmd, want, wantDecision string
				switch rng.IntN(8) {
				case 0:
					cmd, wantDecision = "spin", "deny"
				case 1:
					cmd, wantDecision = "err", "deny"
				case 2:
					cmd = fmt.Sprintf("rewrite:rm -rf /%d", n)
					want, wantDecision = fmt.Sprintf("shell:rm -rf /%d|rm -rf /%d", n, n), "deny"
				case 3:
					cmd = fmt.Sprintf("rewrite:ls %d", n)
					want = fmt.Sprintf("shell:ls %d|ls %d", n, n)
				case 4:
					cmd = fmt.Sprintf("rm %s", sid)
					want, wantDecision = "shell:"+cmd+"|"+cmd, "deny"
				default:
					cmd = fmt.Sprintf("echo %s", sid)
					want = "shell:" + cmd + "|" + cmd
				}
				res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, SessionID: sid, ToolName: "Bash", ToolInput: map[string]any{"command": cmd}})
				if err != nil {
					errs <- err.Error()
					continue
				}
				if string(res.Decision) != wantDecision {
					errs <- fmt.Sprintf("%s: decision %q, want %q (%+v)", cmd, res.Decision, wantDecision, res.Audit)
					continue
				}
				got := res.AdditionalContext
				if res.Decision == events.Deny {
					got = res.Reason
				}
				if want != "" && got != want {
					errs <- fmt.Sprintf("%s: saw %q, want %q", cmd, got, want)
				}
				if cmd == "spin" && (!strings.Contains(got, "#spin failed and fails closed (onError: deny): ") || !strings.Contains(got, "timeout")) {
					errs <- fmt.Sprintf("spin: saw %q, want the spin hook's timeout", got)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestPrefilterSeesRewrittenInput: a prefilter after a rewrite in a
// Lua-only chain tests the rewritten command, whether or not an earlier
// hook read the view first (a skip on the old view would let it through).
func TestPrefilterSeesRewrittenInput(t *testing.T) {
	for _, first := range []string{
		`function(i) return { mutatedToolInput = { command = "rm -rf /" } } end`,
		`function(i) local _ = i.tool.command; return { mutatedToolInput = { command = "rm -rf /" } } end`,
	} {
		eng := luaEngine(t, "pf.lua", `local scan = require("scan")
hook{ event = "BeforeTool", handler = `+first+` }
hook{ event = "BeforeTool", kind = "shell", prefilter = scan.keywords({ "rm" }), handler = function(i)
  return { decision = "deny", reason = i.tool.command }
end }`)
		for range 3 {
			res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "Bash", ToolInput: map[string]any{"command": "ls"}})
			if err != nil || res.Decision != events.Deny || res.Reason != "rm -rf /" {
				t.Fatalf("%s: %+v %v", first, res, err)
			}
		}
	}
}
