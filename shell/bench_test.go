//go:build unix

package shell_test

import (
	"bytes"
	"context"
	"os/exec"
	"testing"

	"github.com/monad-hooks/monad-hooks/shell"
)

// The benchmarks run the same command hook, a script that exits 0, with the
// same stdin: through Run, and through a plain exec.Command of the same
// /bin/sh -c line capturing its output, so that the ratio is Run's own
// overhead (pipes, process group, kill of the group, bounded capture).
// BenchmarkBareExecScript execs the script without the shell, for
// reference.
const benchLine = "./testdata/exit0.sh"

var benchStdin = []byte(`{"event":"BeforeTool","sessionId":"s1","cwd":"/work","timestamp":"2025-01-01T00:00:00Z","toolName":"shell_exec","toolInput":{"command":"ls -la"}}`)

func BenchmarkRun(b *testing.B) {
	c := shell.Command{Line: benchLine, Env: testEnv}
	ctx := context.Background()
	for b.Loop() {
		r, err := shell.Run(ctx, c, benchStdin)
		if err != nil || r.ExitCode != 0 {
			b.Fatal(r, err)
		}
	}
}

func BenchmarkBareExec(b *testing.B) {
	for b.Loop() {
		benchBare(b, exec.Command("/bin/sh", "-c", benchLine))
	}
}

func BenchmarkBareExecScript(b *testing.B) {
	for b.Loop() {
		benchBare(b, exec.Command(benchLine))
	}
}

func benchBare(b *testing.B, cmd *exec.Cmd) {
	var stdout, stderr bytes.Buffer
	cmd.Env = testEnv
	cmd.Stdin = bytes.NewReader(benchStdin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
}
