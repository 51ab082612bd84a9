package cli

import (
	"fmt"
	"strings"
	"testing"
)

// TestReadRequestAttackFamilies: serve's parser reads as net/http (alone
// and pipelined) the requests of the families request smuggling and header
// injection play on, each with a request after it: Transfer-Encoding
// variants, Content-Length forms, chunk size lines, trailers, Host forms,
// request targets, methods with control bytes, the header limit's
// boundary, Expect.
func TestReadRequestAttackFamilies(t *testing.T) {
	t.Parallel()
	P := "POST /v1/dispatch HTTP/1.1\r\nHost: h\r\n"
	var cases []string
	for _, te := range []string{"chunked, identity", "identity, chunked", "CHUNKED", "chunked\r\nTransfer-Encoding: ", "chunked\r\n , identity", "chunked;q=1", "\"chunked\"", "chunked\x00", "chunked\x0b", " chunked", "chunked\r\n\t", "x-chunked", "chunk"} {
		cases = append(cases, P+"Transfer-Encoding: "+te+"\r\n\r\n2\r\n{}\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
	}
	for _, cl := range []string{"5, 5", "5,5", "+5", "-5", " 5 ", "5 5", "0x5", "05", "5\x00", "5\x0b", "5.0", "5e0", "１", "00000000000000000000005", "9223372036854775807", "9223372036854775808", "5\r\n 5"} {
		cases = append(cases, P+"Content-Length: "+cl+"\r\n\r\nhelloGET / HTTP/1.1\r\nHost: h\r\n\r\n")
	}
	for _, cs := range []string{"0000000000000005", "00000000000000005", " 5", "5 ", "5\t", "5;", "5 ;a=b", "5;a=\"x;y\"", "5;a\x00", "5\r", "+5", "-0", "0x5", "5\x0b", "05"} {
		cases = append(cases, P+"Transfer-Encoding: chunked\r\n\r\n"+cs+"\r\nhello\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
	}
	for _, tr := range []string{"Content-Length: 40\r\n", "X: a\x00\r\n", " X: a\r\n", "X: a\r\n b\r\n", "X: a\n", "Transfer-Encoding: chunked\r\n", strings.Repeat("X: aaaaaaaa\r\n", 400)} {
		cases = append(cases, P+"Transfer-Encoding: chunked\r\n\r\n0\r\n"+tr+"\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
	}
	for _, host := range []string{"127.0.0.1:8787@evil", "evil@127.0.0.1", "[::1]", "[::1]:8787", "[::1", "::1", "h:", ":80", "h:80:80", "h%00", "h\t", "H", "1.2.3.4.", "localhost."} {
		cases = append(cases, "GET /healthz HTTP/1.1\r\nHost: "+host+"\r\n\r\n")
	}
	for _, tg := range []string{"HTTP://127.0.0.1/healthz", "http://[::1]:80/x", "http://u:p@h/x", "/v1/dispatch#f", "/v1/dispatch?a#f", "*", "h:80", "//h/x", "http:/x", "/\x0bx", "/a\x80", "http://h", "http://h?x", "https://h/x", "ftp://h/x", "/%2e%2e/healthz", "/v1%2fdispatch"} {
		cases = append(cases, "GET "+tg+" HTTP/1.1\r\nHost: h\r\n\r\n")
	}
	for _, m := range []string{"G\x00T", "GET\t", "PO ST", "\x00"} {
		cases = append(cases, m+" / HTTP/1.1\r\nHost: h\r\n\r\n")
	}
	// The header limit's boundary: the request's bytes around 64 KiB + 4096.
	for d := -3; d <= 3; d++ {
		head := "GET / HTTP/1.1\r\nHost: h\r\nX: "
		n := wireMaxHeader + 4096 - len(head) - 4 + d
		cases = append(cases, head+strings.Repeat("a", n)+"\r\n\r\n")
		cases = append(cases, head+strings.Repeat("a", n)+"\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
	}
	for _, e := range []string{"100-continue", "100-Continue", "", "100-continue, x"} {
		cases = append(cases, P+"Expect: "+e+"\r\nContent-Length: 2\r\n\r\n{}")
	}
	for i, raw := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			checkSameParse(t, []byte(raw))
			checkSamePipeline(t, []byte(raw))
		})
	}
}
