//go:build unix

package shell_test

import (
	"context"
	"fmt"
	"time"

	"github.com/monad-hooks/monad-hooks/shell"
)

// A command hook runs with a sanitized environment and a timeout; Interpret
// turns what it did into the hook contract.
func Example() {
	host := []string{"PATH=/usr/bin:/bin", "HOME=/home/agent", "OPENAI_API_KEY=sk-secret", "MONAD_SESSION=42"}
	cmd := shell.Command{
		Line:    `grep -q '"toolName":"shell_exec"' && { echo "no shell here" >&2; exit 2; }; echo '{"additionalContext":"checked"}'`,
		Env:     shell.SanitizeEnv(host),
		Timeout: 5 * time.Second,
	}
	for _, input := range []string{
		`{"event":"BeforeTool","toolName":"shell_exec","toolInput":{"command":"ls"}}`,
		`{"event":"BeforeTool","toolName":"file_read","toolInput":{"path":"README.md"}}`,
	} {
		r, err := shell.Run(context.Background(), cmd, []byte(input))
		out, err := shell.Interpret(r, err)
		if err != nil {
			// A failure, never a deny: the engine skips the hook, or
			// blocks if it is configured with onError: "deny".
			fmt.Println("failed:", shell.Classify(err), err)
			continue
		}
		fmt.Printf("decision=%q reason=%q context=%q\n", out.Decision, out.Reason, out.AdditionalContext)
	}
	// Output:
	// decision="deny" reason="no shell here" context=""
	// decision="proceed" reason="" context="checked"
}

func ExampleSanitizeEnv() {
	fmt.Println(shell.SanitizeEnv([]string{
		"PATH=/usr/bin:/bin",
		"GITHUB_TOKEN=ghp_x",
		"my_Api_kEy=1",
		"MONAD_SOCKET=/run/monad.sock",
		"LANG=C.UTF-8",
		"QUERY=a=b",
	}))
	// Output: [PATH=/usr/bin:/bin LANG=C.UTF-8 QUERY=a=b]
}

func ExampleInterpret() {
	// A fake result, as a test Runner would return it.
	out, err := shell.Interpret(shell.Result{ExitCode: 2, Stderr: []byte("force-push is not allowed\n")}, nil)
	fmt.Println(out.Decision, out.Reason, err)
	_, err = shell.Interpret(shell.Result{ExitCode: 127, Stderr: []byte("sh: 1: guard: not found\n")}, nil)
	fmt.Println(shell.Classify(err), err)
	// Output:
	// deny force-push is not allowed <nil>
	// exit shell: command hook failed: exit status 127 (command not found): sh: 1: guard: not found
}
