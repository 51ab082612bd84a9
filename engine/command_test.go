package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/shell"
)

// TestInputMarshalledOncePerVersion proves that the command hooks of one
// dispatch share one JSON encoding of the input until a rewrite changes it.
func TestInputMarshalledOncePerVersion(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]*byte{}
	runner := shell.RunnerFunc(func(ctx context.Context, c shell.Command, stdin []byte) (shell.Result, error) {
		mu.Lock()
		seen[c.Line] = append(seen[c.Line], &stdin[0])
		mu.Unlock()
		if c.Line == "rewrite" {
			return shell.Result{Stdout: []byte(`{"mutatedToolInput":{"command":"ls -la"}}`)}, nil
		}
		return shell.Result{}, nil
	})
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agents.json")
	os.WriteFile(cfg, []byte(`{"hooks":{
		"BeforeTool":[{"hooks":[{"command":"a"},{"command":"b"},{"command":"rewrite"},{"command":"c"},{"command":"d"}]}],
		"SessionEnd":[{"hooks":[{"command":"p1"},{"command":"p2"},{"command":"p3"}]}]}}`), 0o644)
	eng, err := engine.New(t.Context(), engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir, Runner: runner}))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if _, err := eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash", ToolInput: map[string]any{"command": "ls"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Dispatch(t.Context(), events.Input{Event: events.SessionEnd, SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	first := func(line string) *byte { return seen[line][0] }
	if first("a") != first("b") || first("b") != first("rewrite") {
		t.Error("hooks before the rewrite did not share one encoding")
	}
	if first("c") == first("rewrite") || first("c") != first("d") {
		t.Error("the rewrite did not produce exactly one new encoding")
	}
	if first("p1") != first("p2") || first("p2") != first("p3") {
		t.Error("parallel command hooks did not share one encoding")
	}
}

// TestPlanListsDroppedDuplicates proves Plan shows a deduplicated command
// hook, and which hook runs in its place.
func TestPlanListsDroppedDuplicates(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy.json")
	usr := filepath.Join(dir, "agents.json")
	os.WriteFile(pol, []byte(`{"policyHooks":{"BeforeTool":[{"hooks":[{"command":"x"}]}]}}`), 0o644)
	os.WriteFile(usr, []byte(`{"hooks":{"BeforeTool":[{"hooks":[{"command":"x"},{"command":"y"}]}]}}`), 0o644)
	eng, err := engine.New(t.Context(), engine.WithFiles(engine.Files{Policy: []string{pol}, User: []string{usr}, Root: dir, Runner: fakeRunner}))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	plan := eng.Plan(t.Context())
	if len(plan) != 3 {
		t.Fatalf("plan has %d entries, want 3: %+v", len(plan), plan)
	}
	if plan[0].Tier != engine.TierPolicy || plan[1].ID != "y" || plan[2].DuplicateOf == "" || plan[2].Tier != engine.TierUser {
		t.Errorf("plan = %+v", plan)
	}
	if !strings.HasPrefix(plan[2].DuplicateOf, "policy "+pol) {
		t.Errorf("DuplicateOf = %q, want the policy hook", plan[2].DuplicateOf)
	}
}
