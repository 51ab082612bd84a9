package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// countingHook counts its runs.
func countingHook(n *atomic.Int64) engine.GoHook {
	return engine.GoHook{Name: "count", Event: events.BeforeTool, Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) {
		n.Add(1)
		return events.Output{}, nil
	})}
}

func testHandler(t testing.TB, opts ...engine.Option) *httpHandler {
	t.Helper()
	eng, err := engine.New(t.Context(), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	return newHTTPHandler(eng, "tcp", "127.0.0.1:8787", DefaultMaxConcurrent, MaxInputSize, DefaultBodyMemory)
}

// TestServeHTTPRefusesForeignRequests: POST /v1/dispatch answers only the
// local agent: JSON bodies only (415), a Host that is the listen address,
// localhost or a loopback IP (DNS rebinding), no foreign Origin (a browser
// page); no hook runs for a refused request; every error is JSON (issue
// 11.11).
func TestServeHTTPRefusesForeignRequests(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	h := viaNetHTTP(testHandler(t, engine.WithHook(countingHook(&ran))).mux())
	body := `{"event":"BeforeTool","toolName":"bash"}`
	for _, tc := range []struct {
		name, method, path, host, ctype, origin string
		status                                  int
	}{
		{"ok", "POST", "/v1/dispatch", "127.0.0.1:8787", "application/json", "", 200},
		{"charset", "POST", "/v1/dispatch", "localhost:8787", "application/json; charset=utf-8", "", 200},
		{"ipv6 loopback", "POST", "/v1/dispatch", "[::1]:8787", "application/json", "", 200},
		{"same origin", "POST", "/v1/dispatch", "localhost:8787", "application/json", "http://localhost:8787", 200},
		{"no content type", "POST", "/v1/dispatch", "127.0.0.1:8787", "", "", 415},
		{"form", "POST", "/v1/dispatch", "127.0.0.1:8787", "application/x-www-form-urlencoded", "", 415},
		{"text", "POST", "/v1/dispatch", "127.0.0.1:8787", "text/plain", "", 415},
		{"rebinding", "POST", "/v1/dispatch", "evil.example:8787", "application/json", "", 403},
		{"other port", "POST", "/v1/dispatch", "127.0.0.1:9999", "application/json", "", 403},
		{"browser page", "POST", "/v1/dispatch", "127.0.0.1:8787", "application/json", "https://evil.example", 403},
		{"null origin", "POST", "/v1/dispatch", "127.0.0.1:8787", "application/json", "null", 403},
		{"not found", "GET", "/nope", "127.0.0.1:8787", "", "", 404},
		{"method", "GET", "/v1/dispatch", "127.0.0.1:8787", "", "", 405},
		{"healthz rebinding", "GET", "/healthz", "evil.example", "", "", 403},
	} {
		before := ran.Load()
		req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(body))
		req.Host = tc.host
		if tc.ctype != "" {
			req.Header.Set("Content-Type", tc.ctype)
		}
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, tc.status, rec.Code, tc.name)
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"), tc.name)
		if tc.status != 200 {
			var e struct{ Error string }
			assert.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e), "%s: %s", tc.name, rec.Body)
			assert.NotEmpty(t, e.Error, tc.name)
			if tc.path == "/v1/dispatch" {
				assert.Equal(t, before, ran.Load(), "%s: a hook ran for a refused request", tc.name)
			}
		}
	}
	// 413 is JSON too.
	big := strings.NewReader(`{"event":"BeforeTool","toolName":"` + strings.Repeat("a", MaxInputSize) + `"}`)
	req := httptest.NewRequest("POST", "/v1/dispatch", big)
	req.Host = "127.0.0.1:8787"
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, 413, rec.Code)
	assert.True(t, strings.HasPrefix(rec.Body.String(), `{"error":`), rec.Body.String())
}

// TestServeUnixSocketMode: a unix socket is created 0600 (issue 11.11).
func TestServeUnixSocketMode(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	sock := filepath.Join(env.Dir, "s.sock")
	base, c, _ := startServe(t, env, "--listen", "unix:"+sock)
	fi, err := os.Stat(sock)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	req, _ := http.NewRequest("POST", base+"/v1/dispatch", strings.NewReader(`{"event":"AfterCompact"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode, "a unix socket serves any Host")
}

// signalReader reports its first Read.
type signalReader struct {
	r    io.Reader
	read chan struct{}
	once atomic.Bool
}

func (s *signalReader) Read(p []byte) (int, error) {
	if !s.once.Swap(true) {
		close(s.read)
	}
	return s.r.Read(p)
}

// TestServeReadsBodiesUnderTheLimits: a body is read only once its request
// holds a dispatch slot and its bytes fit the body memory budget, so that
// memory under many large bodies is bounded by the limits (issue 11.12).
func TestServeReadsBodiesUnderTheLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		slots, budget int64
	}{{"slots", 1, 1 << 20}, {"memory budget", 4, 100}} {
		t.Run(tc.name, func(t *testing.T) {
			started, release := make(chan struct{}), make(chan struct{})
			eng, err := engine.New(t.Context(), engine.WithHook(engine.GoHook{Name: "block", Event: events.BeforeTool,
				Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) {
					started <- struct{}{}
					<-release
					return events.Output{}, nil
				})}))
			require.NoError(t, err)
			defer eng.Close()
			hh := newHTTPHandler(eng, "tcp", "127.0.0.1:8787", int(tc.slots), MaxInputSize, tc.budget)
			h := viaNetHTTP(hh.mux())
			body := `{"event":"BeforeTool","toolName":"bash","prompt":"` + strings.Repeat("x", 30) + `"}` // 80 bytes
			serve := func(r io.Reader) chan int {
				done := make(chan int, 1)
				req := httptest.NewRequest("POST", "/v1/dispatch", r)
				req.Host = "127.0.0.1:8787"
				req.Header.Set("Content-Type", "application/json")
				req.ContentLength = int64(len(body))
				go func() {
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					done <- rec.Code
				}()
				return done
			}
			first := serve(strings.NewReader(body))
			<-started // the first request holds its slot and its bytes
			second := &signalReader{r: strings.NewReader(body), read: make(chan struct{})}
			done := serve(second)
			for hh.waiting.Load() == 0 { // the second request waits for the limit
				runtime.Gosched()
			}
			select {
			case <-second.read:
				t.Fatal("the second body was read while the first request held the limit")
			default:
			}
			close(release)
			assert.Equal(t, 200, <-first)
			<-started
			assert.Equal(t, 200, <-done)
			<-second.read
		})
	}
}
