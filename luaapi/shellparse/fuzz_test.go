package shellparse

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzSplit checks that Split and Commands never panic, stay within their
// bounds, and that Split is stable: re-quoting the words it returns and
// splitting again gives the same words.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		"", "ls -la", `r\m -rf /`, `"rm" '-rf' /`, `echo $'\x41\n'`, "a\\\nb",
		"echo $(rm -rf /)", "echo `ls`", "bash -c 'rm -rf /; ls'", "sudo -u root env X=1 rm x",
		"if a; then b; fi", "case x in a) b;; esac", "cat <<EOF\nbody\nEOF\n", "f() { x; }",
		"echo ${x:-$(y)} $((1+2))", "diff <(a) >(b)", "X=1 Y='2' cmd >f 2>&1 &", `echo "unterminated`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := Split(s)
		if err == nil {
			var b strings.Builder
			for i, w := range words {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(quote(w))
			}
			again, err2 := Split(b.String())
			if err2 != nil || !reflect.DeepEqual(again, words) && !(len(again) == 0 && len(words) == 0) {
				t.Fatalf("Split(%q) = %q; re-split of %q = %q, %v", s, words, b.String(), again, err2)
			}
		}
		cmds, _ := Commands(s)
		if len(cmds) > MaxCommands {
			t.Fatalf("%d commands", len(cmds))
		}
		for _, c := range cmds {
			Unwrap(c.Words)
			switch c.Op {
			case "", ";", "&&", "||", "|", "|&", "&":
			default:
				t.Fatalf("op %q", c.Op)
			}
		}
	})
}
