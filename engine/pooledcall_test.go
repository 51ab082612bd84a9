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
func TestPooledCallsConcurrent(t *testing.T) {
	eng := luaEngine(t, "chain.lua", `
hook{ event = "BeforeTool", name = "a", onError = "deny", timeoutMs = 200, handler = function(i)
  local c = i.toolInput.command
  if c == "spin" then while true do end end
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
				if res.Decision == events.Deny && strings.Contains(res.Reason, "fails closed (onError: deny): ") && strings.Contains(res.Reason, "waiting for a VM") {
					continue // spins hold the VMs: the wait is part of a's 200 ms, and a fails closed
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
