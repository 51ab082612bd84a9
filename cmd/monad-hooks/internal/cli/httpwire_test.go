package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The differential test of serve's request parser (httpwire.go): the same
// bytes go to readRequest and to net/http (http.ReadRequest, then the
// checks net/http's Server made before it called a handler), and both must
// accept or refuse them alike, with the same status, and read the same
// request: method, path, Host, header fields, body, and where the next
// request starts. net/http is the oracle here only; the binary does not
// link it (TestBinaryLinksNoNetHTTP).

// wireMaxHeader is the header limit of the differential test (serve's).
const wireMaxHeader = 64 << 10

// parsed is what a parser made of a request's bytes.
type parsed struct {
	status                    int // 0: accepted; -1: no answer (the input ended); else the refusal's
	method, path, host, proto string
	header                    map[string][]string
	contentLength             int64
	close                     bool
	body                      string
	bodyErr                   bool
	rest                      string // what follows the request (its body read whole)
}

// switchLimit reads r, at most n bytes while n >= 0 (then errHeaderTooLarge,
// as serve's limitReader).
type switchLimit struct {
	r io.Reader
	n int64
}

func (l *switchLimit) Read(p []byte) (int, error) {
	if l.n == 0 {
		return 0, errHeaderTooLarge
	}
	if l.n > 0 && int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	if l.n > 0 {
		l.n -= int64(n)
	}
	return n, err
}

func newWireInput(raw []byte) (*switchLimit, *bufio.Reader) {
	lr := &switchLimit{r: bytes.NewReader(raw), n: wireMaxHeader + 4096}
	return lr, bufio.NewReaderSize(lr, 4<<10)
}

// finish reads the body and what follows it.
func (p *parsed) finish(body io.Reader, br *bufio.Reader) {
	if body != nil {
		b, err := io.ReadAll(body)
		p.body, p.bodyErr = string(b), err != nil
	}
	if !p.bodyErr {
		rest, _ := io.ReadAll(br)
		p.rest = string(rest)
	}
}

// warmRequest is a request a parser reads before the one compared: what
// it keeps for the next request (the fields' strings, the header map)
// must not show in it.
const warmRequest = "POST /healthz HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nX-Fold: a b\r\nX-Two: 1\r\nX-Two: 2\r\nContent-Length: 2\r\n\r\n{}"

// parseOurs is serve's parser on raw, after warmRequest.
func parseOurs(raw []byte) parsed {
	var wp wireParser
	_, warm := newWireInput([]byte(warmRequest))
	if req, err := wp.readRequest(warm); err != nil || req.header.get("X-Fold") != "a b" {
		panic(fmt.Sprint("the warm-up request: ", err))
	}
	lr, br := newWireInput(raw)
	req, err := wp.readRequest(br)
	hit := lr.n == 0
	lr.n = -1
	if err != nil {
		return parsed{status: oursStatus(err, hit)}
	}
	p := parsed{method: req.method, path: req.path, host: req.host, proto: req.proto,
		header: req.header, contentLength: req.contentLength, close: req.close}
	p.finish(req.body, br)
	return p
}

// oursStatus is the status of readRequest's err (-1: no answer), hit
// when the reader reached the header limit.
func oursStatus(err error, hit bool) int {
	var we *wireError
	switch {
	case hit:
		return statusRequestHeaderFieldsTooLarge
	case errors.As(err, &we):
		return we.status
	}
	return -1
}

// parseNetHTTP is what serve's server on net/http made of raw:
// http.ReadRequest, then the checks serve made of its request (those of
// net/http's Server, but for the Host: required by HTTP/1.1 even with an
// absolute target or CONNECT, and httpguts.ValidHostHeader's bytes on
// the Host that counts), with net/http's statuses.
func parseNetHTTP(raw []byte) parsed {
	lr, br := newWireInput(raw)
	req, err := http.ReadRequest(br)
	hit := lr.n == 0
	lr.n = -1
	if status := netHTTPStatus(req, err, hit); status != 0 {
		return parsed{status: status}
	}
	p := parsed{method: req.Method, path: req.URL.Path, host: req.Host, proto: req.Proto,
		header: req.Header, contentLength: req.ContentLength, close: req.Close}
	if req.Body != http.NoBody {
		p.finish(req.Body, br)
	} else {
		p.finish(nil, br)
	}
	return p
}

// netHTTPStatus is the status of http.ReadRequest's err, or of the checks
// serve made of its req (0: served; -1: no answer), hit when the reader
// reached the header limit.
func netHTTPStatus(req *http.Request, err error, hit bool) int {
	if err != nil {
		switch {
		case hit:
			return statusRequestHeaderFieldsTooLarge
		case strings.Contains(err.Error(), "transfer encoding"): // its unsupportedTEError
			return statusNotImplemented
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return -1
		}
		return statusBadRequest
	}
	switch {
	case req.ProtoMajor != 1:
		return statusHTTPVersionNotSupported // serve refused PRI * HTTP/2.0 too
	case req.ProtoAtLeast(1, 1) && req.Host == "":
		return statusBadRequest
	case !validHostNetHTTP(req.Host):
		return statusBadRequest
	}
	for k, vv := range req.Header {
		if !isToken(k) {
			return statusBadRequest
		}
		for _, v := range vv {
			for i := 0; i < len(v); i++ {
				if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
					return statusBadRequest
				}
			}
		}
	}
	return 0
}

// validHostNetHTTP is httpguts.ValidHostHeader, written out (the vendored
// package cannot be imported).
func validHostNetHTTP(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!$%&()*+,-.:;=[']_~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// headerFields returns the lowercase names of the header lines of raw (up
// to the blank line), not counting folded lines.
func headerFields(raw []byte) []string {
	var names []string
	lines := strings.Split(string(raw), "\n")
	for _, l := range lines[1:] {
		l = strings.TrimSuffix(l, "\r")
		if l == "" {
			break
		}
		if name, _, ok := strings.Cut(l, ":"); ok && l[0] != ' ' && l[0] != '\t' {
			names = append(names, strings.ToLower(name))
		}
	}
	return names
}

// wantOurs is what serve's parser must make of raw: net/http's result, but
// for the refusals net/http did not make (readRequest's doc).
func wantOurs(raw []byte, oracle parsed) parsed {
	if oracle.status != 0 && oracle.status != -1 || oracle.status == -1 {
		return oracle
	}
	names := headerFields(raw)
	hasCL, hasTE := slices.Contains(names, "content-length"), slices.Contains(names, "transfer-encoding")
	switch {
	case hasTE && hasCL && oracle.proto != "HTTP/1.0":
		return parsed{status: statusBadRequest}
	case hasTE && oracle.proto == "HTTP/1.0":
		return parsed{status: statusBadRequest}
	}
	// net/http adds Cache-Control: no-cache to Pragma: no-cache (HTTP/1.0's
	// cache rule); serve reads neither.
	if pr := oracle.header["Pragma"]; len(pr) > 0 && pr[0] == "no-cache" && !slices.Contains(names, "cache-control") {
		delete(oracle.header, "Cache-Control")
	}
	return oracle
}

// checkSameParse compares both parsers on raw.
func checkSameParse(t *testing.T, raw []byte) {
	t.Helper()
	oracle := parseNetHTTP(raw)
	want := wantOurs(raw, oracle)
	got := parseOurs(raw)
	if len(want.header) == 0 {
		want.header = nil
	}
	if len(got.header) == 0 {
		got.header = nil
	}
	if want.bodyErr {
		want.body = "" // how much came before the error does not matter
		got.body = ""
	}
	assert.Equal(t, want, got, "%q", raw)
}

// wireCases are requests to both parsers: ordinary ones, edges, and
// attacks (smuggling, header injection).
var wireCases = []string{
	// Ordinary.
	"POST /v1/dispatch HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
	"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\n\r\n",
	"HEAD /healthz HTTP/1.1\r\nHost: localhost:8787\r\nUser-Agent: curl/8\r\nAccept: */*\r\n\r\n",
	"GET /readyz HTTP/1.0\r\n\r\n",
	"GET /readyz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nConnection: Keep-Alive, CLOSE\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n1;ext=1\r\n{\r\n1 \r\n}\r\n0\r\nX-Trailer: t\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n0\r\nX-Sum: 1\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}",
	"GET http://127.0.0.1:8787/healthz HTTP/1.1\r\nHost: evil.example\r\n\r\n",
	"GET /v1/disp%61tch?x=1 HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET //v1/../healthz HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET * HTTP/1.1\r\nHost: h\r\n\r\n",
	"OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
	"CONNECT 127.0.0.1:8787 HTTP/1.1\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nhost: h\r\nx-request-id: r1\r\nX-REQUEST-ID: r2\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nX-Empty:\r\nX-Spaces:   a b  \r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nX-Obs: caf\xc3\xa9\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nPragma: no-cache\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nContent-Length: 2, 2\r\n\r\n{}",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nContent-Length:  002 \r\n\r\n{}",
	"GET /healthz HTTP/1.1\r\nHost: [::1]:8787\r\n\r\n",
	// As the warm-up request, or near it.
	warmRequest,
	"POST /healthz HTTP/1.1\r\nHost: h\r\nContent-Type: application/jsoN\r\nX-Fold: a\r\n b\r\nX-Two: 2\r\nContent-Length: 2\r\n\r\n{}",
	"POST /healthz HTTP/1.1\r\nHost: h\r\nX-Two: 1\r\nContent-Length: 3\r\n\r\n{} ",
	// Bare LF, obs-fold: as net/http.
	"GET /healthz HTTP/1.1\nHost: h\n\n",
	"GET /healthz HTTP/1.1\r\nHost: h\nX-A: b\r\n\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nX-Fold: a\r\n  b\r\n\tc\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nX-Fold: a\r\n  \r\n\r\n",
	"GET /healthz HTTP/1.1\r\n X-Fold: a\r\nHost: h\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nX-Fold:\r\n : x\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\n{}\r\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\r\n{}\r\n0\r\n\r\n",
	// Smuggling: framing that two parsers could read apart.
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: h\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}x",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: \r\n\r\n{}",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nContent-Length: +2\r\n\r\n{}",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n{}",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nContent-Length: 0x2\r\n\r\n{}",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n{}",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n{}",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: identity\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding:\tchunked\r\n\r\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked \r\n\r\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.0\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n{}",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTrailer: Content-Length\r\n\r\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0x2\r\n{}\r\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nBad Trailer\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1;" + strings.Repeat("e", 5000) + "\r\nx\r\n0\r\n\r\n",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + strings.Repeat("1;"+strings.Repeat("e", 100)+"\r\nx\r\n", 300) + "0\r\n\r\n",
	// Header injection and malformed fields.
	"GET /healthz HTTP/1.1\r\nHost: h\r\nX-Request-Id: a\x01b\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nX-Request-Id: a\rb\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nX-Request-Id: a\x7fb\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nX-Request-Id: a\x00b\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost : h\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nX A: b\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\n: b\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nX(A): b\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nX-\xc3\xa9: b\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nHost: h\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h/evil\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h evil\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost:\r\n\r\n",
	"GET /healthz HTTP/1.1\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nExpect: something\r\n\r\n",
	// Request lines.
	"GARBAGE\r\n\r\n",
	"\r\nGET /healthz HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET  /healthz HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET /healthz  HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET /healthz HTTP/1.1 \r\nHost: h\r\n\r\n",
	"GET /healthz HTTP/1.1\r\r\nHost: h\r\n\r\n",
	"G(T /healthz HTTP/1.1\r\nHost: h\r\n\r\n",
	"get /healthz HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET /heal\x00thz HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET /heal thz HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET healthz HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET /%zz HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET /healthz HTTP/1.2\r\nHost: h\r\n\r\n",
	"GET /healthz HTTP/2.0\r\nHost: h\r\n\r\n",
	"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
	"GET /healthz HTTP/0.9\r\n\r\n",
	"GET /healthz HTTP/1.10\r\nHost: h\r\n\r\n",
	"GET /healthz http/1.1\r\nHost: h\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n",
	"GET /healthz HTTP/2.0\r\nTransfer-Encoding: gzip\r\n\r\n",
	"GET /healthz HTTP/2.0\r\nA B: c\r\n\r\n",
	"GET /healthz HTTP/0.9\r\nTransfer-Encoding: chunked\r\n\r\n",
	// Truncated.
	"",
	"GET /healthz HTTP/1.1",
	"GET /healthz HTTP/1.1\r\nHost: h\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h",
	"POST /v1/dispatch HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n{}",
	// Over the header limit.
	"GET /healthz HTTP/1.1\r\nHost: h\r\nX-Big: " + strings.Repeat("a", 80<<10) + "\r\n\r\n",
	"GET /" + strings.Repeat("a", 70<<10) + " HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\n" + strings.Repeat("X-Many: a\r\n", 7000) + "\r\n",
	"GET /healthz HTTP/1.1\r\nHost: h\r\nX-Long: " + strings.Repeat("a", 10<<10) + "\r\n\r\n",
}

// TestReadRequestAsNetHTTP: serve's parser reads each request of
// wireCases as net/http's server does (or refuses it as readRequest's doc
// says it refuses more).
func TestReadRequestAsNetHTTP(t *testing.T) {
	t.Parallel()
	for _, raw := range wireCases {
		checkSameParse(t, []byte(raw))
	}
}

// TestReadRequestRefusesSmuggling: the framings that request smuggling
// plays on are refused with net/http's status, or (the two refusals net/http
// did not make) with 400.
func TestReadRequestRefusesSmuggling(t *testing.T) {
	t.Parallel()
	for raw, status := range map[string]int{
		"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n": 400,
		"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n":                                 400,
		"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}x":                400,
		"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n":                     400,
		"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n":                                  501,
		"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n\r\n":       501,
	} {
		assert.Equal(t, status, parseOurs([]byte(raw)).status, "%q", raw)
	}
}

// FuzzReadRequest: on any bytes, serve's parser and net/http's agree
// (seeded with wireCases).
func FuzzReadRequest(f *testing.F) {
	for _, raw := range wireCases {
		if len(raw) < 8<<10 {
			f.Add([]byte(raw))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkSameParse(t, raw)
	})
}

// TestBinaryLinksNoNetHTTP: the monad-hooks binary links neither net/http
// nor crypto (serve's HTTP is httpwire.go): their initialisation and pages
// were a quarter of a Go program's start, paid by every `monad-hooks run`.
func TestBinaryLinksNoNetHTTP(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "github.com/monad-hooks/monad-hooks/cmd/monad-hooks").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		assert.False(t, dep == "net/http" || strings.HasPrefix(dep, "net/http/") || strings.HasPrefix(dep, "crypto") ||
			strings.Contains(dep, "golang.org/x/net/http") || strings.Contains(dep, "idna"),
			"the binary links %s: its initialisation and pages slow every start of run (measure BenchmarkCLIRunNoStdlib first)", dep)
	}
}

// TestTokenByte: tokenByte holds exactly the bytes of an RFC 9110 token.
func TestTokenByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", byte(c)) >= 0
		if tokenByte[c] != want {
			t.Errorf("tokenByte[%q] = %v, want %v", rune(c), tokenByte[c], want)
		}
	}
}
