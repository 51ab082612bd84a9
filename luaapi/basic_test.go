package luaapi

import (
	"context"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

func TestBasicDeny(t *testing.T) {
	p := newTestPool(t, Options{}, "guard.lua", `
local re = require("re")
-- A timeout far above the call's cost (a loaded machine may take 50 ms).
hook{ event = "BeforeTool", matcher = "^shell_exec$", onError = "deny", timeoutMs = 5000,
      handler = function(input)
        if re.find(input.toolInput.command or "", "rm\\s+-rf") then
          return { decision = "deny", reason = "no rm -rf" }
        end
      end }
`)
	hs := p.Hooks()
	if len(hs) != 1 || hs[0].Event != events.BeforeTool || hs[0].Line != 4 || hs[0].OnError != "deny" || hs[0].Timeout.Milliseconds() != 5000 {
		t.Fatalf("hooks = %+v", hs)
	}
	out, err := p.Call(context.Background(), 0, bashInput("rm -rf /"))
	if err != nil || out.Decision != events.Deny || out.Reason != "no rm -rf" {
		t.Fatalf("out=%+v err=%v", out, err)
	}
	out, err = p.Call(context.Background(), 0, bashInput("ls"))
	if err != nil || out.Decision != "" {
		t.Fatalf("out=%+v err=%v", out, err)
	}
}
