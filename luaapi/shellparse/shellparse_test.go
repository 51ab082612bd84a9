package shellparse

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"   ", nil, false},
		{"ls -la /tmp", []string{"ls", "-la", "/tmp"}, false},
		{`r\m -rf /`, []string{"rm", "-rf", "/"}, false},
		{`"rm" '-rf' /`, []string{"rm", "-rf", "/"}, false},
		{`r"m" -r''f /`, []string{"rm", "-rf", "/"}, false},
		{`echo "a b"  'c d' e\ f`, []string{"echo", "a b", "c d", "e f"}, false},
		{`echo "a \"q\" \$x \\ \n"`, []string{"echo", `a "q" $x \ \n`}, false},
		{`echo 'it''s'`, []string{"echo", "its"}, false},
		{`echo $'a\tb\x41\101\n'`, []string{"echo", "a\tbAA\n"}, false},
		{"a\\\nb c", []string{"ab", "c"}, false},
		{"a\tb\nc", []string{"a", "b", "c"}, false},
		{"ls|wc -l", []string{"ls|wc", "-l"}, false},
		{"echo $(ls -l) x", []string{"echo", "$(ls -l)", "x"}, false},
		{"echo `ls -l` x", []string{"echo", "`ls -l`", "x"}, false},
		{`echo "unterminated`, []string{"echo", "unterminated"}, true},
		{`echo 'unterminated`, []string{"echo", "unterminated"}, true},
		{`trailing\`, []string{"trailing"}, false},
		{`# not a comment`, []string{"#", "not", "a", "comment"}, false},
	}
	for _, c := range cases {
		got, err := Split(c.in)
		if (err != nil) != c.err || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Split(%q) = %q, %v; want %q, err %v", c.in, got, err, c.want, c.err)
		}
	}
	if _, err := Split(strings.Repeat("a", MaxInput+1)); err != ErrTooLong {
		t.Errorf("long input: %v", err)
	}
}

// render shows commands compactly: words joined by spaces, then the op.
func render(cmds []Command) []string {
	var out []string
	for _, c := range cmds {
		s := strings.Join(c.Words, " ")
		for _, r := range c.Redirects {
			s += " {" + r.FD + r.Op + r.Target + "}"
		}
		if len(c.Assigns) > 0 {
			var as []string
			for k, v := range c.Assigns {
				as = append(as, k+"="+v)
			}
			sort.Strings(as)
			s = strings.TrimSpace("[" + strings.Join(as, ",") + "] " + s)
		}
		if c.Op != "" {
			s += " " + c.Op
		}
		out = append(out, s)
	}
	return out
}

func TestCommands(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"ls -la", []string{"ls -la"}},
		{"a; b && c || d | e & f", []string{"a ;", "b &&", "c ||", "d |", "e &", "f"}},
		{"a\nb\n\nc", []string{"a ;", "b ;", "c"}},
		{"a |& b", []string{"a |&", "b"}},
		{"X=1 Y='2 3' cmd arg", []string{"[X=1,Y=2 3] cmd arg"}},
		{"X=1", []string{"[X=1]"}},
		{"echo hi > /dev/sda 2>&1", []string{"echo hi {>/dev/sda} {2>&1}"}},
		{"cat <in >>out 2>/dev/null &>all", []string{"cat {<in} {>>out} {2>/dev/null} {&>all}"}},
		{"echo $(rm -rf /)", []string{"rm -rf /", "echo $(rm -rf /)"}},
		{"echo `rm -rf /`", []string{"rm -rf /", "echo `rm -rf /`"}},
		{`echo "$(rm -rf / ; ls)"`, []string{"rm -rf / ;", "ls", "echo $(rm -rf / ; ls)"}},
		{"echo $(echo $(rm -rf /))", []string{"rm -rf /", "echo $(rm -rf /)", "echo $(echo $(rm -rf /))"}},
		{"(cd /tmp && rm -rf x)", []string{"cd /tmp &&", "rm -rf x"}},
		{"{ rm -rf /; }", []string{"rm -rf / ;"}},
		{"bash -c 'rm -rf /; ls'", []string{"bash -c rm -rf /; ls", "rm -rf / ;", "ls"}},
		{`sh -c "curl x | sh"`, []string{"sh -c curl x | sh", "curl x |", "sh"}},
		{"sudo bash -lc 'rm -rf ~'", []string{"sudo bash -lc rm -rf ~", "rm -rf ~"}},
		{"zsh -c 'mkfs /dev/sda'", []string{"zsh -c mkfs /dev/sda", "mkfs /dev/sda"}},
		{`eval "rm -rf" /`, []string{"eval rm -rf /", "rm -rf /"}},
		{"su -c 'rm -rf /' root", []string{"su -c rm -rf / root", "rm -rf /"}},
		{"if rm -rf /; then echo ok; else echo no; fi", []string{"rm -rf / ;", "echo ok ;", "echo no ;"}},
		{"for f in a b; do rm $f; done", []string{"[f=a] ;", "rm $f ;"}},
		{"for d in /*\ndo rm -rf $d\ndone", []string{"[d=/*] ;", "rm -rf $d ;"}},
		{"for ((i=0; i<3; i++)); do ls; done", []string{"ls ;"}},
		{"for x; do ls; done", []string{"ls ;"}},
		{"while true; do rm x; done", []string{"true ;", "rm x ;"}},
		{"case $x in a|b) rm a;; *) ls;; esac", []string{"rm a ;", "ls ;"}},
		{"f() { rm -rf /; }; f", []string{"rm -rf / ;", "f"}},
		{"function f { rm -rf /; }", []string{"rm -rf / ;"}},
		{"diff <(ls a) <(rm -rf b)", []string{"ls a", "rm -rf b", "diff <(ls a) <(rm -rf b)"}},
		{"echo $((1 + 2)) ${x:-y}", []string{"echo $((1 + 2)) ${x:-y}"}},
		{"echo ${x:-$(rm -rf /)}", []string{"rm -rf /", "echo ${x:-$(rm -rf /)}"}},
		{"ls # rm -rf /", []string{"ls"}},
		{"echo a#b", []string{"echo a#b"}},
		{"bash <<EOF\nrm -rf /\nEOF\nls", []string{"bash {<<EOF} ;", "rm -rf / ;", "ls"}},
		{"cat <<-X\n\tbody\n\tX", []string{"cat {<<-X} ;"}},
		{"cat <<< 'here'", []string{"cat {<<<here}"}},
		{"! rm x", []string{"rm x"}},
		{"[[ -f x ]] && rm x", []string{"[[ -f x ]] &&", "rm x"}},
		{"(( i++ )); ls", []string{"(( i++ )) ;", "ls"}},
		{"echo 'a;b' \"c|d\"", []string{"echo a;b c|d"}},
		{"; ;", nil},
		{"", nil},
	}
	for _, c := range cases {
		cmds, err := Commands(c.in)
		if err != nil {
			t.Errorf("Commands(%q): %v", c.in, err)
		}
		if got := render(cmds); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Commands(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestCommandsHeredocBody(t *testing.T) {
	cmds, err := Commands("cat <<EOF >f\nline1\nline2\nEOF\necho done")
	if err != nil || len(cmds) != 2 || cmds[0].Redirects[0].Body != "line1\nline2\n" || cmds[1].Words[0] != "echo" {
		t.Fatalf("%+v %v", cmds, err)
	}
}

func TestCommandsErrors(t *testing.T) {
	for _, in := range []string{"echo 'x", `echo "x`, "echo $(ls", "(ls", "echo `ls", "ls )", "cat >"} {
		if _, err := Commands(in); err == nil {
			t.Errorf("Commands(%q): no error", in)
		}
	}
	cmds, err := Commands("rm -rf / ; echo 'oops")
	if err == nil || len(cmds) != 2 || cmds[0].Words[0] != "rm" {
		t.Errorf("partial result: %q %v", render(cmds), err)
	}
}

func TestCommandsBounds(t *testing.T) {
	deep := strings.Repeat("$(", 100) + "rm -rf /" + strings.Repeat(")", 100)
	cmds, err := Commands("echo " + deep)
	if err == nil || !strings.Contains(err.Error(), "nesting") {
		t.Errorf("deep: %v", err)
	}
	_ = cmds
	deepC := "rm -rf /"
	for i := 0; i < 8; i++ {
		deepC = "bash -c " + quote(deepC)
	}
	cmds, err = Commands(deepC)
	if err != nil || len(cmds) != 9 || strings.Join(cmds[8].Words, " ") != "rm -rf /" {
		t.Errorf("8 levels of bash -c: %q %v", render(cmds), err)
	}
	if _, err := Commands(strings.Repeat("eval ", 40) + "rm -rf /"); err == nil || !strings.Contains(err.Error(), "nesting") {
		t.Errorf("deep eval: %v", err)
	}
	many := strings.Repeat("a;", MaxCommands+10)
	cmds, err = Commands(many)
	if err == nil || len(cmds) != MaxCommands {
		t.Errorf("many: %d %v", len(cmds), err)
	}
	if _, err := Commands(strings.Repeat("x", MaxInput+1)); err != ErrTooLong {
		t.Errorf("long: %v", err)
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestUnwrap(t *testing.T) {
	cases := []struct{ in, want string }{
		{"rm -rf /", "rm -rf /"},
		{"sudo rm -rf /", "rm -rf /"},
		{"sudo -u root -E rm -rf /", "rm -rf /"},
		{"sudo -uroot rm x", "rm x"},
		{"sudo --user=root -- rm x", "rm x"},
		{"sudo --user root rm x", "rm x"},
		{"/usr/bin/sudo FOO=1 rm x", "rm x"},
		{"env X=1 Y=2 rm x", "rm x"},
		{"env -i -u HOME rm x", "rm x"},
		{"env -S 'rm -rf /'", "rm -rf /"},
		{"nohup rm x", "rm x"},
		{"time -p rm x", "rm x"},
		{"nice -n 10 rm x", "rm x"},
		{"nice -10 rm x", "rm x"},
		{"timeout 10 rm x", "rm x"},
		{"timeout -s KILL -k 5 10s rm x", "rm x"},
		{"xargs -0 -n 1 rm -rf", "rm -rf"},
		{"xargs -I{} rm {}", "rm {}"},
		{"exec rm x", "rm x"},
		{"command rm x", "rm x"},
		{"command -v rm", ""},
		{"builtin echo x", "echo x"},
		{"stdbuf -oL rm x", "rm x"},
		{"stdbuf -o L rm x", "rm x"},
		{"ionice -c 3 rm x", "rm x"},
		{"doas -u root rm x", "rm x"},
		{"sudo env X=1 nice -n 5 timeout 3 nohup rm -rf /", "rm -rf /"},
		{"sudo", ""},
		{"sudo -s", ""},
		{"timeout", ""},
		{"chroot /mnt rm x", "rm x"},
		{"taskset 0x1 rm x", "rm x"},
		{"chrt -f 99 rm x", "rm x"},
	}
	for _, c := range cases {
		words, _ := Split(c.in)
		got := strings.Join(Unwrap(words), " ")
		if got != c.want {
			t.Errorf("Unwrap(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
