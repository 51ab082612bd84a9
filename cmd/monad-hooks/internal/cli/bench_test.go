package cli_test

// Benchmarks of the CLI end to end, on the binary TestMain builds once
// (scripts/bench.sh runs them with a fixed -benchtime): monad-hooks run from
// process start to exit against /bin/true with the same stdin and output
// capture, and serve on one connection over both transports (JSON lines on
// pipes, HTTP keep-alive on 127.0.0.1). Every dispatch goes through the
// default stdlib set.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchInput is an allowed shell command: every BeforeTool hook of the
// default set that matches bash runs, none denies.
const benchInput = `{"event":"BeforeTool","sessionId":"s1","cwd":"/work/proj","toolName":"bash","toolInput":{"command":"go test ./... -run TestFoo -count=1 2>&1 | tail -20"}}`

// benchAfterInput is the result of that command: redact-secrets (the
// default set's AfterTool hook) searches it and finds nothing.
const benchAfterInput = `{"event":"AfterTool","sessionId":"s1","cwd":"/work/proj","toolName":"bash","toolInput":{"command":"go test ./... -run TestFoo -count=1 2>&1 | tail -20"},"toolResult":"=== RUN   TestFoo\n--- PASS: TestFoo (0.00s)\nPASS\nok  \texample.com/proj/pkg\t0.012s\nok  \texample.com/proj/cmd\t0.034s [no tests to run]\n"}`

// benchExec runs name args with benchInput on stdin in dir, capturing
// stdout and stderr, and fails unless it exits 0.
func benchExec(b *testing.B, dir, name string, args ...string) {
	benchExecInput(b, dir, benchInput, name, args...)
}

// benchExecInput is benchExec with input on stdin.
func benchExecInput(b *testing.B, dir, input, name string, args ...string) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, procEnv(dir)
	cmd.Stdin = strings.NewReader(input)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %v: %v: %s", name, args, err, stderr.String())
	}
}

// BenchmarkCLIRun is `monad-hooks run BeforeTool` on the default set, from
// process start to exit.
func BenchmarkCLIRun(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		benchExec(b, dir, bin, "run", "BeforeTool")
	}
}

// BenchmarkCLIRunAfterTool is `monad-hooks run AfterTool` on the default
// set (redact-secrets over a short test log), from process start to exit.
func BenchmarkCLIRunAfterTool(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		benchExecInput(b, dir, benchAfterInput, bin, "run", "AfterTool")
	}
}

// BenchmarkCLIRunNoStdlib is `monad-hooks run BeforeTool --stdlib none`:
// the process and the CLI without building any Lua VM.
func BenchmarkCLIRunNoStdlib(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		benchExec(b, dir, bin, "run", "BeforeTool", "--stdlib", "none")
	}
}

// jsonEcho builds testdata/jsonecho once, as the monad-hooks binary is
// built (goBuild).
var jsonEcho = sync.OnceValues(func() (string, error) {
	out := filepath.Join(filepath.Dir(bin), "jsonecho")
	if b, err := goBuild(out, "./testdata/jsonecho").CombinedOutput(); err != nil {
		return "", fmt.Errorf("building jsonecho: %v: %s", err, b)
	}
	return out, nil
})

// BenchmarkCLIJSONEcho is a Go program that only decodes the same input
// and encodes it to stdout (testdata/jsonecho), with the same stdin,
// environment and capture: the floor of BenchmarkCLIRun and
// BenchmarkCLIRunNoStdlib, a Go process that reads a HookInput and
// answers.
func BenchmarkCLIJSONEcho(b *testing.B) {
	echo, err := jsonEcho()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for b.Loop() {
		benchExec(b, dir, echo)
	}
}

// BenchmarkCLITrue is /bin/true with the same stdin, environment and
// capture: the floor of starting a process.
func BenchmarkCLITrue(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		benchExec(b, dir, "/bin/true")
	}
}

// benchServer is a running `monad-hooks serve`.
type benchServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *lockedBuffer
	done   chan error
}

func startBenchServer(b *testing.B, args ...string) *benchServer {
	b.Helper()
	dir := b.TempDir()
	s := &benchServer{stderr: &lockedBuffer{}, done: make(chan error, 1)}
	s.cmd = exec.Command(bin, append([]string{"serve"}, args...)...)
	s.cmd.Dir, s.cmd.Env = dir, procEnv(dir)
	s.cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		b.Fatal(err)
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	s.stdout = bufio.NewReaderSize(out, 64<<10)
	if err := s.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	b.Cleanup(func() {
		s.stdin.Close()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			s.cmd.Process.Kill()
			<-s.done
		}
	})
	return s
}

// loopRoundTrips runs roundTrip b.N times and reports, besides the mean
// (ns/op) and req/s, the median round trip (p50-ns): on a loaded machine a
// few round trips preempted for tens of milliseconds move the mean, not
// the median.
func loopRoundTrips(b *testing.B, roundTrip func()) {
	lat := make([]time.Duration, 0, 1024)
	for b.Loop() {
		t0 := time.Now()
		roundTrip()
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkServeLines is one dispatch through `monad-hooks serve` over JSON
// lines on a pipe: write a line, read the answer.
func BenchmarkServeLines(b *testing.B) {
	s := startBenchServer(b)
	line := []byte(benchInput + "\n")
	roundTrip := func() {
		if _, err := s.stdin.Write(line); err != nil {
			b.Fatal(err)
		}
		ans, err := s.stdout.ReadSlice('\n')
		if err != nil || !bytes.HasPrefix(ans, []byte(`{"event":"BeforeTool"`)) {
			b.Fatalf("answer %q, %v: %s", ans, err, s.stderr.String())
		}
	}
	roundTrip() // warm up: the first answer waits for the engine to load
	loopRoundTrips(b, roundTrip)
}

// listenBase waits until s says where it listens and returns its base URL.
func listenBase(b *testing.B, s *benchServer) string {
	for deadline := time.Now().Add(30 * time.Second); ; {
		if m := listening.FindStringSubmatch(s.stderr.String()); m != nil {
			b.Cleanup(func() { s.cmd.Process.Signal(os.Interrupt) })
			return m[1]
		}
		if time.Now().After(deadline) {
			b.Fatalf("serve did not listen: %s", s.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// benchHTTP runs b.N requests made by newReq on one keep-alive connection
// and checks that each answer starts with prefix.
func benchHTTP(b *testing.B, newReq func() (*http.Request, error), prefix string) {
	tr := &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	roundTrip := func() {
		req, err := newReq()
		if err != nil {
			b.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		ans, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !bytes.HasPrefix(ans, []byte(prefix)) {
			b.Fatalf("answer %d %q, %v", resp.StatusCode, ans, err)
		}
	}
	roundTrip()
	loopRoundTrips(b, roundTrip)
}

// BenchmarkServeHTTP is one dispatch through `monad-hooks serve --listen
// 127.0.0.1:0` over one keep-alive HTTP connection.
func BenchmarkServeHTTP(b *testing.B) {
	base := listenBase(b, startBenchServer(b, "--listen", "127.0.0.1:0"))
	ctx := context.Background()
	body := []byte(benchInput)
	benchHTTP(b, func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/dispatch", bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req, err
	}, `{"event":"BeforeTool"`)
}

// BenchmarkServeHTTPRaw is BenchmarkServeHTTP with a client as lean as
// BenchmarkServeLines' own: a prepared request written to one keep-alive
// TCP connection, the answer read with bufio and http.ReadResponse (no
// net/http.Client, no transport goroutines). It measures the server.
func BenchmarkServeHTTPRaw(b *testing.B) {
	host := strings.TrimPrefix(listenBase(b, startBenchServer(b, "--listen", "127.0.0.1:0")), "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	req := []byte(fmt.Sprintf("POST /v1/dispatch HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", host, len(benchInput), benchInput))
	br := bufio.NewReaderSize(conn, 64<<10)
	var body []byte
	roundTrip := func() {
		if _, err := conn.Write(req); err != nil {
			b.Fatal(err)
		}
		var err error
		body, err = readLeanResponse(br, body)
		if err != nil || !bytes.HasPrefix(body, []byte(`{"event":"BeforeTool"`)) {
			b.Fatalf("answer %q, %v", body, err)
		}
	}
	roundTrip()
	loopRoundTrips(b, roundTrip)
}

// readLeanResponse reads one HTTP/1.1 response with a Content-Length from
// br as lean as BenchmarkServeLines reads a line (ReadSlice, no allocation
// per header): BenchmarkServeHTTPRaw measures the server, so its client
// parses no more than it must. It returns the body of a 200 answer, read
// into buf's storage, or an error naming what else came.
func readLeanResponse(br *bufio.Reader, buf []byte) (body []byte, err error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
		return nil, fmt.Errorf("status line %q", line)
	}
	n := -1
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		if len(line) <= 2 { // the blank line that ends the header
			break
		}
		if name, value, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(name), "Content-Length") {
			if n, err = strconv.Atoi(string(bytes.TrimSpace(value))); err != nil {
				return nil, err
			}
		}
	}
	if n < 0 {
		return nil, fmt.Errorf("no Content-Length in the answer")
	}
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	body = buf[:n]
	_, err = io.ReadFull(br, body)
	return body, err
}

// BenchmarkServeHTTPHealthz is GET /healthz on the same kind of server and
// connection: the HTTP round trip without a dispatch, the floor of
// BenchmarkServeHTTP.
func BenchmarkServeHTTPHealthz(b *testing.B) {
	base := listenBase(b, startBenchServer(b, "--listen", "127.0.0.1:0"))
	ctx := context.Background()
	benchHTTP(b, func() (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, base+"/healthz", nil)
	}, `{"status":"ok"`)
}

// BenchmarkPipeEcho writes the input line to cat and reads it back: the
// floor of BenchmarkServeLines (a round trip through two pipes and another
// process).
func BenchmarkPipeEcho(b *testing.B) {
	cmd := exec.Command("cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		in.Close()
		cmd.Wait()
	}()
	loopEchoes(b, in, out)
}

// loopEchoes runs loopRoundTrips of the input line written to w and read
// back from r.
func loopEchoes(b *testing.B, w io.Writer, r io.Reader) {
	br := bufio.NewReader(r)
	line := []byte(benchInput + "\n")
	loopRoundTrips(b, func() {
		if _, err := w.Write(line); err != nil {
			b.Fatal(err)
		}
		if ans, err := br.ReadSlice('\n'); err != nil || len(ans) != len(line) {
			b.Fatalf("echo %q, %v", ans, err)
		}
	})
}

// tcpEchoEnv makes the test binary BenchmarkTCPEcho's echo server.
const tcpEchoEnv = "MONAD_HOOKS_TCP_ECHO"

// tcpEcho listens on a loopback port, says which on stdout, and echoes
// the lines of one connection back to it until it closes (as cat does
// for BenchmarkPipeEcho: a plain loop, one read and one write a line).
func tcpEcho() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(ln.Addr())
	c, err := ln.Accept()
	if err != nil {
		return 1
	}
	br := bufio.NewReaderSize(c, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 0
		}
		if _, err := c.Write(line); err != nil {
			return 1
		}
	}
}

// BenchmarkTCPEcho writes the input line to a loopback TCP connection of
// an echo server in another process and reads it back: the floor of
// BenchmarkServeHTTPRaw's transport, as BenchmarkPipeEcho is
// BenchmarkServeLines'.
func BenchmarkTCPEcho(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), tcpEchoEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Wait()
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	conn, err := net.Dial("tcp", strings.TrimSpace(addr))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	loopEchoes(b, conn, conn)
}
