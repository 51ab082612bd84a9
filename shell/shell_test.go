//go:build unix

package shell_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/shell"
)

// testEnv is the environment most tests give their hooks.
var testEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}

// hangGuard bounds how long a test waits for Run to return. The hooks
// that Run must stop (by a timeout, a kill, or abandoning a pipe) sleep
// 600 s, far longer: a Run that returns within hangGuard was stopped by the
// mechanism under test, however loaded the machine. It is never a bound on
// speed; the logs show the figures.
const hangGuard = 30 * time.Second

// startBound is the timeout of a hook whose timeout must fire only after
// sh has run its first lines (written a pid file, set a trap): far above
// a process start on a loaded 2-core machine under -race, which a 200 ms
// timeout could end before the line that the test relies on ran. The
// hooks still sleep 600 s, so the timeout is what stops them.
const startBound = 5 * time.Second

// afterWritten calls f once path is non-empty (a hook wrote its pid: the
// process runs), or after hangGuard, so that what f does (cancel a
// context) cannot happen before the process started, however loaded the
// machine.
func afterWritten(path string, f func()) {
	go func() {
		defer f()
		for deadline := time.Now().Add(hangGuard); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
				return
			}
		}
	}()
}

// returns calls f and returns its result and how long it took, failing the
// test if f has not returned within hangGuard.
func returns(t *testing.T, f func() (shell.Result, error)) (shell.Result, error, time.Duration) {
	t.Helper()
	type result struct {
		r    shell.Result
		err  error
		took time.Duration
	}
	ch := make(chan result, 1)
	go func() {
		start := time.Now()
		r, err := f()
		ch <- result{r, err, time.Since(start)}
	}()
	select {
	case res := <-ch:
		return res.r, res.err, res.took
	case <-time.After(hangGuard):
		t.Fatalf("Run has not returned after %v: hung", hangGuard)
		panic("unreachable")
	}
}

// run runs c with testEnv unless c has an environment (see returns).
func run(t *testing.T, c shell.Command, stdin string) (shell.Result, error, time.Duration) {
	t.Helper()
	if c.Env == nil {
		c.Env = testEnv
	}
	return returns(t, func() (shell.Result, error) { return shell.Run(context.Background(), c, []byte(stdin)) })
}

// pidFile returns a path for a hook to write a pid to, and a func that
// reads it.
func pidFile(t *testing.T) (string, func() int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pid")
	return path, func() int {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read pid file: %v", err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("pid file: %v", err)
		}
		return pid
	}
}

// alive reports whether process pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...; comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// assertDies waits for pid to die: a SIGKILL is delivered asynchronously.
// It waits at most hangGuard, though the process sleeps longer.
func assertDies(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(hangGuard); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("process %d outlived its hook", pid)
}

func mustInterpret(t *testing.T, r shell.Result, err error) events.Output {
	t.Helper()
	out, err := shell.Interpret(r, err)
	if err != nil {
		t.Fatalf("Interpret: %v (result %+v)", err, r)
	}
	return out
}

func TestRunStdinReachesHook(t *testing.T) {
	t.Parallel()
	stdin := "{\"event\":\"BeforeTool\"}\x00\xff binary too\n"
	r, err, _ := run(t, shell.Command{Line: "cat"}, stdin)
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Stdout) != stdin || r.ExitCode != 0 || r.Signal != "" || r.Stderr != nil || r.Duration <= 0 {
		t.Errorf("got %+v", r)
	}
}

func TestRunEnvIsExactlyEnv(t *testing.T) {
	t.Parallel()
	// /proc/$$/environ is what the shell was started with, before it
	// exports anything of its own.
	const line = `cat /proc/$$/environ`
	env := []string{"PATH=/usr/bin:/bin", "A=1", "B=x=y=z", "EMPTY=", "SPACE=a b"}
	r, err, _ := run(t, shell.Command{Line: line, Env: env}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(strings.TrimSuffix(string(r.Stdout), "\x00"), "\x00"); !equal(got, env) {
		t.Errorf("environment = %q, want %q", got, env)
	}

	// As with os/exec, a name given twice keeps its last value.
	r, err, _ = run(t, shell.Command{Line: line, Env: []string{"A=1", "B=2", "A=3"}}, "")
	if got := strings.Split(strings.TrimSuffix(string(r.Stdout), "\x00"), "\x00"); err != nil || !equal(got, []string{"B=2", "A=3"}) {
		t.Errorf("duplicates: environment = %q, %v", got, err)
	}

	// nil means empty, never the test process's environment.
	r, err = shell.Run(context.Background(), shell.Command{Line: line}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Stdout) != 0 {
		t.Errorf("nil Env gave %q, want an empty environment", r.Stdout)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRunDir(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r, err, _ := run(t, shell.Command{Line: "pwd -P", Dir: dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(r.Stdout)); got != dir {
		t.Errorf("pwd = %q, want %q", got, dir)
	}
	// "" inherits the caller's directory (the package directory here).
	r, err, _ = run(t, shell.Command{Line: "test -x testdata/exit0.sh && echo here"}, "")
	if err != nil || string(r.Stdout) != "here\n" {
		t.Errorf("Dir \"\": %+v, %v", r, err)
	}
}

func TestRunStdinNotRead(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 8<<20) // far more than a pipe buffer
	for _, line := range []string{
		`exit 0`,
		`echo '{}'`,
		`sleep 0.1; echo '{}'`,     // alive for a while without reading
		`exec 0<&-; echo '{}'`,     // closes stdin at once
		`(sleep 600 &); echo '{}'`, // a grandchild holds stdin, unread
		`head -c 10 >/dev/null; echo '{}'`,
	} {
		t.Run(line, func(t *testing.T) {
			t.Parallel()
			r, err, _ := run(t, shell.Command{Line: line}, big)
			if err != nil {
				t.Fatal(err)
			}
			if r.ExitCode != 0 {
				t.Errorf("exit %d, stderr %q", r.ExitCode, r.Stderr)
			}
		})
	}
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	path, readPid := pidFile(t)
	line := fmt.Sprintf(`sleep 600 & echo $! > %s; exec sleep 600`, path)
	r, err, took := run(t, shell.Command{Line: line, Timeout: startBound}, "")
	t.Logf("timeout %v: Run returned after %v", startBound, took)
	if !errors.Is(err, shell.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) || !shell.IsTimeout(err) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if shell.Classify(err) != shell.ClassTimeout {
		t.Errorf("Classify = %q", shell.Classify(err))
	}
	if took < startBound {
		t.Errorf("Run returned after %v, before the timeout", took)
	}
	if r.ExitCode != -1 || r.Signal != "killed" {
		t.Errorf("result %+v, want killed", r)
	}
	assertDies(t, readPid())
	if _, ierr := shell.Interpret(r, err); ierr != err {
		t.Errorf("Interpret changed the run error: %v", ierr)
	}
}

func TestRunTimeoutIgnoringTERM(t *testing.T) {
	t.Parallel()
	const line = `trap '' TERM; sleep 600 & sleep 600`
	t.Run("kill at once", func(t *testing.T) {
		t.Parallel()
		_, err, took := returns(t, func() (shell.Result, error) {
			return shell.Exec{}.Run(context.Background(), shell.Command{Line: line, Env: testEnv, Timeout: 200 * time.Millisecond}, nil)
		})
		if !shell.IsTimeout(err) {
			t.Errorf("err %v after %v", err, took)
		}
	})
	t.Run("TERM then KILL", func(t *testing.T) {
		t.Parallel()
		// The trap must be set before TERM comes (else TERM ends sh, not
		// KILL): a timeout far above sh's start.
		const grace = 300 * time.Millisecond
		r, err, took := returns(t, func() (shell.Result, error) {
			return shell.Exec{TermGrace: grace}.Run(context.Background(), shell.Command{Line: line, Env: testEnv, Timeout: startBound}, nil)
		})
		t.Logf("timeout %v + TermGrace %v: Run returned after %v", startBound, grace, took)
		if !shell.IsTimeout(err) || took < startBound+grace {
			t.Errorf("err %v after %v: want a timeout after the grace", err, took)
		}
		if r.Signal != "killed" {
			t.Errorf("signal %q, want killed", r.Signal)
		}
	})
}

func TestRunTermGraceLetsHookCleanUp(t *testing.T) {
	t.Parallel()
	// The grace is longer than hangGuard: Run returns only if the grace
	// ends when the hook exits. The trap must be set before the timeout
	// sends TERM: a timeout far above sh's start.
	line := `trap 'echo cleaning up >&2; exit 3' TERM; sleep 600 & wait`
	r, err, _ := returns(t, func() (shell.Result, error) {
		return shell.Exec{TermGrace: time.Hour}.Run(context.Background(), shell.Command{Line: line, Env: testEnv, Timeout: startBound}, nil)
	})
	if !shell.IsTimeout(err) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if r.ExitCode != 3 || string(r.Stderr) != "cleaning up\n" {
		t.Errorf("result %+v", r)
	}
}

func TestRunLingeringGrandchild(t *testing.T) {
	t.Parallel()
	// The shell exits 0 at once; a grandchild keeps stdout and stderr open.
	path, readPid := pidFile(t)
	line := fmt.Sprintf(`(sleep 600 & echo $! > %s); echo '{"decision":"allow"}'`, path)
	r, err, took := run(t, shell.Command{Line: line}, "")
	t.Logf("grandchild holding stdout: Run returned after %v", took)
	if out := mustInterpret(t, r, err); out.Decision != events.Allow {
		t.Errorf("output %+v", out)
	}
	assertDies(t, readPid())
}

func TestRunEscapedGrandchild(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("no setsid")
	}
	// A grandchild in a session of its own escapes the group kill and
	// keeps stdout open: Run abandons the pipe after ExitGrace.
	path, readPid := pidFile(t)
	line := fmt.Sprintf(`setsid sh -c 'echo $$ > %[1]s; exec sleep 600' & until [ -s %[1]s ]; do sleep 0.01; done; echo '{}'`, path)
	r, err, took := run(t, shell.Command{Line: line}, "")
	t.Cleanup(func() { _ = syscall.Kill(readPid(), syscall.SIGKILL) })
	t.Logf("grandchild in its own session holding stdout: Run returned after %v", took)
	if took < shell.ExitGrace {
		t.Errorf("Run returned after %v, before ExitGrace", took)
	}
	if err != nil || r.ExitCode != 0 || string(r.Stdout) != "{}\n" {
		t.Errorf("got %+v, %v", r, err)
	}
}

func TestRunContextCanceled(t *testing.T) {
	t.Parallel()
	// Canceled once the process runs (a cancel before the start is
	// TestRunContextDoneBeforeStart), so that it is killed.
	ctx, cancel := context.WithCancel(context.Background())
	path, _ := pidFile(t)
	afterWritten(path, cancel)
	r, err, _ := returns(t, func() (shell.Result, error) {
		return shell.Run(ctx, shell.Command{Line: "echo $$ > " + path + "; exec sleep 600", Env: testEnv}, nil)
	})
	if !errors.Is(err, context.Canceled) || shell.IsTimeout(err) || shell.Classify(err) != shell.ClassCanceled {
		t.Errorf("err = %v", err)
	}
	if r.Signal != "killed" {
		t.Errorf("result %+v", r)
	}
}

func TestRunContextCause(t *testing.T) {
	t.Parallel()
	cause := errors.New("dispatch abandoned")
	ctx, cancel := context.WithCancelCause(context.Background())
	path, _ := pidFile(t)
	afterWritten(path, func() { cancel(cause) })
	_, err, _ := returns(t, func() (shell.Result, error) {
		return shell.Run(ctx, shell.Command{Line: "echo $$ > " + path + "; exec sleep 600", Env: testEnv}, nil)
	})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
		t.Errorf("err = %v", err)
	}
}

func TestRunContextDoneBeforeStart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	marker := filepath.Join(t.TempDir(), "ran")
	r, err := shell.Run(ctx, shell.Command{Line: "touch " + marker, Env: testEnv}, nil)
	if !errors.Is(err, context.Canceled) || r.ExitCode != -1 {
		t.Errorf("got %+v, %v", r, err)
	}
	if _, statErr := os.Stat(marker); statErr == nil {
		t.Error("the hook ran")
	}
}

func TestRunCallerDeadline(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	_, err, _ := returns(t, func() (shell.Result, error) {
		return shell.Run(ctx, shell.Command{Line: "sleep 600", Env: testEnv}, nil)
	})
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, shell.ErrTimeout) || !shell.IsTimeout(err) {
		t.Errorf("err = %v", err)
	}
}

func TestRunStdoutTooLarge(t *testing.T) {
	// Not parallel, so that the allocation count is this test's alone.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err, took := run(t, shell.Command{Line: "head -c 104857600 /dev/zero; exit 2"}, "")
	runtime.ReadMemStats(&after)
	t.Logf("100 MiB on stdout: Run returned after %v, allocated %d KiB", took, (after.TotalAlloc-before.TotalAlloc)>>10)
	if !errors.Is(err, shell.ErrOutputTooLarge) || shell.Classify(err) != shell.ClassOutputTooLarge {
		t.Fatalf("err = %v", err)
	}
	if len(r.Stdout) != shell.DefaultMaxStdout || !r.StdoutTruncated || r.Signal != "killed" {
		t.Errorf("got %d bytes, truncated %v, signal %q", len(r.Stdout), r.StdoutTruncated, r.Signal)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("allocated %d MiB", alloc>>20)
	}
	// A stdout overflow is a failure even if the hook would have denied.
	if _, err := shell.Interpret(r, err); !errors.Is(err, shell.ErrOutputTooLarge) {
		t.Errorf("Interpret: %v", err)
	}
}

func TestRunStdoutCap(t *testing.T) {
	t.Parallel()
	r, err, _ := run(t, shell.Command{Line: "echo '{}'", MaxStdout: math.MaxInt, MaxStderr: math.MaxInt}, "")
	if err != nil || string(r.Stdout) != "{}\n" {
		t.Errorf("huge caps: %+v, %v", r, err)
	}
	r, err, _ = run(t, shell.Command{Line: "printf abc", MaxStdout: 3}, "")
	if err != nil || string(r.Stdout) != "abc" || r.StdoutTruncated {
		t.Errorf("at the cap: %+v, %v", r, err)
	}
	r, err, _ = run(t, shell.Command{Line: "printf abcd", MaxStdout: 3}, "")
	if !errors.Is(err, shell.ErrOutputTooLarge) || string(r.Stdout) != "abc" || !r.StdoutTruncated {
		t.Errorf("over the cap: %+v, %v", r, err)
	}
}

func TestRunNoisyStderr(t *testing.T) {
	t.Parallel()
	const noise = `head -c 1048576 /dev/zero | tr '\0' x >&2`
	t.Run("exit 2 still denies", func(t *testing.T) {
		t.Parallel()
		r, err, _ := run(t, shell.Command{Line: noise + "; exit 2"}, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Stderr) != shell.DefaultMaxStderr || !r.StderrTruncated || r.ExitCode != 2 {
			t.Errorf("stderr %d bytes, truncated %v, exit %d", len(r.Stderr), r.StderrTruncated, r.ExitCode)
		}
		out := mustInterpret(t, r, err)
		if out.Decision != events.Deny || len(out.Reason) > shell.MaxReason || !strings.HasSuffix(out.Reason, "…") {
			t.Errorf("decision %q, reason of %d bytes", out.Decision, len(out.Reason))
		}
	})
	t.Run("exit 0 fails", func(t *testing.T) {
		t.Parallel()
		r, err, _ := run(t, shell.Command{Line: noise + `; echo '{"decision":"allow"}'`}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := shell.Interpret(r, err); !errors.Is(err, shell.ErrOutputTooLarge) {
			t.Errorf("Interpret: %v", err)
		}
	})
}

func TestRunSignalCrash(t *testing.T) {
	t.Parallel()
	// In a temporary directory, in case a core file is written anyway.
	r, err, _ := run(t, shell.Command{Line: `ulimit -c 0; kill -SEGV $$`, Dir: t.TempDir()}, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != -1 || r.Signal != "segmentation fault" {
		t.Errorf("result %+v", r)
	}
	out, err := shell.Interpret(r, err)
	if !errors.Is(err, shell.ErrSignal) || out.Decision == events.Deny || shell.Classify(err) != shell.ClassSignal {
		t.Errorf("Interpret: %+v, %v", out, err)
	}
}

func TestRunExitStatuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line   string
		code   int
		substr string // in the error
	}{
		{"echo nope >&2; exit 1", 1, "exit status 1: nope"},
		{"exit 3", 3, "exit status 3"},
		{"exit 255", 255, "exit status 255"},
		{"no-such-hook-xyz", 127, "(command not found): /bin/sh: 1: no-such-hook-xyz: not found"},
		{"./testdata/not-executable.sh", 126, "(not executable)"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			t.Parallel()
			r, err, _ := run(t, shell.Command{Line: tc.line}, "{}")
			if err != nil {
				t.Fatal(err)
			}
			if r.ExitCode != tc.code {
				t.Errorf("exit %d, want %d", r.ExitCode, tc.code)
			}
			out, err := shell.Interpret(r, err)
			if !errors.Is(err, shell.ErrExit) || out.Decision == events.Deny {
				t.Fatalf("Interpret: %+v, %v", out, err)
			}
			if !strings.Contains(err.Error(), tc.substr) {
				t.Errorf("error %q lacks %q", err, tc.substr)
			}
		})
	}
}

func TestRunOutputs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, line string
		want       events.Output
		wantErr    error
	}{
		{"empty stdout", `true`, events.Output{}, nil},
		{"blank stdout", `printf ' \n\t\n'`, events.Output{}, nil},
		{"deny", `echo 'rm -rf is not allowed' >&2; exit 2`, events.Output{Decision: events.Deny, Reason: "rm -rf is not allowed"}, nil},
		{"silent deny", `exit 2`, events.Output{Decision: events.Deny, Reason: shell.DefaultDenyReason}, nil},
		{"deny ignores stdout", `echo '{"decision":"allow"}'; exit 2`, events.Output{Decision: events.Deny, Reason: shell.DefaultDenyReason}, nil},
		{"json", `echo '{"decision":"ask","reason":"sure?","additionalContext":"ctx"}'`, events.Output{Decision: events.Ask, Reason: "sure?", AdditionalContext: "ctx"}, nil},
		{"invalid utf-8 in a json string", `printf '{"reason":"bad \377 byte"}'`, events.Output{Reason: "bad \uFFFD byte"}, nil},
		{"invalid utf-8 deny", `printf 'bad \377\376 byte' >&2; exit 2`, events.Output{Decision: events.Deny, Reason: "bad \uFFFD byte"}, nil},
		{"invalid utf-8", `printf '\377\376\n'`, events.Output{}, shell.ErrInvalidOutput},
		{"not json", `echo allow`, events.Output{}, shell.ErrInvalidOutput},
		{"array", `echo '[1,2]'`, events.Output{}, events.ErrNotObject},
		{"string", `echo '"deny"'`, events.Output{}, events.ErrNotObject},
		{"number", `echo 2`, events.Output{}, events.ErrNotObject},
		{"two objects", `echo '{}{}'`, events.Output{}, shell.ErrInvalidOutput},
		{"unknown decision", `echo '{"decision":"maybe"}'`, events.Output{}, shell.ErrInvalidOutput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err, _ := run(t, shell.Command{Line: tc.line}, "")
			out, err := shell.Interpret(r, err)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !errors.Is(err, shell.ErrInvalidOutput) {
					t.Errorf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(out) != fmt.Sprint(tc.want) || !utf8.ValidString(out.Reason) {
				t.Errorf("got %+v, want %+v", out, tc.want)
			}
		})
	}
}

func TestRunGuardScript(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tool string
		want events.Output
	}{
		{"shell_exec", events.Output{Decision: events.Deny, Reason: "shell_exec is not allowed here"}},
		{"file_write", events.Output{Decision: events.Ask, Reason: "review the write"}},
		{"file_read", events.Output{}},
	} {
		stdin := fmt.Sprintf(`{"event":"BeforeTool","toolName":%q,"toolInput":{}}`, tc.tool)
		r, err, _ := run(t, shell.Command{Line: "./testdata/guard.sh"}, stdin)
		if out := mustInterpret(t, r, err); out != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.tool, out, tc.want)
		}
	}
}

func TestRunStartFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		c    shell.Command
	}{
		{"empty line", context.Background(), shell.Command{Line: ""}},
		{"missing dir", context.Background(), shell.Command{Line: "true", Dir: "/no/such/dir"}},
		{"NUL in env", context.Background(), shell.Command{Line: "true", Env: []string{"A=\x00"}}},
		{"nil context", nil, shell.Command{Line: "true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := shell.Run(tc.ctx, tc.c, nil)
			if !errors.Is(err, shell.ErrStart) || shell.Classify(err) != shell.ClassStart || r.ExitCode != -1 {
				t.Errorf("got %+v, %v", r, err)
			}
		})
	}
}

func TestRunTinyTimeout(t *testing.T) {
	t.Parallel()
	// The timeout may expire before or after the start: a timeout either way.
	_, err := shell.Run(context.Background(), shell.Command{Line: "sleep 1", Env: testEnv, Timeout: time.Nanosecond}, nil)
	if !errors.Is(err, shell.ErrTimeout) {
		t.Errorf("err = %v", err)
	}
}

func TestRunConcurrent(t *testing.T) {
	t.Parallel()
	const workers, runs = 8, 4
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range runs {
				stdin := fmt.Sprintf(`{"worker":%d,"run":%d,"pad":%q}`, w, i, strings.Repeat("p", 20<<10*w))
				r, err := shell.Run(context.Background(), shell.Command{Line: `cat; echo "$W" >&2`, Env: append(testEnv, "W="+strconv.Itoa(w))}, []byte(stdin))
				if err != nil || string(r.Stdout) != stdin || string(r.Stderr) != strconv.Itoa(w)+"\n" {
					t.Errorf("worker %d run %d: %v, stdout %d bytes, stderr %q", w, i, err, len(r.Stdout), r.Stderr)
				}
			}
		})
	}
	wg.Wait()
}

func TestRunnerFunc(t *testing.T) {
	t.Parallel()
	var got shell.Command
	var fake shell.Runner = shell.RunnerFunc(func(_ context.Context, c shell.Command, stdin []byte) (shell.Result, error) {
		got = c
		return shell.Result{ExitCode: 2, Stderr: bytes.ToUpper(stdin)}, nil
	})
	r, err := fake.Run(context.Background(), shell.Command{Line: "guard"}, []byte("no"))
	out := mustInterpret(t, r, err)
	if got.Line != "guard" || out.Decision != events.Deny || out.Reason != "NO" {
		t.Errorf("got %+v, %+v", got, out)
	}
	var _ shell.Runner = shell.Exec{}
}
