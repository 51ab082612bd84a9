package shell_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/shell"
)

func ptr[T any](v T) *T { return &v }

func TestInterpret(t *testing.T) {
	t.Parallel()
	runErr := fmt.Errorf("%w: stdout exceeded 1 bytes", shell.ErrOutputTooLarge)
	long := strings.Repeat("é", shell.MaxReason) // 2 bytes a rune: twice the bound
	for _, tc := range []struct {
		name    string
		r       shell.Result
		runErr  error
		want    events.Output
		wantErr error  // matched with errors.Is
		errText string // in the error message
	}{
		// A run error passes through unchanged, whatever the result says.
		{name: "run error", r: shell.Result{ExitCode: 2, Stderr: []byte("no")}, runErr: runErr, wantErr: runErr},
		{name: "run timeout", r: shell.Result{ExitCode: -1, Signal: "killed"}, runErr: context.DeadlineExceeded, wantErr: context.DeadlineExceeded},

		// exit 2: deny, stderr is the reason.
		{name: "deny", r: shell.Result{ExitCode: 2, Stderr: []byte("  not here\n")}, want: events.Output{Decision: events.Deny, Reason: "not here"}},
		{name: "deny without stderr", r: shell.Result{ExitCode: 2}, want: events.Output{Decision: events.Deny, Reason: shell.DefaultDenyReason}},
		{name: "deny with blank stderr", r: shell.Result{ExitCode: 2, Stderr: []byte(" \n\t")}, want: events.Output{Decision: events.Deny, Reason: shell.DefaultDenyReason}},
		{name: "deny ignores stdout", r: shell.Result{ExitCode: 2, Stdout: []byte(`{"decision":"allow"}`), Stderr: []byte("no")}, want: events.Output{Decision: events.Deny, Reason: "no"}},
		{name: "deny ignores invalid stdout", r: shell.Result{ExitCode: 2, Stdout: []byte(`garbage`), StdoutTruncated: true}, want: events.Output{Decision: events.Deny, Reason: shell.DefaultDenyReason}},
		{name: "deny with noisy stderr", r: shell.Result{ExitCode: 2, Stderr: []byte(long), StderrTruncated: true}, want: events.Output{Decision: events.Deny, Reason: strings.Repeat("é", shell.MaxReason/2-2) + "…"}},
		{name: "deny with invalid utf-8", r: shell.Result{ExitCode: 2, Stderr: []byte("a\xffb\xc3")}, want: events.Output{Decision: events.Deny, Reason: "a\uFFFDb\uFFFD"}},

		// exit 0: stdout is the output.
		{name: "proceed", r: shell.Result{}, want: events.Output{}},
		{name: "proceed with blank stdout", r: shell.Result{Stdout: []byte("\n \r\n")}, want: events.Output{}},
		{name: "proceed with stderr", r: shell.Result{Stderr: []byte("log line")}, want: events.Output{}},
		{name: "output", r: shell.Result{Stdout: []byte(`{"decision":"allow","mutatedText":"x","continueWork":{"reason":"more"}}`)}, want: events.Output{Decision: events.Allow, MutatedText: ptr("x"), ContinueWork: &events.ContinueWork{Reason: "more"}}},
		{name: "empty object", r: shell.Result{Stdout: []byte(" {} \n")}, want: events.Output{}},
		{name: "invalid json", r: shell.Result{Stdout: []byte(`{"decision":`)}, wantErr: shell.ErrInvalidOutput, errText: "invalid JSON"},
		{name: "not an object", r: shell.Result{Stdout: []byte(`[{}]`)}, wantErr: events.ErrNotObject},
		{name: "null", r: shell.Result{Stdout: []byte(`null`)}, wantErr: events.ErrNotObject},
		{name: "bad field", r: shell.Result{Stdout: []byte(`{"decision":"block"}`)}, wantErr: shell.ErrInvalidOutput, errText: "field decision"},
		{name: "wrong type", r: shell.Result{Stdout: []byte(`{"mutatedToolInput":[1]}`)}, wantErr: shell.ErrInvalidOutput, errText: "field mutatedToolInput"},
		{name: "stdout over its cap", r: shell.Result{Stdout: []byte(`{}`), StdoutTruncated: true}, wantErr: shell.ErrOutputTooLarge},
		{name: "stderr over its cap", r: shell.Result{Stdout: []byte(`{}`), StderrTruncated: true}, wantErr: shell.ErrOutputTooLarge},

		// Anything else is a failure, never a deny.
		{name: "exit 1", r: shell.Result{ExitCode: 1, Stderr: []byte("boom\n")}, wantErr: shell.ErrExit, errText: "exit status 1: boom"},
		{name: "exit 1 with a deny on stdout", r: shell.Result{ExitCode: 1, Stdout: []byte(`{"decision":"deny"}`)}, wantErr: shell.ErrExit},
		{name: "exit 126", r: shell.Result{ExitCode: 126}, wantErr: shell.ErrExit, errText: "exit status 126 (not executable)"},
		{name: "exit 127", r: shell.Result{ExitCode: 127}, wantErr: shell.ErrExit, errText: "exit status 127 (command not found)"},
		{name: "exit 3", r: shell.Result{ExitCode: 3}, wantErr: shell.ErrExit},
		{name: "exit 255", r: shell.Result{ExitCode: 255}, wantErr: shell.ErrExit},
		{name: "long stderr excerpt", r: shell.Result{ExitCode: 1, Stderr: []byte(long)}, wantErr: shell.ErrExit, errText: "…"},
		{name: "signal", r: shell.Result{ExitCode: -1, Signal: "segmentation fault"}, wantErr: shell.ErrSignal, errText: "segmentation fault"},
		{name: "signal with exit 2", r: shell.Result{ExitCode: 2, Signal: "killed"}, wantErr: shell.ErrSignal},
		{name: "no exit status", r: shell.Result{ExitCode: -1}, wantErr: shell.ErrSignal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := shell.Interpret(tc.r, tc.runErr)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.errText) {
					t.Errorf("error %q lacks %q", err, tc.errText)
				}
				if !reflect.DeepEqual(out, events.Output{}) {
					t.Errorf("output %+v with an error", out)
				}
				if len(err.Error()) > 2*shell.ExcerptLen+100 {
					t.Errorf("error message of %d bytes", len(err.Error()))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(out, tc.want) {
				t.Errorf("got %+v, want %+v", out, tc.want)
			}
		})
	}
	if _, err := shell.Interpret(shell.Result{}, runErr); err != runErr {
		t.Errorf("run error was changed to %v", err)
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	r := func(code int, sig string) error {
		_, err := shell.Interpret(shell.Result{ExitCode: code, Signal: sig, Stdout: []byte("x")}, nil)
		return err
	}
	for _, tc := range []struct {
		err  error
		want shell.Class
	}{
		{nil, shell.ClassNone},
		{shell.ErrTimeout, shell.ClassTimeout},
		{context.DeadlineExceeded, shell.ClassTimeout},
		{fmt.Errorf("x: %w", context.Canceled), shell.ClassCanceled},
		{shell.ErrOutputTooLarge, shell.ClassOutputTooLarge},
		{shell.ErrStart, shell.ClassStart},
		{r(1, ""), shell.ClassExit},
		{r(-1, "killed"), shell.ClassSignal},
		{r(0, ""), shell.ClassInvalidOutput},
		{errors.New("other"), shell.ClassOther},
	} {
		if got := shell.Classify(tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	if shell.IsTimeout(context.Canceled) || shell.IsTimeout(nil) || !shell.IsTimeout(shell.ErrTimeout) {
		t.Error("IsTimeout")
	}
}

// FuzzInterpret checks the contract for any exit status and output: no
// panic, exit 2 is always a deny with a bounded valid reason, 0 and 2 are
// the only statuses that are not failures, a failure is never a deny, and
// every accepted output is valid.
func FuzzInterpret(f *testing.F) {
	f.Add(0, []byte(""), []byte(""))
	f.Add(2, []byte(""), []byte("denied\n"))
	f.Add(0, []byte(`{"decision":"deny","reason":"r"}`), []byte(""))
	f.Add(1, []byte(`{}`), []byte("oops"))
	f.Add(127, []byte(""), []byte("sh: 1: x: not found"))
	f.Add(-1, []byte(""), []byte(""))
	f.Fuzz(func(t *testing.T, code int, stdout, stderr []byte) {
		r := shell.Result{ExitCode: code, Stdout: stdout, Stderr: stderr}
		out, err := shell.Interpret(r, nil)
		switch {
		case code == 2:
			if err != nil || out.Decision != events.Deny {
				t.Fatalf("exit 2: %+v, %v", out, err)
			}
			if out.Reason == "" || len(out.Reason) > shell.MaxReason || !utf8.ValidString(out.Reason) {
				t.Fatalf("exit 2: reason %q", out.Reason)
			}
		case code != 0:
			if err == nil {
				t.Fatalf("exit %d: no error", code)
			}
		}
		if err != nil {
			if !reflect.DeepEqual(out, events.Output{}) {
				t.Fatalf("output %+v with error %v", out, err)
			}
			if shell.Classify(err) == shell.ClassOther {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if err := out.Validate(); err != nil {
			t.Fatalf("invalid output accepted: %v", err)
		}
	})
}
