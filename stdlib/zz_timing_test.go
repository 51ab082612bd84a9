package stdlib_test

import (
	"context"
	"testing"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
)

func TestTimingTmp(t *testing.T) {
	for _, name := range []string{"deny-destructive", "protect-paths"} {
		p := mustLoad(t, name, nil)
		for _, cmd := range []string{"go test ./... -run TestFoo -count=1 2>&1 | tail -20", "git status && git diff", "sudo rm -rf /"} {
			in := shellInput(cmd)
			for i, h := range p.hooks {
				if h.Event != events.BeforeTool || !h.Matches(in.ToolName) {
					continue
				}
				p.pool.Call(context.Background(), i, &in)
				start := time.Now()
				for k := 0; k < 50; k++ {
					p.pool.Call(context.Background(), i, &in)
				}
				t.Logf("%s %q: %v per call", name, cmd, time.Since(start)/50)
			}
		}
	}
}
