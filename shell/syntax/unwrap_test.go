package syntax

import (
	"reflect"
	"strings"
	"testing"
)

func TestUnwrap(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"rm -rf /", "rm -rf /"},
		{"sudo rm -rf /", "rm -rf /"},
		{"/usr/bin/sudo rm", "rm"},
		{"SUDO rm", "rm"},
		{"sudo -u root rm -rf /etc", "rm -rf /etc"},
		{"sudo -uroot rm", "rm"},
		{"sudo -E -H rm", "rm"},
		{"sudo --user=root --preserve-env rm", "rm"},
		{"sudo --user root rm", "rm"},
		{"sudo -- rm -rf /", "rm -rf /"},
		{"sudo FOO=1 BAR=2 rm", "rm"},
		{"sudo -i rm", "rm"},
		{"sudo -s", "sudo -s"},
		{"sudo -l rm", "sudo -l rm"},
		{"sudo -e /etc/hosts", "sudo -e /etc/hosts"},
		{"sudo -nk -g wheel -p pw: rm", "rm"},
		{"doas rm", "rm"},
		{"doas -u root rm", "rm"},
		{"doas -C /etc/doas.conf rm", "doas -C /etc/doas.conf rm"},
		{"run0 --user=root rm", "rm"},
		{"pkexec --user root rm", "rm"},
		{"env rm", "rm"},
		{"env FOO=1 rm -rf /", "rm -rf /"},
		{"env -i PATH=/bin rm", "rm"},
		{"env - rm", "rm"},
		{"env -u HOME -C /tmp rm", "rm"},
		{"env --unset=HOME --chdir /tmp rm", "rm"},
		{"env", "env"},
		{"env FOO=1", "env FOO=1"},
		{"env -S 'rm -rf /'", "rm -rf /"},
		{"env -S'rm -rf /'", "rm -rf /"},
		{"env --split-string='rm -rf /' x", "rm -rf / x"},
		{"env -S '-i FOO=1 rm -rf /'", "rm -rf /"},
		{`env -S 'sh -c "rm -rf /"'`, "sh -c 'rm -rf /'"},
		{"nohup rm", "rm"},
		{"time rm", "rm"},
		{"time -p rm", "rm"},
		{"time -f %e -o log rm", "rm"},
		{"nice rm", "rm"},
		{"nice -n 10 rm", "rm"},
		{"nice -n10 rm", "rm"},
		{"nice -10 rm", "rm"},
		{"nice --adjustment=5 rm", "rm"},
		{"ionice -c 3 rm", "rm"},
		{"ionice -c2 -n7 rm", "rm"},
		{"ionice -p 1234", "ionice -p 1234"},
		{"timeout 60 rm -rf /home", "rm -rf /home"},
		{"timeout -s KILL -k 5 1m rm", "rm"},
		{"timeout --signal=TERM 5s rm", "rm"},
		{"timeout --foreground 5 rm", "rm"},
		{"timeout 5", "timeout 5"},
		{"stdbuf -oL rm", "rm"},
		{"stdbuf -o L -e 0 rm", "rm"},
		{"setsid -f rm", "rm"},
		{"xargs rm -rf", "rm -rf"},
		{"xargs -0 rm -f", "rm -f"},
		{"xargs -I{} rm {}", "rm {}"},
		{"xargs -I {} rm {}", "rm {}"},
		{"xargs -n 1 -P 4 rm", "rm"},
		{"xargs -i rm {}", "rm {}"},
		{"xargs -l1 rm", "rm"},
		{"xargs --max-args 2 --null rm", "rm"},
		{"xargs --replace=X rm X", "rm X"},
		{"xargs", "xargs"},
		{"exec rm", "rm"},
		{"exec -a name rm", "rm"},
		{"exec", "exec"},
		{"command rm", "rm"},
		{"command -p rm", "rm"},
		{"command -v rm", "command -v rm"},
		{"builtin cd /", "cd /"},
		{"busybox rm -rf /", "rm -rf /"},
		{"chroot /mnt rm", "rm"},
		{"chroot --userspec=a:b /mnt rm", "rm"},
		{"chroot /mnt", "chroot /mnt"},
		{"strace -f -o log -e trace=file rm", "rm"},
		{"strace -p 1", "strace -p 1"},
		{"ltrace -o log rm", "rm"},
		{"taskset 0x3 rm", "rm"},
		{"taskset -c 0-3 rm", "rm"},
		{"taskset -p 1234", "taskset -p 1234"},
		{"chrt -f 99 rm", "rm"},
		{"chrt -p 1234", "chrt -p 1234"},
		{"flock /tmp/l rm", "rm"},
		{"flock -w 5 /tmp/l rm", "rm"},
		{"flock /tmp/l -c 'rm x'", "flock /tmp/l -c 'rm x'"},
		{"caffeinate -i make", "make"},
		{"unbuffer rm", "rm"},
		{"firejail --net=none rm", "rm"},
		{"torsocks curl x", "curl x"},
		{"proxychains4 -f conf curl x", "curl x"},
		{"sshpass -p pw ssh host", "ssh host"},
		{"catchsegv rm", "rm"},
		{"noglob rm *", "rm *"},
		{"FOO=1 rm", "rm"},
		{"FOO=1 BAR+=2", ""},
		{"sudo env FOO=1 nice -n 5 timeout 10 nohup rm -rf /", "rm -rf /"},
		{"sudo -u app xargs -0 sudo rm", "rm"},
		{"exec sudo rm", "rm"},
		{"ssh host rm", "ssh host rm"},
		{"sh -c 'rm'", "sh -c rm"},
		{"npx prisma migrate reset", "npx prisma migrate reset"},
		{"docker exec web rm", "docker exec web rm"},
	}
	for _, c := range cases {
		in, _ := Split(c.in)
		want, _ := Split(c.want)
		got := Unwrap(in)
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Unwrap(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnwrapDoesNotModify(t *testing.T) {
	in := []string{"env", "-S", "rm -rf /", "x"}
	keep := append([]string(nil), in...)
	Unwrap(in)
	if !reflect.DeepEqual(in, keep) {
		t.Fatalf("input changed: %q", in)
	}
}

func TestUnwrapBounded(t *testing.T) {
	// A chain of wrappers longer than the bound returns what is left.
	w := strings.Fields(strings.Repeat("sudo ", 100) + "rm")
	if got := Unwrap(w); len(got) == 0 || len(got) > len(w) {
		t.Fatalf("got %d words", len(got))
	}
	// env -S nested in env -S terminates.
	w = []string{"env", "-S", strings.Repeat("env -S ", 50) + "rm"}
	Unwrap(w)
}

func TestSplit(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  error
	}{
		{"", nil, nil},
		{"   ", nil, nil},
		{"ls -la /tmp", []string{"ls", "-la", "/tmp"}, nil},
		{`r\m -rf /`, []string{"rm", "-rf", "/"}, nil},
		{`"rm" '-rf' /`, []string{"rm", "-rf", "/"}, nil},
		{`echo "a b"  'c d' e\ f`, []string{"echo", "a b", "c d", "e f"}, nil},
		{`echo $'a\tb'`, []string{"echo", "a\tb"}, nil},
		{"a\\\nb c", []string{"ab", "c"}, nil},
		{"rm -rf", []string{"rm", "-rf"}, nil},
		{"a\nb", []string{"a", ";", "b"}, nil},
		{"ls|wc -l", []string{"ls", "|", "wc", "-l"}, nil},
		{"a&&b||c;d&e|&f", []string{"a", "&&", "b", "||", "c", ";", "d", "&", "e", "|&", "f"}, nil},
		{"cmd >out 2>&1 <in &>all", []string{"cmd", ">", "out", "2>&", "1", "<", "in", "&>", "all"}, nil},
		{"(a) ;; b", []string{"(", "a", ")", ";;", "b"}, nil},
		{"echo $(ls -l | wc) x", []string{"echo", "$(ls -l | wc)", "x"}, nil},
		{"echo `ls -l` x", []string{"echo", "`ls -l`", "x"}, nil},
		{"diff <(a) b", []string{"diff", "<(a)", "b"}, nil},
		{"ls # comment", []string{"ls"}, nil},
		{`echo "unterminated`, []string{"echo", "unterminated"}, ErrUnterminated},
		{`echo 'unterminated`, []string{"echo", "unterminated"}, ErrUnterminated},
		{`echo $(unterminated`, []string{"echo", "$(unterminated"}, ErrUnterminated},
	}
	for _, c := range cases {
		got, err := Split(c.in)
		if err != c.err || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Split(%q) = %q, %v; want %q, %v", c.in, got, err, c.want, c.err)
		}
	}
}

// TestWrappersSorted: wrapperSpec's binary search needs the table sorted,
// without duplicates; every wrapper is found and nothing else is.
func TestWrappersSorted(t *testing.T) {
	for i := range wrappers {
		if i > 0 && wrappers[i-1].name >= wrappers[i].name {
			t.Errorf("wrappers[%d] %q is not after %q", i, wrappers[i].name, wrappers[i-1].name)
		}
		if got := wrapperSpec(wrappers[i].name); got != &wrappers[i].spec {
			t.Errorf("wrapperSpec(%q) = %p, want its entry", wrappers[i].name, got)
		}
	}
	for _, name := range []string{"", "a", "bash", "sudoo", "zzz", "rm"} {
		if wrapperSpec(name) != nil {
			t.Errorf("wrapperSpec(%q) is a wrapper", name)
		}
	}
}
