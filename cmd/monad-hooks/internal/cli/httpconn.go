package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// connServer serves HTTP/1.1 with one goroutine per connection that reads
// each request (wireParser, httpwire.go, parses it as net/http's server
// did), runs the handler and writes the answer in one write, with no other
// goroutine on the way (BenchmarkServeHTTPRaw). net/http's Server, which
// serve used before, starts a goroutine per request to watch the connection once its body is read; on two cores that keeps a
// second thread waking up for every request and for every timer the
// dispatch arms, which cost serve 2-3x the JSON-lines round trip. Here a
// watcher starts only for a dispatch that outlasts watchAfter (see arm): a
// client that hangs up still cancels its long dispatch.
//
// The limits are net/http's, with the same defaults as serve's http.Server
// had: headers within readHeaderTimeout and maxHeaderBytes, the whole
// request within readTimeout (a handler may shorten it), idleTimeout
// between requests (up to a second less: one deadline serves a second's
// requests). Unlike serve's http.Server, writes have a deadline
// (writeTimeout, likewise): a client that never reads (its buffers full)
// would otherwise block the "100 Continue" a handler writes while it holds
// a dispatch slot and body memory, and so every other dispatch, for ever.
// Bodies: chunked or sized, as net/http reads them; "Expect: 100-continue"
// is answered when the handler reads the body; an unread body is drained (up to maxDrain) before the next request, or
// the connection closes. Answers are buffered whole (serve's are small and
// bounded) and sent with their Content-Length. HTTP/2 and upgrades are not
// served.
type connServer struct {
	handler           handlerFunc
	base              func() context.Context // the context of a new connection's requests
	readHeaderTimeout time.Duration
	readTimeout       time.Duration
	idleTimeout       time.Duration
	writeTimeout      time.Duration // of each write (0: defaultWriteTimeout)
	lingerTimeout     time.Duration // see lingerClose (0: defaultLinger)
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

// defaultLinger is how long a connection closed with the client's bytes
// still coming reads and drops them after its answer (net/http's
// rstAvoidanceDelay), see lingerClose.
const defaultLinger = 500 * time.Millisecond

// maxKeptAnswer is the largest answer buffer a connection keeps for its
// next request; a larger one (a 404 echoes its path) is dropped.
const maxKeptAnswer = 16 << 10

// maxDrain is the most of an unread request body read and discarded to
// keep its connection for the next request (net/http's figure).
const maxDrain = 256 << 10

// errServerClosed is what Serve returns after Shutdown or Close.
var errServerClosed = errors.New("server closed")

// handlerFunc answers one request of a connServer: it reads the request's
// body (if it wants it) and writes the answer to w, which sends it once
// the handler returns.
type handlerFunc func(w *respWriter, r *request)

// Serve accepts connections on ln until Shutdown or Close, and then
// returns errServerClosed; or returns the listener's error.
func (s *connServer) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return errServerClosed
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
				return errServerClosed
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
			return errServerClosed
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
	s   *connServer
	c   net.Conn
	rd  io.Reader // c's reads and writes (rawIO)
	wr  io.Writer
	lr  limitReader
	br  *bufio.Reader
	bw  *bufio.Writer
	p   wireParser
	out bytes.Buffer // the answer being made; s.mu orders it for tests
	// The request's body and answer, made anew for each request in
	// place (BenchmarkConnServerRequest).
	rb     reqBody
	w      respWriter
	armFn  func()
	cancel context.CancelFunc // ends the requests' context of the connection

	// The read deadline wanted and the one set on c: a deadline is set
	// only before a read that needs it (a request that came whole in one
	// read sets none; BenchmarkServeHTTPRaw). The write deadline set.
	rdl, rdlSet time.Time
	wdlSet      time.Time
	// linger: the connection closes after an answer while the client may
	// still be sending (see lingerClose).
	linger bool

	mu       sync.Mutex // guards the watcher's fields and its deadlines
	armed    bool       // the request in flight read its body (see arm)
	armedAt  time.Time
	watching bool          // its watcher reads the connection
	watchEnd chan struct{} // closed when the watcher is done
	hasByte  bool          // the watcher read the next request's first byte
	byteBuf  [1]byte
}

// limitReader reads the connection for the bufio.Reader: first the byte a
// watcher read, then at most n bytes (the headers' limit) or, with n < 0,
// anything. It sets the read deadline wanted before it reads.
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
		if !sc.rdl.Equal(sc.rdlSet) {
			sc.c.SetReadDeadline(sc.rdl)
			sc.rdlSet = sc.rdl
		}
		n, err = sc.rd.Read(p)
	}
	if l.n > 0 {
		l.n -= int64(n)
	}
	return n, err
}

// slack is how much earlier than its timeout an idle or write deadline
// may come: one set serves the requests of that span (about one
// deadline a second rather than two a request, BenchmarkServeHTTPRaw).
func slack(timeout time.Duration) time.Duration {
	return min(time.Second, timeout/10)
}

// serve reads and answers the requests of the connection, with ctx as
// their context (a client that hangs up cancels it, see arm).
func (sc *srvConn) serve(ctx context.Context) {
	s := sc.s
	defer func() {
		sc.cancel()
		if sc.linger {
			sc.lingerClose()
		}
		sc.c.Close()
		s.remove(sc)
	}()
	sc.lr = limitReader{sc: sc, n: -1}
	sc.br = bufio.NewReaderSize(&sc.lr, 4<<10)
	sc.rd, sc.wr = io.Reader(sc.c), io.Writer(sc.c)
	if r := newRawIO(sc.c); r != nil {
		sc.rd, sc.wr = r, r
	}
	sc.bw = bufio.NewWriterSize(sc.wr, 4<<10)
	for {
		// Idle until the next request's first byte.
		if s.idleTimeout > 0 && sc.br.Buffered() == 0 {
			now := time.Now()
			if sc.rdlSet.Before(now.Add(s.idleTimeout-slack(s.idleTimeout))) || sc.rdlSet.After(now.Add(s.idleTimeout)) {
				sc.rdl = now.Add(s.idleTimeout)
			} else {
				sc.rdl = sc.rdlSet
			}
		}
		if _, err := sc.br.Peek(1); err != nil {
			return
		}
		if !s.setIdle(sc, false) {
			return
		}
		t0 := time.Now()
		sc.rdl = t0.Add(s.readHeaderTimeout)
		sc.lr.n = int64(s.maxHeaderBytes) + 4096 // net/http's allowance for the request line
		req, err := sc.p.readRequest(sc.br)
		hitLimit := sc.lr.n == 0
		sc.lr.n = -1
		if err != nil {
			if hitLimit {
				err = errHeaderTooLarge // as net/http: whatever the parse made of the cut header
			}
			sc.refuse(err)
			return
		}
		sc.rdl = t0.Add(s.readTimeout)
		if !sc.answer(ctx, req, &sc.out) {
			return
		}
		// An idle connection keeps little.
		sc.p.release()
		sc.rb, sc.w = reqBody{}, respWriter{}
		if sc.out.Cap() > maxKeptAnswer {
			sc.out = bytes.Buffer{}
		}
		if !s.setIdle(sc, true) {
			return
		}
	}
}

// refuse answers a request that could not be read, as net/http does: its
// status for a request it refuses (431 for headers over the limit, 400
// for a malformed request), nothing for a connection closed or timed out.
func (sc *srvConn) refuse(err error) {
	var we *wireError
	if errors.As(err, &we) {
		sc.writeSimple(we.status, we.msg)
		sc.linger = true // the rest of the request may be coming
	}
}

// lingerClose ends the server's side of the connection after the answer
// and reads and drops what the client still sends, until it closes its
// side or lingerTimeout passes, as net/http's server does after a refusal
// (closeWriteAndWait): closed with the client's bytes unread, the
// connection would be reset, and a reset can make the client lose the
// answer it has not read yet (a host's refusal of a large body, a block,
// seen as a failed hook) or fail the write of its body before it reads.
// A connection without a write side to close (net.Pipe) is just closed.
func (sc *srvConn) lingerClose() {
	cw, ok := sc.c.(interface{ CloseWrite() error })
	if !ok || cw.CloseWrite() != nil {
		return
	}
	d := sc.s.lingerTimeout
	if d <= 0 {
		d = defaultLinger
	}
	sc.c.SetReadDeadline(time.Now().Add(d))
	io.Copy(io.Discard, sc.c)
}

func (sc *srvConn) writeSimple(status int, msg string) {
	sc.c.SetWriteDeadline(time.Now().Add(min(time.Second, sc.s.writeDeadline())))
	io.WriteString(sc.c, "HTTP/1.1 "+strconv.Itoa(status)+" "+statusText(status)+
		"\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: "+
		strconv.Itoa(len(msg))+"\r\n\r\n"+msg)
}

// answer runs the handler on req and writes its answer; it reports whether
// the connection may serve another request.
func (sc *srvConn) answer(ctx context.Context, req *request, out *bytes.Buffer) bool {
	keep := !req.close
	sc.rb = reqBody{sc: sc}
	rb := &sc.rb
	if req.body == nil {
		rb.eof = true
	} else {
		rb.r = req.body
	}
	if e, ok := req.header["Expect"]; ok {
		if len(e) != 1 || !asciiEqualFold(e[0], "100-continue") || !req.protoAtLeast(1, 1) {
			sc.writeSimple(errExpectation.status, errExpectation.msg)
			sc.linger = req.body != nil
			return false
		}
		rb.expect = !rb.eof
		delete(req.header, "Expect")
	}
	if !rb.eof {
		req.body = rb
	}
	req.ctx = ctx
	out.Reset()
	sc.w = respWriter{sc: sc, body: out}
	w := &sc.w
	if sc.armFn == nil {
		sc.armFn = sc.arm
	}
	rb.onEOF = sc.armFn
	ok := sc.runHandler(w, req)
	sc.disarm()
	if !ok {
		return false // the handler panicked: net/http closes the connection without an answer
	}
	switch {
	case !rb.eof && rb.expect && !rb.sentContinue:
		keep = false     // the client waits to send the body that is not wanted
		sc.linger = true // or sends it anyway
	case rb.wrErr != nil:
		keep = false // the client does not read: its body is not drained
	case !rb.eof:
		// Drain what is left of the body, within the request's deadline.
		rb.onEOF = nil
		if n, _ := io.CopyN(io.Discard, rb, maxDrain+1); n > maxDrain || !rb.eof {
			keep, sc.linger = false, true
		}
	}
	sc.s.mu.Lock()
	if sc.s.closing {
		keep = false
	}
	sc.s.mu.Unlock()
	return sc.writeAnswer(req, w, keep) && keep
}

func (sc *srvConn) runHandler(w *respWriter, req *request) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			ok = false
			if sc.s.logf != nil {
				msg := fmt.Sprint(r)
				if len(msg) > maxFailureLine {
					msg = strings.ToValidUTF8(msg[:maxFailureLine], "") + " …"
				}
				sc.s.logf("internal error answering %s %s (connection closed): %s", req.method, req.path, msg)
			}
		}
	}()
	sc.s.handler(w, req)
	return true
}

// writeAnswer writes the status line, the headers and the body in one
// write.
func (sc *srvConn) writeAnswer(req *request, w *respWriter, keep bool) bool {
	if w.status == 0 {
		w.status = statusOK
	}
	bw := sc.bw
	bw.WriteString("HTTP/1.1 ")
	bw.Write(strconv.AppendInt(bw.AvailableBuffer(), int64(w.status), 10))
	bw.WriteByte(' ')
	bw.WriteString(statusText(w.status))
	bw.WriteString("\r\n")
	now := time.Now()
	for _, f := range w.fields {
		bw.WriteString(f.k)
		bw.WriteString(": ")
		writeFieldValue(bw, f.v)
		bw.WriteString("\r\n")
	}
	bw.WriteString("Date: ")
	bw.Write(now.UTC().AppendFormat(bw.AvailableBuffer(), timeFormat))
	bw.WriteString("\r\n")
	noBody := w.status == statusNoContent || w.status == statusNotModified || w.status < 200
	if !noBody {
		bw.WriteString("Content-Length: ")
		bw.Write(strconv.AppendInt(bw.AvailableBuffer(), int64(w.body.Len()), 10))
		bw.WriteString("\r\n")
	}
	switch {
	case !keep:
		bw.WriteString("Connection: close\r\n")
	case !req.protoAtLeast(1, 1):
		bw.WriteString("Connection: keep-alive\r\n")
	}
	bw.WriteString("\r\n")
	if !noBody && req.method != "HEAD" {
		bw.Write(w.body.Bytes())
	}
	sc.setWriteDeadline(now)
	return bw.Flush() == nil
}

// setWriteDeadline makes sure the connection's write deadline is between
// now + its timeout less slack, and now + its timeout.
func (sc *srvConn) setWriteDeadline(now time.Time) {
	wt := sc.s.writeDeadline()
	if sc.wdlSet.Before(now.Add(wt-slack(wt))) || sc.wdlSet.After(now.Add(wt)) {
		sc.wdlSet = now.Add(wt)
		sc.c.SetWriteDeadline(sc.wdlSet)
	}
}

// timeFormat is the form of the Date field (net/http's TimeFormat).
const timeFormat = "Mon, 02 Jan 2006 15:04:05 GMT"

// writeFieldValue writes an answer's header field value, a control
// character (none is expected) as a space, as net/http's Header.Write does
// with a newline.
func writeFieldValue(bw *bufio.Writer, v string) {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			b := []byte(v)
			for j := range b {
				if c := b[j]; c < ' ' && c != '\t' || c == 0x7f {
					b[j] = ' '
				}
			}
			bw.Write(b)
			return
		}
	}
	bw.WriteString(v)
}

// respWriter is where a handler of a connServer writes its answer: it
// buffers it, and writeAnswer sends it.
type respWriter struct {
	sc     *srvConn // nil outside a connServer (tests)
	fields []field
	status int
	body   *bytes.Buffer
	room   [4]field // fields' first array
}

// field is a header field of an answer.
type field struct{ k, v string }

// setHeader sets the answer's header field k (canonical) to v.
func (w *respWriter) setHeader(k, v string) {
	for i := range w.fields {
		if w.fields[i].k == k {
			w.fields[i].v = v
			return
		}
	}
	if w.fields == nil {
		w.fields = w.room[:0]
	}
	w.fields = append(w.fields, field{k, v})
}

// header returns the answer's header field k, or "".
func (w *respWriter) header(k string) string {
	for _, f := range w.fields {
		if f.k == k {
			return f.v
		}
	}
	return ""
}

// writeHeader sets the answer's status; the first one set stays.
func (w *respWriter) writeHeader(status int) {
	if w.status == 0 && status >= 200 {
		w.status = status
	}
}

// Write adds p to the answer's body (status 200 unless set before).
func (w *respWriter) Write(p []byte) (int, error) {
	w.writeHeader(statusOK)
	return w.body.Write(p)
}

// setReadDeadline bounds the rest of the request's reading (its body).
func (w *respWriter) setReadDeadline(t time.Time) {
	if w.sc != nil {
		w.sc.rdl = t
	}
}

// reqBody is a request's body: it sends "100 Continue" before its first
// read when the client asked for it, and notes its end.
type reqBody struct {
	r            io.Reader
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
		b.sc.setWriteDeadline(time.Now())
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

// arm makes the request in flight on sc, whose body was read, one the
// watchdog watches: if it still runs after watchAfter, a goroutine reads
// the connection, and the client hanging up (or the connection failing)
// cancels the request (net/http's Server reads so for every request, with a
// goroutine that wakes a second thread each time; a dispatch of the default
// set is done long before watchAfter: BenchmarkServeHTTPRaw). A byte it
// reads is the next request's (pipelined), kept for it. The request's
// context is the connection's: a client that hung up ends both.
func (sc *srvConn) arm() {
	if sc.br.Buffered() > 0 {
		return // the next request is here already: nothing to watch
	}
	sc.mu.Lock()
	sc.armed, sc.armedAt = true, time.Now()
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
	sc.armed, sc.watching = false, false
	if watching {
		sc.c.SetReadDeadline(time.Unix(1, 0)) // ends the read
		sc.rdlSet = time.Unix(1, 0)
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
	end, cancel := make(chan struct{}), sc.cancel
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
