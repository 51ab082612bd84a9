package syntax_test

import (
	"fmt"
	"strings"

	"github.com/monad-hooks/monad-hooks/shell/syntax"
)

func ExampleCommands() {
	cmds, err := syntax.Commands(`cd /repo && go test ./... 2>&1 | tail -n 20`, syntax.Options{})
	if err != nil {
		panic(err)
	}
	for _, c := range cmds {
		fmt.Printf("%q op=%q", c.Words, c.Op)
		for _, r := range c.Redirects {
			fmt.Printf(" fd=%q redirect=%q target=%q", r.Fd, r.Op, r.Target)
		}
		fmt.Println()
	}
	// Output:
	// ["cd" "/repo"] op="&&"
	// ["go" "test" "./..."] op="|" fd="2" redirect=">&" target="1"
	// ["tail" "-n" "20"] op=""
}

// Commands inside substitutions and command strings are listed after the
// pipeline that holds them, one level deeper.
func ExampleCommands_nested() {
	cmds, _ := syntax.Commands(`echo $(date) | sudo bash -c 'r\m -rf "/tmp/x"'`, syntax.Options{})
	for _, c := range cmds {
		fmt.Printf("%d %-4q %q %q\n", c.Depth, c.Via, c.Words, c.Op)
	}
	// Output:
	// 0 ""   ["echo" "$(date)"] "|"
	// 0 ""   ["sudo" "bash" "-c" "r\\m -rf \"/tmp/x\""] ""
	// 1 "$(" ["date"] ""
	// 1 "bash" ["rm" "-rf" "/tmp/x"] ""
}

// Assignments are kept, not expanded: a guard can resolve $R itself.
func ExampleCommands_assigns() {
	cmds, _ := syntax.Commands(`R=rm; $R -rf /`, syntax.Options{})
	vars := map[string]string{}
	for _, c := range cmds {
		for k, v := range c.Assigns {
			vars[k] = v
		}
		if len(c.Words) > 0 {
			name := c.Words[0]
			if v, ok := vars[strings.TrimPrefix(name, "$")]; ok {
				name = v
			}
			fmt.Println(name, c.Words[1:])
		}
	}
	// Output:
	// rm [-rf /]
}

// Here-document bodies are kept with their redirection.
func ExampleCommands_hereDoc() {
	cmds, _ := syntax.Commands("cat <<'EOF' | sh\nrm -rf /\nEOF", syntax.Options{})
	fmt.Printf("%q %q %q\n", cmds[0].Words, cmds[0].Redirects[0].Body, cmds[1].Words)
	// Output:
	// ["cat"] "rm -rf /\n" ["sh"]
}

// Malformed input keeps its words and is flagged.
func ExampleCommands_malformed() {
	cmds, err := syntax.Commands(`rm -rf "/`, syntax.Options{})
	fmt.Printf("%q %v %v\n", cmds[0].Words, cmds[0].Malformed, err)
	// Output:
	// ["rm" "-rf" "/"] true <nil>
}

func ExampleSplit() {
	words, err := syntax.Split(`git commit -m "fix: don't panic" && r\m 'a b'`)
	fmt.Printf("%q %v\n", words, err)
	// Output:
	// ["git" "commit" "-m" "fix: don't panic" "&&" "rm" "a b"] <nil>
}

func ExampleUnwrap() {
	words, _ := syntax.Split(`sudo -u root env FOO=1 nice -n 10 timeout 5m xargs -0 rm -rf`)
	fmt.Printf("%q\n", syntax.Unwrap(words))
	// Output:
	// ["rm" "-rf"]
}
