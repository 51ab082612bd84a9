package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/engine/hosts"
	"github.com/monad-hooks/monad-hooks/engine/promtext"
	"github.com/monad-hooks/monad-hooks/events"
)

// Defaults of serve.
const (
	// DefaultGrace is how long serve lets dispatches in flight finish after
	// SIGINT or SIGTERM before it cancels them.
	DefaultGrace = 90 * time.Second
	// DefaultMaxConcurrent bounds the HTTP dispatches that run at once;
	// further requests wait for a slot before their body is read.
	DefaultMaxConcurrent = 32
	// DefaultBodyMemory bounds the bytes of the HTTP request bodies being
	// read, decoded and dispatched at once: a request waits, before its
	// body is read, until its body fits (a body of unknown length counts
	// as MaxInputSize). A decoded input and the copies hooks make of it can
	// be tens of times the body's size (7.8 million numbers in 15 MiB of
	// JSON), so one large body at a time keeps a burst of them under 1 GiB
	// (scripts/serve-rss.sh) while small bodies still run side by side.
	DefaultBodyMemory = MaxInputSize
	// DefaultBodyTimeout bounds the reading of a body once its request
	// holds a slot and body memory. A local agent sends even 16 MiB in
	// milliseconds; a client that stalls (the agent itself can start a
	// background curl that declares 16 MiB and sends one byte) would
	// otherwise hold every other dispatch back for the server's read
	// timeout, and a hook that times out is one the agent may proceed past.
	DefaultBodyTimeout = 5 * time.Second
)

type serveFlags struct {
	common
	listen         string
	grace          time.Duration
	maxConcurrent  int
	reloadInterval time.Duration
	host           string
	metrics        bool
}

func cmdServe(ctx context.Context, inv *invocation, args []string) int {
	var sf serveFlags
	fs := newFlagSet("serve")
	sf.register(fs)
	fs.StringVar(&sf.listen, "listen", "", "serve HTTP on `ADDR` (127.0.0.1:PORT, [::1]:PORT, localhost:PORT or unix:PATH) instead of stdin/stdout")
	fs.DurationVar(&sf.grace, "grace", DefaultGrace, "on SIGINT/SIGTERM, how long dispatches in flight may still run")
	fs.IntVar(&sf.maxConcurrent, "max-concurrent", DefaultMaxConcurrent, "HTTP dispatches that run at once")
	fs.DurationVar(&sf.reloadInterval, "reload-interval", 0, "check the configuration files for changes at most this often (0: on every dispatch)")
	fs.StringVar(&sf.host, "host", "monad", "the agent `HOST` whose hook payloads and answers the lines or requests carry")
	fs.BoolVar(&sf.metrics, "metrics", false, "serve Prometheus metrics at GET /metrics of the --listen address")
	pos, code := parseArgs(inv, fs, helpServe, args)
	if code >= 0 {
		return code
	}
	host, code := serveHostFlag(inv, sf.host)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return inv.usageErr("unexpected argument %q", pos[0])
	}
	if sf.maxConcurrent < 1 {
		return inv.usageErr("--max-concurrent must be at least 1")
	}
	if sf.grace < 0 {
		return inv.usageErr("--grace must not be negative")
	}
	var network, address string
	if sf.listen != "" {
		var err error
		if network, address, err = listenAddr(inv.env, sf.listen); err != nil {
			return reportErr(inv, err)
		}
	}
	if _, err := sf.stdlibList(); err != nil {
		return reportErr(inv, err)
	}
	if sf.reloadInterval < 0 {
		return inv.usageErr("--reload-interval must not be negative")
	}
	if sf.metrics && network == "" {
		return inv.usageErr("--metrics needs --listen: the metrics are served at GET /metrics of that address")
	}
	var srv *httpServer
	if network != "" {
		// The socket opens before the configuration loads, so that
		// /readyz says "not yet" rather than nothing answering.
		var err error
		if srv, err = startHTTP(inv, network, address, sf.maxConcurrent, sf.metrics, host); err != nil {
			inv.errorf("%v", err)
			return ExitFail
		}
		defer srv.cleanup()
	}
	extra := []engine.Option{engine.WithReloadInterval(sf.reloadInterval)}
	if srv != nil && srv.h.metrics != nil {
		extra = append(extra, engine.WithRecorder(srv.h.metrics))
	}
	o, code := sf.open(ctx, inv, true, hostOptions(host, extra...)...)
	if code >= 0 {
		if srv != nil {
			srv.srv.Close()
		}
		return code
	}
	defer o.close(inv)

	// Dispatches run on work, which a signal does not cancel: a hook in
	// flight finishes and its Result is delivered. Only when the grace has
	// passed after the signal is work canceled.
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	stopGrace := context.AfterFunc(ctx, func() {
		t := time.NewTimer(sf.grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancelWork()
		case <-work.Done():
		}
	})
	defer stopGrace()

	if network == "" {
		code = serveLines(ctx, work, inv, o.eng, host)
	} else {
		code = srv.serve(ctx, work, cancelWork, inv, o.eng, sf.grace)
	}
	if err := o.saveState(); err != nil {
		inv.errorf("%v", err)
		code = max(code, ExitFail)
	}
	return code
}

// serveLines is the JSON-lines transport: one HookInput per line of stdin,
// one Result (or {"error": ...}) per line of stdout, in order. Blank lines are
// skipped. It returns at EOF, or when ctx ends, after the line in flight.
//
// The lines are read, dispatched and answered on a goroutine of their own,
// without a handoff per line (BenchmarkServeLines), so that ctx need not
// wait for a read that blocks: answering holds mu, which the end of ctx
// takes to wait for the line in flight and stop the next one.
func serveLines(ctx, work context.Context, inv *invocation, eng *engine.Engine, host *hosts.Host) int {
	var mu sync.Mutex
	stopped := false
	ended := make(chan int, 1)
	go func() {
		br := bufio.NewReaderSize(inv.stdin, 64<<10)
		for {
			line, tooLong, err := readLine(br, MaxInputSize)
			mu.Lock()
			if stopped {
				mu.Unlock()
				return
			}
			code, end := answerLine(work, inv, eng, host, line, tooLong, err)
			mu.Unlock()
			if end {
				ended <- code
				return
			}
		}
	}()
	select {
	case code := <-ended:
		return code
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		select {
		case code := <-ended: // the line in flight was the last
			return code
		default:
			return ExitOK
		}
	}
}

// answerLine answers one line read by readLine (with its tooLong and
// error) on stdout. end reports that serving ends, with its exit code: at
// the end of stdin, or after an error reading stdin or writing stdout.
func answerLine(work context.Context, inv *invocation, eng *engine.Engine, host *hosts.Host, line []byte, tooLong bool, readErr error) (code int, end bool) {
	var out any
	line = bytes.TrimSpace(line)
	switch {
	case tooLong && host.Name != "monad":
		out, _ = hostRefusal(host, fmt.Sprintf("invalid input: line longer than %d bytes", MaxInputSize))
	case tooLong:
		out = errorBody{Error: fmt.Sprintf("invalid input: line longer than %d bytes", MaxInputSize)}
	case len(line) == 0:
		// a blank line, or a read error with nothing before it
	case host.Name != "monad":
		out, _ = hostAnswer(work, eng, host, line)
	default:
		id, idErr := requestID(line)
		if in, err := events.DecodeInput(line); idErr != nil {
			out = errorBody{Error: "invalid input: " + idErr.Error()}
		} else if err != nil {
			out = errorBody{ID: id, Error: "invalid input: " + err.Error()}
		} else if res, err := eng.Dispatch(work, in); err != nil {
			out = errorBody{ID: id, Error: err.Error()}
		} else {
			out = idResult{ID: id, Result: res}
		}
	}
	if out != nil {
		if err := writeJSONLine(inv.stdout, out); err != nil {
			inv.errorf("writing stdout: %v", err)
			return ExitFail, true
		}
	}
	switch {
	case readErr == io.EOF:
		return ExitOK, true
	case readErr != nil:
		inv.errorf("reading stdin: %v", readErr)
		return ExitFail, true
	}
	return ExitOK, false
}

// readLine reads one line (without its newline) of at most max bytes. A
// longer line is consumed to its end and reported as tooLong, without its
// content. At the end of the input the last line comes with io.EOF.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// errorBody is every error answer of serve; ID echoes the request's id.
type errorBody struct {
	ID    json.RawMessage `json:"id,omitempty"`
	Error string          `json:"error"`
}

// idResult is a Result answered to a JSON line that had an id.
type idResult struct {
	ID json.RawMessage `json:"id,omitempty"`
	engine.Result
}

// maxRequestID bounds the id of a JSON line, and the X-Request-Id header
// echoed over HTTP.
const maxRequestID = 256

// requestID returns the "id" of a JSON line, which serve echoes in the
// answer so that a client can match answers to requests without relying
// on their order: a string or a number (JSON-RPC's kinds), at most
// maxRequestID bytes. A line without one (or that is not a JSON object)
// has none; any other id is an error. A line without "id" in it is not
// parsed again.
func requestID(line []byte) (json.RawMessage, error) {
	if !bytes.Contains(line, []byte(`"id"`)) {
		return nil, nil
	}
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &v) != nil || len(v.ID) == 0 || string(v.ID) == "null" {
		return nil, nil // the decoder of the input says what is wrong
	}
	if c := v.ID[0]; c != '"' && c != '-' && (c < '0' || c > '9') || len(v.ID) > maxRequestID {
		return nil, fmt.Errorf("id: want a string or a number of at most %d bytes", maxRequestID)
	}
	return v.ID, nil
}

// listenAddr parses --listen. TCP addresses must be loopback: the endpoint
// has no authentication, and its hooks run commands.
func listenAddr(env Env, s string) (network, address string, err error) {
	if p, ok := strings.CutPrefix(s, "unix:"); ok {
		if p == "" {
			return "", "", usageError("--listen %q: missing socket path", s)
		}
		return "unix", abs(env, p), nil
	}
	host, _, err := net.SplitHostPort(s)
	if err != nil {
		return "", "", usageError("--listen %q: %v (want 127.0.0.1:PORT or unix:PATH)", s, err)
	}
	if host != "localhost" {
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			return "", "", usageError("--listen %q: not a loopback address; the endpoint has no authentication, so serve listens only on 127.0.0.1, [::1], localhost or a unix socket", s)
		}
	}
	return "tcp", s, nil
}

// maxSocketPath is the longest unix socket path every platform accepts.
const maxSocketPath = 103

// listen opens the listener. A unix socket file left behind by a dead
// server is removed first; a live one is an error. A unix socket is created
// with mode 0600 (only its owner may connect): it is bound in a fresh
// private folder beside it, made 0600 there, then renamed into place, so
// that no one else can connect even for an instant.
func listen(network, address string) (net.Listener, error) {
	if network != "unix" {
		return net.Listen(network, address)
	}
	if fi, err := os.Lstat(address); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return nil, fmt.Errorf("listen %s: the file exists and is not a socket", address)
		}
		if c, err := net.DialTimeout("unix", address, 200*time.Millisecond); err == nil {
			c.Close()
			return nil, fmt.Errorf("listen %s: another server is listening there", address)
		}
		if err := os.Remove(address); err != nil {
			return nil, fmt.Errorf("listen %s: removing the stale socket: %w", address, err)
		}
	}
	dir, err := os.MkdirTemp(filepath.Dir(address), ".mh")
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", address, err)
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "s")
	if len(tmp) > maxSocketPath {
		// Too long for a socket path: bind in place; the umask (022 by
		// default) then keeps others out until the chmod.
		tmp = address
	}
	ln, err := net.Listen("unix", tmp)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", address, err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false) // serve removes the socket at exit
	if err := os.Chmod(tmp, 0o600); err == nil && tmp != address {
		err = os.Rename(tmp, address)
	}
	if err != nil {
		ln.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("listen %s: %w", address, err)
	}
	return ln, nil
}

// httpServer is the HTTP transport: its listener is open and its handler
// answers from startHTTP on, the dispatches once the engine is set.
type httpServer struct {
	network, address string
	ln               net.Listener
	srv              *connServer
	h                *httpHandler
	errc             chan error
}

// startHTTP opens the listener and serves: until the engine is given to
// serve, /readyz and /v1/dispatch answer 503 and /healthz "starting".
func startHTTP(inv *invocation, network, address string, maxConcurrent int, metrics bool, host *hosts.Host) (*httpServer, error) {
	ln, err := listen(network, address)
	if err != nil {
		return nil, err
	}
	h := newHTTPHandler(nil, network, ln.Addr().String(), maxConcurrent, MaxInputSize, DefaultBodyMemory)
	h.host = host
	if metrics {
		h.withMetrics()
	}
	s := &httpServer{network: network, address: address, ln: ln, h: h, errc: make(chan error, 1)}
	s.srv = &connServer{
		handler:           h.mux(),
		readHeaderTimeout: 10 * time.Second,
		readTimeout:       time.Minute,
		idleTimeout:       2 * time.Minute,
		writeTimeout:      defaultWriteTimeout,
		maxHeaderBytes:    64 << 10,
		base:              h.workCtx,
		logf:              lineLogger(inv),
	}
	go func() { s.errc <- s.srv.Serve(ln) }()
	return s, nil
}

// lineLogger returns a printf to inv's stderr, one "monad-hooks CMD: msg"
// line per call in one write, safe for concurrent use.
func lineLogger(inv *invocation) func(format string, args ...any) {
	var mu sync.Mutex
	return func(format string, args ...any) {
		line := fmt.Sprintf("monad-hooks %s: %s\n", inv.name, fmt.Sprintf(format, args...))
		mu.Lock()
		defer mu.Unlock()
		io.WriteString(inv.stderr, line)
	}
}

// cleanup removes the unix socket serve created.
func (s *httpServer) cleanup() {
	if s.network == "unix" {
		os.Remove(s.address)
	}
}

// serve sets the engine (the server is ready) and serves until ctx ends;
// then it stops accepting, lets the requests in flight finish (up to
// grace), and returns.
func (s *httpServer) serve(ctx, work context.Context, cancelWork context.CancelFunc, inv *invocation, eng *engine.Engine, grace time.Duration) int {
	h := s.h
	h.setEngine(eng, work)
	shown := s.ln.Addr().String()
	if s.network == "unix" {
		shown = "unix:" + s.address
	} else {
		shown = "http://" + shown
	}
	fmt.Fprintf(inv.stderr, "monad-hooks serve: listening on %s\n", shown)
	select {
	case err := <-s.errc:
		inv.errorf("%v", err)
		return ExitFail
	case <-ctx.Done():
	}
	h.stopping.Store(true) // /readyz: take no new traffic
	fmt.Fprintf(inv.stderr, "monad-hooks serve: shutting down\n")
	// work ends when the grace is over (one timer, in serve): Shutdown
	// gives up then. A dispatch that work cut short may still have been
	// answered before Shutdown noticed, so h.canceled decides the outcome.
	shutErr := s.srv.Shutdown(work)
	if shutErr != nil {
		// The grace is over: the dispatches still running are canceled
		// (their command hooks are killed); wait, bounded, for them.
		cancelWork()
		s.srv.Close()
		for i := 0; i < 500 && h.inflight.Load() > 0; i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}
	<-s.errc
	if shutErr != nil || h.canceled.Load() {
		inv.errorf("dispatches still running after the %v grace were canceled", grace)
		return ExitFail
	}
	return ExitOK
}

// httpHandler serves POST /v1/dispatch, GET /healthz, GET /readyz and, with
// --metrics, GET /metrics to the local agent only.
type httpHandler struct {
	ready    atomic.Pointer[readyState] // nil until the engine is set
	stopping atomic.Bool                // after a signal: /readyz says so
	metrics  *promtext.Metrics          // nil without --metrics
	scrape   handlerFunc                // GET /metrics
	work     context.Context            // the dispatches' context when set directly (tests); see workCtx
	slots    chan struct{}              // bounds the dispatches that run at once
	mem      *weighted                  // bounds the body bytes read, decoded and dispatched at once
	maxBody  int64
	// bodyTimeout bounds the reading of an admitted body
	// (DefaultBodyTimeout).
	bodyTimeout time.Duration
	hosts       map[string]bool // the Host values accepted; nil: any (a unix socket)
	inflight    atomic.Int64
	canceled    atomic.Bool  // a dispatch ended after work was canceled
	waiting     atomic.Int64 // requests waiting for a slot or body memory (tests)
	host        *hosts.Host  // the bodies' host contract; nil: monad
}

// readyState is the engine a handler dispatches to, and the context of its
// dispatches.
type readyState struct {
	eng  *engine.Engine
	work context.Context
}

// newHTTPHandler returns the handler of a server listening on address; eng
// may be nil, and set later by setEngine.
func newHTTPHandler(eng *engine.Engine, network, address string, maxConcurrent int, maxBody, bodyMemory int64) *httpHandler {
	h := &httpHandler{slots: make(chan struct{}, maxConcurrent), mem: newWeighted(bodyMemory), maxBody: maxBody, bodyTimeout: DefaultBodyTimeout}
	if network != "unix" {
		h.hosts = allowedHosts(address)
	}
	if eng != nil {
		h.setEngine(eng, nil)
	}
	return h
}

// setEngine makes the handler ready: it dispatches to eng, on work (nil:
// the request's context only).
func (h *httpHandler) setEngine(eng *engine.Engine, work context.Context) {
	h.ready.Store(&readyState{eng: eng, work: work})
	if h.metrics != nil {
		h.metrics.Watch(eng)
	}
}

// engine returns the engine and the dispatches' context, or nil before
// the configuration loaded.
func (h *httpHandler) engine() (*engine.Engine, context.Context) {
	r := h.ready.Load()
	if r == nil {
		return nil, nil
	}
	if r.work == nil {
		return r.eng, h.work
	}
	return r.eng, r.work
}

// workCtx is the base context of the server's requests: the dispatches'
// context once ready, the background before (only the endpoints that
// dispatch nothing answer then).
func (h *httpHandler) workCtx() context.Context {
	if _, w := h.engine(); w != nil {
		return w
	}
	return context.Background()
}

// withMetrics serves the engine's metrics at GET /metrics, with the Go
// runtime's and the process's, in Prometheus' text format (package
// promtext: the CLI links no Prometheus client, whose initialisation was a
// fifth of every start of run, BenchmarkCLIRunNoStdlib).
func (h *httpHandler) withMetrics() {
	h.metrics = promtext.New()
	h.scrape = func(w *respWriter, r *request) {
		var b bytes.Buffer
		err := h.metrics.WriteText(&b)
		if err == nil {
			err = promtext.WriteRuntime(&b)
		}
		if err == nil {
			err = writeProcessMetrics(&b)
		}
		if err != nil {
			w.setHeader("Content-Type", "text/plain; charset=utf-8")
			w.setHeader("X-Content-Type-Options", "nosniff")
			w.writeHeader(statusInternalServerError)
			io.WriteString(w, "writing the metrics: "+err.Error()+"\n")
			return
		}
		w.setHeader("Content-Type", promtext.ContentType)
		w.Write(b.Bytes())
	}
}

// allowedHosts lists the Host header values of requests to a server
// listening on address: the address itself, and localhost and the loopback
// IPs with its port (without the port too when it is 80). A browser page on
// another name that resolves to 127.0.0.1 (DNS rebinding) sends its own name
// and is refused.
func allowedHosts(address string) map[string]bool {
	hosts := map[string]bool{address: true}
	_, port, err := net.SplitHostPort(address)
	if err != nil {
		return hosts
	}
	for _, h := range []string{"localhost", "127.0.0.1", "[::1]"} {
		hosts[h+":"+port] = true
		if port == "80" {
			hosts[h] = true
		}
	}
	return hosts
}

// mux returns the handler of serve's endpoints. Paths are matched as
// sent: a path that is not one of them (nor a spelling of one net/url would
// clean or unescape to it) is not found.
func (h *httpHandler) mux() handlerFunc {
	endpoints := "POST /v1/dispatch, GET /healthz, GET /readyz"
	if h.scrape != nil {
		endpoints += ", GET /metrics"
	}
	get := func(w *respWriter, r *request, f handlerFunc) {
		if r.method != "GET" && r.method != "HEAD" {
			w.setHeader("Allow", "GET, HEAD")
			writeHTTP(w, statusMethodNotAllowed, errorBody{Error: "method " + r.method + " not allowed"})
			return
		}
		f(w, r)
	}
	return func(w *respWriter, r *request) {
		// The request's id comes back with every answer, errors included.
		if id := r.header.get("X-Request-Id"); id != "" && len(id) <= maxRequestID {
			w.setHeader("X-Request-Id", id)
		}
		if msg := h.foreign(r); msg != "" {
			writeHTTP(w, statusForbidden, errorBody{Error: msg})
			return
		}
		switch {
		case r.path == "/v1/dispatch":
			if r.method != "POST" {
				w.setHeader("Allow", "POST")
				writeHTTP(w, statusMethodNotAllowed, errorBody{Error: "method " + r.method + " not allowed: POST a HookInput"})
				return
			}
			h.dispatch(w, r)
		case r.path == "/healthz":
			get(w, r, func(w *respWriter, r *request) {
				writeHTTP(w, statusOK, h.health())
			})
		case r.path == "/readyz":
			get(w, r, func(w *respWriter, r *request) {
				st := h.health()
				switch st.Status {
				case "starting", "stopping":
					writeHTTP(w, statusServiceUnavailable, st)
				default:
					writeHTTP(w, statusOK, st)
				}
			})
		case r.path == "/metrics" && h.scrape != nil:
			get(w, r, h.scrape)
		default:
			writeHTTP(w, statusNotFound, errorBody{Error: "no such endpoint: " + r.path + " (" + endpoints + ")"})
		}
	}
}

// healthState is the answer of /healthz and /readyz: "starting" until the
// configuration loaded, then "ok", or "degraded" while the configuration on
// disk is not (all) in force (a failed reload keeps the last good plan;
// configError says why), "stopping" after a signal; and the plan's
// generation (see engine.Stats).
type healthState struct {
	Status      string `json:"status"`
	Generation  int64  `json:"generation"`
	ConfigError string `json:"configError,omitempty"`
}

func (h *httpHandler) health() healthState {
	eng, _ := h.engine()
	if eng == nil {
		return healthState{Status: "starting"}
	}
	s := eng.Stats()
	st := healthState{Status: "ok", Generation: s.Generation, ConfigError: s.ConfigError}
	switch {
	case h.stopping.Load():
		st.Status = "stopping"
	case s.ConfigError != "":
		st.Status = "degraded"
	}
	return st
}

// foreign says why a request does not come from the local agent, or "".
func (h *httpHandler) foreign(r *request) string {
	if h.hosts != nil && !h.hosts[r.host] {
		return fmt.Sprintf("refused: Host %q is not this server's address (a browser page on another name?)", r.host)
	}
	if o := r.header.get("Origin"); o != "" {
		host, ok := strings.CutPrefix(o, "http://")
		if !ok || h.hosts == nil || !h.hosts[host] {
			return fmt.Sprintf("refused: a request from the web page %q", o)
		}
	}
	return ""
}

func (h *httpHandler) dispatch(w *respWriter, r *request) {
	h.inflight.Add(1)
	defer h.inflight.Add(-1)
	eng, work := h.engine()
	if eng == nil {
		writeHTTP(w, statusServiceUnavailable, errorBody{Error: "starting: the configuration is not loaded yet (GET /readyz says when it is)"})
		return
	}
	if !isJSONType(r.header.get("Content-Type")) {
		writeHTTP(w, statusUnsupportedMediaType, errorBody{Error: fmt.Sprintf("Content-Type %q: want application/json", r.header.get("Content-Type"))})
		return
	}
	if r.contentLength > h.maxBody {
		h.tooLarge(w)
		return
	}
	// The body is read, decoded and dispatched only within the limits:
	// a slot, and room for its bytes (its size when known, else the most
	// it may be).
	size := h.maxBody
	if r.contentLength >= 0 {
		size = r.contentLength
	}
	h.waiting.Add(1)
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	case <-r.ctx.Done():
		h.waiting.Add(-1)
		writeHTTP(w, statusServiceUnavailable, errorBody{Error: "canceled while waiting for a dispatch slot"})
		return
	}
	err := h.mem.acquire(r.ctx, max(size, 1))
	h.waiting.Add(-1)
	if err != nil {
		writeHTTP(w, statusServiceUnavailable, errorBody{Error: "canceled while waiting for memory for the body"})
		return
	}
	defer h.mem.release(max(size, 1))
	w.setReadDeadline(time.Now().Add(h.bodyTimeout))
	body, err := readBody(r.body, r.contentLength, h.maxBody)
	if err != nil {
		if err == errBodyTooLarge {
			h.tooLarge(w)
			return
		}
		writeHTTP(w, statusBadRequest, errorBody{Error: "reading the body: " + err.Error()})
		return
	}
	if h.host != nil && h.host.Name != "monad" {
		out, status := hostAnswer(r.ctx, eng, h.host, body)
		if work != nil && work.Err() != nil {
			h.canceled.Store(true)
		}
		writeHTTP(w, status, out)
		return
	}
	in, err := events.DecodeInput(body)
	body = nil // the input holds what the hooks need
	if err != nil {
		writeHTTP(w, statusBadRequest, errorBody{Error: "invalid input: " + err.Error()})
		return
	}
	res, err := eng.Dispatch(r.ctx, in)
	if work != nil && work.Err() != nil {
		h.canceled.Store(true)
	}
	if err == nil && h.metrics != nil {
		h.metrics.ObserveDispatch(res)
	}
	switch {
	case errors.Is(err, engine.ErrInvalidInput):
		writeHTTP(w, statusBadRequest, errorBody{Error: err.Error()})
	case errors.Is(err, engine.ErrClosed):
		writeHTTP(w, statusServiceUnavailable, errorBody{Error: err.Error()})
	case err != nil:
		writeHTTP(w, statusInternalServerError, errorBody{Error: err.Error()})
	default:
		writeHTTP(w, statusOK, res)
	}
}

// tooLarge answers a body over maxBody: 413, or for a host the refusal it
// reads as a block (the agent makes such a body by writing a large file;
// Claude Code's HTTP hooks proceed on an error status).
func (h *httpHandler) tooLarge(w *respWriter) {
	msg := fmt.Sprintf("invalid input: body larger than %d bytes", h.maxBody)
	if h.host != nil && h.host.Name != "monad" {
		out, status := hostRefusal(h.host, msg)
		writeHTTP(w, status, out)
		return
	}
	writeHTTP(w, statusRequestEntityTooLarge, errorBody{Error: msg})
}

// errBodyTooLarge is a body of unknown length that went over the limit.
var errBodyTooLarge = errors.New("body too large")

// readBody reads a request body (nil: none) of n bytes (-1: unknown, at
// most max, else errBodyTooLarge) into one buffer of the right size when n
// is known.
func readBody(r io.Reader, n, max int64) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	if n < 0 {
		b, err := io.ReadAll(io.LimitReader(r, max+1))
		if err == nil && int64(len(b)) > max {
			return nil, errBodyTooLarge
		}
		return b, err
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}

// isJSONType reports whether a Content-Type is application/json (with
// parameters or not, in any case).
func isJSONType(ct string) bool {
	if ct == "application/json" { // what clients send: no parse
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// weighted is a semaphore of n units that requests acquire in FIFO order.
type weighted struct {
	mu      sync.Mutex
	free    int64
	size    int64
	waiters []*waiter
}

type waiter struct {
	n     int64
	ready chan struct{}
}

func newWeighted(n int64) *weighted { return &weighted{free: n, size: n} }

// acquire takes n units (at most the semaphore's size), waiting for them in
// line, or returns ctx's error.
func (s *weighted) acquire(ctx context.Context, n int64) error {
	n = min(n, s.size)
	s.mu.Lock()
	if len(s.waiters) == 0 && s.free >= n {
		s.free -= n
		s.mu.Unlock()
		return nil
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	s.waiters = append(s.waiters, w)
	s.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		select {
		case <-w.ready: // granted meanwhile: give it back
			s.free += n
			s.grantLocked()
		default:
			for i, x := range s.waiters {
				if x == w {
					s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
					break
				}
			}
			s.grantLocked()
		}
		return ctx.Err()
	}
}

// release gives back n units taken by acquire(n).
func (s *weighted) release(n int64) {
	n = min(n, s.size)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free += n
	s.grantLocked()
}

func (s *weighted) grantLocked() {
	for len(s.waiters) > 0 && s.free >= s.waiters[0].n {
		w := s.waiters[0]
		s.waiters = s.waiters[1:]
		s.free -= w.n
		close(w.ready)
	}
}

func writeHTTP(w *respWriter, status int, v any) {
	w.setHeader("Content-Type", "application/json")
	w.setHeader("X-Content-Type-Options", "nosniff")
	w.writeHeader(status)
	writeJSONLine(w, v)
}
