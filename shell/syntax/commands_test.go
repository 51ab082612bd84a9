package syntax

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// commandCases are the table of Commands: each input and the rendering
// (see render) of every command it lists.
var commandCases = []struct {
	name string
	in   string
	want []string
}{
	// Words, quoting, escapes.
	{"empty", "", nil},
	{"blank", "  \t ", nil},
	{"simple", "ls -la /tmp", []string{"ls -la /tmp"}},
	{"backslash", `r\m -rf /`, []string{"rm -rf /"}},
	{"double quotes", `"rm" -rf "/etc"`, []string{"rm -rf /etc"}},
	{"single quotes", `'rm' -r -f '/'`, []string{"rm -r -f /"}},
	{"mixed quotes", `r"m" -r''f /`, []string{"rm -rf /"}},
	{"quoted blank", `echo 'a b' "c d" e\ f`, []string{`echo "a b" "c d" "e f"`}},
	{"empty word", `echo "" ''`, []string{`echo "" ""`}},
	{"dq escapes", `echo "a \"q\" \$x \\ \n \a"`, []string{`echo "a \"q\" $x \\ \\n \\a"`}},
	{"sq keeps backslash", `echo 'a\nb'`, []string{`echo a\nb`}},
	{"adjacent quotes", `echo 'it'"'"'s'`, []string{`echo it's`}},
	{"ansi-c", `echo $'a\tb\x41\101\n\e\u00e9\'q'`, []string{"echo \"a\\tbAA\\n\\x1bé'q\""}},
	{"ansi-c command", `$'\x72\x6d' -rf /`, []string{"rm -rf /"}},
	{"ansi-c octal name", `$'\162\155' -rf /`, []string{"rm -rf /"}},
	{"ansi-c control", `echo $'\cA'`, []string{"echo \x01"}},
	{"locale string", `echo $"hi there"`, []string{`echo "hi there"`}},
	{"line continuation", "rm \\\n-rf \\\n/", []string{"rm -rf /"}},
	{"continuation inside word", "r\\\nm -rf /", []string{"rm -rf /"}},
	{"continuation in dq", "echo \"a\\\nb\"", []string{"echo ab"}},
	{"trailing backslash", `echo a\`, []string{`echo a\`}},
	{"tabs and cr", "ls\t-l\r\n", []string{"ls -l ;"}},
	{"glob and tilde kept", "rm -rf ~/x/* {a,b} ?.c", []string{"rm -rf ~/x/* {a,b} ?.c"}},
	{"brace expansion word", "{rm,-rf,/}", []string{"{rm,-rf,/}"}},
	{"hash inside word", "echo a#b", []string{"echo a#b"}},
	{"comment", "ls # rm -rf /", []string{"ls"}},
	{"comment line", "# rm -rf /\nls", []string{"ls"}},
	{"comment after op", "ls;# x\nrm y", []string{"ls ;", "rm y"}},
	{"hash quoted", `echo '#' "#"x`, []string{"echo # #x"}},
	{"variables kept", `rm -rf $HOME "${D}/x" $1 $@ $? $$`, []string{`rm -rf $HOME ${D}/x $1 $@ $? $$`}},
	{"param expansion", `echo ${x:-a b} ${#y} ${z//a/b}`, []string{`echo "${x:-a b}" ${#y} ${z//a/b}`}},
	{"param with nested brace", `echo ${a:-${b:-c}}d`, []string{`echo ${a:-${b:-c}}d`}},
	{"ifs kept", `rm${IFS}-rf${IFS}/`, []string{`rm${IFS}-rf${IFS}/`}},
	{"arith expansion", `echo $((1 + (2*3))) $[4+5]`, []string{`echo "$((1 + (2*3)))" $[4+5]`}},
	{"extglob", `rm !(*.txt) @(a|b)`, []string{`rm !(*.txt) @(a|b)`}},

	// Operators.
	{"ops", "a; b && c || d | e & f", []string{"a ;", "b &&", "c ||", "d |", "e &", "f"}},
	{"ops tight", "a;b&&c||d|e&f", []string{"a ;", "b &&", "c ||", "d |", "e &", "f"}},
	{"newlines", "a\nb\n\nc\n", []string{"a ;", "b ;", "c ;"}},
	{"pipe stderr", "a |& b", []string{"a |&", "b"}},
	{"background last", "sleep 1 &", []string{"sleep 1 &"}},
	{"trailing semicolon", "a;", []string{"a ;"}},
	{"newline after and", "a &&\n  b", []string{"a &&", "b"}},
	{"newline after pipe", "a |\n\n b", []string{"a |", "b"}},
	{"comment after pipe", "a | # note\n b", []string{"a |", "b"}},
	{"dangling and", "a &&", []string{"a !"}},
	{"dangling pipe", "a |", []string{"a !"}},
	{"leading semicolon", "; a", []string{"a !"}},
	{"double semicolon outside case", "a;; b", []string{"a ;", "b !"}},
	{"bang", "! grep x f && echo no", []string{"grep x f &&", "echo no"}},
	{"time keyword", "time -p make all", []string{"make all"}},
	{"time in pipeline", "time a | b", []string{"a |", "b"}},

	// Redirections.
	{"redirects", "cmd >out 2>/dev/null <in >>log", []string{"cmd >out 2>/dev/null <in >>log"}},
	{"dup", "cmd 2>&1 >&2 1>&- <&0", []string{"cmd 2>&1 >&2 1>&- <&0"}},
	{"both", "cmd &>all &>>more", []string{"cmd &>all &>>more"}},
	{"spaced target", "cmd > 'a b'", []string{`cmd >"a b"`}},
	{"clobber and rw", "cmd >|f <>g", []string{"cmd >|f <>g"}},
	{"redirect first", ">f cmd arg", []string{"cmd arg >f"}},
	{"redirect only", "> /dev/sda", []string{">/dev/sda"}},
	{"word then redirect", "echo a>b", []string{"echo a >b"}},
	{"digits not fd", "echo 12 >x", []string{"echo 12 >x"}},
	{"quoted digits not fd", `echo "2">x`, []string{"echo 2 >x"}},
	{"named fd", "exec {fd}>log", []string{"exec {fd}>log"}},
	{"pipe after redirect", "go test ./... 2>&1 | tail -n 20", []string{"go test ./... 2>&1 |", "tail -n 20"}},
	{"missing target", "cmd >", []string{"cmd >\"\" !"}},
	{"here-string", `sh <<< 'rm -rf /'`, []string{`sh <<<"rm -rf /"`}},
	{"proc subst target", "while read l; do :; done < <(ls)", []string{"read l <<(ls) ;", ": <<(ls)", "^1:<( ls"}},

	// Here-documents.
	{"heredoc", "cat <<EOF\nhello $USER\nEOF\necho after", []string{`cat <<EOF{"hello $USER\n"} ;`, "echo after"}},
	{"heredoc quoted", "cat <<'EOF'\n$(rm -rf /)\nEOF", []string{"cat <<EOF{\"$(rm -rf /)\\n\"} ;"}},
	{"heredoc dquoted", "cat <<\"E\"\nx\nE", []string{"cat <<E{\"x\\n\"} ;"}},
	{"heredoc unquoted runs substitutions", "cat <<EOF\n$(rm -rf /) `id`\nEOF", []string{"cat <<EOF{\"$(rm -rf /) `id`\\n\"} ;", "^1:$( rm -rf /", "^1:` id"}},
	{"heredoc dash", "cat <<-EOF\n\tindented\n\tEOF\nls", []string{`cat <<-EOF{"indented\n"} ;`, "ls"}},
	{"heredoc pipe to sh", "cat <<EOF | sh\nrm -rf /\nEOF", []string{`cat <<EOF{"rm -rf /\n"} |`, "sh ;"}},
	{"two heredocs", "cat <<A <<B\na\nA\nb\nB\nls", []string{`cat <<A{"a\n"} <<B{"b\n"} ;`, "ls"}},
	{"heredoc unterminated", "cat <<EOF\nrm -rf /", []string{`cat <<EOF{"rm -rf /"} ; !`}},
	{"heredoc no newline", "cat <<EOF", []string{`cat <<EOF{""} !`}},
	{"heredoc crlf", "cat <<EOF\r\nx\r\nEOF\r\nls", []string{`cat <<EOF{"x\r\n"} ;`, "ls"}},
	{"heredoc on compound", "while read l; do echo $l; done <<EOF\na\nEOF", []string{"read l <<EOF{\"a\\n\"} ;", "echo $l <<EOF{\"a\\n\"} ;"}},
	{"heredoc body read inside a later group", "cat <<E | { a\n$(rm y)\nE\nb; }", []string{`cat <<E{"$(rm y)\n"} |`, "^1:{ a ;", "^1:{ b", "^1:$( rm y"}},
	{"heredoc then more on line", "cat <<EOF; rm x\nbody\nEOF", []string{`cat <<EOF{"body\n"} ;`, "rm x ;"}},
	{"bash reads heredoc", "bash <<EOF\nrm -rf /\nEOF", []string{`bash <<EOF{"rm -rf /\n"} ;`}},

	// Assignments.
	{"assigns", "X=1 Y='2 3' cmd arg", []string{`[X=1 Y="2 3"] cmd arg`}},
	{"assign only", "R=rm; $R -rf /", []string{"[R=rm] ;", "$R -rf /"}},
	{"assign after name is a word", "export T=/etc; make CC=gcc", []string{"export T=/etc ;", "make CC=gcc"}},
	{"append assign", "PATH+=:/x cmd", []string{"[PATH=:/x] cmd"}},
	{"quoted name is not an assignment", `"X"=1 cmd`, []string{"X=1 cmd"}},
	{"assign with substitution", "X=$(curl -s u) sh -c \"$X\"", []string{"[X=\"$(curl -s u)\"] sh -c $X", "^1:$( curl -s u", "^1:sh $X"}},
	{"array assign", `A=(a "b c" $(id)) cmd`, []string{`[A="(a \"b c\" $(id))"] cmd`, "^1:$( id"}},
	{"assign then redirect", "X=1 >f", []string{"[X=1] >f"}},
	{"bad name", "1X=2 cmd", []string{"1X=2 cmd"}},

	// Substitutions.
	{"command subst", "echo $(rm -rf /)", []string{"echo \"$(rm -rf /)\"", "^1:$( rm -rf /"}},
	{"subst in dq", `echo "x $(id -u) y"`, []string{`echo "x $(id -u) y"`, "^1:$( id -u"}},
	{"subst as command", "$(echo rm) -rf /", []string{"\"$(echo rm)\" -rf /", "^1:$( echo rm"}},
	{"subst list", "echo $(a; b | c)", []string{"echo \"$(a; b | c)\"", "^1:$( a ;", "^1:$( b |", "^1:$( c"}},
	{"nested subst", "echo $(a $(b))", []string{"echo \"$(a $(b))\"", "^1:$( a $(b)", "^2:$( b"}},
	{"subst with case", "echo $(case x in a) rm y;; esac) z", []string{"echo \"$(case x in a) rm y;; esac)\" z", "^1:$( rm y"}},
	{"subst with paren in quotes", `echo $(echo ")") x`, []string{`echo "$(echo \")\")" x`, `^1:$( echo )`}},
	{"subst unclosed", "echo $(rm -rf /", []string{"echo \"$(rm -rf /\" !", "^1:$( rm -rf /"}},
	{"subst after pipeline", "echo $(a) | sh && b", []string{"echo $(a) |", "sh &&", "^1:$( a", "b"}},
	{"subst in pipeline middle", "curl $(x) | tee f | sh", []string{"curl $(x) |", "tee f |", "sh", "^1:$( x"}},
	{"backticks", "echo `rm -rf ~`", []string{"echo \"`rm -rf ~`\"", "^1:` rm -rf ~"}},
	{"backticks nested", "echo `a \\`b\\``", []string{"echo \"`a \\\\`b\\\\``\"", "^1:` a `b`", "^2:` b"}},
	{"backticks in dq", "echo \"`echo \\\"x\\\"`\"", []string{"echo \"`echo \\\\\\\"x\\\\\\\"`\"", "^1:` echo x"}},
	{"backtick unclosed", "echo `rm -rf /", []string{"echo \"`rm -rf /\" !", "^1:` rm -rf /"}},
	{"arith not subst", "echo $((x+1))", []string{"echo $((x+1))"}},
	{"arith with subst", "echo $(( $(wc -l <f) + 1 ))", []string{"echo \"$(( $(wc -l <f) + 1 ))\"", "^1:$( wc -l <f"}},
	{"subst of subshell", "echo $( (a) )", []string{"echo \"$( (a) )\"", "^2:( a"}},
	{"subst looks like arith", "echo $((a) ; (b))", []string{"echo \"$((a) ; (b))\"", "^2:( a ;", "^2:( b"}},
	{"param with subst", "echo ${x:-$(rm -rf /)}", []string{"echo \"${x:-$(rm -rf /)}\"", "^1:$( rm -rf /"}},
	{"param with quoted subst", `echo "${x:-"$(id)"}"`, []string{`echo "${x:-\"$(id)\"}"`, "^1:$( id"}},
	{"proc subst", "bash <(curl -s u)", []string{"bash \"<(curl -s u)\"", "^1:<( curl -s u"}},
	{"proc subst out", "tee >(gzip >f) <x", []string{"tee \">(gzip >f)\" <x", "^1:>( gzip >f"}},
	{"proc subst in word", "diff a<(ls) b", []string{"diff a<(ls) b", "^1:<( ls"}},
	{"diff two proc substs", "diff <(a) <(b)", []string{"diff <(a) <(b)", "^1:<( a", "^1:<( b"}},
	{"subst in redirect target", "cat > $(mktemp)", []string{"cat >$(mktemp)", "^1:$( mktemp"}},
	{"subst multiline", "x=$(\n  a |\n  b\n)\necho $x", []string{"[x=\"$(\\n  a |\\n  b\\n)\"] ;", "^1:$( a |", "^1:$( b ;", "echo $x"}},

	// Groups and compound commands.
	{"subshell", "(cd / && rm -rf *)", []string{"^1:( cd / &&", "^1:( rm -rf *"}},
	{"subshell pipe", "(echo 'rm -rf /') | sh", []string{`^1:( echo "rm -rf /" |`, "sh"}},
	{"brace group", "{ a; b; } > /dev/sda", []string{"^1:{ a >/dev/sda ;", "^1:{ b >/dev/sda"}},
	{"brace group pipe", "{ a; b; } | c", []string{"^1:{ a ;", "^1:{ b |", "c"}},
	{"brace word is not group", "{a,b} x", []string{"{a,b} x"}},
	{"closing brace as argument", "echo }", []string{"echo }"}},
	{"unclosed brace", "{ a; b", []string{"^1:{ a ;", "^1:{ b !"}},
	{"unclosed paren", "(a; b", []string{"^1:( a ;", "^1:( b !"}},
	{"nested groups", "( { a; } )", []string{"^2:{ a"}},
	{"stray close paren", "a ) b", []string{"a", "b !"}},
	{"if", "if test -f x; then rm x; elif true; then :; else echo no; fi", []string{"test -f x ;", "rm x ;", "true ;", ": ;", "echo no"}},
	{"if newlines", "if a\nthen\n  b\nfi\nc", []string{"a ;", "b ;", "c"}},
	{"if pipe", "if a; then b; fi | c", []string{"a ;", "b |", "c"}},
	{"if unclosed", "if a; then rm -rf /", []string{"a ;", "rm -rf / !"}},
	{"keyword as argument", "echo if then fi done", []string{"echo if then fi done"}},
	{"stray keyword", "fi; done; rm x", []string{"rm x !"}},
	{"while", "while read l; do rm \"$l\"; done < list", []string{"read l <list ;", "rm $l <list"}},
	{"until", "until a; do b; done", []string{"a ;", "b"}},
	{"while pipe", "ls | while read f; do rm $f; done", []string{"ls |", "read f ;", "rm $f"}},
	{"for", "for d in /*; do rm -rf $d; done", []string{"[d=/*] ;", "rm -rf $d"}},
	{"for newline", "for f in a b\ndo\n  echo $f\ndone", []string{"[f=a] ;", "echo $f"}},
	{"for subst", "for f in $(ls); do cat $f; done", []string{"[f=$(ls)] ;", "cat $f", "^1:$( ls"}},
	{"for proc subst", "for v in a <(ls) >(wc); do :; done", []string{"[v=a] ;", ":", "^1:<( ls", "^1:>( wc"}},
	{"for proc subst first", "for v in <(curl -s u); do sh $v; done", []string{`[v="<(curl -s u)"] ;`, "sh $v", "^1:<( curl -s u"}},
	{"for no list", "for x; do echo $x; done", []string{"echo $x"}},
	{"for arith", "for ((i=0; i<3; i++)); do echo $i; done", []string{"echo $i"}},
	{"for brace body", "for x in a; { rm $x; }", []string{"[x=a] ;", "^1:{ rm $x"}},
	{"select", "select x in a b; do echo $x; done", []string{"[x=a] ;", "echo $x"}},
	{"case", "case $x in a|b) rm x;; (c) ls;& *) pwd;;& esac", []string{"rm x ;", "ls ;", "pwd"}},
	{"case newlines", "case $1 in\n  start)\n    run\n    ;;\n  *)\n    usage\n    ;;\nesac", []string{"run ;", "usage"}},
	{"case empty item", "case x in a) ;; b) c;; esac", []string{"c"}},
	{"case subst pattern", "case x in $(id)) a;; esac", []string{"a", "^1:$( id"}},
	{"case last item without ;;", "case x in a) b\nesac", []string{"b"}},
	{"function", "f() { rm -rf /; }; f", []string{"^1:{ rm -rf / ;", "f"}},
	{"function keyword", "function g { a; b; }", []string{"^1:{ a ;", "^1:{ b"}},
	{"function keyword parens", "function g() (x)", []string{"^1:( x"}},
	{"function spaced", "f () \n{\n  a\n}", []string{"^1:{ a"}},
	{"fork bomb", ":(){ :|:& };:", []string{"^1:{ : |", "^1:{ : ;", ":"}},
	{"cond", "[[ -f x && $a == b ]] && rm x", []string{"[[ -f x && $a == b ]] &&", "rm x"}},
	{"cond regex", "[[ $a =~ ^(x|y)$ ]]", []string{"[[ $a =~ ^(x|y)$ ]]"}},
	{"cond with subst", "[[ $(id -u) == 0 ]]", []string{"[[ \"$(id -u)\" == 0 ]]", "^1:$( id -u"}},
	{"arith command", "(( i++ )) && echo", []string{"echo"}},
	{"arith command with subst", "(( $(rm -rf /) ))", []string{"^1:$( rm -rf /"}},
	{"arith command redirect", "(( 1 )) > /dev/sda", []string{">/dev/sda"}},
	{"nested subshells not arith", "((a) )", []string{"^2:( a"}},
	{"coproc", "coproc cat f", []string{"cat f"}},

	// Command strings.
	{"bash -c", "bash -c 'rm -rf /'", []string{`bash -c "rm -rf /"`, "^1:bash rm -rf /"}},
	{"sh -c dq", `sh -c "rm -rf ~"`, []string{`sh -c "rm -rf ~"`, "^1:sh rm -rf ~"}},
	{"bash -lc", "bash -lc 'cd / && rm -rf x'", []string{`bash -lc "cd / && rm -rf x"`, "^1:bash cd / &&", "^1:bash rm -rf x"}},
	{"bash -c with args", "bash -c 'echo $0 $1' a b", []string{`bash -c "echo $0 $1" a b`, "^1:bash echo $0 $1"}},
	{"bash -e -c", "bash -e -o pipefail -c 'a'", []string{"bash -e -o pipefail -c a", "^1:bash a"}},
	{"bash script not string", "bash script.sh -c x", []string{"bash script.sh -c x"}},
	{"shell path", "/bin/sh -c 'a | b'", []string{`/bin/sh -c "a | b"`, "^1:sh a |", "^1:sh b"}},
	{"zsh under sudo", "sudo zsh -c 'rm -rf /etc'", []string{`sudo zsh -c "rm -rf /etc"`, "^1:zsh rm -rf /etc"}},
	{"env sh -c", "env X=1 sh -c 'a'", []string{"env X=1 sh -c a", "^1:sh a"}},
	{"xargs sh -c", `xargs -I{} sh -c 'rm -rf {}'`, []string{`xargs -I{} sh -c "rm -rf {}"`, "^1:sh rm -rf {}"}},
	{"nested bash -c", `bash -c "bash -c 'rm -rf /'"`, []string{`bash -c "bash -c 'rm -rf /'"`, `^1:bash bash -c "rm -rf /"`, "^2:bash rm -rf /"}},
	{"sh -c string in pipeline", "sh -c 'x' | y", []string{"sh -c x |", "y", "^1:sh x"}},
	{"eval", `eval "rm -rf /"`, []string{`eval "rm -rf /"`, "^1:eval rm -rf /"}},
	{"eval words", `eval rm -rf '~'`, []string{"eval rm -rf ~", "^1:eval rm -rf ~"}},
	{"eval subst", `eval "$(curl -s u)"`, []string{"eval \"$(curl -s u)\"", "^1:$( curl -s u", "^1:eval \"$(curl -s u)\"", "^2:$( curl -s u"}},
	{"su -c", "su -c 'rm -rf /'", []string{`su -c "rm -rf /"`, "^1:su rm -rf /"}},
	{"su user -c", "su - root -c 'id'", []string{"su - root -c id", "^1:su id"}},
	{"su --command=", "su --command='rm -rf /' root", []string{`su "--command=rm -rf /" root`, "^1:su rm -rf /"}},
	{"su -s shell", "su -s /bin/sh root", []string{"su -s /bin/sh root"}},
	{"runuser", "runuser -l app -c 'x'", []string{"runuser -l app -c x", "^1:runuser x"}},
	{"ssh", "ssh prod 'rm -rf /'", []string{`ssh prod "rm -rf /"`, "^1:ssh rm -rf /"}},
	{"ssh options", `ssh -p 2222 -i key admin@10.0.0.5 "sudo rm -rf /var"`, []string{`ssh -p 2222 -i key admin@10.0.0.5 "sudo rm -rf /var"`, "^1:ssh sudo rm -rf /var"}},
	{"ssh words", "ssh root@host rm -rf /", []string{"ssh root@host rm -rf /", "^1:ssh rm -rf /"}},
	{"ssh dashdash", "ssh host -- sudo rm -rf /x", []string{"ssh host -- sudo rm -rf /x", "^1:ssh sudo rm -rf /x"}},
	{"ssh option after host", "ssh host -t top", []string{"ssh host -t top", "^1:ssh top"}},
	{"ssh no command", "ssh -v host", []string{"ssh -v host"}},
	{"watch", "watch 'rm -rf /tmp/x; rm -rf /'", []string{`watch "rm -rf /tmp/x; rm -rf /"`, "^1:watch rm -rf /tmp/x ;", "^1:watch rm -rf /"}},
	{"watch options", "watch -n 5 -d df -h", []string{"watch -n 5 -d df -h", "^1:watch df -h"}},
	{"watch exec", "watch -x rm -rf 'a b'", []string{`watch -x rm -rf "a b"`, `^1:watch rm -rf "a b"`}},
	{"trap", "trap 'rm -rf /tmp/x' EXIT", []string{`trap "rm -rf /tmp/x" EXIT`, "^1:trap rm -rf /tmp/x"}},
	{"trap list", "trap -p", []string{"trap -p"}},
	{"find exec", `find / -name x -exec rm -rf {} \;`, []string{"find / -name x -exec rm -rf {} ;", "^1:find rm -rf {}"}},
	{"find exec plus", "find . -execdir chmod 600 {} + -print", []string{"find . -execdir chmod 600 {} + -print", "^1:find chmod 600 {}"}},
	{"find exec sh", `find . -exec sh -c 'rm "$1"' _ {} \;`, []string{`find . -exec sh -c "rm \"$1\"" _ {} ;`, `^1:find sh -c "rm \"$1\"" _ {}`, "^2:sh rm $1"}},
	{"script -c", "script -q -c 'rm -rf /' /dev/null", []string{`script -q -c "rm -rf /" /dev/null`, "^1:script rm -rf /"}},
	{"flock -c", "flock /tmp/l -c 'rm x'", []string{`flock /tmp/l -c "rm x"`, "^1:flock rm x"}},
	{"sg", "sg docker -c 'docker ps'", []string{`sg docker -c "docker ps"`, "^1:sg docker ps"}},
	{"echo is not a runner", `echo "rm -rf /"`, []string{`echo "rm -rf /"`}},
	{"env -S", `env -S 'sh -c "rm -rf /"'`, []string{`env -S "sh -c \"rm -rf /\""`, "^1:sh rm -rf /"}},
	{"nohup sh -c background", "nohup sh -c 'rm -rf ~' >/dev/null 2>&1 &", []string{`nohup sh -c "rm -rf ~" >/dev/null 2>&1 &`, "^1:sh rm -rf ~"}},

	// Malformed input keeps its words.
	{"unclosed dq", `rm -rf "/`, []string{"rm -rf / !"}},
	{"unclosed sq", `echo 'a; rm -rf /`, []string{`echo "a; rm -rf /" !`}},
	{"unclosed sq in bash -c", `bash -c 'rm -rf /`, []string{`bash -c "rm -rf /" !`, "^1:bash rm -rf /"}},
	{"unclosed ansi-c", `echo $'ab`, []string{"echo ab !"}},
	{"unclosed param", `echo ${a`, []string{"echo ${a !"}},
	{"lone paren", "(", nil},
	{"lone close", ")", nil},
	{"stray in word position", "echo (x)", []string{"echo !", "^1:( x"}},
}

func TestCommands(t *testing.T) {
	for _, c := range commandCases {
		t.Run(c.name, func(t *testing.T) {
			cmds, err := Commands(c.in, Options{})
			if err != nil {
				t.Errorf("Commands(%q): %v", c.in, err)
			}
			got := renderAll(cmds)
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, c.want) {
				if os.Getenv("SP_REGEN") != "" {
					fmt.Printf("REGEN\t%s\t%#v\n", c.name, got)
				}
				t.Errorf("Commands(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

func TestHereDocBodyNotShared(t *testing.T) {
	cmds, _ := Commands("{ cat; } <<EOF\nx\nEOF", Options{})
	for _, c := range cmds {
		for _, r := range c.Redirects {
			if r.doc != nil {
				t.Fatalf("doc pointer left in %q", render(c))
			}
		}
	}
	if len(cmds) != 1 || cmds[0].Redirects[0].Body != "x\n" {
		t.Fatalf("%q", renderAll(cmds))
	}
}

func TestCommandsIndependent(t *testing.T) {
	// Two calls share nothing: editing one result leaves the other alone.
	a, _ := Commands("ls -l | wc", Options{})
	b, _ := Commands("ls -l | wc", Options{})
	a[0].Words[0] = "x"
	if b[0].Words[0] != "ls" || strings.Join(b[0].Words, " ") != "ls -l" {
		t.Fatal("results share memory")
	}
}

// TestFuncAndForkLoop checks which commands are marked as the body of a
// function definition (Func) and as started in the background by a loop
// that never ends (ForkLoop).
func TestFuncAndForkLoop(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string // per command: its words, then @Func, then * when ForkLoop
	}{
		{`f(){ rm -rf "$1"; }; f ~`, []string{`rm -rf $1 @f`, `f ~`}},
		{`function nuke { rm -rf "$1"; }; nuke /`, []string{`rm -rf $1 @nuke`, `nuke /`}},
		{`function g() ( ls; cd /x ); g`, []string{`ls @g`, `cd /x @g`, `g`}},
		{`a() { b() { rm x; }; echo y; }`, []string{`rm x @b`, `echo y @a`}},
		{`f() { x=$(rm -rf /); }; f`, []string{`[x=$(rm -rf /)] @f`, `rm -rf / @f`, `f`}},
		{`echo 'f(){ rm -rf /; }'`, []string{`echo "f(){ rm -rf /; }"`}},
		{`while true; do sleep 1 & done`, []string{`true`, `sleep 1 *`}},
		{`while :; do bash & done`, []string{`:`, `bash *`}},
		{`while [ 1 ]; do x & done; echo`, []string{`[ 1 ]`, `x *`, `echo`}},
		{`until false; do yes & done`, []string{`false`, `yes *`}},
		{`for ((;;)); do ./spawn & done`, []string{`./spawn *`}},
		{`for ((i=0;;i++)); do a & b; done`, []string{`a *`, `b`}},
		{`for ((i=0;i<3;i++)); do a & done`, []string{`a`}},
		{`while true; do for i in 1 2; do p & done; done`, []string{`true`, `[i=1]`, `p *`}},
		{`while true; do (yes > /dev/null &); sleep 1; done`, []string{`true`, `yes *`, `sleep 1`}},
		{`while read l; do p "$l" & done < list`, []string{`read l`, `p $l`}},
		{`while sleep 1; do date & done`, []string{`sleep 1`, `date`}},
		{`until true; do a & done`, []string{`true`, `a`}},
		{`while true; do a; done & b`, []string{`true`, `a`, `b`}},
		{`echo 'while true; do x & done'`, []string{`echo "while true; do x & done"`}},
		{`bash -c 'while :; do $0 & done'`, []string{`bash -c "while :; do $0 & done"`, `:`, `$0 *`}},
	} {
		cmds, err := Commands(c.in, Options{})
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		var got []string
		for _, cmd := range cmds {
			parts := []string{}
			if len(cmd.Assigns) > 0 {
				for k, v := range cmd.Assigns {
					parts = append(parts, "["+k+"="+v+"]")
				}
			}
			for _, w := range cmd.Words {
				parts = append(parts, quoteIf(w))
			}
			if cmd.Func != "" {
				parts = append(parts, "@"+cmd.Func)
			}
			if cmd.ForkLoop {
				parts = append(parts, "*")
			}
			got = append(got, strings.Join(parts, " "))
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
