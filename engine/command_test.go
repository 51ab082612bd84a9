package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// TestDedupPlanAndExplain: Plan lists every hook in its place, a command
// identical to an earlier one with DuplicateOf set (and Dropped when the
// earlier one runs whenever it would); Explain says, for an input, which
// duplicate runs and which does not, as Dispatch decides (issue 11.1).
func TestDedupPlanAndExplain(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy.json")
	usr := filepath.Join(dir, "agents.json")
	require.NoError(t, os.WriteFile(pol, []byte(`{"policyHooks":{"BeforeTool":[{"matcher":"^bash$","hooks":[{"command":"x"}]}]}}`), 0o644))
	require.NoError(t, os.WriteFile(usr, []byte(`{"hooks":{"BeforeTool":[{"hooks":[{"command":"x"},{"command":"y"}]}],"AfterModel":[{"hooks":[{"command":"z"},{"command":"z"}]}]}}`), 0o644))
	eng, err := engine.New(t.Context(), engine.WithFiles(engine.Files{Policy: []string{pol}, User: []string{usr}, Root: dir, Runner: fakeRunner}))
	require.NoError(t, err)
	defer eng.Close()
	type row struct {
		ev        events.Event
		tier      engine.Tier
		id, dupOf string
		dropped   bool
	}
	var got []row
	for _, h := range eng.Plan(t.Context()) {
		got = append(got, row{h.Event, h.Tier, h.ID, h.DuplicateOf, h.Dropped})
	}
	assert.Equal(t, []row{
		{events.BeforeTool, engine.TierPolicy, "x", "", false},
		{events.BeforeTool, engine.TierUser, "x", "policy " + pol + ":1:60", false},
		{events.BeforeTool, engine.TierUser, "y", "", false},
		{events.AfterModel, engine.TierUser, "z", "", false},
		{events.AfterModel, engine.TierUser, "z", "user " + usr + ":1:94", true},
	}, got)

	explain := func(tool string) (runs []string) {
		for _, x := range eng.Explain(t.Context(), events.Input{Event: events.BeforeTool, ToolName: tool}) {
			if x.Runs {
				runs = append(runs, x.Tier.String()+" "+x.ID)
			}
			if x.Matched && !x.Runs {
				assert.Contains(t, x.Why, "identical", tool)
			}
		}
		return runs
	}
	assert.Equal(t, []string{"policy x", "user y"}, explain("bash"))
	assert.Equal(t, []string{"user x", "user y"}, explain("write_file"))
}

// TestDedupPlanWithKinds: an identical command spec in a group of another
// tool kind runs for the tools of its own kind, so Plan does not call it
// dropped; under the same kinds (or after a group of every tool) it is.
func TestDedupPlanWithKinds(t *testing.T) {
	dir := t.TempDir()
	usr := filepath.Join(dir, "agents.json")
	require.NoError(t, os.WriteFile(usr, []byte(`{"hooks":{"BeforeTool":[
		{"kind":"shell","hooks":[{"command":"x"}]},
		{"kind":"write","hooks":[{"command":"x"}]},
		{"kind":"shell","hooks":[{"command":"x"}]},
		{"hooks":[{"command":"y"}]},
		{"kind":"read","hooks":[{"command":"y"}]}]}}`), 0o644))
	eng, err := engine.New(t.Context(), engine.WithFiles(engine.Files{User: []string{usr}, Root: dir, Runner: fakeRunner}))
	require.NoError(t, err)
	defer eng.Close()
	var dropped []bool
	for _, h := range eng.Plan(t.Context()) {
		dropped = append(dropped, h.Dropped)
	}
	assert.Equal(t, []bool{false, false, true, false, true}, dropped)

	for tool, want := range map[string][]string{"Bash": {"x", "y"}, "Write": {"x", "y"}, "Read": {"y"}} {
		var runs []string
		for _, x := range eng.Explain(t.Context(), events.Input{Event: events.BeforeTool, ToolName: tool}) {
			if x.Runs {
				runs = append(runs, x.ID)
			}
		}
		assert.Equal(t, want, runs, tool)
	}
}
