package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// TestMixedLoad dispatches mixed events through Go, Lua and command hooks
// from many goroutines while the configuration and a script are rewritten,
// then closes the engine: no race (under -race), no deadlock, no goroutine
// left behind, and exactly one audit record per executed hook.
func TestMixedLoad(t *testing.T) {
	defer goleak.VerifyNone(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "guard.lua")
	cfg := filepath.Join(dir, "agents.json")
	writeConfig(t, script, luaVersion(1))
	writeConfig(t, cfg, `{"hooks":{"AfterTool":[{"hooks":[{"command":"cat >/dev/null; echo '{\"updatedToolOutput\":\"cmd\"}'"}]}]}}`)
	var recorded atomic.Int64
	var fromResults atomic.Int64
	eng, err := engine.New(t.Context(),
		engine.WithRecorder(engine.RecorderFunc(func(context.Context, engine.Record) { recorded.Add(1) })),
		engine.WithHook(engine.GoHook{Name: "ctx", Event: events.BeforeCompact, Handler: engine.HandlerFunc(
			func(context.Context, *events.Input) (events.Output, error) {
				return events.Output{AdditionalContext: "go"}, nil
			})}),
		engine.WithFiles(engine.Files{User: []string{cfg}, Lua: []string{script}, Root: dir, Env: []string{"PATH=/usr/bin:/bin"}}))
	if err != nil {
		t.Fatal(err)
	}
	inputs := []events.Input{
		{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "rm -rf /"}},
		{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "ls"}},
		{Event: events.BeforeCompact, Compaction: &events.Compaction{Trigger: "auto"}},
		{Event: events.AfterModel, Response: "hello"},
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for i := g; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				in := inputs[i%len(inputs)]
				if i%50 == 0 {
					in = events.Input{Event: events.AfterTool, ToolName: "bash", ToolResult: "out"}
				}
				res, err := eng.Dispatch(context.Background(), in)
				if err != nil {
					t.Error(err)
					return
				}
				fromResults.Add(int64(len(res.Audit)))
				ti, _ := in.ToolInput.(map[string]any)
				cmd, _ := ti["command"].(string)
				if in.Event == events.BeforeTool && strings.HasPrefix(cmd, "rm") && res.Decision != events.Deny {
					t.Errorf("rm -rf / was not denied during reload: %+v", res)
					return
				}
			}
		})
	}
	for i := range 20 {
		writeConfig(t, script, luaVersion(i%3))
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	if recorded.Load() != fromResults.Load() {
		t.Errorf("recorder saw %d records, results carried %d", recorded.Load(), fromResults.Load())
	}
	t.Logf("%d hook executions", recorded.Load())
}

// luaVersion returns a guard script; version 0 is broken (a syntax error),
// which must keep the last good version in force.
func luaVersion(v int) string {
	if v == 0 {
		return `hook{ event = "BeforeTool", handler = function(i) return { decision = "allow" } `
	}
	return fmt.Sprintf(`
local re = require("re")
hook{ event = "BeforeTool", onError = "deny", handler = function(i)
  if re.find(i.toolInput.command or "", "^rm -rf /") then return { decision = "deny", reason = "v%d" } end
end }
hook{ event = "AfterModel", handler = function(i) return { mutatedText = i.response .. " v%d" } end }
`, v, v)
}

// TestAuditCarriesNoPayload proves that audit records say what hooks decided
// and why, never the payloads they saw or returned.
func TestAuditCarriesNoPayload(t *testing.T) {
	const secret = "sk-live-" + "9f8e7d6c5b4a39281706"
	dir := t.TempDir()
	script := filepath.Join(dir, "g.lua")
	writeConfig(t, script, `hook{ event = "BeforeTool", handler = function(i) return { mutatedToolInput = { command = i.toolInput.command .. " # checked" }, reason = "looked at it" } end }`)
	var lines []string
	var mu sync.Mutex
	eng, err := engine.New(t.Context(), testLuaPool,
		engine.WithRecorder(engine.RecorderFunc(func(_ context.Context, r engine.Record) {
			b, _ := json.Marshal(r)
			mu.Lock()
			lines = append(lines, string(b))
			mu.Unlock()
		})),
		engine.WithHook(engine.GoHook{Name: "g", Event: events.BeforeTool, Handler: engine.HandlerFunc(
			func(_ context.Context, in *events.Input) (events.Output, error) {
				return events.Output{AdditionalContext: "saw " + in.ToolInput.(map[string]any)["command"].(string)}, nil
			})}),
		engine.WithFiles(engine.Files{Lua: []string{script}, Root: dir}))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	res, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash",
		ToolInput: map[string]any{"command": "curl -H 'Authorization: Bearer " + secret + "' x"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Audit)
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(string(b), secret) || strings.Contains(strings.Join(lines, "\n"), secret) {
		t.Errorf("audit carries a payload secret:\n%s", b)
	}
	if len(lines) != 2 {
		t.Errorf("recorded %d records, want 2", len(lines))
	}
}
