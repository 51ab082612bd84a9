//go:build unix

package shell_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/shell"
)

// echoHook answers every line with the line itself.
const echoHook = `while IFS= read -r line; do printf '%s\n' "$line"; done`

func resident(t *testing.T, c shell.Command) *shell.Resident {
	t.Helper()
	if c.Env == nil {
		c.Env = testEnv
	}
	if c.Timeout == 0 {
		c.Timeout = hangGuard
	}
	r := shell.NewResident(c)
	t.Cleanup(func() { r.Close() })
	return r
}

// call runs r.Call, failing the test if it has not returned within
// hangGuard.
func call(t *testing.T, ctx context.Context, r *shell.Resident, req string) (string, error) {
	t.Helper()
	var reply []byte
	_, err, _ := returns(t, func() (shell.Result, error) {
		var err error
		reply, err = r.Call(ctx, []byte(req))
		return shell.Result{}, err
	})
	return string(reply), err
}

// TestResidentServesCallsOnOneProcess: one process answers call after
// call, in its environment and directory.
func TestResidentServesCallsOnOneProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := resident(t, shell.Command{Line: `while IFS= read -r line; do printf '{"reason":"%s %s %s"}\n' "$FOO" "$PWD" "$$"; done`,
		Env: []string{"FOO=bar"}, Dir: dir})
	var pid string
	for i := range 5 {
		reply, err := call(t, context.Background(), r, fmt.Sprintf(`{"n":%d}`, i))
		require.NoError(t, err)
		out, err := shell.InterpretReply([]byte(reply), nil)
		require.NoError(t, err)
		f := strings.Fields(out.Reason)
		require.Len(t, f, 3, reply)
		require.Equal(t, []string{"bar", dir}, f[:2])
		if pid == "" {
			pid = f[2]
		}
		require.Equal(t, pid, f[2], "the same process")
	}
	require.EqualValues(t, 1, r.Starts())
}

// TestResidentTakesTurns: concurrent calls are serialized on the process,
// each gets its own reply.
func TestResidentTakesTurns(t *testing.T) {
	t.Parallel()
	r := resident(t, shell.Command{Line: echoHook})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 20 {
				req := fmt.Sprintf(`{"reason":"%d-%d"}`, i, j)
				reply, err := r.Call(context.Background(), []byte(req))
				if err != nil || string(reply) != req {
					t.Errorf("%s: %q %v", req, reply, err)
				}
			}
		})
	}
	wg.Wait()
	require.EqualValues(t, 1, r.Starts())
}

// TestResidentRestartsAfterExit: a process that exits between calls is
// started again by the next call; one that exits instead of replying fails
// that call, quoting its stderr, and the next call starts a fresh one.
func TestResidentRestartsAfterExit(t *testing.T) {
	t.Parallel()
	r := resident(t, shell.Command{Line: `IFS= read -r line; case "$line" in *die*) echo "dying on purpose" >&2; exit 3;; esac; echo '{}'`})
	for i := range 3 {
		reply, err := call(t, context.Background(), r, `{"n":1}`)
		require.NoError(t, err, "call %d", i)
		require.Equal(t, "{}", reply)
	}
	_, err := call(t, context.Background(), r, `{"die":1}`)
	require.ErrorIs(t, err, shell.ErrExit)
	require.ErrorContains(t, err, "exit status 3")
	require.ErrorContains(t, err, "dying on purpose")
	reply, err := call(t, context.Background(), r, `{}`)
	require.NoError(t, err)
	require.Equal(t, "{}", reply)
	require.EqualValues(t, 5, r.Starts())
}

// TestResidentTimeoutKillsTheGroup: a call that gets no reply within the
// timeout kills the process and what it started; the next call starts a
// fresh process.
func TestResidentTimeoutKillsTheGroup(t *testing.T) {
	t.Parallel()
	path, readPid := pidFile(t)
	// The timeout covers the first call, the process's start included: far
	// above a start on a loaded machine (startBound), so that only the
	// hanging call can miss it.
	r := resident(t, shell.Command{Timeout: startBound, Line: `sleep 600 & echo $! > ` + path + `
while IFS= read -r line; do case "$line" in *hang*) sleep 600;; *) echo '{}';; esac; done`})
	reply, err := call(t, context.Background(), r, `{}`)
	require.NoError(t, err)
	require.Equal(t, "{}", reply)
	child := readPid()
	_, err = call(t, context.Background(), r, `{"hang":1}`)
	require.True(t, shell.IsTimeout(err), "%v", err)
	require.ErrorIs(t, err, shell.ErrTimeout)
	assertDies(t, child)
	reply, err = call(t, context.Background(), r, `{}`)
	require.NoError(t, err)
	require.Equal(t, "{}", reply)
	require.EqualValues(t, 2, r.Starts())
}

// TestResidentCanceled: a call whose context ends gets its error, and the
// process it was talking to is replaced.
func TestResidentCanceled(t *testing.T) {
	t.Parallel()
	// Canceled once the process runs, so that the call was talking to it.
	path, _ := pidFile(t)
	r := resident(t, shell.Command{Line: `echo $$ > ` + path + `
while IFS= read -r line; do case "$line" in *hang*) sleep 600;; *) echo '{}';; esac; done`})
	ctx, cancel := context.WithCancel(context.Background())
	afterWritten(path, cancel)
	_, err := call(t, ctx, r, `{"hang":1}`)
	require.ErrorIs(t, err, context.Canceled)
	_, err = call(t, context.Background(), r, `{}`)
	require.NoError(t, err)
	require.EqualValues(t, 2, r.Starts())
}

// TestResidentBoundsTheReply: a reply line over MaxStdout fails the call.
func TestResidentBoundsTheReply(t *testing.T) {
	t.Parallel()
	r := resident(t, shell.Command{MaxStdout: 100, Line: `while IFS= read -r line; do head -c 5000 /dev/zero | tr '\0' x; echo; done`})
	_, err := call(t, context.Background(), r, `{}`)
	require.ErrorIs(t, err, shell.ErrOutputTooLarge)
}

// TestResidentClose: Close ends the process; a call after it runs a process
// of its own, ended after the call.
func TestResidentClose(t *testing.T) {
	t.Parallel()
	path, readPid := pidFile(t)
	r := resident(t, shell.Command{Line: `echo $$ > ` + path + `; ` + echoHook})
	_, err := call(t, context.Background(), r, `{}`)
	require.NoError(t, err)
	pid := readPid()
	require.NoError(t, r.Close())
	assertDies(t, pid)
	reply, err := call(t, context.Background(), r, `{"a":1}`)
	require.NoError(t, err)
	require.Equal(t, `{"a":1}`, reply)
	assertDies(t, readPid())
	require.EqualValues(t, 2, r.Starts())
}

// TestResidentRefusesBadRequests: no command, a request of several lines.
func TestResidentRefusesBadRequests(t *testing.T) {
	t.Parallel()
	_, err := shell.NewResident(shell.Command{}).Call(context.Background(), []byte(`{}`))
	require.ErrorIs(t, err, shell.ErrStart)
	r := resident(t, shell.Command{Line: echoHook})
	_, err = r.Call(context.Background(), []byte("{}\n{}"))
	require.ErrorIs(t, err, shell.ErrStart)
	require.EqualValues(t, 0, r.Starts())
}

func TestInterpretReply(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		reply string
		want  events.Output
		err   error
		class shell.Class
	}{
		{reply: "", want: events.Output{}},
		{reply: "  ", want: events.Output{}},
		{reply: "{}", want: events.Output{}},
		{reply: `{"decision":"deny","reason":"no"}`, want: events.Output{Decision: events.Deny, Reason: "no"}},
		{reply: `{"decision":"deny","error":null}`, want: events.Output{Decision: events.Deny}},
		{reply: `{"event":"BeforeTool","decision":"deny","reason":"r","audit":[]}`, want: events.Output{Decision: events.Deny, Reason: "r"}},
		{reply: `{"error":"boom"}`, err: shell.ErrReported, class: shell.ClassReported},
		{reply: `{"error":{"code":1}}`, err: shell.ErrReported, class: shell.ClassReported},
		{reply: `{"decision":"maybe"}`, err: shell.ErrInvalidOutput, class: shell.ClassInvalidOutput},
		{reply: `not json`, err: shell.ErrInvalidOutput, class: shell.ClassInvalidOutput},
	} {
		out, err := shell.InterpretReply([]byte(c.reply), nil)
		if c.err != nil {
			require.ErrorIs(t, err, c.err, c.reply)
			require.Equal(t, c.class, shell.Classify(err), c.reply)
			continue
		}
		require.NoError(t, err, c.reply)
		require.Equal(t, c.want, out, c.reply)
	}
	callErr := errors.New("x")
	_, err := shell.InterpretReply([]byte("{}"), callErr)
	require.Same(t, callErr, err)
}
