package spec_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// TestExampleCommandHooks runs the example command hooks of scripts/hooks
// through the engine, as a user would configure them.
func TestExampleCommandHooks(t *testing.T) {
	abs, err := filepath.Abs("../scripts/hooks")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agents.json")
	os.WriteFile(cfg, []byte(`{"hooks":{
		"BeforeTool":[{"matcher":"^(bash|shell_exec)$","hooks":[{"command":"`+abs+`/deny-rm-root.sh","onError":"deny"}]},
		              {"matcher":"^(write_file|file_write)$","hooks":[{"command":"`+abs+`/ask-on-write.sh"}]}],
		"BeforeTurn":[{"hooks":[{"command":"`+abs+`/add-context.sh"}]}]}}`), 0o644)
	eng, err := engine.New(t.Context(), engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir, Env: []string{"PATH=/usr/bin:/bin"}}))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, tc := range []struct {
		in   events.Input
		want events.Decision
		ctx  string
	}{
		{events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "rm -rf /"}}, events.Deny, ""},
		{events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "rm -rf ./build"}}, events.Proceed, ""},
		{events.Input{Event: events.BeforeTool, ToolName: "write_file", ToolInput: map[string]any{"path": "a"}}, events.Ask, ""},
		{events.Input{Event: events.BeforeTurn, Prompt: "hi"}, events.Proceed, "The current git branch is unknown."},
	} {
		res, err := eng.Dispatch(t.Context(), tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if res.Decision != tc.want || res.AdditionalContext != tc.ctx {
			t.Errorf("%s %v: got %q %q, want %q %q (audit %+v)", tc.in.Event, tc.in.ToolInput, res.Decision, res.AdditionalContext, tc.want, tc.ctx, res.Audit)
		}
	}
}
