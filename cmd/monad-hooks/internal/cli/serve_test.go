package cli

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

func TestServeLines(t *testing.T) {
	t.Parallel()
	env := testEnv(t,
		fixedHook("deny-bash", events.BeforeTool, "^bash$", events.Output{Decision: events.Deny, Reason: "no"}),
		fixedHook("remember", events.SessionStart, "", events.Output{AdditionalContext: "ctx"}))
	stdin := strings.Join([]string{
		`{"event":"BeforeTool","toolName":"bash"}`,
		`not json`,
		``,
		`   `,
		`{"toolName":"bash"}`,
		`{"event":"SessionStart","sessionId":"s"}`,
		`{"event":"BeforeTurn","sessionId":"s","prompt":"p"}`,
		`{"event":"BeforeTool","toolName":"read"}`,
	}, "\n") // the last line has no newline
	code, stdout, stderr := runCLI(t, env, stdin, "serve", "--stdlib", "none")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("want 6 answers, got %d:\n%s", len(lines), stdout)
	}
	if r := decodeResult(t, lines[0]); r.Decision != events.Deny {
		t.Errorf("line 1: %s", lines[0])
	}
	for _, i := range []int{1, 2} {
		if !strings.HasPrefix(lines[i], `{"error":"invalid input: `) {
			t.Errorf("answer %d: %s", i+1, lines[i])
		}
	}
	if !strings.Contains(lines[2], "missing event") {
		t.Errorf("a line without event: %s", lines[2])
	}
	if r := decodeResult(t, lines[4]); r.AdditionalContext != "ctx" {
		t.Errorf("session state is not kept between lines: %s", lines[4])
	}
	if r := decodeResult(t, lines[5]); r.Decision != "" || r.Event != events.BeforeTool {
		t.Errorf("last line: %s", lines[5])
	}
}

// blockingHook returns a hook that signals started, then waits for release
// (or its context) before it allows.
func blockingHook(ev events.Event, started chan<- struct{}, release <-chan struct{}) engine.GoHook {
	return engine.GoHook{Name: "slow", Event: ev, Handler: engine.HandlerFunc(func(ctx context.Context, _ *events.Input) (events.Output, error) {
		started <- struct{}{}
		select {
		case <-release:
			return events.Output{Decision: events.Allow, Reason: "finished"}, nil
		case <-ctx.Done():
			return events.Output{}, ctx.Err()
		}
	})}
}

// TestServeLinesSignalFinishesTheLineInFlight: a signal during a dispatch
// lets it finish and deliver its Result; serve then exits 0 although stdin
// is still open.
func TestServeLinesSignalFinishesTheLineInFlight(t *testing.T) {
	t.Parallel()
	started, release := make(chan struct{}, 1), make(chan struct{})
	env := testEnv(t, blockingHook(events.BeforeTool, started, release))
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() { done <- Run(ctx, []string{"serve", "--stdlib", "none"}, pr, &out, &errb, env) }()
	if _, err := io.WriteString(pw, `{"event":"BeforeTool","toolName":"x"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, started, "the hook to start")
	cancel() // the signal
	select {
	case code := <-done:
		t.Fatalf("serve returned %d before the dispatch finished", code)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("exit %d: %s", code, errb.String())
		}
	case <-time.After(hangGuard):
		t.Fatal("serve did not return")
	}
	if r := decodeResult(t, out.String()); r.Reason != "finished" {
		t.Errorf("the in-flight Result was not delivered: %q", out.String())
	}
}

// hangGuard bounds every wait of these tests. It only tells a hang from
// progress: it is never a bound on speed, which a loaded machine cannot
// promise.
const hangGuard = 30 * time.Second

func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(hangGuard):
		t.Fatalf("timed out waiting for %s", what)
	}
}

var listenLine = regexp.MustCompile(`listening on (\S+)`)

// startServe runs serve --listen in the background and returns the base URL
// (or unix:PATH), a client for it, and a function that signals serve and
// returns its exit code.
func startServe(t *testing.T, env Env, args ...string) (base string, client *http.Client, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, append([]string{"serve", "--stdlib", "none"}, args...), strings.NewReader(""), &out, &errb, env)
	}()
	deadline := time.Now().Add(hangGuard)
	for {
		if m := listenLine.FindStringSubmatch(errb.String()); m != nil {
			base = m[1]
			break
		}
		select {
		case code := <-done:
			cancel()
			t.Fatalf("serve exited %d: %s", code, errb.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("serve did not listen: %s", errb.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	client = &http.Client{Timeout: hangGuard}
	if p, ok := strings.CutPrefix(base, "unix:"); ok {
		client.Transport = &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", p)
		}}
		base = "http://unix"
	}
	var code = -1
	stop = func() int {
		if code >= 0 {
			return code
		}
		cancel()
		select {
		case code = <-done:
		case <-time.After(hangGuard):
			t.Fatal("serve did not stop")
		}
		if out.String() != "" {
			t.Errorf("serve --listen wrote on stdout: %q", out.String())
		}
		return code
	}
	t.Cleanup(func() { stop() })
	return base, client, stop
}

func post(t *testing.T, c *http.Client, url, body string) (int, string) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestServeHTTP(t *testing.T) {
	t.Parallel()
	env := testEnv(t, fixedHook("deny-bash", events.BeforeTool, "^bash$", events.Output{Decision: events.Deny, Reason: "no"}))
	for _, listen := range []string{"127.0.0.1:0", "unix:" + filepath.Join(env.Dir, "s.sock")} {
		t.Run(listen, func(t *testing.T) {
			base, c, stop := startServe(t, env, "--listen", listen)
			status, body := post(t, c, base+"/v1/dispatch", `{"event":"BeforeTool","toolName":"bash"}`)
			if r := decodeResult(t, body); status != 200 || r.Decision != events.Deny {
				t.Errorf("deny: %d %s", status, body)
			}
			status, body = post(t, c, base+"/v1/dispatch", `{"event":"BeforeTool","toolName":"ls"}`)
			if status != 200 || strings.TrimSpace(body) != `{"event":"BeforeTool"}` {
				t.Errorf("allow: %d %s", status, body)
			}
			for _, bad := range []string{`{"toolName":"bash"}`, `nope`, ``, `{"event":"BeforeTool","reason":"why"}`} {
				status, body = post(t, c, base+"/v1/dispatch", bad)
				if status != 400 || !strings.HasPrefix(body, `{"error":`) {
					t.Errorf("%q: %d %s", bad, status, body)
				}
			}
			resp, err := c.Get(base + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(b) != `{"status":"ok","generation":1}`+"\n" {
				t.Errorf("healthz: %d %q", resp.StatusCode, b)
			}
			resp, err = c.Get(base + "/v1/dispatch")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("GET /v1/dispatch: %d", resp.StatusCode)
			}
			if code := stop(); code != ExitOK {
				t.Errorf("exit %d", code)
			}
			if p, ok := strings.CutPrefix(listen, "unix:"); ok {
				if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the socket file is left behind: %v", err)
				}
			}
		})
	}
}

func TestServeHTTPBodyLimit(t *testing.T) {
	t.Parallel()
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	h := viaNetHTTP(newHTTPHandler(eng, "unix", "s.sock", 1, 64, DefaultBodyMemory).mux())
	for _, tt := range []struct {
		body   string
		status int
	}{
		{`{"event":"BeforeTool","toolName":"` + strings.Repeat("a", 64) + `"}`, http.StatusRequestEntityTooLarge},
		{`{"event":"BeforeTool","toolName":"bash"}`, http.StatusOK},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/v1/dispatch", strings.NewReader(tt.body))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(rec, req)
		if rec.Code != tt.status || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%d bytes: %d %s", len(tt.body), rec.Code, rec.Body.String())
		}
	}
}

func TestServeUnixStaleSocket(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	sock := filepath.Join(env.Dir, "s.sock")
	// A socket file nobody listens on is left by a crashed server.
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	base, c, _ := startServe(t, env, "--listen", "unix:"+sock)
	if status, _ := post(t, c, base+"/v1/dispatch", `{"event":"AfterCompact"}`); status != 200 {
		t.Errorf("status %d", status)
	}
	// A second server on the same live socket is refused.
	code, _, stderr := runCLI(t, env, "", "serve", "--stdlib", "none", "--listen", "unix:"+sock)
	if code != ExitFail || !strings.Contains(stderr, "another server") {
		t.Errorf("second server: exit %d: %s", code, stderr)
	}
	// A regular file is not replaced.
	reg := filepath.Join(env.Dir, "file")
	os.WriteFile(reg, []byte("keep"), 0o600)
	code, _, stderr = runCLI(t, env, "", "serve", "--stdlib", "none", "--listen", "unix:"+reg)
	if b, _ := os.ReadFile(reg); code != ExitFail || string(b) != "keep" {
		t.Errorf("regular file: exit %d: %s", code, stderr)
	}
}

// TestServeHTTPSignalFinishesInFlight: SIGTERM during a dispatch: the
// response is delivered, then serve exits 0.
func TestServeHTTPSignalFinishesInFlight(t *testing.T) {
	t.Parallel()
	started, release := make(chan struct{}, 1), make(chan struct{})
	env := testEnv(t, blockingHook(events.AfterModel, started, release))
	base, c, stop := startServe(t, env, "--listen", "127.0.0.1:0")
	type reply struct {
		status int
		body   string
	}
	got := make(chan reply, 1)
	go func() {
		resp, err := c.Post(base+"/v1/dispatch", "application/json", strings.NewReader(`{"event":"AfterModel","response":"r"}`))
		if err != nil {
			got <- reply{0, err.Error()}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- reply{resp.StatusCode, string(b)}
	}()
	waitFor(t, started, "the hook to start")
	stopped := make(chan int, 1)
	go func() { stopped <- stop() }()
	time.Sleep(50 * time.Millisecond)
	select {
	case code := <-stopped:
		t.Fatalf("serve exited %d with a dispatch in flight", code)
	default:
	}
	close(release)
	r := <-got
	if r.status != 200 || !strings.Contains(r.body, `"event":"AfterModel"`) {
		t.Errorf("in-flight response: %d %s", r.status, r.body)
	}
	select {
	case code := <-stopped:
		if code != ExitOK {
			t.Errorf("exit %d", code)
		}
	case <-time.After(hangGuard):
		t.Fatal("serve did not exit")
	}
}

// TestServeGraceExpires: a dispatch still running when the grace is over is
// canceled; serve reports it and exits 1. The hook never returns on its
// own, so stop returning at all (within hangGuard) proves the grace ended
// it.
func TestServeGraceExpires(t *testing.T) {
	t.Parallel()
	started, never := make(chan struct{}, 1), make(chan struct{})
	env := testEnv(t, blockingHook(events.AfterModel, started, never))
	base, c, stop := startServe(t, env, "--listen", "127.0.0.1:0", "--grace", "100ms")
	go func() {
		resp, err := c.Post(base+"/v1/dispatch", "application/json", strings.NewReader(`{"event":"AfterModel","response":"r"}`))
		if err == nil {
			resp.Body.Close()
		}
	}()
	waitFor(t, started, "the hook to start")
	if code := stop(); code != ExitFail {
		t.Errorf("exit %d", code)
	}
}

func TestServeStateSavedAtExit(t *testing.T) {
	t.Parallel()
	env := testEnv(t, fixedHook("remember", events.SessionStart, "", events.Output{AdditionalContext: "ctx"}))
	state := filepath.Join(env.Dir, "state.json")
	code, _, stderr := runCLI(t, env, `{"event":"SessionStart","sessionId":"s"}`+"\n", "serve", "--stdlib", "none", "--state", state)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, stdout, _ := runCLI(t, env, `{"event":"BeforeTurn","sessionId":"s"}`+"\n", "serve", "--stdlib", "none", "--state", state)
	if r := decodeResult(t, stdout); r.AdditionalContext != "ctx" {
		t.Errorf("got %s", stdout)
	}
}

func TestServeLinesStdinReadError(t *testing.T) {
	t.Parallel()
	r := io.MultiReader(strings.NewReader(`{"event":"AfterCompact"}`+"\n"), errReader{})
	var out, errb syncBuffer
	code := Run(context.Background(), []string{"serve", "--stdlib", "none"}, bufio.NewReader(r), &out, &errb, testEnv(t))
	if code != ExitFail || !strings.Contains(errb.String(), "boom") || !strings.Contains(out.String(), "AfterCompact") {
		t.Errorf("exit %d, %q, %q", code, out.String(), errb.String())
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("boom") }
