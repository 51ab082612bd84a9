package cli

import (
	"bytes"
	"net/http"
)

// viaNetHTTP serves a handler of serve's through net/http, for tests that
// make their requests with httptest: the request as readRequest makes it
// from r, the answer written to w. There is no connection: the body
// deadline is not set.
func viaNetHTTP(f handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := &request{
			method: r.Method, target: r.RequestURI, path: r.URL.Path, proto: r.Proto,
			protoMajor: r.ProtoMajor, protoMinor: r.ProtoMinor, host: r.Host,
			header: header(r.Header), contentLength: r.ContentLength, ctx: r.Context(),
		}
		if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
			req.body = r.Body
		}
		var out bytes.Buffer
		rw := &respWriter{body: &out}
		f(rw, req)
		for _, f := range rw.fields {
			w.Header().Set(f.k, f.v)
		}
		if rw.status == 0 {
			rw.status = http.StatusOK
		}
		w.WriteHeader(rw.status)
		w.Write(out.Bytes())
	})
}
