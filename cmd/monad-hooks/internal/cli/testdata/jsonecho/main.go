// Jsonecho decodes the JSON document on stdin and writes it back encoded:
// the floor of a process that reads a HookInput and answers, against which
// BenchmarkCLIJSONEcho measures monad-hooks run.
package main

import (
	"encoding/json"
	"io"
	"os"
)

func main() {
	b, err := io.ReadAll(os.Stdin)
	if err != nil {
		os.Exit(1)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(v); err != nil {
		os.Exit(1)
	}
}
