package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"testing"
)

// BenchmarkConnServerRequest is one request through a connServer and
// serve's handler on a loopback connection, with no hook (the engine's
// fast path): the HTTP server's own work per request (-benchmem counts
// its allocations, and a raw client's few).
func BenchmarkConnServerRequest(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	h := testHandler(b)
	h.hosts = allowedHosts(ln.Addr().String())
	h.work = b.Context()
	s := &connServer{handler: h.mux(), base: h.workCtx, readHeaderTimeout: hangGuard, readTimeout: hangGuard,
		idleTimeout: hangGuard, maxHeaderBytes: 64 << 10}
	go s.Serve(ln)
	defer s.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	req := []byte(fmt.Sprintf("POST /v1/dispatch HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", ln.Addr(), len(allowedCall), allowedCall))
	br := bufio.NewReaderSize(c, 64<<10)
	for b.Loop() {
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		n := -1
		for {
			l, err := br.ReadSlice('\n')
			if err != nil {
				b.Fatal(err)
			}
			if len(l) <= 2 {
				break
			}
			if v, ok := bytes.CutPrefix(l, []byte("Content-Length: ")); ok {
				n, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
			}
		}
		if _, err := io.CopyN(io.Discard, br, int64(n)); err != nil {
			b.Fatal(err)
		}
	}
}
