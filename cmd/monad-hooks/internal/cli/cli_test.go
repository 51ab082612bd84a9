package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader on different
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testLuaTimeout is the timeout of the Lua hooks and stdlib packs that set
// no timeoutMs in the engines of in-process commands (testEnv) and of the
// test command (--lua-timeout): far above any call's cost, since the
// engine's default (1 s) is not for a pack under -race on a loaded
// machine. A test whose point is a timeout sets a small timeoutMs on the
// hook that must time out.
const testLuaTimeout = luaapi.MaxTimeout

// testLuaPool is the engine option that sets testLuaTimeout.
var testLuaPool = engine.WithLuaPool(0, testLuaTimeout)

// testEnv is the Env of an in-process command: a temporary directory, a
// minimal environment, testLuaPool and the given Go hooks.
func testEnv(t *testing.T, hooks ...engine.GoHook) Env {
	t.Helper()
	env := Env{Dir: t.TempDir(), Vars: []string{"HOME=/nonexistent", "PATH=/usr/bin:/bin"},
		engineOpts: []engine.Option{testLuaPool}}
	for _, h := range hooks {
		env.engineOpts = append(env.engineOpts, engine.WithHook(h))
	}
	return env
}

func runCLI(t *testing.T, env Env, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, strings.NewReader(stdin), &out, &errb, env)
	return code, out.String(), errb.String()
}

func fixedHook(name string, ev events.Event, matcher string, out events.Output) engine.GoHook {
	return engine.GoHook{Name: name, Event: ev, Matcher: matcher,
		Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) { return out, nil })}
}

func decodeResult(t *testing.T, s string) engine.Result {
	t.Helper()
	var r engine.Result
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("not a Result: %v: %q", err, s)
	}
	return r
}

// TestExitCodes checks the exit code of every rule, and that none is 2.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		stdin      string
		code       int
		stdout     string // substring
		stderr     string // substring
		quietOut   bool   // stdout must be empty
		quietError bool   // stderr must be empty
	}{
		{name: "no args", args: nil, code: ExitUsage, stderr: "Usage:", quietOut: true},
		{name: "--help", args: []string{"--help"}, code: ExitOK, stdout: "Usage:", quietError: true},
		{name: "-h", args: []string{"-h"}, code: ExitOK, stdout: "Commands:"},
		{name: "help", args: []string{"help"}, code: ExitOK, stdout: "Exit codes"},
		{name: "help run", args: []string{"help", "run"}, code: ExitOK, stdout: "Usage: monad-hooks run"},
		{name: "help unknown", args: []string{"help", "nope"}, code: ExitUsage, stderr: "unknown command"},
		{name: "help two", args: []string{"help", "run", "serve"}, code: ExitUsage},
		{name: "unknown command", args: []string{"frobnicate"}, code: ExitUsage, stderr: `unknown command "frobnicate"`, quietOut: true},
		{name: "run no event", args: []string{"run"}, code: ExitUsage, stderr: "missing EVENT"},
		{name: "run bad event", args: []string{"run", "BeforeFoo"}, code: ExitUsage, stderr: `unknown event "BeforeFoo" (did you mean "BeforeTool"?); want one of SessionStart, BeforeTurn,`},
		{name: "run another agent's event", args: []string{"run", "PreToolUse"}, code: ExitUsage, stderr: `unknown event "PreToolUse" (did you mean "BeforeTool"?); want one of`},
		{name: "run lowercase event", args: []string{"run", "beforetool"}, code: ExitUsage},
		{name: "run two events", args: []string{"run", "BeforeTool", "AfterTool"}, code: ExitUsage},
		{name: "run unknown flag", args: []string{"run", "BeforeTool", "--nope"}, code: ExitUsage, stderr: "-nope"},
		{name: "run flag without value", args: []string{"run", "BeforeTool", "--config"}, code: ExitUsage},
		{name: "run bad max-stop-continues", args: []string{"run", "AfterTurn", "--max-stop-continues", "x"}, code: ExitUsage},
		{name: "run --help", args: []string{"run", "--help"}, code: ExitOK, stdout: "Usage: monad-hooks run EVENT", quietError: true},
		{name: "run -h after event", args: []string{"run", "BeforeTool", "-h"}, code: ExitOK, stdout: "Usage: monad-hooks run"},
		{name: "run stdlib unknown", args: []string{"run", "BeforeTool", "--stdlib", "no-such-pack"}, stdin: `{}`, code: ExitUsage, stderr: "no-such-pack"},
		{name: "run stdlib none mixed", args: []string{"run", "BeforeTool", "--stdlib", "none,default"}, stdin: `{}`, code: ExitUsage, stderr: "none cannot be combined"},
		{name: "run stdlib empty", args: []string{"run", "BeforeTool", "--stdlib", ""}, stdin: `{}`, code: ExitUsage},
		{name: "run ok", args: []string{"run", "BeforeTool", "--stdlib", "none"}, stdin: `{"toolName":"bash"}`, code: ExitOK, stdout: `{"event":"BeforeTool"}`, quietError: true},
		{name: "run event null", args: []string{"run", "BeforeTool", "--stdlib", "none"}, stdin: `{"event":null}`, code: ExitOK, stdout: `"event":"BeforeTool"`},
		{name: "flag before the command", args: []string{"--stdlib", "none", "run", "BeforeTool"}, stdin: `{}`, code: ExitUsage, stderr: "unknown command"},
		{name: "run flags first", args: []string{"run", "--stdlib", "none", "BeforeTool"}, stdin: `{"event":"BeforeTool"}`, code: ExitOK},
		// Input that cannot be used, at an event that can deny, is a deny
		// (exit 0, the decision in the Result), never an exit code a hook
		// host reads as "proceed"; at other events it is exit 1.
		{name: "run other event", args: []string{"run", "BeforeTool", "--stdlib", "none"}, stdin: `{"event":"AfterTool"}`, code: ExitOK, stdout: `"decision":"deny"`, stderr: "its event is AfterTool, but the command line says BeforeTool"},
		{name: "run bad event in input", args: []string{"run", "BeforeTool", "--stdlib", "none"}, stdin: `{"event":"Nope"}`, code: ExitOK, stdout: `"decision":"deny"`, stderr: "unknown event"},
		{name: "run host event name", args: []string{"run", "BeforeTool", "--stdlib", "none"}, stdin: `{"event":"PreToolUse","tool_name":"bash"}`, code: ExitOK, stdout: `"decision":"deny"`, stderr: `unknown event "PreToolUse"`},
		{name: "run invalid JSON", args: []string{"run", "BeforeTool", "--stdlib", "none"}, stdin: `{"toolName":`, code: ExitOK, stdout: `"decision":"deny"`, stderr: "invalid input"},
		{name: "run not an object", args: []string{"run", "BeforeTool", "--stdlib", "none"}, stdin: `[1,2]`, code: ExitOK, stdout: `"decision":"deny"`, stderr: "not a JSON object"},
		{name: "run empty stdin", args: []string{"run", "BeforeTool", "--stdlib", "none"}, stdin: ``, code: ExitOK, stdout: `"decision":"deny"`, stderr: "empty document"},
		{name: "run wrong type", args: []string{"run", "BeforeTool", "--stdlib", "none"}, stdin: `{"toolName":3}`, code: ExitOK, stdout: `"decision":"deny"`, stderr: "toolName"},
		{name: "run two documents", args: []string{"run", "BeforeTool", "--stdlib", "none"}, stdin: `{} {}`, code: ExitOK, stdout: `"decision":"deny"`},
		{name: "run invalid JSON where nothing can deny", args: []string{"run", "AfterModel", "--stdlib", "none"}, stdin: `{"toolName":`, code: ExitFail, stderr: "invalid input", quietOut: true},
		{name: "run unknown host", args: []string{"run", "--host", "vim"}, stdin: `{}`, code: ExitUsage, stderr: `unknown host "vim"`},
		{name: "run monad host needs EVENT", args: []string{"run", "--host", "monad"}, stdin: `{}`, code: ExitUsage, stderr: "missing EVENT"},
		{name: "run bad state", args: []string{"run", "BeforeTurn", "--stdlib", "none", "--state", "/nonexistent-dir/x/state.json"}, stdin: `{"prompt":"p"}`, code: ExitOK, stderr: "state"},
		{name: "run audit unwritable", args: []string{"run", "BeforeTool", "--stdlib", "none", "--audit", "/nonexistent-dir/x/audit.jsonl"}, stdin: `{}`, code: ExitOK, stdout: `"event":"BeforeTool"`, stderr: "the dispatch runs without the audit log"},
		{name: "serve extra arg", args: []string{"serve", "now"}, code: ExitUsage},
		{name: "serve public address", args: []string{"serve", "--listen", "0.0.0.0:0"}, code: ExitUsage, stderr: "loopback"},
		{name: "serve all interfaces", args: []string{"serve", "--listen", ":8080"}, code: ExitUsage},
		{name: "serve hostname", args: []string{"serve", "--listen", "example.com:80"}, code: ExitUsage},
		{name: "serve bad address", args: []string{"serve", "--listen", "127.0.0.1"}, code: ExitUsage},
		{name: "serve empty unix", args: []string{"serve", "--listen", "unix:"}, code: ExitUsage},
		{name: "serve bad concurrency", args: []string{"serve", "--max-concurrent", "0"}, code: ExitUsage},
		{name: "serve --help", args: []string{"serve", "--help"}, code: ExitOK, stdout: "POST /v1/dispatch"},
		{name: "serve empty stdin", args: []string{"serve", "--stdlib", "none"}, code: ExitOK, quietOut: true},
		{name: "check extra arg", args: []string{"check", "x"}, code: ExitUsage},
		{name: "check --help", args: []string{"check", "--help"}, code: ExitOK, stdout: "Usage: monad-hooks check"},
		{name: "explain no event", args: []string{"explain"}, code: ExitUsage},
		{name: "explain --help", args: []string{"explain", "-h"}, code: ExitOK, stdout: "why"},
		{name: "explain invalid JSON", args: []string{"explain", "BeforeTool", "--stdlib", "none"}, stdin: "nope", code: ExitFail},
		{name: "test missing path", args: []string{"test", "/nonexistent-dir/cases"}, code: ExitFail},
		{name: "test bad -run", args: []string{"test", "-run", "("}, code: ExitUsage},
		{name: "test --lua-timeout above the maximum", args: []string{"test", "--lua-timeout", "2m"}, code: ExitUsage},
		{name: "test --lua-timeout negative", args: []string{"test", "--lua-timeout", "-1s"}, code: ExitUsage},
		{name: "test --help", args: []string{"test", "--help"}, code: ExitOK, stdout: "N passed, N failed"},
		{name: "stdlib --help", args: []string{"stdlib", "--help"}, code: ExitOK, stdout: "Usage: monad-hooks stdlib"},
		{name: "stdlib two names", args: []string{"stdlib", "a", "b"}, code: ExitUsage},
		{name: "stdlib list", args: []string{"stdlib"}, code: ExitOK, stdout: "deny-destructive  (default)", quietError: true},
		{name: "stdlib doc", args: []string{"stdlib", "protect-paths"}, code: ExitOK, stdout: "Parameters:"},
		{name: "stdlib doc lists the shell tools", args: []string{"stdlib", "deny-destructive"}, code: ExitOK, stdout: "shell: Bash, PowerShell, Shell, bash, exec_command, local_shell, run_shell_command, run_terminal_cmd, shell"},
		{name: "stdlib doc lists the file tools", args: []string{"stdlib", "protect-paths"}, code: ExitOK, stdout: "edit: Edit, MultiEdit, NotebookEdit"},
		{name: "stdlib unknown", args: []string{"stdlib", "no-such-pack"}, code: ExitFail, stderr: "unknown pack", quietOut: true},
		{name: "run stdlib list with unknown", args: []string{"run", "BeforeTool", "--stdlib", "default,nope"}, stdin: `{}`, code: ExitUsage, stderr: "unknown stdlib pack \"nope\""},
		{name: "schema input", args: []string{"schema", "input"}, code: ExitOK, stdout: `"$schema"`},
		{name: "schema output", args: []string{"schema", "output"}, code: ExitOK, stdout: `"decision"`},
		{name: "schema missing", args: []string{"schema"}, code: ExitUsage},
		{name: "schema unknown", args: []string{"schema", "result"}, code: ExitUsage},
		{name: "version", args: []string{"version"}, code: ExitOK, stdout: "monad-hooks "},
		{name: "--version", args: []string{"--version"}, code: ExitOK, stdout: "monad-hooks "},
		{name: "version extra", args: []string{"version", "x"}, code: ExitUsage},
		{name: "version --help", args: []string{"version", "--help"}, code: ExitOK, stdout: "Usage: monad-hooks version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(t, testEnv(t), tt.stdin, tt.args...)
			if code == 2 {
				t.Fatalf("exit 2 (deny to hook hosts) for %v", tt.args)
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.stdout) {
				t.Errorf("stdout %q does not contain %q", stdout, tt.stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.stderr)
			}
			if tt.quietOut && stdout != "" {
				t.Errorf("stdout not empty: %q", stdout)
			}
			if tt.quietError && stderr != "" {
				t.Errorf("stderr not empty: %q", stderr)
			}
		})
	}
}

func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands() {
		code, stdout, _ := runCLI(t, testEnv(t), "", c.name, "--help")
		if c.name == "help" {
			code, stdout, _ = runCLI(t, testEnv(t), "", "help", "help")
		}
		if code != ExitOK || !strings.HasPrefix(stdout, "Usage: monad-hooks "+c.name) {
			t.Errorf("%s --help: exit %d, %q", c.name, code, stdout)
		}
		if c.name != "help" && c.name != "version" && !strings.Contains(stdout, "Example") {
			t.Errorf("%s --help has no examples", c.name)
		}
		if !strings.Contains(string(doc), "\n//\t"+c.name) {
			t.Errorf("the manual (doc.go) does not list %s", c.name)
		}
		if !strings.Contains(mainUsage(), "\t"+c.name+" ") {
			t.Errorf("the usage does not list %s", c.name)
		}
	}
	for _, code := range []string{"//\t0 ", "//\t1 ", "//\t64 ", "never exits 2"} {
		if !strings.Contains(string(doc), code) {
			t.Errorf("the manual's exit-code table lacks %q", code)
		}
	}
}

func TestRunPrintsOneResultLine(t *testing.T) {
	t.Parallel()
	env := testEnv(t,
		fixedHook("deny-rm", events.BeforeTool, "^bash$", events.Output{Decision: events.Deny, Reason: "no <rm> & co"}),
		fixedHook("ctx", events.BeforeTool, "", events.Output{AdditionalContext: "seen"}))
	code, stdout, stderr := runCLI(t, env, `{"toolName":"bash","toolInput":{"command":"rm -rf /"}}`, "run", "BeforeTool", "--stdlib", "none")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Errorf("want exactly one line, got %q", stdout)
	}
	if !strings.Contains(stdout, "no <rm> & co") {
		t.Errorf("reason HTML-escaped or missing: %s", stdout)
	}
	r := decodeResult(t, stdout)
	if r.Decision != events.Deny || len(r.Audit) != 1 || r.Audit[0].Hook != "go:deny-rm" {
		t.Errorf("got %+v", r)
	}
	// The allow path: another tool.
	code, stdout, _ = runCLI(t, env, `{"toolName":"read_file"}`, "run", "BeforeTool", "--stdlib", "none")
	if r := decodeResult(t, stdout); code != ExitOK || r.Decision != "" || r.AdditionalContext != "seen" {
		t.Errorf("exit %d, %+v", code, r)
	}
	// The Result is a valid HookOutput (run can be a command hook).
	if _, err := events.DecodeOutput([]byte(stdout)); err != nil {
		t.Errorf("the Result is not a HookOutput: %v", err)
	}
}

func TestDecodeFor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in      string
		wantErr string
	}{
		{`{}`, ""},
		{`{"event":"AfterTool","toolName":"x"}`, ""},
		{`{"event":null,"toolName":"x"}`, ""},
		{`{"event":"BeforeTool"}`, "its event is BeforeTool"},
		{`{"event":3}`, "want a string"},
		{`null`, "invalid input"},
		{`"AfterTool"`, "not a JSON object"},
		{`{"toolName":"x"`, "invalid JSON"},
		{`{"timestamp":"yesterday"}`, "RFC 3339"},
	} {
		in, err := decodeFor([]byte(tt.in), events.AfterTool)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.in, err)
		case tt.wantErr == "" && in.Event != events.AfterTool:
			t.Errorf("%s: event %v", tt.in, in.Event)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want %q", tt.in, err, tt.wantErr)
		}
	}
}

func TestParseArgsInterspersed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args    []string
		pos     []string
		configs []string
	}{
		{[]string{"BeforeTool", "--config", "a.json"}, []string{"BeforeTool"}, []string{"a.json"}},
		{[]string{"--config", "a.json", "BeforeTool", "-config=b.json"}, []string{"BeforeTool"}, []string{"a.json", "b.json"}},
		{[]string{"x", "--", "--config", "y"}, []string{"x", "--config", "y"}, nil},
		{[]string{"--", "-x"}, []string{"-x"}, nil},
		{nil, nil, nil},
	} {
		var c common
		fs := newFlagSet("t")
		c.register(fs)
		var out, errb bytes.Buffer
		pos, code := parseArgs(&invocation{stdout: &out, stderr: &errb, name: "t"}, fs, "help", tt.args)
		if code != -1 {
			t.Errorf("%v: code %d: %s", tt.args, code, errb.String())
			continue
		}
		if strings.Join(pos, "|") != strings.Join(tt.pos, "|") || strings.Join(c.config, "|") != strings.Join(tt.configs, "|") {
			t.Errorf("%v: pos %q configs %q", tt.args, pos, c.config)
		}
	}
}

func TestStateCarriesSessionStartContext(t *testing.T) {
	t.Parallel()
	env := testEnv(t, fixedHook("remember", events.SessionStart, "", events.Output{AdditionalContext: "the repo uses tabs"}))
	state := filepath.Join(env.Dir, "state.json")
	code, stdout, stderr := runCLI(t, env, `{"sessionId":"s1"}`, "run", "SessionStart", "--stdlib", "none", "--state", "state.json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r := decodeResult(t, stdout); r.AdditionalContext != "" {
		t.Errorf("SessionStart result carries the stash: %+v", r)
	}
	st, err := readState(state)
	if err != nil || st["s1"].Context != "the repo uses tabs" {
		t.Fatalf("state %v, %v", st, err)
	}
	// Another session's turn does not see it.
	_, stdout, _ = runCLI(t, env, `{"sessionId":"s2","prompt":"hi"}`, "run", "BeforeTurn", "--stdlib", "none", "--state", state)
	if r := decodeResult(t, stdout); r.AdditionalContext != "" {
		t.Errorf("s2 got %q", r.AdditionalContext)
	}
	// The session's first turn, in a later run, does, once.
	_, stdout, _ = runCLI(t, env, `{"sessionId":"s1","prompt":"hi"}`, "run", "BeforeTurn", "--stdlib", "none", "--state", state)
	if r := decodeResult(t, stdout); r.AdditionalContext != "the repo uses tabs" {
		t.Errorf("first BeforeTurn: %q", r.AdditionalContext)
	}
	_, stdout, _ = runCLI(t, env, `{"sessionId":"s1","prompt":"again"}`, "run", "BeforeTurn", "--stdlib", "none", "--state", state)
	if r := decodeResult(t, stdout); r.AdditionalContext != "" {
		t.Errorf("second BeforeTurn: %q", r.AdditionalContext)
	}
	// Without --state nothing carries over.
	runCLI(t, env, `{"sessionId":"s3"}`, "run", "SessionStart", "--stdlib", "none")
	_, stdout, _ = runCLI(t, env, `{"sessionId":"s3","prompt":"hi"}`, "run", "BeforeTurn", "--stdlib", "none")
	if r := decodeResult(t, stdout); r.AdditionalContext != "" {
		t.Errorf("stateless run carried context: %q", r.AdditionalContext)
	}
}

func TestStateFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "st.json")
	if st, err := readState(p); err != nil || len(st) != 0 {
		t.Fatalf("missing file: %v %v", st, err)
	}
	want := map[string]engine.SessionState{"a": {Context: "x"}, "b": {StopContinues: 2}}
	if err := writeState(p, want); err != nil {
		t.Fatal(err)
	}
	got, err := readState(p)
	if err != nil || len(got) != 2 || got["a"].Context != "x" || got["b"].StopContinues != 2 {
		t.Fatalf("round trip: %v %v", got, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	for _, bad := range []string{`[`, `{"a":{"context":1}}`, `{"a":{"bogus":1}}`} {
		os.WriteFile(p, []byte(bad), 0o600)
		if _, err := readState(p); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	os.WriteFile(p, []byte("null"), 0o600)
	if st, err := readState(p); err != nil || st == nil {
		t.Errorf("null: %v %v", st, err)
	}
	// A corrupt state file is a clear error on stderr; the guards run all
	// the same (exit 0, the Result printed), and the file is left alone.
	os.WriteFile(p, []byte("{"), 0o600)
	code, stdout, stderr := runCLI(t, testEnv(t), `{"prompt":"p"}`, "run", "BeforeTurn", "--stdlib", "none", "--state", p)
	if b, _ := os.ReadFile(p); code != ExitOK || decodeResult(t, stdout).Event != events.BeforeTurn || !strings.Contains(stderr, "state") || string(b) != "{" {
		t.Errorf("corrupt state: exit %d, %q, %q, file %q", code, stdout, stderr, b)
	}
}

func TestAuditWritesOneLinePerExecutedHook(t *testing.T) {
	t.Parallel()
	env := testEnv(t,
		fixedHook("a", events.BeforeTool, "", events.Output{Decision: events.Allow}),
		fixedHook("b", events.BeforeTool, "^bash$", events.Output{AdditionalContext: "x"}),
		fixedHook("never", events.BeforeTool, "^nope$", events.Output{Decision: events.Deny}))
	audit := filepath.Join(env.Dir, "audit.jsonl")
	for range 2 {
		if code, _, stderr := runCLI(t, env, `{"sessionId":"s9","toolName":"bash"}`, "run", "BeforeTool", "--stdlib", "none", "--audit", "audit.jsonl"); code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	lines := readLines(t, audit)
	if len(lines) != 4 {
		t.Fatalf("want 4 lines (2 hooks x 2 runs), got %d: %q", len(lines), lines)
	}
	for i, l := range lines {
		var rec struct {
			Time      string `json:"time"`
			SessionID string `json:"sessionId"`
			Hook      string `json:"hook"`
			Outcome   string `json:"outcome"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if _, err := time.Parse(time.RFC3339Nano, rec.Time); err != nil {
			t.Errorf("line %d: time %q", i, rec.Time)
		}
		if want := []string{"go:a", "go:b"}[i%2]; rec.Hook != want || rec.SessionID != "s9" || rec.Outcome != "ok" {
			t.Errorf("line %d: %+v", i, rec)
		}
	}
}

func TestAuditLogConcurrent(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := openAudit(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				a.Record(context.Background(), engine.Record{Event: events.BeforeTool, SessionID: "s", Hook: strings.Repeat("h", g*100+i), Outcome: engine.OutcomeOK})
			}
		})
	}
	wg.Wait()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	a.Record(context.Background(), engine.Record{Event: events.BeforeTool}) // after Close: dropped, no panic
	lines := readLines(t, p)
	if len(lines) != 400 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("interleaved line: %q", l)
		}
	}
}

func readLines(t *testing.T, p string) []string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func TestStdlibList(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	c := common{}
	if got, err := c.stdlibList(); err != nil || strings.Join(got, ",") != strings.Join(stdlib.Default(), ",") {
		t.Errorf("absent: %v %v", got, err)
	}
	c.stdlib = str("none")
	if got, err := c.stdlibList(); err != nil || got != nil {
		t.Errorf("none: %v %v", got, err)
	}
	c.stdlib = str("default, default")
	if got, err := c.stdlibList(); err != nil || strings.Join(got, ",") != strings.Join(stdlib.Default(), ",") {
		t.Errorf("default twice: %v %v", got, err)
	}
	if len(stdlib.Default()) == 0 {
		t.Fatal("no default stdlib set")
	}
	c.stdlib = str("redact-pii,default,redact-pii," + stdlib.Default()[0])
	if got, err := c.stdlibList(); err != nil || strings.Join(got, ",") != strings.Join(append([]string{"redact-pii"}, stdlib.Default()...), ",") {
		t.Errorf("a pack, then default: %v %v", got, err)
	}
	for _, bad := range []string{"", ",", "none,default", "default,", "surely-not-a-pack"} {
		c.stdlib = str(bad)
		if _, err := c.stdlibList(); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestReadLine(t *testing.T) {
	t.Parallel()
	in := "short\n" + strings.Repeat("x", 100) + "\n\nlast-no-newline"
	br := bufio.NewReaderSize(strings.NewReader(in), 16)
	type got struct {
		line    string
		tooLong bool
	}
	var all []got
	for range 10 {
		line, tooLong, err := readLine(br, 20)
		if len(line) > 0 || tooLong || err == nil {
			all = append(all, got{string(line), tooLong})
		}
		if err != nil {
			break
		}
	}
	want := []got{{"short", false}, {"", true}, {"", false}, {"last-no-newline", false}}
	if len(all) != len(want) {
		t.Fatalf("got %+v", all)
	}
	for i := range want {
		if all[i] != want[i] {
			t.Errorf("line %d: %+v, want %+v", i, all[i], want[i])
		}
	}
}
