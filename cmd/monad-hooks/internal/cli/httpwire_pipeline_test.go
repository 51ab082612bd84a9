package cli

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The pipelined differential test: several requests on one connection, read
// one after the other by one wireParser (which keeps strings, the header map
// and buffers from one request to the next) and by http.ReadRequest on one
// bufio.Reader. The first differential test compares a request after a fixed
// warm-up one; this one compares every request of a connection, whatever came
// before it.

// maxPipelined bounds the requests read from one input.
const maxPipelined = 8

// parseAllOurs reads the requests of raw with one wireParser, each body read
// whole, until one is refused, the input ends or a body fails.
func parseAllOurs(raw []byte) []parsed {
	var wp wireParser
	return eachRequest(raw, func(br *bufio.Reader, lr *switchLimit, _ func() int, all *[]parsed) bool {
		lr.n = wireMaxHeader + 4096
		req, err := wp.readRequest(br)
		hit := lr.n == 0
		lr.n = -1
		if err != nil {
			*all = append(*all, parsed{status: oursStatus(err, hit)})
			return false
		}
		p := parsed{method: req.method, path: req.path, host: req.host, proto: req.proto,
			header: cloneHeader(req.header), contentLength: req.contentLength, close: req.close}
		return p.readBody(req.body, all)
	})
}

// eachRequest calls read for each request of raw (br reads raw through lr;
// at says how much of raw br has given out) until it returns false, the
// input ends or maxPipelined were read, and returns what read added to all.
func eachRequest(raw []byte, read func(br *bufio.Reader, lr *switchLimit, at func() int, all *[]parsed) bool) []parsed {
	src := bytes.NewReader(raw)
	lr := &switchLimit{r: src, n: -1}
	br := bufio.NewReaderSize(lr, 4<<10)
	at := func() int { return len(raw) - src.Len() - br.Buffered() }
	var all []parsed
	for len(all) < maxPipelined {
		if _, err := br.Peek(1); err != nil {
			break
		}
		if !read(br, lr, at, &all) {
			break
		}
	}
	return all
}

// readBody reads body (nil: none) whole into p, appends p to all, and
// reports whether the next request may be read.
func (p *parsed) readBody(body io.Reader, all *[]parsed) bool {
	if body != nil {
		b, err := io.ReadAll(body)
		p.body, p.bodyErr = string(b), err != nil
	}
	*all = append(*all, *p)
	return !p.bodyErr
}

// parseAllNetHTTP is parseAllOurs with net/http, and the refusals
// readRequest makes beyond it (wantOurs).
func parseAllNetHTTP(raw []byte) []parsed {
	return eachRequest(raw, func(br *bufio.Reader, lr *switchLimit, at func() int, all *[]parsed) bool {
		start := at()
		lr.n = wireMaxHeader + 4096
		req, err := http.ReadRequest(br)
		hit := lr.n == 0
		lr.n = -1
		if status := netHTTPStatus(req, err, hit); status != 0 {
			*all = append(*all, parsed{status: status})
			return false
		}
		p := parsed{method: req.Method, path: req.URL.Path, host: req.Host, proto: req.Proto,
			header: req.Header, contentLength: req.ContentLength, close: req.Close}
		// wantOurs reads the names of the request's header lines: its
		// bytes up to where its body starts.
		if p = wantOurs(raw[start:at()], p); p.status != 0 {
			*all = append(*all, p)
			return false
		}
		var body io.Reader
		if req.Body != http.NoBody {
			body = req.Body
		}
		return p.readBody(body, all)
	})
}

func cloneHeader(h header) map[string][]string {
	if len(h) == 0 {
		return nil
	}
	c := make(map[string][]string, len(h))
	for k, v := range h {
		c[k] = append([]string(nil), v...)
	}
	return c
}

// checkSamePipeline compares both parsers on the requests of raw.
func checkSamePipeline(t *testing.T, raw []byte) {
	t.Helper()
	want, got := parseAllNetHTTP(raw), parseAllOurs(raw)
	for _, all := range [][]parsed{want, got} {
		for i := range all {
			if len(all[i].header) == 0 {
				all[i].header = nil
			}
			if all[i].bodyErr {
				all[i].body = ""
			}
		}
	}
	assert.Equal(t, want, got, "%q", raw)
}

// pipelineCases are connections of several requests.
var pipelineCases = []string{
	warmRequest + warmRequest + "GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET /a HTTP/1.1\r\nHost: h\r\nX-A: 1\r\nX-A: 2\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n\r\nGET /c HTTP/1.1\r\nHost: h\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX-T: 1\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\nX-T: 1\r\n\r\n",
	"GET /a HTTP/1.1\r\nHost: h\r\nX-Fold: a\r\n b\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\nX-Fold: a b\r\n\r\n",
	"GET /a HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\nGET /a HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /a HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	"GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /a HTTP/1.1\r\nHost: h\r\nHost: h\r\n\r\n",
	"GET /a HTTP/1.1\r\nHost: h\r\n\r\n\r\nGET /a HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET /" + strings.Repeat("a", 300) + " HTTP/1.1\r\nHost: h\r\n\r\nGET /" + strings.Repeat("a", 300) + " HTTP/1.1\r\nHost: h\r\n\r\n",
}

// TestReadRequestsPipelinedAsNetHTTP: every request of a connection is read
// as net/http reads it, whatever came before it on the connection.
func TestReadRequestsPipelinedAsNetHTTP(t *testing.T) {
	t.Parallel()
	for _, raw := range append(pipelineCases, wireCases...) {
		checkSamePipeline(t, []byte(raw))
	}
}

// FuzzReadRequests: on any bytes, the requests serve's parser reads one after
// the other on a connection are net/http's.
func FuzzReadRequests(f *testing.F) {
	for _, raw := range pipelineCases {
		f.Add([]byte(raw))
	}
	for _, raw := range wireCases {
		if len(raw) < 8<<10 {
			f.Add([]byte(raw + raw))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkSamePipeline(t, raw)
	})
}
