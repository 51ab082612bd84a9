package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/shell"
)

// fakeRunner interprets a command line "deny REASON" as exit 2 with REASON on
// stderr, and anything else as exit 0 with no output.
var fakeRunner = shell.RunnerFunc(func(ctx context.Context, c shell.Command, stdin []byte) (shell.Result, error) {
	if r, ok := strings.CutPrefix(c.Line, "deny "); ok {
		return shell.Result{ExitCode: 2, Stderr: []byte(r)}, nil
	}
	return shell.Result{ExitCode: 0}, nil
})

func writeConfig(t *testing.T, path, body string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	// Move the mtime forward so that a rewrite within the clock's
	// granularity is still seen.
	later := time.Now().Add(time.Duration(time.Now().UnixNano()%1000+1) * time.Millisecond)
	os.Chtimes(tmp, later, later)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func config(reason string) string {
	return fmt.Sprintf(`{"hooks":{"BeforeTool":[{"hooks":[{"command":"deny %s"}]}]}}`, reason)
}

// TestHotReloadUnderLoad edits, breaks and fixes a config file while many
// goroutines dispatch: every dispatch sees a complete configuration (a deny
// from v1 or v2), never an allow, and the engine leaves no goroutine behind.
func TestHotReloadUnderLoad(t *testing.T) {
	defer goleak.VerifyNone(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agents.json")
	writeConfig(t, cfg, config("v1"))
	var records atomic.Int64
	eng, err := engine.New(t.Context(),
		engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir, Runner: fakeRunner}),
		engine.WithRecorder(engine.RecorderFunc(func(context.Context, engine.Record) { records.Add(1) })))
	if err != nil {
		t.Fatal(err)
	}
	wait := hammer(eng, 8, events.Input{Event: events.BeforeTool, ToolName: "bash"}, func(res engine.Result, err error) bool {
		if err != nil || res.Decision != events.Deny || (res.Reason != "v1" && res.Reason != "v2") {
			t.Errorf("dispatch during reload = %q %q (%v), want a deny from v1 or v2", res.Decision, res.Reason, err)
			return false
		}
		return true
	})
	for i := range 30 {
		switch i % 3 {
		case 0:
			writeConfig(t, cfg, config("v2"))
		case 1:
			writeConfig(t, cfg, `{"hooks":{"BeforeTool":[{"hooks":[{"command":""}]}]}}`)
		case 2:
			writeConfig(t, cfg, config("v1"))
		}
		time.Sleep(3 * time.Millisecond)
	}
	dispatched := wait()
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Dispatch(context.Background(), events.Input{Event: events.BeforeTool}); err != engine.ErrClosed {
		t.Errorf("Dispatch after Close: %v, want ErrClosed", err)
	}
	if got, want := records.Load(), dispatched; got != want {
		t.Errorf("recorded %d audit records for %d dispatches of one hook", got, want)
	}
	t.Logf("%d dispatches across 30 reloads", dispatched)
}

// hammer dispatches in to eng from n goroutines until the returned wait
// function is called, passing each outcome to check (which returns false to
// stop its goroutine); wait returns how many dispatches ran.
func hammer(eng *engine.Engine, n int, in events.Input, check func(engine.Result, error) bool) (wait func() int64) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var dispatched atomic.Int64
	for range n {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := eng.Dispatch(context.Background(), in)
				dispatched.Add(1)
				if !check(res, err) {
					return
				}
			}
		})
	}
	return func() int64 {
		close(stop)
		wg.Wait()
		return dispatched.Load()
	}
}

// TestReloadChecksNoFilesWithinInterval proves that with a reload interval the
// dispatch path makes no file system call between checks.
func TestReloadChecksNoFilesWithinInterval(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agents.json")
	writeConfig(t, cfg, config("v1"))
	fs := &countingFS{}
	now := time.Unix(1000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	eng, err := engine.New(t.Context(), engine.WithClock(clock), engine.WithReloadInterval(time.Second),
		engine.WithFiles(engine.Files{User: []string{cfg}, Root: dir, Runner: fakeRunner, FS: fs}))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	in := events.Input{Event: events.BeforeTool, ToolName: "bash"}
	eng.Dispatch(t.Context(), in)
	before := fs.stats.Load()
	for range 100 {
		eng.Dispatch(t.Context(), in)
	}
	if n := fs.stats.Load() - before; n > 1 {
		t.Errorf("100 dispatches within the interval made %d stat calls, want at most 1", n)
	}
	writeConfig(t, cfg, config("v2"))
	mu.Lock()
	now = now.Add(2 * time.Second)
	mu.Unlock()
	eng.Dispatch(t.Context(), in) // notices the change: loads it in the background
	if err := eng.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if res, _ := eng.Dispatch(t.Context(), in); res.Reason != "v2" {
		t.Errorf("after the interval: reason %q, want v2", res.Reason)
	}
}

type countingFS struct{ stats atomic.Int64 }

func (c *countingFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }
func (c *countingFS) Stat(name string) (os.FileInfo, error) {
	c.stats.Add(1)
	return os.Stat(name)
}
func (c *countingFS) ReadDir(name string) ([]os.DirEntry, error) { return os.ReadDir(name) }
