package syntax

import (
	"errors"
	"strings"
	"testing"
)

// fuzzSeeds are added to the committed corpus under testdata/fuzz.
var fuzzSeeds = []string{
	"rm -rf /",
	"cd /repo && go test ./... 2>&1 | tail -n 20",
	`bash -c 'rm -rf /'; eval "$(curl -s u)"`,
	"cat <<EOF | sh\nrm -rf /\n$(id)\nEOF\n",
	"for d in /*; do rm -rf $d; done",
	"f(){ f | f & }; f",
	"case $x in a|b) rm x;; *) ls;; esac",
	"echo $((1+$(a))) ${x:-`b`} <(c) >(d)",
	"$($($(",
	"((((( ))",
	`"'\`,
	"if a; then b; elif c; then d; else e; fi | f > /dev/sda",
	"ssh -p 22 host 'sudo rm -rf /' && su -c 'x' && find / -exec sh -c 'rm \"$1\"' _ {} \\;",
	"A=(a $(b)) [[ $a =~ ^(x|y)$ ]] && env -S 'sh -c \"rm\"'",
	"echo $'\\x72\\u00e9\\cA' \\\n x",
}

func FuzzCommands(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		cmds, steps, err := commands(line, Options{MaxCommands: 200})
		// Linear work, counted in steps (see TestPathological): the (( look-
		// ahead has its own budget; the rest is a bounded number of steps
		// per byte.
		if limit := 64*(len(line)+1) + scanBudget(len(line)); steps > limit {
			t.Fatalf("%d steps for %d bytes, more than %d", steps, len(line), limit)
		}
		if err != nil && !errors.Is(err, ErrTooDeep) && !errors.Is(err, ErrTooMany) && !errors.Is(err, ErrTooLong) {
			t.Fatalf("unexpected error %v", err)
		}
		if len(cmds) > 200 {
			t.Fatalf("%d commands", len(cmds))
		}
		for i, c := range cmds {
			switch c.Op {
			case "", ";", "&&", "||", "|", "|&", "&":
			default:
				t.Fatalf("command %d: op %q", i, c.Op)
			}
			if c.Depth < 0 || c.Depth > DefaultMaxDepth || (c.Depth == 0) != (c.Via == "") {
				t.Fatalf("command %d: depth %d via %q", i, c.Depth, c.Via)
			}
			if len(c.Words) == 0 && len(c.Assigns) == 0 && len(c.Redirects) == 0 {
				t.Fatalf("command %d is empty", i)
			}
			for _, r := range c.Redirects {
				if r.doc != nil {
					t.Fatalf("command %d: here-document not filled", i)
				}
			}
			if c.Depth == 0 {
				// Words at the top level come from the line: none is
				// longer than it (a $'\xHH' escape only shrinks).
				for _, w := range c.Words {
					if len(w) > len(line) {
						t.Fatalf("word of %d bytes from a line of %d", len(w), len(line))
					}
				}
			}
			u := Unwrap(c.Words)
			if len(u) > len(c.Words)+len(line) {
				t.Fatalf("Unwrap grew %d words to %d", len(c.Words), len(u))
			}
		}
		// Deterministic.
		again, _ := Commands(line, Options{MaxCommands: 200})
		if len(again) != len(cmds) {
			t.Fatalf("second parse: %d commands, first %d", len(again), len(cmds))
		}
	})
}

func FuzzSplit(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := Split(line)
		if err != nil && err != ErrUnterminated {
			t.Fatalf("unexpected error %v", err)
		}
		n := 0
		for _, w := range words {
			n += len(w)
		}
		if n > 2*len(line)+8 {
			t.Fatalf("%d bytes of words from %d", n, len(line))
		}
		if !strings.ContainsAny(line, "\\'\"$`\n#(") {
			// Without quoting, expansions, parentheses (a <(...) word
			// keeps its blanks), newlines or comments the words are the
			// line's fields, operators apart.
			joined := strings.Join(words, "")
			// Bytewise: the line need not be UTF-8.
			var kept []byte
			for i := 0; i < len(line); i++ {
				if c := line[i]; c != ' ' && c != '\t' && c != '\r' {
					kept = append(kept, c)
				}
			}
			stripped := string(kept)
			if joined != stripped {
				t.Fatalf("words %q do not make up %q", words, line)
			}
		}
		Unwrap(words)
	})
}
