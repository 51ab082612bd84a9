package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// startConnServer serves h on a loopback port with serve's limits and
// returns the server and a function that opens a connection to it.
func startConnServer(t *testing.T, h *httpHandler) (*connServer, func() (net.Conn, *bufio.Reader)) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &connServer{handler: h.mux(), base: h.workCtx, readHeaderTimeout: hangGuard, readTimeout: hangGuard,
		idleTimeout: hangGuard, maxHeaderBytes: 64 << 10, lingerTimeout: hangGuard}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		assert.ErrorIs(t, <-done, errServerClosed)
	})
	return s, func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(hangGuard))
		return c, bufio.NewReader(c)
	}
}

// rawPost is a request to the handler of testHandler (its Host is the one it
// accepts).
func rawPost(body string, headers ...string) string {
	h := strings.Join(headers, "")
	return fmt.Sprintf("POST /v1/dispatch HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s", h, len(body), body)
}

func readAnswer(t *testing.T, br *bufio.Reader, method string) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

const allowedCall = `{"event":"BeforeTool","toolName":"bash"}`

// TestConnServerKeepAlive: requests on one connection, pipelined or not,
// are answered in order with their Content-Length; HEAD gets the headers
// only; a request whose body the handler refused unread leaves the
// connection usable; Connection: close closes it after the answer.
func TestConnServerKeepAlive(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	_, dial := startConnServer(t, testHandler(t, engine.WithHook(countingHook(&ran))))
	c, br := dial()
	for range 3 {
		_, err := io.WriteString(c, rawPost(allowedCall))
		require.NoError(t, err)
		resp, body := readAnswer(t, br, "POST")
		assert.Equal(t, 200, resp.StatusCode)
		assert.Equal(t, int64(len(body)), resp.ContentLength)
		assert.True(t, strings.HasPrefix(body, `{"event":"BeforeTool"`), body)
	}
	// Pipelined: three requests in one write, the second refused (415)
	// before its body is read.
	refused := strings.Replace(rawPost(allowedCall), "application/json", "text/plain", 1)
	_, err := io.WriteString(c, rawPost(allowedCall)+refused+rawPost(allowedCall))
	require.NoError(t, err)
	for _, want := range []int{200, 415, 200} {
		resp, _ := readAnswer(t, br, "POST")
		assert.Equal(t, want, resp.StatusCode)
	}
	// A chunked body.
	chunked := fmt.Sprintf("POST /v1/dispatch HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(allowedCall), allowedCall)
	_, err = io.WriteString(c, chunked)
	require.NoError(t, err)
	resp, body := readAnswer(t, br, "POST")
	assert.Equal(t, 200, resp.StatusCode, body)
	assert.EqualValues(t, 6, ran.Load())

	_, err = io.WriteString(c, "HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\n\r\n")
	require.NoError(t, err)
	resp, body = readAnswer(t, br, "HEAD")
	assert.Equal(t, 200, resp.StatusCode)
	assert.Positive(t, resp.ContentLength)
	assert.Empty(t, body)

	_, err = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nConnection: close\r\n\r\n")
	require.NoError(t, err)
	resp, body = readAnswer(t, br, "GET")
	assert.True(t, resp.Close)
	assert.Contains(t, body, `"status":"ok"`)
	_, err = br.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the connection stays open after Connection: close")
}

// TestConnServerExpectContinue: a client that asks before sending its body
// gets "100 Continue" once the handler reads it; a request refused before
// its body is read gets its answer instead, and the connection closes.
func TestConnServerExpectContinue(t *testing.T) {
	t.Parallel()
	_, dial := startConnServer(t, testHandler(t))
	c, br := dial()
	req := rawPost(allowedCall, "Expect: 100-continue\r\n")
	head, body, _ := strings.Cut(req, "\r\n\r\n")
	_, err := io.WriteString(c, head+"\r\n\r\n")
	require.NoError(t, err)
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "HTTP/1.1 100 Continue\r\n", line)
	line, _ = br.ReadString('\n')
	assert.Equal(t, "\r\n", line)
	_, err = io.WriteString(c, body)
	require.NoError(t, err)
	resp, _ := readAnswer(t, br, "POST")
	assert.Equal(t, 200, resp.StatusCode)

	refused := strings.Replace(head, "application/json", "text/plain", 1)
	_, err = io.WriteString(c, refused+"\r\n\r\n")
	require.NoError(t, err)
	resp, _ = readAnswer(t, br, "POST")
	assert.Equal(t, 415, resp.StatusCode)
	assert.True(t, resp.Close)
}

// TestConnServerRefusesBadRequests: headers over the limit get 431, a
// malformed request 400, HTTP/1.1 without a Host header 400, a control
// character in a header or a header name that is not a token 400; each
// closes the connection (nothing after it is read as a request).
func TestConnServerRefusesBadRequests(t *testing.T) {
	t.Parallel()
	_, dial := startConnServer(t, testHandler(t))
	for _, tc := range []struct {
		req    string
		status int
	}{
		{"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nX-Big: " + strings.Repeat("a", 80<<10) + "\r\n\r\n", 431},
		{"GARBAGE\r\n\r\n", 400},
		{"GET /healthz HTTP/1.1\r\n\r\n", 400},
		{"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nX-Request-Id: a\x01b\r\n\r\n", 400},
		{"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nExpect: something\r\n\r\n", 417},
		// A header name that is not a token (net/http's check): a
		// Transfer-Encoding with a space before its colon would
		// otherwise be another header, the request bodyless, and its
		// chunked body read as the next request.
		{"POST /v1/dispatch HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nContent-Type: application/json\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n", 400},
		{"GET /healthz HTTP/1.1\r\nHost : 127.0.0.1:8787\r\n\r\n", 400},
		{"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nX A: b\r\n\r\n", 400},
		// A URL that does not parse gets its 400 (not a closed connection).
		{"GET /heal\x00thz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\n\r\n", 400},
	} {
		c, br := dial()
		_, err := io.WriteString(c, tc.req)
		require.NoError(t, err)
		resp, _ := readAnswer(t, br, "GET")
		assert.Equal(t, tc.status, resp.StatusCode, "%.40q", tc.req)
		assert.True(t, resp.Close, "%.40q", tc.req)
	}
}

// TestConnServerBodyTimeout: a client that declares a body and stalls is
// answered 400 once the handler's body timeout passes (serve's 5 s), so it
// does not hold its slot until the server's read timeout.
func TestConnServerBodyTimeout(t *testing.T) {
	t.Parallel()
	h := testHandler(t)
	h.bodyTimeout = 50 * time.Millisecond
	_, dial := startConnServer(t, h)
	c, br := dial()
	req := rawPost(allowedCall)
	_, err := io.WriteString(c, req[:len(req)-5]) // the body's end never comes
	require.NoError(t, err)
	resp, body := readAnswer(t, br, "POST")
	assert.Equal(t, 400, resp.StatusCode)
	assert.Contains(t, body, "reading the body")
}

// TestConnServerHangUpCancels: a client that hangs up during a long
// dispatch cancels it (the hook sees its context end).
func TestConnServerHangUpCancels(t *testing.T) {
	t.Parallel()
	started, ended := make(chan struct{}, 1), make(chan struct{})
	var cause atomic.Value
	hook := engine.GoHook{Name: "long", Event: events.BeforeTool, Handler: engine.HandlerFunc(func(ctx context.Context, _ *events.Input) (events.Output, error) {
		started <- struct{}{}
		<-ctx.Done()
		cause.Store(ctx.Err())
		close(ended)
		return events.Output{}, ctx.Err()
	})}
	s, dial := startConnServer(t, testHandler(t, engine.WithHook(hook)))
	s.watchAft = 5 * time.Millisecond
	c, _ := dial()
	_, err := io.WriteString(c, rawPost(allowedCall))
	require.NoError(t, err)
	waitFor(t, started, "the hook to start")
	time.Sleep(20 * time.Millisecond) // past watchAfter: the watcher reads
	c.Close()
	waitFor(t, ended, "the hook to be canceled")
	assert.True(t, errors.Is(cause.Load().(error), context.Canceled), "%v", cause.Load())
}

// TestConnServerShutdown: Shutdown closes an idle connection at once,
// lets the request in flight answer (with Connection: close) and returns
// when it has.
func TestConnServerShutdown(t *testing.T) {
	t.Parallel()
	started, release := make(chan struct{}, 1), make(chan struct{})
	s, dial := startConnServer(t, testHandler(t, engine.WithHook(blockingHook(events.BeforeTool, started, release))))
	idle, idleBR := dial()
	_, err := io.WriteString(idle, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\n\r\n")
	require.NoError(t, err)
	readAnswer(t, idleBR, "GET")
	busy, busyBR := dial()
	_, err = io.WriteString(busy, rawPost(allowedCall))
	require.NoError(t, err)
	waitFor(t, started, "the hook to start")

	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	_, err = idleBR.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the idle connection is not closed")
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v with a request in flight", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	resp, body := readAnswer(t, busyBR, "POST")
	assert.Equal(t, 200, resp.StatusCode, body)
	assert.True(t, resp.Close)
	select {
	case err := <-shut:
		assert.NoError(t, err)
	case <-time.After(hangGuard):
		t.Fatal("Shutdown did not return")
	}
}

// pipeListener hands the server the ends of in-memory connections (net.Pipe:
// a write blocks until the other end reads it, as a TCP write does once the
// buffers of a client that never reads are full).
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.UnixAddr{Name: "pipe", Net: "unix"} }

// dial returns the client end of a new connection to the server.
func (l *pipeListener) dial(t *testing.T) (net.Conn, *bufio.Reader) {
	t.Helper()
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close() })
	client.SetDeadline(time.Now().Add(hangGuard))
	select {
	case l.conns <- server:
	case <-time.After(hangGuard):
		t.Fatal("the server does not accept")
	}
	return client, bufio.NewReader(client)
}

// TestConnServerClientThatNeverReads: a client that asks for "100 Continue"
// and never reads it (its buffers full) does not hold its dispatch slot and
// body memory for ever: the write gives up, the request fails, and the
// next client's dispatch runs, and the connection closes at once (its
// body is not waited for). A client that never reads its answer does not
// keep its connection for ever either. The write timeout is far above
// what the client that reads takes to read its answer (a net.Pipe write
// waits for the reader): at 50 ms, a loaded machine that paused the
// test's goroutine that long before it read timed the answer out (a
// 150 ms pause there failed the test every time).
func TestConnServerClientThatNeverReads(t *testing.T) {
	t.Parallel()
	h := testHandler(t)
	h.slots = make(chan struct{}, 1)
	ln := newPipeListener()
	s := &connServer{handler: h.mux(), base: h.workCtx, readHeaderTimeout: hangGuard, readTimeout: hangGuard,
		idleTimeout: hangGuard, maxHeaderBytes: 64 << 10, writeTimeout: time.Second}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		assert.ErrorIs(t, <-done, errServerClosed)
	})

	stuck, _ := ln.dial(t)
	head, _, _ := strings.Cut(rawPost(allowedCall, "Expect: 100-continue\r\n"), "\r\n\r\n")
	_, err := io.WriteString(stuck, head+"\r\n\r\n")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(h.slots) == 1 }, hangGuard, time.Millisecond, "the stuck request takes the slot")
	// The stuck request holds the only slot until its write gives up.
	c, br := ln.dial(t)
	_, err = io.WriteString(c, rawPost(allowedCall))
	require.NoError(t, err)
	resp, body := readAnswer(t, br, "POST")
	assert.Equal(t, 200, resp.StatusCode, body)
	// A client that sends a request and never reads its answer.
	mute, _ := ln.dial(t)
	_, err = io.WriteString(mute, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\n\r\n")
	require.NoError(t, err)
	// Their connections close once their writes gave up; c's stays.
	assert.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.conns) == 1
	}, hangGuard, time.Millisecond, "a connection whose client does not read is still open")
}

// TestConnServerKeepsNoLargeAnswer: an idle connection does not keep the
// buffer of a large answer (a 404 echoes a path of up to 64 KiB) for its
// next request, nor the large request (its line, many or long fields):
// connections are not bounded in number, so what each keeps while idle
// must be small.
func TestConnServerKeepsNoLargeAnswer(t *testing.T) {
	t.Parallel()
	s, dial := startConnServer(t, testHandler(t))
	c, br := dial()
	many := strings.Repeat("X-Many: "+strings.Repeat("m", 100)+"\r\n", 100)
	for i := range 40 {
		many += fmt.Sprintf("X-Field-%d: v\r\n", i)
	}
	_, err := io.WriteString(c, "GET /"+strings.Repeat("a", 30<<10)+" HTTP/1.1\r\nHost: 127.0.0.1:8787\r\n"+
		"X-Long: "+strings.Repeat("l", 20<<10)+"\r\n"+many+"\r\n")
	require.NoError(t, err)
	resp, body := readAnswer(t, br, "GET")
	require.Equal(t, 404, resp.StatusCode)
	require.Greater(t, len(body), 30<<10)
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for sc, idle := range s.conns {
			if idle {
				assert.LessOrEqual(t, sc.out.Cap(), maxKeptAnswer)
				p := &sc.p
				assert.Empty(t, p.hdr, "the last request's fields")
				assert.LessOrEqual(t, cap(p.vals), maxKeptFields)
				assert.LessOrEqual(t, len(p.line), maxInternedLen)
				assert.LessOrEqual(t, cap(p.scratch)+cap(p.fold), 2*maxKeptParse)
				kept := 0
				for _, f := range append(p.fields, p.previous...) {
					kept += len(f.v)
				}
				assert.LessOrEqual(t, kept, 2*maxInterned*maxInternedLen)
				return true
			}
		}
		return false
	}, hangGuard, time.Millisecond, "the connection is not idle")
}

// TestConnServerLogsAHandlerPanic: a handler that panics costs its
// connection (no answer, as with net/http's server), the server goes on
// serving, and the panic is said on serve's stderr, bounded, once.
func TestConnServerLogsAHandlerPanic(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var logged atomic.Pointer[string]
	s := &connServer{
		handler: func(w *respWriter, r *request) {
			if r.path == "/boom" {
				panic(strings.Repeat("x", 5000))
			}
			io.WriteString(w, "fine")
		},
		base:              context.Background,
		readHeaderTimeout: hangGuard, readTimeout: hangGuard, idleTimeout: hangGuard, maxHeaderBytes: 64 << 10,
		logf: func(format string, args ...any) {
			line := fmt.Sprintf(format, args...)
			require.True(t, logged.CompareAndSwap(nil, &line), "logged twice: %s", line)
		},
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	defer func() {
		s.Close()
		assert.ErrorIs(t, <-done, errServerClosed)
	}()
	get := func(path string) (*http.Response, error) {
		c, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		defer c.Close()
		c.SetDeadline(time.Now().Add(hangGuard))
		_, err = io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n")
		require.NoError(t, err)
		return http.ReadResponse(bufio.NewReader(c), nil)
	}
	_, err = get("/boom")
	require.Error(t, err, "a panicking handler's connection is closed without an answer")
	line := logged.Load()
	require.NotNil(t, line, "the panic was not logged")
	assert.True(t, strings.HasPrefix(*line, "internal error answering GET /boom (connection closed): xxx"), *line)
	assert.Less(t, len(*line), maxFailureLine+100, "the logged panic is bounded")
	resp, err := get("/ok")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
}

// TestConnServerDeadlines: the read deadlines set only before a read that
// needs them still bound each wait: a connection idle between requests
// closes after the idle timeout, a request whose header stops coming is
// closed after the header timeout (no answer, as net/http), and a request
// that came whole in one read is answered. The idle timeout is far above
// what the client takes between reading an answer and sending the next
// request: at 100 ms, a loaded machine that paused the test's goroutine
// that long between the two requests closed the connection under the
// second (a 150 ms pause there failed the test every time).
func TestConnServerDeadlines(t *testing.T) {
	t.Parallel()
	h := testHandler(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &connServer{handler: h.mux(), base: h.workCtx, readHeaderTimeout: 50 * time.Millisecond, readTimeout: hangGuard,
		idleTimeout: time.Second, maxHeaderBytes: 64 << 10}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		assert.ErrorIs(t, <-done, errServerClosed)
	})
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(hangGuard))
		return c, bufio.NewReader(c)
	}
	idle, idleBR := dial()
	for range 2 {
		_, err = io.WriteString(idle, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\n\r\n")
		require.NoError(t, err)
		resp, _ := readAnswer(t, idleBR, "GET")
		assert.Equal(t, 200, resp.StatusCode)
	}
	_, err = idleBR.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the idle connection was not closed")

	slow, slowBR := dial()
	_, err = io.WriteString(slow, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\n")
	require.NoError(t, err)
	_, err = slowBR.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the connection of a header that stopped coming was not closed")
}

// TestConnServerStatuses: through the connection loop and its parser (not
// only through net/http's test recorder), each refusal keeps its status
// and no hook runs for it: 403 for a foreign Host or Origin, 404, 405 with
// Allow, 413 for a body over the limit, sized or chunked, 415; and a
// chunked body within the limit is dispatched.
func TestConnServerStatuses(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	h := testHandler(t, engine.WithHook(countingHook(&ran)))
	h.maxBody = 64
	_, dial := startConnServer(t, h)
	chunked := func(body string) string {
		return fmt.Sprintf("POST /v1/dispatch HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
	}
	big := `{"event":"BeforeTool","toolName":"` + strings.Repeat("a", 64) + `"}`
	for _, tc := range []struct {
		req    string
		status int
		allow  string
	}{
		{strings.Replace(rawPost(allowedCall), "127.0.0.1:8787", "evil.example:8787", 1), 403, ""},
		{rawPost(allowedCall, "Origin: https://evil.example\r\n"), 403, ""},
		{"GET /nope HTTP/1.1\r\nHost: 127.0.0.1:8787\r\n\r\n", 404, ""},
		{"GET /v1/../healthz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\n\r\n", 404, ""},
		{"GET /v1/dispatch HTTP/1.1\r\nHost: 127.0.0.1:8787\r\n\r\n", 405, "POST"},
		{"POST /healthz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nContent-Length: 0\r\n\r\n", 405, "GET, HEAD"},
		{rawPost(big), 413, ""},
		{chunked(big), 413, ""},
		{strings.Replace(rawPost(allowedCall), "application/json", "text/plain", 1), 415, ""},
		{chunked(allowedCall), 200, ""},
	} {
		before := ran.Load()
		c, br := dial()
		_, err := io.WriteString(c, tc.req)
		require.NoError(t, err)
		resp, body := readAnswer(t, br, "GET")
		assert.Equal(t, tc.status, resp.StatusCode, "%.60q: %s", tc.req, body)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), "%.60q", tc.req)
		assert.Equal(t, tc.allow, resp.Header.Get("Allow"), "%.60q", tc.req)
		if tc.status != 200 {
			assert.Equal(t, before, ran.Load(), "%.60q: a hook ran for a refused request", tc.req)
		}
	}
	assert.EqualValues(t, 1, ran.Load())
}

// TestConnServerHTTP10: an HTTP/1.0 request is answered, and its
// connection closed unless it asked to be kept alive (then the answer
// says Connection: keep-alive and the next request is served).
func TestConnServerHTTP10(t *testing.T) {
	t.Parallel()
	_, dial := startConnServer(t, testHandler(t))
	c, br := dial()
	_, err := io.WriteString(c, "GET /healthz HTTP/1.0\r\nHost: 127.0.0.1:8787\r\nConnection: keep-alive\r\n\r\n")
	require.NoError(t, err)
	resp, body := readAnswer(t, br, "GET")
	assert.Equal(t, 200, resp.StatusCode, body)
	assert.Equal(t, "keep-alive", resp.Header.Get("Connection"))
	_, err = io.WriteString(c, "GET /healthz HTTP/1.0\r\nHost: 127.0.0.1:8787\r\n\r\n")
	require.NoError(t, err)
	resp, body = readAnswer(t, br, "GET")
	assert.Equal(t, 200, resp.StatusCode, body)
	assert.True(t, resp.Close)
	_, err = br.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "an HTTP/1.0 connection stays open")
}

// TestConnServerLingersBeforeClosing: a connection closed with the
// client's bytes still coming (a body over the limit, a refused request)
// is closed as net/http's server closes it (closeWriteAndWait): its answer
// and then the end of the server's side first, the client's bytes read
// and dropped meanwhile, so the client reads its answer and a clean end,
// not a reset that can discard the answer before the client read it (its
// kernel may drop what it received; a client that stops at the failed
// write of its body never reads it). A host's refusal of a large body is
// a block: lost, the agent's hook failed, and its tool may run.
func TestConnServerLingersBeforeClosing(t *testing.T) {
	t.Parallel()
	h := testHandler(t)
	h.maxBody = 1 << 20
	_, dial := startConnServer(t, h)
	over := strings.Repeat(" ", 4<<20)
	for _, tc := range []struct {
		name, req string
		status    int
	}{
		{"body over the limit", rawPost(over), 413},
		{"chunked body over the limit", "POST /v1/dispatch HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
			fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(over), over), 413},
		{"malformed request with a body", "POST /v1/dispatch HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nBad Header\r\nContent-Length: 4194304\r\n\r\n" + over, 400},
		{"refused expectation", "POST /v1/dispatch HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nExpect: x\r\nContent-Length: 4194304\r\n\r\n" + over, 417},
	} {
		c, br := dial()
		wrote := make(chan error, 1)
		go func() {
			_, err := io.WriteString(c, tc.req)
			wrote <- err
		}()
		resp, err := http.ReadResponse(br, &http.Request{Method: "POST"})
		require.NoError(t, err, tc.name)
		_, err = io.ReadAll(resp.Body)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.status, resp.StatusCode, tc.name)
		assert.True(t, resp.Close, tc.name)
		require.NoError(t, <-wrote, "%s: the client's write is reset", tc.name)
		_, err = br.ReadByte()
		assert.ErrorIs(t, err, io.EOF, "%s: the connection ends with a reset", tc.name)
		c.Close()
	}
}

// TestConnServerFramesPipelinedRequests: requests that play on framing,
// each followed on its connection by another: the next request is read
// where the first one's body ends (a body is never read as a request, a
// request never as a body), every answer comes once and in order, and a
// request refused unread (or whose body is not read whole) closes the
// connection, so nothing after it is read as a request.
func TestConnServerFramesPipelinedRequests(t *testing.T) {
	t.Parallel()
	h := testHandler(t)
	h.maxBody = 1 << 20
	_, dial := startConnServer(t, h)
	const host = "Host: 127.0.0.1:8787\r\n"
	const ct = "Content-Type: application/json\r\n"
	const post = "POST /v1/dispatch HTTP/1.1\r\n" + host + ct
	next := "GET /smuggled HTTP/1.1\r\n" + host + "\r\n"
	full := strings.Repeat(" ", 1<<20-len(allowedCall)) + allowedCall
	for _, tc := range []struct {
		name, req string
		statuses  []int // the last one closes the connection unless keep
		keep      bool
	}{
		{"expect with no body", post + "Expect: 100-continue\r\nContent-Length: 0\r\n\r\n", []int{400, 404}, true},
		{"expect in HTTP/1.0", "POST /v1/dispatch HTTP/1.0\r\n" + host + ct + "Connection: keep-alive\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}", []int{417}, false},
		{"empty expect", "GET /healthz HTTP/1.1\r\n" + host + "Expect:\r\n\r\n", []int{417}, false},
		{"malformed chunk", post + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n", []int{400}, false},
		{"chunked at the limit", post + "Transfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(full), full), []int{200, 404}, true},
		{"chunked a byte over", post + "Transfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\r\n%s\r\n1\r\nx\r\n0\r\n\r\n", len(full), full), []int{413, 404}, true},
		{"sized at the limit", post + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(full), full), []int{200, 404}, true},
		{"sized a byte over", post + fmt.Sprintf("Content-Length: %d\r\n\r\n%s ", len(full)+1, full), []int{413}, false},
		{"a request in a body", "GET /healthz HTTP/1.1\r\n" + host + "Content-Length: 5\r\n\r\nGET /", []int{200, 404}, true},
		{"a request in a chunked body", "GET /healthz HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n5\r\nGET /\r\n0\r\n\r\n", []int{200, 404}, true},
		{"Content-Length in a trailer", post + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nContent-Length: 40\r\n\r\n", []int{400, 404}, true},
		{"foreign host with a body", "POST /v1/dispatch HTTP/1.1\r\nHost: evil.example\r\n" + ct + "Content-Length: 5\r\n\r\nGET /", []int{403, 404}, true},
		{"Transfer-Encoding in HTTP/1.0", "POST /v1/dispatch HTTP/1.0\r\n" + ct + "Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n0\r\n\r\n", []int{400}, false},
		{"CL and TE", post + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", []int{400}, false},
		{"absolute target", "GET http://127.0.0.1:8787/healthz HTTP/1.1\r\nHost: evil.example\r\n\r\n", []int{200, 404}, true},
		{"userinfo in Host", "GET /healthz HTTP/1.1\r\nHost: evil@127.0.0.1:8787\r\n\r\n", []int{400}, false},
		{"CONNECT", "CONNECT 127.0.0.1:8787 HTTP/1.1\r\n" + host + "\r\n", []int{404, 404}, true},
		{"HTTP/1.0 keep-alive", "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", []int{403, 404}, true},
		{"HTTP/1.0", "GET /healthz HTTP/1.0\r\n\r\n", []int{403}, false},
		{"malformed second request", "GET /healthz HTTP/1.1\r\n" + host + "\r\nGET /x HTTP/1.1\r\n" + host + "Bad Header\r\n\r\n", []int{200, 400}, false},
	} {
		c, br := dial()
		go io.WriteString(c, tc.req+next)
		for i, want := range tc.statuses {
			resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
			require.NoError(t, err, "%s: answer %d", tc.name, i)
			_, err = io.ReadAll(resp.Body)
			require.NoError(t, err, tc.name)
			assert.Equal(t, want, resp.StatusCode, "%s: answer %d", tc.name, i)
			last := i == len(tc.statuses)-1
			assert.Equal(t, last && !tc.keep, resp.Close, "%s: answer %d closes", tc.name, i)
		}
		if tc.keep {
			// The next answer is the next request's: nothing came between.
			_, err := io.WriteString(c, "GET /readyz HTTP/1.1\r\n"+host+"Connection: close\r\n\r\n")
			require.NoError(t, err)
			resp, body := readAnswer(t, br, "GET")
			assert.Contains(t, body, `"status":"ok"`, tc.name)
			assert.True(t, resp.Close, tc.name)
		}
		_, err := br.ReadByte()
		assert.ErrorIs(t, err, io.EOF, "%s: more after the last answer", tc.name)
		c.Close()
	}
}
