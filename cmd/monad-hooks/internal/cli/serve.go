package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// Defaults of serve.
const (
	// DefaultGrace is how long serve lets dispatches in flight finish after
	// SIGINT or SIGTERM before it cancels them.
	DefaultGrace = 90 * time.Second
	// DefaultMaxConcurrent bounds the HTTP dispatches that run at once;
	// further requests wait for a slot.
	DefaultMaxConcurrent = 32
)

type serveFlags struct {
	common
	listen         string
	grace          time.Duration
	maxConcurrent  int
	reloadInterval time.Duration
}

func cmdServe(ctx context.Context, inv *invocation, args []string) int {
	var sf serveFlags
	fs := newFlagSet("serve")
	sf.register(fs)
	fs.StringVar(&sf.listen, "listen", "", "serve HTTP on `ADDR` (127.0.0.1:PORT, [::1]:PORT, localhost:PORT or unix:PATH) instead of stdin/stdout")
	fs.DurationVar(&sf.grace, "grace", DefaultGrace, "on SIGINT/SIGTERM, how long dispatches in flight may still run")
	fs.IntVar(&sf.maxConcurrent, "max-concurrent", DefaultMaxConcurrent, "HTTP dispatches that run at once")
	fs.DurationVar(&sf.reloadInterval, "reload-interval", 0, "check the configuration files for changes at most this often (0: on every dispatch)")
	pos, code := parseArgs(inv, fs, helpServe, args)
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
	o, code := sf.open(ctx, inv, true, engine.WithReloadInterval(sf.reloadInterval))
	if code >= 0 {
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
		code = serveLines(ctx, work, inv, o.eng)
	} else {
		code = serveHTTP(ctx, work, cancelWork, inv, o.eng, network, address, sf.grace, sf.maxConcurrent)
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
func serveLines(ctx, work context.Context, inv *invocation, eng *engine.Engine) int {
	type item struct {
		line    []byte
		tooLong bool
		err     error
	}
	items := make(chan item)
	done := make(chan struct{})
	defer close(done)
	go func() {
		defer close(items)
		br := bufio.NewReaderSize(inv.stdin, 64<<10)
		for {
			line, tooLong, err := readLine(br, MaxInputSize)
			if len(line) > 0 || tooLong || (err != nil && err != io.EOF) {
				select {
				case items <- item{line, tooLong, err}:
				case <-done:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		var it item
		var ok bool
		select {
		case <-ctx.Done():
			return ExitOK
		case it, ok = <-items:
		}
		if !ok {
			return ExitOK
		}
		var out any
		line := bytes.TrimSpace(it.line)
		switch {
		case it.tooLong:
			out = errorBody{fmt.Sprintf("invalid input: line longer than %d bytes", MaxInputSize)}
		case len(line) == 0:
			// a blank line, or a read error with nothing before it
		default:
			if in, err := events.DecodeInput(line); err != nil {
				out = errorBody{"invalid input: " + err.Error()}
			} else if res, err := eng.Dispatch(withSession(work, in.SessionID), in); err != nil {
				out = errorBody{err.Error()}
			} else {
				out = res
			}
		}
		if out != nil {
			if err := writeJSONLine(inv.stdout, out); err != nil {
				inv.errorf("writing stdout: %v", err)
				return ExitFail
			}
		}
		if it.err != nil && it.err != io.EOF {
			inv.errorf("reading stdin: %v", it.err)
			return ExitFail
		}
	}
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

type errorBody struct {
	Error string `json:"error"`
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

// listen opens the listener. A unix socket file left behind by a dead
// server is removed first; a live one is an error.
func listen(network, address string) (net.Listener, error) {
	if network == "unix" {
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
	}
	return net.Listen(network, address)
}

// serveHTTP is the HTTP transport. On ctx's end it stops accepting, lets the
// requests in flight finish (up to grace), then returns.
func serveHTTP(ctx, work context.Context, cancelWork context.CancelFunc, inv *invocation, eng *engine.Engine, network, address string, grace time.Duration, maxConcurrent int) int {
	ln, err := listen(network, address)
	if err != nil {
		inv.errorf("%v", err)
		return ExitFail
	}
	h := &httpHandler{eng: eng, work: work, slots: make(chan struct{}, maxConcurrent), maxBody: MaxInputSize}
	srv := &http.Server{
		Handler:           h.mux(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return work },
	}
	shown := ln.Addr().String()
	if network == "unix" {
		shown = "unix:" + shown
	} else {
		shown = "http://" + shown
	}
	fmt.Fprintf(inv.stderr, "monad-hooks serve: listening on %s\n", shown)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		inv.errorf("%v", err)
		return ExitFail
	case <-ctx.Done():
	}
	fmt.Fprintf(inv.stderr, "monad-hooks serve: shutting down\n")
	// work ends when the grace is over (one timer, in serve): Shutdown
	// gives up then. A dispatch that work cut short may still have been
	// answered before Shutdown noticed, so h.canceled decides the outcome.
	shutErr := srv.Shutdown(work)
	if shutErr != nil {
		// The grace is over: the dispatches still running are canceled
		// (their command hooks are killed); wait, bounded, for them.
		cancelWork()
		srv.Close()
		for i := 0; i < 500 && h.inflight.Load() > 0; i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}
	<-errc
	if shutErr != nil || h.canceled.Load() {
		inv.errorf("dispatches still running after the %v grace were canceled", grace)
		return ExitFail
	}
	return ExitOK
}

// httpHandler serves POST /v1/dispatch and GET /healthz.
type httpHandler struct {
	eng      *engine.Engine
	work     context.Context // the dispatches' context: canceled when the grace is over
	slots    chan struct{}   // bounds the dispatches that run at once
	maxBody  int64
	inflight atomic.Int64
	canceled atomic.Bool // a dispatch ended after work was canceled
}

func (h *httpHandler) mux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/dispatch", h.dispatch)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	})
	return mux
}

func (h *httpHandler) dispatch(w http.ResponseWriter, r *http.Request) {
	h.inflight.Add(1)
	defer h.inflight.Add(-1)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeHTTP(w, http.StatusRequestEntityTooLarge, errorBody{fmt.Sprintf("invalid input: body larger than %d bytes", h.maxBody)})
			return
		}
		writeHTTP(w, http.StatusBadRequest, errorBody{"reading the body: " + err.Error()})
		return
	}
	in, err := events.DecodeInput(body)
	if err != nil {
		writeHTTP(w, http.StatusBadRequest, errorBody{"invalid input: " + err.Error()})
		return
	}
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	case <-r.Context().Done():
		writeHTTP(w, http.StatusServiceUnavailable, errorBody{"canceled while waiting for a dispatch slot"})
		return
	}
	res, err := h.eng.Dispatch(withSession(r.Context(), in.SessionID), in)
	if h.work.Err() != nil {
		h.canceled.Store(true)
	}
	switch {
	case errors.Is(err, engine.ErrInvalidInput):
		writeHTTP(w, http.StatusBadRequest, errorBody{err.Error()})
	case errors.Is(err, engine.ErrClosed):
		writeHTTP(w, http.StatusServiceUnavailable, errorBody{err.Error()})
	case err != nil:
		writeHTTP(w, http.StatusInternalServerError, errorBody{err.Error()})
	default:
		writeHTTP(w, http.StatusOK, res)
	}
}

func writeHTTP(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	writeJSONLine(w, v)
}
