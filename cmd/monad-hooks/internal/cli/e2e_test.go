package cli_test

// End-to-end tests: TestMain builds the monad-hooks binary once and the tests
// drive every command as a process, through its stdin, stdout, stderr, exit
// code and signals.
//
// The binary is built without the race detector: a race-enabled binary takes
// about a second to start on a loaded machine, and these tests start a
// hundred processes. The in-process tests of this package run the same code
// (serve on both transports, the audit log, the state file) under -race. Set
// MONAD_HOOKS_E2E_RACE=1 to build the binary with -race as well.
//
// The binary is built as the README's install line builds it, with
// CGO_ENABLED=0 (a static binary; -race needs cgo, so a race build keeps
// it): the CLI benchmarks measure what users run (BenchmarkCLIRunNoStdlib).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var bin string // the built binary

// hangGuard bounds the waits for serve: it tells a hang from progress and
// is never a bound on speed.
const hangGuard = 30 * time.Second

func TestMain(m *testing.M) {
	if os.Getenv(tcpEchoEnv) == "1" {
		os.Exit(tcpEcho()) // BenchmarkTCPEcho's server
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "monad-hooks-e2e-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "monad-hooks")
	cmd := goBuild(bin, "github.com/monad-hooks/monad-hooks/cmd/monad-hooks")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building monad-hooks: %v\n", err)
		return 1
	}
	return m.Run()
}

// goBuild is the go build command that writes the package pkg to out, as
// a release is built: CGO_ENABLED=0 (a static binary), unless
// MONAD_HOOKS_E2E_RACE=1 asks for -race, which needs cgo.
func goBuild(out, pkg string) *exec.Cmd {
	args := []string{"build", "-o", out}
	env := append(os.Environ(), "CGO_ENABLED=0")
	if os.Getenv("MONAD_HOOKS_E2E_RACE") == "1" {
		args, env = append(args, "-race"), os.Environ()
	}
	cmd := exec.Command(goTool(), append(args, pkg)...)
	cmd.Env = env
	return cmd
}

// goTool returns the go command of the toolchain running the tests.
func goTool() string {
	if gotool, err := exec.LookPath("go"); err == nil {
		return gotool
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// procEnv is the environment of the processes the tests start.
func procEnv(home string) []string {
	return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C.UTF-8"}
}

type outcome struct {
	code           int
	stdout, stderr string
}

// mh runs the binary in dir with stdin and returns how it ended.
func mh(t *testing.T, dir, stdin string, args ...string) outcome {
	t.Helper()
	return mhEnv(t, dir, procEnv(dir), stdin, args...)
}

func mhEnv(t *testing.T, dir string, env []string, stdin string, args ...string) outcome {
	t.Helper()
	// A hang guard only: TestE2ESpecSuite runs the whole spec suite in one
	// process, which on a loaded 2-core machine beside the other tests
	// can take more than a minute.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running %v: %v", args, err)
	}
	if code == 2 && !otherHost(args) {
		t.Errorf("monad-hooks %v exited 2 (deny to hook hosts)", args)
	}
	return outcome{code, out.String(), errb.String()}
}

// otherHost reports whether args select a host other than monad, whose
// convention may be exit 2 for a deny.
func otherHost(args []string) bool {
	for i, a := range args {
		if a == "--host" && i+1 < len(args) && args[i+1] != "monad" || strings.HasPrefix(a, "--host=") && a != "--host=monad" {
			return true
		}
	}
	return false
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replaceFile replaces a file by rename and moves its mtime forward, so that
// a reload notices the change whatever the file system's clock resolution.
func replaceFile(t *testing.T, p, content string) {
	t.Helper()
	old, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	tmp := p + ".tmp"
	writeFile(t, tmp, content)
	later := old.ModTime().Add(time.Second)
	if err := os.Chtimes(tmp, later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

type result struct {
	Event             string            `json:"event"`
	Decision          string            `json:"decision"`
	Reason            string            `json:"reason"`
	AdditionalContext string            `json:"additionalContext"`
	ConfigError       string            `json:"configError"`
	Error             string            `json:"error"`
	Audit             []json.RawMessage `json:"audit"`
}

func parseResult(t *testing.T, s string) result {
	t.Helper()
	var r result
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("not JSON: %v: %q", err, s)
	}
	return r
}

const denyBashConfig = `{"hooks":{"BeforeTool":[
  {"matcher":"^bash$","hooks":[{"command":"echo 'no shell today' >&2; exit 2"}]},
  {"matcher":"^read_file$","hooks":[{"command":"echo '{\"additionalContext\":\"reading\"}'"}]}
]}}`

func TestE2ERun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agents.json"), denyBashConfig)
	o := mh(t, dir, `{"toolName":"bash","toolInput":{"command":"ls"}}`, "run", "BeforeTool", "--config", "agents.json", "--stdlib", "none")
	if r := parseResult(t, o.stdout); o.code != 0 || r.Decision != "deny" || r.Reason != "no shell today" || len(r.Audit) != 1 {
		t.Errorf("deny: %+v", o)
	}
	o = mh(t, dir, `{"toolName":"read_file"}`, "run", "--stdlib=none", "--config=agents.json", "BeforeTool")
	if r := parseResult(t, o.stdout); o.code != 0 || r.Decision != "" || r.AdditionalContext != "reading" {
		t.Errorf("allow: %+v", o)
	}
	if strings.Count(o.stdout, "\n") != 1 {
		t.Errorf("want one line: %q", o.stdout)
	}
	// Input that cannot be used at an event that can deny is a deny, not an
	// exit code a host reads as "proceed".
	o = mh(t, dir, `{"toolName":"bash"`, "run", "BeforeTool", "--config", "agents.json", "--stdlib", "none")
	if r := parseResult(t, o.stdout); o.code != 0 || r.Decision != "deny" || !strings.Contains(r.Reason, "invalid input") || !strings.Contains(o.stderr, "invalid input") {
		t.Errorf("invalid JSON: %+v", o)
	}
	o = mh(t, dir, `{"event":"AfterTool"}`, "run", "BeforeTool", "--stdlib", "none")
	if r := parseResult(t, o.stdout); o.code != 0 || r.Decision != "deny" || !strings.Contains(o.stderr, "AfterTool") {
		t.Errorf("event mismatch: %+v", o)
	}
	o = mh(t, dir, `{"toolName":"bash"`, "run", "AfterModel", "--stdlib", "none")
	if o.code != 1 || o.stdout != "" || !strings.Contains(o.stderr, "invalid input") {
		t.Errorf("invalid JSON where nothing can deny: %+v", o)
	}
	for _, args := range [][]string{{}, {"nope"}, {"run"}, {"run", "Nope"}, {"run", "BeforeTool", "--frob"}, {"serve", "--listen", "0.0.0.0:1"}, {"schema"}, {"check", "extra"}} {
		if o := mh(t, dir, `{}`, args...); o.code != 64 {
			t.Errorf("%v: exit %d, want 64: %s", args, o.code, o.stderr)
		}
	}
	// A broken configuration: every error, with its position and code; run
	// still answers (exit 0, the errors in configError), check fails.
	writeFile(t, filepath.Join(dir, "bad.json"), `{"hooks":{"BeforeTool":[{"matcher":"(","hooks":[{"command":"x","timeoutMs":-1}]}]}}`)
	errs := []*regexp.Regexp{regexp.MustCompile(`bad\.json:1:\d+: bad_matcher`), regexp.MustCompile(`bad\.json:1:\d+: bad_timeout`)}
	o = mh(t, dir, `{"toolName":"bash"}`, "run", "BeforeTool", "--config", "bad.json", "--stdlib", "none")
	r := parseResult(t, o.stdout)
	if o.code != 0 || !errs[0].MatchString(o.stderr) || !errs[1].MatchString(o.stderr) || !errs[0].MatchString(r.ConfigError) || !errs[1].MatchString(r.ConfigError) {
		t.Errorf("run, bad config: %+v", o)
	}
	o = mh(t, dir, "", "check", "--config", "bad.json", "--stdlib", "none")
	if o.code != 1 || o.stdout != "" || !errs[0].MatchString(o.stderr) || !errs[1].MatchString(o.stderr) {
		t.Errorf("check, bad config: %+v", o)
	}
}

// TestE2ERunDefaultStdlib is the README's first command: with no
// configuration at all, the default stdlib set denies rm -rf /.
func TestE2ERunDefaultStdlib(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := mh(t, dir, `{"toolName":"bash","toolInput":{"command":"rm -rf /"}}`, "run", "BeforeTool")
	if r := parseResult(t, o.stdout); o.code != 0 || r.Decision != "deny" {
		t.Errorf("rm -rf / with the default stdlib: %+v", o)
	}
	o = mh(t, dir, `{"toolName":"bash","toolInput":{"command":"ls -la"}}`, "run", "BeforeTool")
	if r := parseResult(t, o.stdout); o.code != 0 || r.Decision == "deny" {
		t.Errorf("ls with the default stdlib: %+v", o)
	}
	o = mh(t, dir, `{"toolName":"bash","toolInput":{"command":"rm -rf /"}}`, "run", "BeforeTool", "--stdlib", "none")
	if r := parseResult(t, o.stdout); o.code != 0 || r.Decision != "" {
		t.Errorf("--stdlib none: %+v", o)
	}
}

func TestE2ECheckAndExplain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agents.json"), denyBashConfig)
	writeFile(t, filepath.Join(dir, "policy.json"), `{"policyHooks":{"AfterModel":[{"hooks":[{"command":"cat >/dev/null","timeoutMs":1500,"onError":"deny"}]}]}}`)
	o := mh(t, dir, "", "check", "--config", "agents.json", "--policy", "policy.json", "--stdlib", "none")
	if o.code != 0 {
		t.Fatalf("check: %+v", o)
	}
	for _, want := range []string{"BeforeTool (serial)", "AfterModel (serial)", `matcher="^bash$"`, "agents.json:2:", "policy", "timeout=1.5s", "onError=deny", "3 hooks at 2 events"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("check output lacks %q:\n%s", want, o.stdout)
		}
	}
	if strings.Index(o.stdout, "BeforeTool") > strings.Index(o.stdout, "AfterModel") {
		t.Errorf("events out of firing order:\n%s", o.stdout)
	}
	o = mh(t, dir, "", "check", "--config", "agents.json", "--stdlib", "none", "--json")
	var plan []map[string]any
	if err := json.Unmarshal([]byte(o.stdout), &plan); err != nil || len(plan) != 2 {
		t.Errorf("check --json: %v %s", err, o.stdout)
	}
	writeFile(t, filepath.Join(dir, "bad.toml"), "[hooks]\nBeforeTool = [{ matcher = \"(\", hooks = [{ command = \"\" }] }]\n")
	o = mh(t, dir, "", "check", "--config", "bad.toml", "--config", "missing.json", "--stdlib", "none")
	if o.code != 1 || !strings.Contains(o.stderr, "3 errors") || !regexp.MustCompile(`bad\.toml:2:\d+: bad_matcher`).MatchString(o.stderr) ||
		!regexp.MustCompile(`bad\.toml:2:\d+: missing_command`).MatchString(o.stderr) || !strings.Contains(o.stderr, "missing.json: read_error") {
		t.Errorf("check bad: %+v", o)
	}
	o = mh(t, dir, `{"toolName":"read_file"}`, "explain", "BeforeTool", "--config", "agents.json", "--policy", "policy.json", "--stdlib", "none")
	if o.code != 0 {
		t.Fatalf("explain: %+v", o)
	}
	for _, want := range []string{"1 of 2 hooks would run", `matcher "^bash$" does not match tool "read_file"`, "other event: AfterModel"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("explain output lacks %q:\n%s", want, o.stdout)
		}
	}
	// Explain runs nothing: a hook that would leave a mark leaves none.
	writeFile(t, filepath.Join(dir, "mark.json"), `{"hooks":{"SessionEnd":[{"hooks":[{"command":"touch ran"}]}]}}`)
	o = mh(t, dir, `{}`, "explain", "SessionEnd", "--config", "mark.json", "--stdlib", "none")
	if _, err := os.Stat(filepath.Join(dir, "ran")); o.code != 0 || err == nil || !strings.Contains(o.stdout, "1 of 1 hook would run") {
		t.Errorf("explain ran a hook or failed: %v %+v", err, o)
	}
}

func TestE2EStateAndAudit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agents.json"), `{"hooks":{
	  "SessionStart":[{"hooks":[{"command":"echo '{\"additionalContext\":\"remember the tabs\"}'"}]}],
	  "BeforeTurn":[{"hooks":[{"command":"true"},{"command":"echo '{\"additionalContext\":\"turn\"}'"}]}]}}`)
	flags := []string{"--config", "agents.json", "--stdlib", "none", "--state", "state.json", "--audit", "audit.jsonl"}
	o := mh(t, dir, `{"sessionId":"s1"}`, append([]string{"run", "SessionStart"}, flags...)...)
	if o.code != 0 {
		t.Fatalf("%+v", o)
	}
	o = mh(t, dir, `{"sessionId":"s1","prompt":"hi"}`, append([]string{"run", "BeforeTurn"}, flags...)...)
	if r := parseResult(t, o.stdout); o.code != 0 || r.AdditionalContext != "remember the tabs\n\nturn" {
		t.Errorf("BeforeTurn after SessionStart: %+v", o)
	}
	o = mh(t, dir, `{"sessionId":"s1","prompt":"again"}`, append([]string{"run", "BeforeTurn"}, flags...)...)
	if r := parseResult(t, o.stdout); r.AdditionalContext != "turn" {
		t.Errorf("second BeforeTurn: %+v", o)
	}
	b, err := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 5 { // 1 SessionStart hook + 2 BeforeTurn hooks x 2
		t.Fatalf("want 5 audit lines, got %d:\n%s", len(lines), b)
	}
	for _, l := range lines {
		var rec struct {
			Event, Hook, Outcome, SessionID, Time string
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.SessionID != "s1" || rec.Outcome != "ok" || rec.Time == "" || rec.Hook == "" {
			t.Errorf("audit line %q: %v", l, err)
		}
	}
}

func TestE2EServeStdin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agents.json"), denyBashConfig)
	in := `{"event":"BeforeTool","toolName":"bash"}
{"event":"BeforeTool","toolName":"bash"

{"toolName":"bash"}
{"event":"BeforeTool","toolName":"read_file"}
`
	o := mh(t, dir, in, "serve", "--config", "agents.json", "--stdlib", "none")
	lines := strings.Split(strings.TrimSpace(o.stdout), "\n")
	if o.code != 0 || len(lines) != 4 {
		t.Fatalf("%+v", o)
	}
	if r := parseResult(t, lines[0]); r.Decision != "deny" {
		t.Errorf("line 1: %s", lines[0])
	}
	for _, l := range lines[1:3] {
		if r := parseResult(t, l); r.Error == "" || r.Event != "" {
			t.Errorf("want an error: %s", l)
		}
	}
	if r := parseResult(t, lines[3]); r.AdditionalContext != "reading" {
		t.Errorf("line 4: %s", lines[3])
	}
}

// server is a running serve process.
type server struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // stdout lines
	stderr *lockedBuffer
	base   string // http://host:port or http://unix
	client *http.Client
	done   chan struct{}
	err    error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var listening = regexp.MustCompile(`listening on (\S+)`)

// startServer starts "monad-hooks serve args..." in dir. With listen set
// it waits until the server says where it listens.
func startServer(t *testing.T, dir string, env []string, args ...string) *server {
	t.Helper()
	s := &server{t: t, lines: make(chan string, 100), stderr: &lockedBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(bin, append([]string{"serve"}, args...)...)
	s.cmd.Dir, s.cmd.Env = dir, env
	s.cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 32<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	go func() {
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		<-s.done
	})
	listen := false
	for _, a := range args {
		listen = listen || strings.HasPrefix(a, "--listen")
	}
	if !listen {
		return s
	}
	deadline := time.After(hangGuard)
	for {
		if m := listening.FindStringSubmatch(s.stderr.String()); m != nil {
			s.base = m[1]
			break
		}
		select {
		case <-s.done:
			t.Fatalf("serve exited: %v: %s", s.err, s.stderr.String())
		case <-deadline:
			t.Fatalf("serve did not listen: %s", s.stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	s.client = &http.Client{Timeout: hangGuard}
	if p, ok := strings.CutPrefix(s.base, "unix:"); ok {
		s.client.Transport = &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", p)
		}}
		s.base = "http://unix"
	}
	return s
}

// send writes one line to serve's stdin and returns the line it answers.
func (s *server) send(line string) string {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
	return s.next()
}

func (s *server) next() string {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("serve closed stdout: %s", s.stderr.String())
		}
		return l
	case <-time.After(hangGuard):
		s.t.Fatalf("no answer from serve: %s", s.stderr.String())
	}
	return ""
}

// post sends a HookInput and returns the status and body.
func (s *server) post(body string) (int, string, error) {
	resp, err := s.client.Post(s.base+"/v1/dispatch", "application/json", strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// wait waits for serve to exit and returns its exit code.
func (s *server) wait() int {
	s.t.Helper()
	select {
	case <-s.done:
	case <-time.After(hangGuard):
		s.t.Fatalf("serve did not exit: %s", s.stderr.String())
	}
	var ee *exec.ExitError
	if errors.As(s.err, &ee) {
		return ee.ExitCode()
	}
	if s.err != nil {
		s.t.Fatal(s.err)
	}
	return 0
}

func TestE2EServeHTTP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agents.json"), denyBashConfig)
	for _, listen := range []string{"127.0.0.1:0", "unix:" + filepath.Join(dir, "mh.sock")} {
		s := startServer(t, dir, procEnv(dir), "--listen", listen, "--config", "agents.json", "--stdlib", "none")
		status, body, err := s.post(`{"event":"BeforeTool","toolName":"bash"}`)
		if r := parseResult(t, body); err != nil || status != 200 || r.Decision != "deny" {
			t.Errorf("%s deny: %d %s %v", listen, status, body, err)
		}
		status, body, _ = s.post(`{"event":"BeforeTool","toolName":"read_file"}`)
		if r := parseResult(t, body); status != 200 || r.AdditionalContext != "reading" {
			t.Errorf("%s allow: %d %s", listen, status, body)
		}
		status, body, _ = s.post(`{"toolName":"bash"}`)
		if r := parseResult(t, body); status != 400 || r.Error == "" {
			t.Errorf("%s invalid: %d %s", listen, status, body)
		}
		resp, err := s.client.Get(s.base + "/healthz")
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("%s healthz: %v %v", listen, resp, err)
		} else {
			resp.Body.Close()
		}
		s.cmd.Process.Signal(syscall.SIGINT)
		if code := s.wait(); code != 0 {
			t.Errorf("%s: exit %d: %s", listen, code, s.stderr.String())
		}
	}
}

// TestE2EHotReload: a configuration edited while serve runs is loaded in the
// background and serves the requests after it; every request before serves
// the last good one. A broken edit keeps the last good one, and says so.
func TestE2EHotReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agents.json")
	version := func(v string) string {
		return `{"hooks":{"BeforeTool":[{"hooks":[{"command":"echo ` + v + ` >&2; exit 2"}]}]}}`
	}
	writeFile(t, cfg, version("v1"))
	s := startServer(t, dir, procEnv(dir), "--config", "agents.json", "--stdlib", "none")
	in := `{"event":"BeforeTool","toolName":"bash"}`
	last := "v1"
	// check sends requests until one shows reason and cfgErr; every one
	// before it must show the last good configuration. The reload runs in
	// the background of a process on a loaded machine: the wait for it is
	// bounded by the hang guard, not by a number of tries (500 tries,
	// 5 s, were a bound on how fast the machine is).
	check := func(step, reason, cfgErr string) {
		t.Helper()
		for deadline := time.Now().Add(hangGuard); ; {
			r := parseResult(t, s.send(in))
			if r.Decision == "deny" && r.Reason == reason && strings.Contains(r.ConfigError, cfgErr) && (cfgErr != "" || r.ConfigError == "") {
				last = reason
				return
			}
			if r.Decision != "deny" || r.Reason != last || time.Now().After(deadline) {
				t.Fatalf("%s: %+v (want %s, or %s before the reload)", step, r, reason, last)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	check("first", "v1", "")
	replaceFile(t, cfg, version("v2"))
	check("edited", "v2", "")
	replaceFile(t, cfg, `{"hooks":{"BeforeTool":[{"hooks":[{"command":"echo v3 >&2; exit 2","timeoutMs":"soon"}]}]}}`)
	check("broken", "v2", "bad_timeout")
	check("still broken", "v2", "bad_timeout")
	replaceFile(t, cfg, version("v4"))
	check("fixed", "v4", "")
	s.stdin.Close()
	if code := s.wait(); code != 0 {
		t.Errorf("exit %d: %s", code, s.stderr.String())
	}
	if !strings.Contains(s.stderr.String(), "reload failed") {
		t.Errorf("the failed reload is not logged: %s", s.stderr.String())
	}
}

// slowConfig is a hook that marks its start in the root, then takes a while.
const slowConfig = `{"hooks":{"AfterModel":[{"hooks":[{"command":"touch started; sleep 0.5; echo '{\"mutatedText\":\"slow but done\"}'"}]}]}}`

func waitForFile(t *testing.T, p string) {
	t.Helper()
	for i := 0; i < 3000; i++ {
		if _, err := os.Stat(p); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", p)
}

// TestE2ESigtermMidDispatch: SIGTERM while a slow command hook runs: the hook
// finishes, its Result is delivered, then serve exits 0; on both transports.
func TestE2ESigtermMidDispatch(t *testing.T) {
	t.Parallel()
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "agents.json"), slowConfig)
		s := startServer(t, dir, procEnv(dir), "--listen", "127.0.0.1:0", "--config", "agents.json", "--stdlib", "none")
		type reply struct {
			status int
			body   string
			err    error
		}
		got := make(chan reply, 1)
		go func() {
			st, b, err := s.post(`{"event":"AfterModel","response":"r"}`)
			got <- reply{st, b, err}
		}()
		waitForFile(t, filepath.Join(dir, "started"))
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		r := <-got
		if r.err != nil || r.status != 200 || !strings.Contains(r.body, `"mutatedText":"slow but done"`) {
			t.Errorf("in-flight response: %+v", r)
		}
		if code := s.wait(); code != 0 {
			t.Errorf("exit %d: %s", code, s.stderr.String())
		}
	})
	t.Run("stdin", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "agents.json"), slowConfig)
		s := startServer(t, dir, procEnv(dir), "--config", "agents.json", "--stdlib", "none")
		if _, err := io.WriteString(s.stdin, `{"event":"AfterModel","response":"r"}`+"\n"); err != nil {
			t.Fatal(err)
		}
		waitForFile(t, filepath.Join(dir, "started"))
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if l := s.next(); !strings.Contains(l, `"mutatedText":"slow but done"`) {
			t.Errorf("in-flight result: %s", l)
		}
		if code := s.wait(); code != 0 { // stdin is still open
			t.Errorf("exit %d: %s", code, s.stderr.String())
		}
	})
}

// TestE2ERunSigtermMidHook: SIGTERM while run's slow command hook runs (run
// catches the signals only once a hook is about to run): the hook finishes
// and its Result is delivered, exit 0; a killed run would be a "proceed" for
// the host.
func TestE2ERunSigtermMidHook(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agents.json"), slowConfig)
	var stdout, stderr lockedBuffer
	cmd := exec.Command(bin, "run", "AfterModel", "--config", "agents.json", "--stdlib", "none")
	cmd.Dir, cmd.Env = dir, procEnv(dir)
	cmd.Stdin = strings.NewReader(`{"response":"r"}`)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	waitForFile(t, filepath.Join(dir, "started"))
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"mutatedText":"slow but done"`) {
		t.Errorf("result: %s", stdout.String())
	}
}

func TestE2ETestCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "agents.json"), denyBashConfig)
	writeFile(t, filepath.Join(dir, "tests", "guards.toml"), `
[[case]]
name = "bash is denied by my config"
event = "BeforeTool"
input = { toolName = "bash" }
want = { decision = "deny", reason = "no shell today" }

[[case]]
name = "this expectation is wrong"
event = "BeforeTool"
input = { toolName = "read_file" }
want = { decision = "deny" }

[[case]]
name = "not yet"
skip = "waiting for a guard"
event = "BeforeTool"
`)
	writeFile(t, filepath.Join(dir, "tests", "own.toml"), `
[[case]]
name = "a case with its own hooks ignores the flags"
event = "BeforeTool"
input = { toolName = "bash" }
  [[case.hook]]
  command = "echo '{\"additionalContext\":\"own\"}'"
  [case.want]
  decision = ""
  additionalContext = "own"
`)
	// Not a test file: skipped when walking the folder.
	writeFile(t, filepath.Join(dir, "tests", "agents.toml"), "[hooks]\n")
	o := mh(t, dir, "", "test", "--lua-timeout", "1m", "--config", "agents.json", "--stdlib", "none", "tests")
	if o.code != 1 {
		t.Errorf("exit %d: %+v", o.code, o)
	}
	for _, want := range []string{
		"--- FAIL: this expectation is wrong",
		`step 1: decision: want deny, got proceed`,
		"FAIL\ttests/guards.toml",
		"ok  \ttests/own.toml",
		"2 passed, 1 failed, 1 skipped\n",
	} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, o.stdout)
		}
	}
	if strings.Contains(o.stdout, "--- PASS") {
		t.Errorf("passing cases printed without -v:\n%s", o.stdout)
	}
	o = mh(t, dir, "", "test", "--lua-timeout", "1m", "-v", "-run", "denied|own", "--config", "agents.json", "--stdlib", "none", "tests")
	if o.code != 0 || !strings.Contains(o.stdout, "--- PASS: bash is denied by my config") || !strings.HasSuffix(o.stdout, "2 passed, 0 failed\n") {
		t.Errorf("-v -run: %+v", o)
	}
	o = mh(t, dir, "", "test", "--lua-timeout", "1m", "--stdlib", "none", filepath.Join(dir, "tests", "agents.toml"))
	if o.code != 1 || !strings.Contains(o.stderr, `agents.toml:1:2: unknown key "hooks" at the top level; want one of seed, description, case`) {
		t.Errorf("a non-test file named explicitly: %+v", o)
	}
	o = mh(t, dir, "", "test", "--lua-timeout", "1m", "--stdlib", "none", "--config", "agents.json")
	if o.code != 1 || strings.Contains(o.stdout, "passed") && !strings.Contains(o.stdout, "1 failed") {
		t.Errorf("default path: %+v", o)
	}
}

// specDir is the project's spec suite.
func specDir(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "spec", "cases"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no spec suite: %v", err)
	}
	return p
}

// TestE2ESpecSuite runs the project's spec suite through `monad-hooks test`,
// as CI would for users' cases: every folder of it, none left out, no case
// skipped.
func TestE2ESpecSuite(t *testing.T) {
	t.Parallel()
	dir := specDir(t)
	// The suite runs beside the other tests, under -race on a loaded
	// machine: the cases' Lua hooks that set no timeoutMs get a timeout
	// far above their cost (the default, 1 s, is not).
	args := []string{"test", "--stdlib", "none", "--lua-timeout", "1m"}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			args = append(args, filepath.Join(dir, e.Name()))
		}
	}
	o := mh(t, t.TempDir(), "", args...)
	if !regexp.MustCompile(`(?m)^\d+ passed, 0 failed$`).MatchString(o.stdout) || o.code != 0 {
		t.Errorf("exit %d (want every case passed, none failed or skipped):\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}

func TestE2EMisc(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, which := range []string{"input", "output"} {
		o := mh(t, dir, "", "schema", which)
		var v map[string]any
		if err := json.Unmarshal([]byte(o.stdout), &v); o.code != 0 || err != nil || v["$schema"] == nil {
			t.Errorf("schema %s: %v %+v", which, err, o)
		}
	}
	if o := mh(t, dir, "", "version"); o.code != 0 || !strings.HasPrefix(o.stdout, "monad-hooks ") {
		t.Errorf("version: %+v", o)
	}
	for _, c := range []string{"run", "serve", "check", "explain", "test", "stdlib", "schema", "version", "help"} {
		if o := mh(t, dir, "", c, "--help"); o.code != 0 || !strings.Contains(o.stdout, "Usage: monad-hooks "+c) {
			t.Errorf("%s --help: %+v", c, o)
		}
	}
	if o := mh(t, dir, "", "--help"); o.code != 0 || !strings.Contains(o.stdout, "never exits 2") {
		t.Errorf("--help: %+v", o)
	}
}

// TestE2EInitWork: packages that a run needs little of do no work as the
// process starts (GODEBUG=inittrace=1 lists every package that does): the
// host profiles are built on lookup, the tool table and regular
// expressions on first use (internal/lazy), the other tables are literals
// the compiler lays out (BenchmarkCLIRunNoStdlib).
func TestE2EInitWork(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(bin, "version")
	cmd.Dir, cmd.Env = dir, append(procEnv(dir), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "init runtime") {
		t.Fatalf("no init trace: %s", out)
	}
	for _, pkg := range []string{"engine/hosts", "engine/hosts/settings", "engine/internal/config", "engine/internal/precompiled",
		"tools", "stdlib", "spec", "internal/lazy", "shell/syntax", "cmd/monad-hooks/internal/cli"} {
		if strings.Contains(string(out), "init github.com/monad-hooks/monad-hooks/"+pkg+" ") {
			t.Errorf("%s does work at initialisation:\n%s", pkg, out)
		}
	}
}
