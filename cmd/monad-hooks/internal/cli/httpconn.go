package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// connServer serves HTTP/1.1 with one goroutine per connection that reads
// each request (net/http's http.ReadRequest parses it), runs the handler and
// writes the answer in one write, with no other goroutine on the way
// (BenchmarkServeHTTPRaw). net/http's Server starts a goroutine per request
// to watch the connection once its body is read; on two cores that keeps a
// second thread waking up for every request and for every timer the
// dispatch arms, which cost serve 2-3x the JSON-lines round trip. Here a
// watcher starts only for a dispatch that outlasts watchAfter (see arm): a
// client that hangs up still cancels its long dispatch.
//
// The limits are net/http's, with the same defaults as serve's http.Server
// had: headers within readHeaderTimeout and maxHeaderBytes, the whole
// request within readTimeout (a handler may shorten it), idleTimeout
// between requests. Unlike serve's http.Server, writes have a deadline
// (writeTimeout): a client that never reads (its buffers full) would
// otherwise block the "100 Continue" a handler writes while it holds a
// dispatch slot and body memory, and so every other dispatch, for ever.
// Bodies: chunked or sized, as http.ReadRequest reads
// them; "Expect: 100-continue" is answered when the handler reads the body;
// an unread body is drained (up to maxDrain) before the next request, or
// the connection closes. Answers are buffered whole (serve's are small and
// bounded) and sent with their Content-Length. HTTP/2 and upgrades are not
// served.
type connServer struct {
	handler           http.Handler
	base              func() context.Context // the context of a new connection's requests
	readHeaderTimeout time.Duration
	readTimeout       time.Duration
	idleTimeout       time.Duration
	writeTimeout      time.Duration // of each write (0: defaultWriteTimeout)
	maxHeaderBytes    int
	// logf, when set, is told of a handler that panicked (its connection
	// is closed, as net/http's server does, which logs it too); it must
	// be safe for concurrent use.
	logf func(format string, args ...any)

	mu         sync.Mutex
	ln         net.Listener
	conns      map[*srvConn]bool // true: idle, waiting for a request
	closing    bool
	drained    chan struct{} // closed when closing and no connection is left
	watchdogOn bool          // the watchdog runs (see arm)
	watchAft   time.Duration // watchAfter; tests shorten it
}

// watchAfter is how long a request runs before a watcher notices its
// client hanging up (which cancels its context).
const watchAfter = 50 * time.Millisecond

// defaultWriteTimeout bounds each write to a client: "100 Continue", an
// answer (at most a few hundred KiB), a refusal. A local client reads them
// in microseconds.
const defaultWriteTimeout = 10 * time.Second

// maxKeptAnswer is the largest answer buffer a connection keeps for its
// next request; a larger one (a 404 echoes its path) is dropped.
const maxKeptAnswer = 16 << 10

// maxDrain is the most of an unread request body read and discarded to
// keep its connection for the next request (net/http's figure).
const maxDrain = 256 << 10

// Serve accepts connections on ln until Shutdown or Close, and then
// returns http.ErrServerClosed; or returns the listener's error.
func (s *connServer) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return http.ErrServerClosed
	}
	s.ln = ln
	if s.conns == nil {
		s.conns = map[*srvConn]bool{}
	}
	s.mu.Unlock()
	var backoff time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				return http.ErrServerClosed
			}
			// A temporary error (too many open files) passes, as in net/http.
			if te, ok := err.(interface{ Temporary() bool }); ok && te.Temporary() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		sc := &srvConn{s: s, c: c}
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			c.Close()
			return http.ErrServerClosed
		}
		ctx, cancel := context.WithCancel(s.base())
		sc.cancel = cancel
		s.conns[sc] = true
		s.mu.Unlock()
		go sc.serve(ctx)
	}
}

// Shutdown stops accepting, closes the idle connections and waits for the
// others to answer their request in flight and close; or, when ctx ends
// first, returns its error (Close then ends them).
func (s *connServer) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.beginCloseLocked()
	for sc, idle := range s.conns {
		if idle {
			sc.c.Close()
		}
	}
	drained := s.drained
	s.mu.Unlock()
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops accepting, cancels the requests in flight and closes every
// connection.
func (s *connServer) Close() error {
	s.mu.Lock()
	s.beginCloseLocked()
	for sc := range s.conns {
		sc.cancel()
		sc.c.Close()
	}
	s.mu.Unlock()
	return nil
}

func (s *connServer) beginCloseLocked() {
	if s.closing {
		return
	}
	s.closing = true
	s.drained = make(chan struct{})
	if s.ln != nil {
		s.ln.Close()
	}
	if len(s.conns) == 0 {
		close(s.drained)
	}
}

// setIdle marks sc idle or busy; it reports false when the server is
// closing and sc must close instead.
func (s *connServer) setIdle(sc *srvConn, idle bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[sc] = idle
	return true
}

func (s *connServer) remove(sc *srvConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, sc)
	if s.closing && len(s.conns) == 0 {
		close(s.drained)
	}
}

// srvConn is one connection of a connServer.
type srvConn struct {
	s      *connServer
	c      net.Conn
	lr     limitReader
	br     *bufio.Reader
	bw     *bufio.Writer
	out    bytes.Buffer       // the answer being made; s.mu orders it for tests
	cancel context.CancelFunc // ends the requests' context of the connection

	mu        sync.Mutex // guards the watcher's fields and its deadlines
	armed     bool       // the request in flight read its body (see arm)
	armedAt   time.Time
	reqCancel context.CancelFunc // cancels the request in flight
	watching  bool               // its watcher reads the connection
	watchEnd  chan struct{}      // closed when the watcher is done
	hasByte   bool               // the watcher read the next request's first byte
	byteBuf   [1]byte
}

// limitReader reads the connection for the bufio.Reader: first the byte a
// watcher read, then at most n bytes (the headers' limit) or, with n < 0,
// anything.
type limitReader struct {
	sc *srvConn
	n  int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n == 0 {
		return 0, errHeaderTooLarge
	}
	if l.n > 0 && int64(len(p)) > l.n {
		p = p[:l.n]
	}
	sc := l.sc
	var n int
	var err error
	if sc.hasByte && len(p) > 0 {
		p[0], sc.hasByte = sc.byteBuf[0], false
		n = 1
	} else {
		n, err = sc.c.Read(p)
	}
	if l.n > 0 {
		l.n -= int64(n)
	}
	return n, err
}

// serve reads and answers the requests of the connection, with ctx as
// their context's parent.
func (sc *srvConn) serve(ctx context.Context) {
	s := sc.s
	defer func() {
		sc.cancel()
		sc.c.Close()
		s.remove(sc)
	}()
	sc.lr = limitReader{sc: sc, n: -1}
	sc.br = bufio.NewReaderSize(&sc.lr, 4<<10)
	sc.bw = bufio.NewWriterSize(sc.c, 4<<10)
	for {
		// Idle until the next request's first byte.
		if s.idleTimeout > 0 {
			sc.c.SetReadDeadline(time.Now().Add(s.idleTimeout))
		}
		if _, err := sc.br.Peek(1); err != nil {
			return
		}
		if !s.setIdle(sc, false) {
			return
		}
		t0 := time.Now()
		sc.c.SetReadDeadline(t0.Add(s.readHeaderTimeout))
		sc.lr.n = int64(s.maxHeaderBytes) + 4096 // net/http's allowance for the request line
		req, err := http.ReadRequest(sc.br)
		sc.lr.n = -1
		if err != nil {
			sc.refuse(err)
			return
		}
		sc.c.SetReadDeadline(t0.Add(s.readTimeout))
		if !sc.answer(ctx, req, &sc.out) {
			return
		}
		if sc.out.Cap() > maxKeptAnswer {
			sc.out = bytes.Buffer{} // an idle connection keeps little
		}
		if !s.setIdle(sc, true) {
			return
		}
	}
}

// refuse answers a request that could not be read, as net/http does: 431
// for headers over the limit, 400 for a malformed request, nothing for a
// connection closed or timed out.
func (sc *srvConn) refuse(err error) {
	var ne net.Error
	var ue *url.Error // a net.Error too, but the client's
	switch {
	case errors.Is(err, errHeaderTooLarge):
		sc.writeSimple(http.StatusRequestHeaderFieldsTooLarge, "431 Request Header Fields Too Large")
	case errors.As(err, &ue):
		sc.writeSimple(http.StatusBadRequest, "400 Bad Request: malformed URL")
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &ne):
	default:
		sc.writeSimple(http.StatusBadRequest, "400 Bad Request")
	}
}

func (sc *srvConn) writeSimple(status int, msg string) {
	sc.c.SetWriteDeadline(time.Now().Add(min(time.Second, sc.s.writeDeadline())))
	io.WriteString(sc.c, "HTTP/1.1 "+strconv.Itoa(status)+" "+http.StatusText(status)+
		"\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: "+
		strconv.Itoa(len(msg))+"\r\n\r\n"+msg)
}

// answer runs the handler on req and writes its answer; it reports whether
// the connection may serve another request.
func (sc *srvConn) answer(connCtx context.Context, req *http.Request, out *bytes.Buffer) bool {
	keep := !req.Close
	switch {
	case req.ProtoMajor != 1:
		sc.writeSimple(http.StatusHTTPVersionNotSupported, "505 HTTP Version Not Supported")
		return false
	case req.ProtoAtLeast(1, 1) && req.Host == "":
		sc.writeSimple(http.StatusBadRequest, "400 Bad Request: missing required Host header")
		return false
	case !validHeaderNames(req):
		sc.writeSimple(http.StatusBadRequest, "400 Bad Request: invalid header name")
		return false
	case !validHeaderValues(req):
		sc.writeSimple(http.StatusBadRequest, "400 Bad Request: invalid header value")
		return false
	}
	rb := &reqBody{r: req.Body, sc: sc}
	if req.Body == nil || req.Body == http.NoBody || req.ContentLength == 0 {
		rb.eof = true
	}
	if e, ok := req.Header["Expect"]; ok {
		if len(e) != 1 || !asciiEqualFold(e[0], "100-continue") || !req.ProtoAtLeast(1, 1) {
			sc.writeSimple(http.StatusExpectationFailed, "417 Expectation Failed")
			return false
		}
		rb.expect = !rb.eof
		delete(req.Header, "Expect")
	}
	req.Body = rb
	req.RemoteAddr = sc.c.RemoteAddr().String()
	ctx, cancel := context.WithCancel(connCtx)
	defer cancel()
	req = req.WithContext(ctx)
	out.Reset()
	w := &respWriter{sc: sc, header: http.Header{}, body: out}
	rb.onEOF = func() { sc.arm(cancel) }
	ok := sc.runHandler(w, req)
	sc.disarm()
	if !ok {
		return false // the handler panicked: net/http closes the connection without an answer
	}
	switch {
	case !rb.eof && rb.expect && !rb.sentContinue:
		keep = false // the client waits to send the body that is not wanted
	case rb.wrErr != nil:
		keep = false // the client does not read: its body is not drained
	case !rb.eof:
		// Drain what is left of the body, within the request's deadline.
		rb.onEOF = nil
		if n, _ := io.CopyN(io.Discard, rb, maxDrain+1); n > maxDrain || !rb.eof {
			keep = false
		}
	}
	sc.s.mu.Lock()
	if sc.s.closing {
		keep = false
	}
	sc.s.mu.Unlock()
	return sc.writeAnswer(req, w, keep) && keep
}

func (sc *srvConn) runHandler(w *respWriter, req *http.Request) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			ok = false
			if sc.s.logf != nil {
				msg := fmt.Sprint(r)
				if len(msg) > maxFailureLine {
					msg = strings.ToValidUTF8(msg[:maxFailureLine], "") + " …"
				}
				sc.s.logf("internal error answering %s %s (connection closed): %s", req.Method, req.URL.Path, msg)
			}
		}
	}()
	sc.s.handler.ServeHTTP(w, req)
	return true
}

// writeAnswer writes the status line, the headers and the body in one
// write.
func (sc *srvConn) writeAnswer(req *http.Request, w *respWriter, keep bool) bool {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	bw := sc.bw
	bw.WriteString("HTTP/1.1 ")
	bw.WriteString(strconv.Itoa(w.status))
	bw.WriteByte(' ')
	bw.WriteString(http.StatusText(w.status))
	bw.WriteString("\r\n")
	w.header.Del("Content-Length")
	w.header.Del("Transfer-Encoding")
	w.header.Del("Connection")
	if w.header.Get("Date") == "" {
		w.header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	w.header.Write(bw)
	noBody := w.status == http.StatusNoContent || w.status == http.StatusNotModified || w.status < 200
	if !noBody {
		bw.WriteString("Content-Length: ")
		bw.WriteString(strconv.Itoa(w.body.Len()))
		bw.WriteString("\r\n")
	}
	switch {
	case !keep:
		bw.WriteString("Connection: close\r\n")
	case !req.ProtoAtLeast(1, 1):
		bw.WriteString("Connection: keep-alive\r\n")
	}
	bw.WriteString("\r\n")
	if !noBody && req.Method != http.MethodHead {
		bw.Write(w.body.Bytes())
	}
	sc.c.SetWriteDeadline(time.Now().Add(sc.s.writeDeadline()))
	return bw.Flush() == nil
}

// respWriter is the http.ResponseWriter of a connServer: it buffers the
// answer, which writeAnswer sends.
type respWriter struct {
	sc     *srvConn
	header http.Header
	status int
	body   *bytes.Buffer
}

func (w *respWriter) Header() http.Header { return w.header }

func (w *respWriter) WriteHeader(status int) {
	if w.status == 0 && status >= 200 {
		w.status = status
	}
}

func (w *respWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

// SetReadDeadline sets the connection's read deadline (for
// http.ResponseController).
func (w *respWriter) SetReadDeadline(t time.Time) error { return w.sc.c.SetReadDeadline(t) }

// SetWriteDeadline sets the connection's write deadline (for
// http.ResponseController).
func (w *respWriter) SetWriteDeadline(t time.Time) error { return w.sc.c.SetWriteDeadline(t) }

// reqBody is a request's body: it sends "100 Continue" before its first
// read when the client asked for it, and notes its end.
type reqBody struct {
	r            io.ReadCloser
	sc           *srvConn
	expect       bool
	sentContinue bool
	wrErr        error // writing "100 Continue" failed
	eof          bool
	onEOF        func()
}

func (b *reqBody) Read(p []byte) (int, error) {
	if b.eof {
		return 0, io.EOF
	}
	if b.wrErr != nil {
		return 0, b.wrErr
	}
	if b.expect && !b.sentContinue {
		b.sentContinue = true
		b.sc.bw.WriteString("HTTP/1.1 100 Continue\r\n\r\n")
		// The handler holds its slot and body memory meanwhile.
		b.sc.c.SetWriteDeadline(time.Now().Add(b.sc.s.writeDeadline()))
		if err := b.sc.bw.Flush(); err != nil {
			b.wrErr = err
			return 0, err
		}
	}
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.eof = true
		if b.onEOF != nil {
			b.onEOF()
		}
	}
	return n, err
}

func (b *reqBody) Close() error { return nil }

// arm makes the request in flight on sc, whose body was read, one the
// watchdog watches: if it still runs after watchAfter, a goroutine reads
// the connection, and the client hanging up (or the connection failing)
// cancels the request (net/http's Server reads so for every request, with a
// goroutine that wakes a second thread each time; a dispatch of the default
// set is done long before watchAfter: BenchmarkServeHTTPRaw). A byte it
// reads is the next request's (pipelined), kept for it.
func (sc *srvConn) arm(cancel context.CancelFunc) {
	if sc.br.Buffered() > 0 {
		return // the next request is here already: nothing to watch
	}
	sc.mu.Lock()
	sc.armed, sc.armedAt, sc.reqCancel = true, time.Now(), cancel
	sc.mu.Unlock()
	s := sc.s
	s.mu.Lock()
	if !s.watchdogOn {
		s.watchdogOn = true
		go s.watchdog()
	}
	s.mu.Unlock()
}

// disarm ends the watching of the request that was answered, waiting for
// its watcher's read to return.
func (sc *srvConn) disarm() {
	sc.mu.Lock()
	watching, end := sc.watching, sc.watchEnd
	sc.armed, sc.watching, sc.reqCancel = false, false, nil
	if watching {
		sc.c.SetReadDeadline(time.Unix(1, 0)) // ends the read
	}
	sc.mu.Unlock()
	if watching {
		<-end
	}
}

// watchdog starts the watchers of the requests armed for watchAfter or
// more, every watchAfter, until no request has been armed for a second.
func (s *connServer) watchdog() {
	every := s.watchAfter()
	t := time.NewTicker(every)
	defer t.Stop()
	quiet := 0
	for now := range t.C {
		s.mu.Lock()
		armed := false
		for sc := range s.conns {
			armed = sc.watchIfDue(now, every) || armed
		}
		if quiet = quiet + 1; armed {
			quiet = 0
		}
		if quiet*int(every) >= int(time.Second) {
			s.watchdogOn = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
}

// watchIfDue starts the watcher of sc's request if it is armed since at
// least after; it reports whether sc is armed.
func (sc *srvConn) watchIfDue(now time.Time, after time.Duration) bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if !sc.armed || sc.watching || now.Sub(sc.armedAt) < after {
		return sc.armed
	}
	sc.watching = true
	end, cancel := make(chan struct{}), sc.reqCancel
	sc.watchEnd = end
	sc.c.SetReadDeadline(time.Time{}) // under mu: disarm's deadline comes after
	go func() {
		defer close(end)
		n, err := sc.c.Read(sc.byteBuf[:])
		sc.mu.Lock()
		sc.hasByte = sc.hasByte || n == 1
		sc.mu.Unlock()
		var ne net.Error
		if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
			cancel()
		}
	}()
	return true
}

func (s *connServer) writeDeadline() time.Duration {
	if s.writeTimeout > 0 {
		return s.writeTimeout
	}
	return defaultWriteTimeout
}

func (s *connServer) watchAfter() time.Duration {
	if s.watchAft > 0 {
		return s.watchAft
	}
	return watchAfter
}

// validHeaderValues reports whether no header value (nor the Host) of req
// holds a control character other than a tab, as net/http's server
// requires (an X-Request-Id is echoed in the answer's headers).
func validHeaderValues(req *http.Request) bool {
	valid := func(v string) bool {
		for i := 0; i < len(v); i++ {
			if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
				return false
			}
		}
		return true
	}
	if !valid(req.Host) {
		return false
	}
	for _, vv := range req.Header {
		for _, v := range vv {
			if !valid(v) {
				return false
			}
		}
	}
	return true
}

// validHeaderNames reports whether every header name of req is a token,
// as net/http's server requires: "Transfer-Encoding : chunked" is refused
// rather than read as another header, which would leave the request
// bodyless and its chunked body to be read as the next request.
func validHeaderNames(req *http.Request) bool {
	for k := range req.Header {
		if k == "" {
			return false
		}
		for i := 0; i < len(k); i++ {
			if c := k[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
				return false
			}
		}
	}
	return true
}

// asciiEqualFold reports whether a and b are equal ignoring ASCII case.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
