package cli

// serve's HTTP/1.1 wire format, server side: the request parser and its
// body readers. serve reads its requests with this rather than with
// net/http, whose package links crypto/tls, x509, the FIPS modules, HTTP/2
// and IDNA into the binary: their initialisation and pages cost every start
// of `monad-hooks run` about 0.5 ms (BenchmarkCLIRunNoStdlib), for serve's
// HTTP alone. It accepts and refuses what net/http's server did
// (http.ReadRequest, then the checks of http.Server), with the same
// statuses, and two stricter refusals (see readRequest); the differential
// test and fuzz target of httpwire_test.go hold it to net/http.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/url"
	"strconv"
	"strings"
)

// header is a request's header fields by canonical name (net/http's
// http.Header), each with its values in order.
type header map[string][]string

// get returns the first value of the field k (canonical), or "".
func (h header) get(k string) string {
	if v := h[k]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// request is one request read by readRequest.
type request struct {
	method     string
	target     string // the request-target as sent
	path       string // its path, unescaped (net/url's URL.Path)
	proto      string // "HTTP/1.1"
	protoMajor int
	protoMinor int
	// host is the authority of an absolute-form target, else the Host
	// field (net/http's Request.Host).
	host   string
	header header
	// contentLength is the body's length, -1 for a chunked body.
	contentLength int64
	// close: the client asked for the connection to close after the
	// answer (Connection: close, or HTTP/1.0 without keep-alive).
	close bool
	body  io.Reader // nil: no body (the server gives the handler its own reader)
	ctx   context.Context
}

// protoAtLeast reports whether the request's version is at least
// major.minor.
func (r *request) protoAtLeast(major, minor int) bool {
	return r.protoMajor > major || r.protoMajor == major && r.protoMinor >= minor
}

// wireError is a request that cannot be served: the status of its answer,
// and the answer's body (net/http's words).
type wireError struct {
	status int
	msg    string
}

func (e *wireError) Error() string { return e.msg }

// The refusals of readRequest (literals the compiler lays out, as the
// rest of the package's variables: BenchmarkCLIRunNoStdlib).
var (
	errMalformed      = &wireError{statusBadRequest, "400 Bad Request"}
	errMalformedURL   = &wireError{statusBadRequest, "400 Bad Request: malformed URL"}
	errMissingHost    = &wireError{statusBadRequest, "400 Bad Request: missing required Host header"}
	errMalformedHost  = &wireError{statusBadRequest, "400 Bad Request: malformed Host header"}
	errHeaderName     = &wireError{statusBadRequest, "400 Bad Request: invalid header name"}
	errBothLengths    = &wireError{statusBadRequest, "400 Bad Request: both Content-Length and Transfer-Encoding"}
	errOldChunked     = &wireError{statusBadRequest, "400 Bad Request: Transfer-Encoding in an HTTP/1.0 request"}
	errUnsupportedTE  = &wireError{statusNotImplemented, "Unsupported transfer encoding"}
	errVersion        = &wireError{statusHTTPVersionNotSupported, "505 HTTP Version Not Supported"}
	errExpectation    = &wireError{statusExpectationFailed, "417 Expectation Failed"}
	errHeaderTooLarge = &wireError{statusRequestHeaderFieldsTooLarge, "431 Request Header Fields Too Large"}
)

// wireParser reads the requests of one connection; its buffers serve the
// lines longer than the bufio.Reader's buffer and folded header lines. A
// request it returns, and its header, are valid until the next.
type wireParser struct {
	scratch []byte
	fold    []byte
	// What serves the next request again (BenchmarkConnServerRequest):
	// the request, its header map and its values' slices, and the last
	// request's line and fields, whose strings a client that sends the
	// same again (a keep-alive client does) gets back.
	req      request
	body     wireBody
	hdr      header
	vals     []string
	line     string
	fields   []field
	previous []field
}

// What a parser keeps for the next request: at most maxInterned fields
// and a request line of at most maxInternedLen bytes (each value too),
// and its header map and value slices while they stay small (an idle
// connection keeps little: its number is not bounded).
const (
	maxInterned    = 16
	maxInternedLen = 256
	maxKeptFields  = 32
)

// release drops the request read last (its answer is sent) and what the
// parser should not keep for the next.
func (p *wireParser) release() {
	if len(p.hdr) > maxKeptFields {
		p.hdr = nil
	}
	clear(p.hdr)
	clear(p.vals[:cap(p.vals)])
	p.vals = p.vals[:0]
	if cap(p.vals) > maxKeptFields {
		p.vals = nil
	}
	p.req, p.body = request{}, wireBody{}
	if len(p.line) > maxInternedLen {
		p.line = ""
	}
}

// maxKeptParse is the largest buffer a parser keeps for the next request.
const maxKeptParse = 4 << 10

// readRequest reads a request's line and header from br, and returns it
// with a reader of its body. It accepts what http.ReadRequest accepts and
// http.Server then serves (the request line; header lines ended by CRLF or
// a bare LF, obs-fold joined with a space; field names that are tokens,
// values without control characters; at most one Host field;
// Content-Length and Transfer-Encoding: chunked), with net/http's statuses
// for what it refuses (*wireError), and refuses two requests net/http let
// through, which a proxy in front may frame otherwise (request smuggling):
// one with both Content-Length and Transfer-Encoding (net/http dropped the
// Content-Length), and Transfer-Encoding in HTTP/1.0 (net/http ignored
// it); and it requires a Host in HTTP/1.1 (as serve did, CONNECT
// included), of the bytes of a host and port. It returns io.EOF when br ends before a request starts, and the
// reader's error (io.ErrUnexpectedEOF, a timeout) when it ends within one:
// those get no answer.
func (p *wireParser) readRequest(br *bufio.Reader) (req *request, err error) {
	defer func() {
		if cap(p.scratch) > maxKeptParse {
			p.scratch = nil
		}
		if cap(p.fold) > maxKeptParse {
			p.fold = nil
		}
	}()
	p.release() // the last request's, if the caller did not
	line, err := p.readLine(br)
	if err != nil {
		return nil, err
	}
	if string(line) != p.line {
		p.line = string(line)
	}
	s := p.line
	p.req = request{}
	req = &p.req
	method, rest, ok1 := strings.Cut(s, " ")
	target, proto, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || !isToken(method) {
		return nil, errMalformed
	}
	req.method, req.target, req.proto = method, target, proto
	if req.protoMajor, req.protoMinor, ok1 = parseHTTPVersion(proto); !ok1 {
		return nil, errMalformed
	}
	var urlHost string
	if plainPath(target) {
		req.path = target
	} else {
		raw := target
		// CONNECT names an authority (net/http).
		justAuthority := method == "CONNECT" && !strings.HasPrefix(target, "/")
		if justAuthority {
			raw = "http://" + raw
		}
		u, err := url.ParseRequestURI(raw)
		if err != nil {
			return nil, errMalformedURL
		}
		req.path, urlHost = u.Path, u.Host
	}

	if p.hdr == nil {
		p.hdr = make(header, 8)
	}
	p.previous, p.fields = p.fields, p.previous[:0]
	req.header = p.hdr
	spacedName, err := p.readHeader(br, req.header)
	if err != nil {
		return nil, unexpectedEOF(err)
	}
	h := req.header
	if len(h["Host"]) > 1 {
		return nil, errMalformed
	}
	req.host = urlHost
	if req.host == "" {
		req.host = h.get("Host")
	}
	delete(h, "Host") // req.host has it (as in http.ReadRequest)
	req.close = shouldClose(req.protoMajor, req.protoMinor, h["Connection"])

	// The body's framing, as net/http's readTransfer, with the two
	// refusals above (made after the version's, as net/http's server
	// would refuse the version first).
	var strict *wireError
	te, chunked := h["Transfer-Encoding"]
	if chunked {
		delete(h, "Transfer-Encoding")
		major, minor := req.protoMajor, req.protoMinor
		if major == 0 && minor == 0 {
			major, minor = 1, 1 // net/http reads HTTP/0.0's framing as 1.1's
		}
		switch {
		case major == 1 && minor == 0:
			strict, chunked = errOldChunked, false
		case major < 1:
			chunked = false // refused below (505)
		case len(te) != 1 || !asciiEqualFold(te[0], "chunked"):
			return nil, errUnsupportedTE
		}
	}
	lens := h["Content-Length"]
	if len(lens) > 1 {
		// Repeated, it must say the same each time (and counts once).
		first := textprotoTrim(lens[0])
		for _, l := range lens[1:] {
			if textprotoTrim(l) != first {
				return nil, errMalformed
			}
		}
		lens = []string{first}
		h["Content-Length"] = lens
	}
	req.contentLength = 0
	if len(lens) > 0 {
		cl := textprotoTrim(lens[0])
		n, err := strconv.ParseUint(cl, 10, 63)
		if err != nil {
			return nil, errMalformed
		}
		req.contentLength = int64(n)
	}
	if chunked {
		if len(lens) > 0 {
			strict = errBothLengths
			delete(h, "Content-Length")
		}
		req.contentLength = -1
		if tr, ok := h["Trailer"]; ok {
			delete(h, "Trailer")
			for _, v := range tr {
				if badTrailerNames(v) {
					return nil, errMalformed
				}
			}
		}
	}

	// The checks serve made after http.ReadRequest, in its order: the
	// version, the Host (net/http's server checked the Host field's bytes
	// alike, here those of the Host that counts, the target's authority
	// or the field), the field names.
	switch {
	case req.protoMajor != 1:
		return nil, errVersion
	case strict != nil:
		return nil, strict
	case req.protoAtLeast(1, 1) && req.host == "":
		return nil, errMissingHost
	case !validHost(req.host):
		return nil, errMalformedHost
	case spacedName:
		return nil, errHeaderName
	}
	switch {
	case chunked:
		p.body = wireBody{br: br, chunked: true, p: p}
		req.body = &p.body
	case req.contentLength > 0:
		p.body = wireBody{br: br, n: req.contentLength}
		req.body = &p.body
	}
	return req, nil
}

// unexpectedEOF is err, but io.ErrUnexpectedEOF for io.EOF: the input
// ended within a request.
func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readLine reads a line as bufio.Reader.ReadLine (net/textproto's reader)
// does: up to "\n", returned without it and one "\r" before it; a last
// line that the input ends without "\n" comes without an error (the next
// read returns it). The line is valid until the next read of br.
func (p *wireParser) readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		p.scratch = append(p.scratch[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = br.ReadSlice('\n')
			p.scratch = append(p.scratch, line...)
		}
		line = p.scratch
	}
	if len(line) == 0 {
		if err == nil {
			err = io.ErrUnexpectedEOF // not reached: ReadSlice returns a line or an error
		}
		return nil, err
	}
	if n := len(line); line[n-1] == '\n' {
		line = line[:n-1]
		if n > 1 && line[n-2] == '\r' {
			line = line[:n-2]
		}
	}
	return line, nil
}

// readHeader reads header fields up to the blank line that ends them into
// h (nil: read and dropped, a trailer's), as net/textproto's
// ReadMIMEHeader does: a first line that starts with a space or a tab, a
// line without a colon, a name that is not a token (but for spaces) or a
// value with a control character (but tab) is malformed; a line that
// starts with spaces or tabs continues the one before (obs-fold), joined
// by one space. A name with a space, which ReadMIMEHeader lets through
// and net/http's server refuses after its other checks, is reported as
// spacedName.
func (p *wireParser) readHeader(br *bufio.Reader, h header) (spacedName bool, err error) {
	if b, err := br.Peek(1); err == nil && (b[0] == ' ' || b[0] == '\t') {
		return false, errMalformed
	}
	for {
		kv, err := p.readFieldLine(br)
		if len(kv) == 0 {
			return spacedName, err
		}
		k, v, _ := bytes.Cut(kv, []byte{':'}) // readFieldLine checked the colon
		key, kind := canonicalKey(k)
		switch kind {
		case keyBad:
			return spacedName, errMalformed
		case keySpaced:
			spacedName = true
		}
		for _, c := range v {
			if !validValueByte(c) {
				return spacedName, errMalformed
			}
		}
		if h != nil {
			p.add(h, key, bytes.TrimLeft(v, " \t"))
		}
		if err != nil {
			return spacedName, err
		}
	}
}

// add adds the value v to the field key of h: the string of the last
// request's same field and value if there is one.
func (p *wireParser) add(h header, key string, v []byte) {
	var s string
	found := false
	for _, f := range p.previous {
		if f.k == key && f.v == string(v) {
			s, found = f.v, true
			break
		}
	}
	if !found {
		s = string(v)
	}
	if len(p.fields) < maxInterned && len(s) <= maxInternedLen {
		p.fields = append(p.fields, field{key, s})
	}
	if vv, ok := h[key]; ok {
		h[key] = append(vv, s)
		return
	}
	p.vals = append(p.vals, s)
	h[key] = p.vals[len(p.vals)-1 : len(p.vals) : len(p.vals)]
}

// readFieldLine reads a header line and the lines that continue it, as
// net/textproto's readContinuedLineSlice does. The line is empty at the
// blank line (or an error).
func (p *wireParser) readFieldLine(br *bufio.Reader) ([]byte, error) {
	line, err := p.readLine(br)
	if err != nil {
		return nil, err
	}
	if len(line) == 0 {
		return line, nil
	}
	if bytes.IndexByte(line, ':') < 0 {
		return nil, errMalformed
	}
	if br.Buffered() > 0 {
		if b, _ := br.Peek(1); b[0] != ' ' && b[0] != '\t' {
			return trimOWS(line), nil // the common case: not folded
		}
	}
	// The next read may refill br's buffer, where line is.
	p.fold = append(p.fold[:0], trimOWS(line)...)
	for skipSpace(br) > 0 {
		p.fold = append(p.fold, ' ')
		line, err := p.readLine(br)
		if err != nil {
			break // the next read returns it
		}
		p.fold = append(p.fold, trimOWS(line)...)
	}
	return p.fold, nil
}

// skipSpace reads the spaces and tabs that come next and returns how many.
func skipSpace(br *bufio.Reader) int {
	n := 0
	for {
		c, err := br.ReadByte()
		if err != nil {
			return n
		}
		if c != ' ' && c != '\t' {
			br.UnreadByte()
			return n
		}
		n++
	}
}

// trimOWS removes the spaces and tabs at both ends of b.
func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// textprotoTrim removes ASCII white space at both ends of s
// (net/textproto's TrimString).
func textprotoTrim(s string) string {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// The kinds of header field names.
const (
	keyOK     = iota
	keySpaced // tokens and spaces: not canonicalised, refused later
	keyBad
)

// canonicalKey returns the canonical form of the header field name k
// ("content-type" -> "Content-Type", as net/textproto's), and its kind.
func canonicalKey(k []byte) (string, int) {
	if len(k) == 0 {
		return "", keyBad
	}
	spaced := false
	for _, c := range k {
		switch {
		case tokenByte[c]:
		case c == ' ':
			spaced = true
		default:
			return "", keyBad
		}
	}
	if spaced {
		return string(k), keySpaced
	}
	var buf [32]byte
	b := buf[:0]
	if len(k) > len(buf) {
		b = make([]byte, 0, len(k))
	}
	upper := true
	for _, c := range k {
		if upper && 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		} else if !upper && 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
		upper = c == '-'
	}
	switch string(b) { // the fields serve's clients send: no allocation
	case "Host":
		return "Host", keyOK
	case "Content-Type":
		return "Content-Type", keyOK
	case "Content-Length":
		return "Content-Length", keyOK
	case "Connection":
		return "Connection", keyOK
	case "User-Agent":
		return "User-Agent", keyOK
	case "Accept":
		return "Accept", keyOK
	case "Accept-Encoding":
		return "Accept-Encoding", keyOK
	case "X-Request-Id":
		return "X-Request-Id", keyOK
	case "Transfer-Encoding":
		return "Transfer-Encoding", keyOK
	case "Expect":
		return "Expect", keyOK
	case "Origin":
		return "Origin", keyOK
	}
	return string(b), keyOK
}

// tokenByte reports the bytes of an RFC 9110 token (a header field name,
// a method): digits, letters and !#$%&'*+-.^_`|~. A literal the compiler
// lays out (BenchmarkCLIRunNoStdlib); TestTokenByte checks it.
var tokenByte = [256]bool{
	'!': true, '#': true, '$': true, '%': true, '&': true, '\'': true, '*': true, '+': true, '-': true, '.': true,
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'A': true, 'B': true, 'C': true, 'D': true, 'E': true, 'F': true, 'G': true, 'H': true, 'I': true, 'J': true,
	'K': true, 'L': true, 'M': true, 'N': true, 'O': true, 'P': true, 'Q': true, 'R': true, 'S': true, 'T': true,
	'U': true, 'V': true, 'W': true, 'X': true, 'Y': true, 'Z': true, '^': true, '_': true, '`': true, 'a': true,
	'b': true, 'c': true, 'd': true, 'e': true, 'f': true, 'g': true, 'h': true, 'i': true, 'j': true, 'k': true,
	'l': true, 'm': true, 'n': true, 'o': true, 'p': true, 'q': true, 'r': true, 's': true, 't': true, 'u': true,
	'v': true, 'w': true, 'x': true, 'y': true, 'z': true, '|': true, '~': true,
}

// isToken reports whether s is a non-empty token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !tokenByte[s[i]] {
			return false
		}
	}
	return true
}

// validValueByte reports whether c may be in a header field value: not a
// control character but tab (bytes from 0x80 are obs-text).
func validValueByte(c byte) bool {
	return c >= ' ' && c != 0x7f || c == '\t'
}

// validHost reports whether a Host field holds only bytes of a host and
// port (net/http's httpguts.ValidHostHeader).
func validHost(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(tokenByte[c] && c != '#' && c != '^' && c != '`' && c != '|' || strings.IndexByte("():;=[],", c) >= 0) {
			return false
		}
	}
	return true
}

// plainPath reports whether target is a path whose bytes net/url keeps as
// they are (no escapes, no query): its URL.Path is target itself.
func plainPath(target string) bool {
	if target == "" || target[0] != '/' {
		return false
	}
	for i := 1; i < len(target); i++ {
		c := target[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// parseHTTPVersion parses "HTTP/X.Y", X and Y single digits (net/http's
// ParseHTTPVersion).
func parseHTTPVersion(v string) (major, minor int, ok bool) {
	switch v {
	case "HTTP/1.1":
		return 1, 1, true
	case "HTTP/1.0":
		return 1, 0, true
	}
	if len(v) != len("HTTP/X.Y") || !strings.HasPrefix(v, "HTTP/") || v[6] != '.' ||
		v[5] < '0' || v[5] > '9' || v[7] < '0' || v[7] > '9' {
		return 0, 0, false
	}
	return int(v[5] - '0'), int(v[7] - '0'), true
}

// shouldClose reports whether the connection closes after the answer, as
// net/http decides it from the version and the Connection fields.
func shouldClose(major, minor int, conn []string) bool {
	if major < 1 {
		return true
	}
	hasClose := valuesHaveToken(conn, "close")
	if major == 1 && minor == 0 {
		return hasClose || !valuesHaveToken(conn, "keep-alive")
	}
	return hasClose
}

// valuesHaveToken reports whether a comma-separated element of values is
// token, ignoring ASCII case.
func valuesHaveToken(values []string, token string) bool {
	for _, v := range values {
		for {
			elem, rest, more := strings.Cut(v, ",")
			if asciiEqualFold(string(trimOWS([]byte(elem))), token) {
				return true
			}
			if !more {
				break
			}
			v = rest
		}
	}
	return false
}

// badTrailerNames reports whether a Trailer field's value names a field a
// trailer must not carry (net/http's fixTrailer).
func badTrailerNames(v string) bool {
	for _, f := range strings.Split(v, ",") {
		f = textprotoTrim(f)
		if asciiEqualFold(f, "Transfer-Encoding") || asciiEqualFold(f, "Trailer") || asciiEqualFold(f, "Content-Length") {
			return true
		}
	}
	return false
}

// wireBody reads a request's body: n bytes, or chunked (RFC 9112 7.1, as
// net/http's chunked reader reads it: CRLF after each chunk size and
// chunk, extensions dropped but bounded, a trailer of at most the
// bufio.Reader's buffer, read and dropped).
type wireBody struct {
	br      *bufio.Reader
	n       int64 // left of a sized body, or of the current chunk
	chunked bool
	p       *wireParser // a trailer's
	// checkEnd: the CRLF after a chunk is to be read.
	checkEnd bool
	excess   int64 // chunk overhead beyond its allowance
	err      error // once set, every read returns it
}

// Chunked body errors.
var (
	errChunkLineTooLong = errors.New("chunk size line too long")
	errChunkMalformed   = errors.New("malformed chunked encoding")
	errChunkOverhead    = errors.New("chunked encoding contains too much non-data")
	errLongTrailer      = errors.New("suspiciously long trailer after chunked body")
)

// maxChunkLine bounds a chunk size line (with its extensions).
const maxChunkLine = 4096

func (b *wireBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if !b.chunked {
		if int64(len(p)) > b.n {
			p = p[:b.n]
		}
		n, err := b.br.Read(p)
		b.n -= int64(n)
		switch {
		case b.n == 0:
			b.err = io.EOF
			return n, io.EOF
		case err == io.EOF:
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			b.err = err
		}
		return n, err
	}
	n, err := b.readChunked(p)
	if err == io.EOF {
		if terr := b.readTrailer(); terr != nil {
			err = terr
		}
	}
	if err != nil {
		b.err = err
	}
	return n, err
}

// readChunked is net/http's chunkedReader.Read.
func (b *wireBody) readChunked(p []byte) (n int, err error) {
	for {
		if b.checkEnd {
			if n > 0 && b.br.Buffered() < 2 {
				return n, nil // data now rather than wait for the CRLF
			}
			var crlf [2]byte
			if _, err := io.ReadFull(b.br, crlf[:]); err != nil {
				return n, unexpectedEOF(err)
			}
			if crlf != [2]byte{'\r', '\n'} {
				return n, errChunkMalformed
			}
			b.checkEnd = false
		}
		if b.n == 0 {
			if n > 0 && !b.chunkLineBuffered() {
				return n, nil
			}
			if err := b.beginChunk(); err != nil {
				return n, err
			}
			continue
		}
		if len(p) == 0 {
			return n, nil
		}
		q := p
		if uint64(len(q)) > uint64(b.n) {
			q = q[:b.n]
		}
		m, err := b.br.Read(q)
		n += m
		p = p[m:]
		b.n -= int64(m)
		if err != nil {
			return n, unexpectedEOF(err)
		}
		if b.n == 0 {
			b.checkEnd = true
		}
	}
}

// chunkLineBuffered reports whether a whole chunk size line is buffered.
func (b *wireBody) chunkLineBuffered() bool {
	buf, _ := b.br.Peek(b.br.Buffered())
	return bytes.IndexByte(buf, '\n') >= 0
}

// beginChunk reads a chunk size line; the last chunk (size 0) is io.EOF.
func (b *wireBody) beginChunk() error {
	line, err := b.br.ReadSlice('\n')
	switch {
	case err == io.EOF:
		return io.ErrUnexpectedEOF
	case err == bufio.ErrBufferFull:
		return errChunkLineTooLong
	case err != nil:
		return err
	}
	// CRLF only, and no CR before it (RFC 9112 errata 7633).
	if i := bytes.IndexByte(line, '\r'); i < 0 || i != len(line)-2 {
		return errChunkMalformed
	}
	line = line[:len(line)-2]
	if len(line) >= maxChunkLine {
		return errChunkLineTooLong
	}
	b.excess += int64(len(line)) + 2
	for len(line) > 0 && (line[len(line)-1] == ' ' || line[len(line)-1] == '\t') {
		line = line[:len(line)-1]
	}
	line, _, _ = bytes.Cut(line, []byte{';'}) // extensions are dropped
	if len(line) == 0 || len(line) > 16 {
		return errChunkMalformed
	}
	var size uint64
	for _, c := range line {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return errChunkMalformed
		}
		size = size<<4 | uint64(c)
	}
	if size > 1<<62 {
		return errChunkMalformed // beyond any body
	}
	b.n = int64(size)
	// 16 bytes of overhead per chunk and twice its data are allowed
	// (one byte per chunk is legitimate streaming; long extensions on
	// every chunk are not).
	b.excess = max(b.excess-16-2*b.n, 0)
	if b.excess > 16<<10 {
		return errChunkOverhead
	}
	if b.n == 0 {
		return io.EOF
	}
	return nil
}

// readTrailer reads the trailer after the last chunk (dropped), as
// net/http's body.readTrailer: a CRLF alone, or header fields whose end is
// already in br's buffer.
func (b *wireBody) readTrailer() error {
	buf, err := b.br.Peek(2)
	if bytes.Equal(buf, []byte("\r\n")) {
		b.br.Discard(2)
		return io.EOF
	}
	if len(buf) < 2 {
		return io.ErrUnexpectedEOF
	}
	if err != nil {
		return err
	}
	for n := 4; ; n++ {
		buf, err := b.br.Peek(n)
		if bytes.HasSuffix(buf, []byte("\r\n\r\n")) {
			break
		}
		if err != nil {
			return errLongTrailer
		}
	}
	if _, err := b.p.readHeader(b.br, nil); err != nil {
		return unexpectedEOF(err)
	}
	return io.EOF
}

// The statuses serve answers with.
const (
	statusContinue                    = 100
	statusOK                          = 200
	statusNoContent                   = 204
	statusNotModified                 = 304
	statusBadRequest                  = 400
	statusForbidden                   = 403
	statusNotFound                    = 404
	statusMethodNotAllowed            = 405
	statusRequestEntityTooLarge       = 413
	statusUnsupportedMediaType        = 415
	statusExpectationFailed           = 417
	statusRequestHeaderFieldsTooLarge = 431
	statusInternalServerError         = 500
	statusNotImplemented              = 501
	statusServiceUnavailable          = 503
	statusHTTPVersionNotSupported     = 505
)

// statusText is the reason phrase of a status serve answers with (net/http's
// StatusText).
func statusText(code int) string {
	switch code {
	case statusContinue:
		return "Continue"
	case statusOK:
		return "OK"
	case statusNoContent:
		return "No Content"
	case statusNotModified:
		return "Not Modified"
	case statusBadRequest:
		return "Bad Request"
	case statusForbidden:
		return "Forbidden"
	case statusNotFound:
		return "Not Found"
	case statusMethodNotAllowed:
		return "Method Not Allowed"
	case statusRequestEntityTooLarge:
		return "Request Entity Too Large"
	case statusUnsupportedMediaType:
		return "Unsupported Media Type"
	case statusExpectationFailed:
		return "Expectation Failed"
	case statusRequestHeaderFieldsTooLarge:
		return "Request Header Fields Too Large"
	case statusInternalServerError:
		return "Internal Server Error"
	case statusNotImplemented:
		return "Not Implemented"
	case statusServiceUnavailable:
		return "Service Unavailable"
	case statusHTTPVersionNotSupported:
		return "HTTP Version Not Supported"
	}
	return "Status " + strconv.Itoa(code)
}
