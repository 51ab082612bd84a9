package syntax

import (
	"slices"
	"strings"
)

// wrapSpec describes a wrapper: a program that runs the command given as
// its remaining arguments.
type wrapSpec struct {
	args      string // short options that take a value (the rest of the cluster, or the next word)
	optional  string // short options whose value can only be attached (xargs -i, -l, -e)
	long      string // long options that take a value, each between spaces (" user group ")
	noRun     string // short options after which no command is run (ionice -p)
	noRunLong string // the same for long options
	operand   bool   // the first operand is the wrapper's (timeout DURATION, chroot DIR)
	assigns   bool   // NAME=value words before the command are the wrapper's (env, sudo)
}

// wrappers are the programs Unwrap strips, by base name, sorted by name
// (TestWrappersSorted): a table the compiler lays out, where a map was built
// as every process started (BenchmarkCLIRunNoStdlib).
var wrappers = [...]wrapper{
	{"builtin", wrapSpec{}},
	{"busybox", wrapSpec{}},
	{"caffeinate", wrapSpec{args: "tw"}},
	{"catchsegv", wrapSpec{}},
	{"chroot", wrapSpec{long: " userspec groups ", operand: true}},
	{"chrt", wrapSpec{args: "TPD", noRun: "p", operand: true}},
	{"command", wrapSpec{noRun: "vV"}},
	{"doas", wrapSpec{args: "aCu", noRun: "C"}},
	{"env", wrapSpec{args: "uCSP", long: " unset chdir split-string ", assigns: true}},
	{"exec", wrapSpec{args: "a"}},
	{"firejail", wrapSpec{}},
	{"flock", wrapSpec{args: "wE", long: " timeout wait conflict-exit-code ", operand: true}},
	{"ionice", wrapSpec{args: "cnpPu", long: " class classdata pid pgid uid ", noRun: "pPu", noRunLong: " pid pgid uid "}},
	{"ltrace", wrapSpec{args: "aADeFlnopsuwx"}},
	{"nice", wrapSpec{args: "n", long: " adjustment "}},
	{"nocorrect", wrapSpec{}},
	{"noglob", wrapSpec{}},
	{"nohup", wrapSpec{}},
	{"parallel", wrapSpec{args: "jSNnsLaEdIC", long: " jobs sshlogin max-args max-chars arg-file delimiter colsep tmpdir results joblog "}},
	{"pkexec", wrapSpec{long: " user "}},
	{"proxychains", wrapSpec{args: "f"}},
	{"proxychains4", wrapSpec{args: "f"}},
	{"run0", wrapSpec{args: "ugD", long: " user group nice chdir setenv unit property description slice machine "}},
	{"setsid", wrapSpec{}},
	{"sshpass", wrapSpec{args: "pfdP"}},
	{"stdbuf", wrapSpec{args: "ioe", long: " input output error "}},
	{"strace", wrapSpec{args: "abeEIoOpPsSuUX"}},
	{"sudo", wrapSpec{args: "CDgpRrTtUu", optional: "h", long: " close-from chdir group host prompt chroot role type command-timeout other-user user ", noRun: "elvKV", noRunLong: " edit list validate remove-timestamp version help ", assigns: true}},
	{"taskset", wrapSpec{noRun: "p", operand: true}},
	{"time", wrapSpec{args: "fo", long: " format output "}},
	{"timeout", wrapSpec{args: "sk", long: " signal kill-after ", operand: true}},
	{"torsocks", wrapSpec{args: "uapP"}},
	{"toybox", wrapSpec{}},
	{"unbuffer", wrapSpec{}},
	{"xargs", wrapSpec{args: "aEdILnPs", optional: "eil", long: " arg-file delimiter max-args max-procs max-chars process-slot-var "}},
}

// A wrapper is a program Unwrap strips.
type wrapper struct {
	name string
	spec wrapSpec
}

// wrapperSpec returns the wrapSpec of the program called name, nil when it
// is no wrapper.
func wrapperSpec(name string) *wrapSpec {
	i, ok := slices.BinarySearchFunc(wrappers[:], name, func(w wrapper, name string) int {
		return strings.Compare(w.name, name)
	})
	if !ok {
		return nil
	}
	return &wrappers[i].spec
}

// Unwrap strips the wrappers from the words of a command and returns the
// words of the command that is effectively run: "sudo -u root env X=1
// nice -n 5 rm -rf /" is "rm -rf /". The wrappers, recognised by their
// base name (/usr/bin/sudo is sudo) with their options and operands, are
// sudo (and its NAME=value words), doas, run0, pkexec, env (options,
// NAME=value words, -u NAME, -C DIR; the string of -S/--split-string is
// split into words), nohup, time, nice (-n N, -N), ionice, timeout (options
// and the duration), stdbuf, setsid, xargs and GNU parallel (options; the
// rest is the command it runs, with parallel's ::: arguments), exec, command, builtin, busybox, toybox, chroot (the new
// root), strace, ltrace, taskset (the mask), chrt (the priority), flock (the
// lock file), caffeinate, unbuffer, firejail, torsocks, proxychains,
// sshpass, catchsegv, noglob and nocorrect, stripped repeatedly. Leading
// NAME=value words are stripped too.
//
// A wrapper that runs no command (sudo -l, command -v rm, ionice -p PID,
// flock FILE -c STRING, env alone) is itself the effective command: the
// words from it on are returned. Shells, su, ssh, eval and watch are not
// wrappers: they take a command string, which Commands parses.
//
// Unwrap does not modify words; the result may share its backing array.
// It is safe for concurrent use.
func Unwrap(words []string) []string {
	w := words
	i := 0
	for range 32 {
		for i < len(w) && assignWord(w[i]) {
			i++
		}
		if i >= len(w) {
			return w[i:]
		}
		name := baseName(w[i])
		spec := wrapperSpec(name)
		if spec == nil {
			return w[i:]
		}
		j, split, ok := spec.options(name, w, i+1)
		if split != nil {
			// env -S STRING: the words of the string take its place.
			nw := make([]string, 0, 1+len(split)+len(w)-j)
			nw = append(nw, w[i])
			nw = append(nw, split...)
			w = append(nw, w[j:]...)
			i = 0
			continue
		}
		if !ok {
			return w[i:]
		}
		if spec.assigns {
			for j < len(w) && assignWord(w[j]) {
				j++
			}
		}
		if spec.operand && j < len(w) {
			if name == "flock" && j+1 < len(w) && (w[j+1] == "-c" || strings.HasPrefix(w[j+1], "--command")) {
				return w[i:] // flock FILE -c STRING: a command string
			}
			j++
		}
		if j >= len(w) {
			return w[i:] // nothing to run: the wrapper is the command
		}
		i = j
	}
	return w[i:]
}

// options skips the options of the wrapper at w[i-1], starting at w[i],
// and returns the index of the first word after them. ok is false when an
// option means that no command is run. split is set for env -S STRING,
// with j the index after the string.
func (s *wrapSpec) options(name string, w []string, i int) (j int, split []string, ok bool) {
	j = i
	for j < len(w) {
		a := w[j]
		if a == "--" {
			return j + 1, nil, true
		}
		if name == "env" && a == "-" {
			j++
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		if a[1] == '-' {
			opt, val, eq := strings.Cut(a[2:], "=")
			if s.noRunLong != "" && strings.Contains(s.noRunLong, " "+opt+" ") {
				return j, nil, false
			}
			takes := s.long != "" && strings.Contains(s.long, " "+opt+" ")
			if name == "env" && opt == "split-string" {
				if eq {
					return j + 1, splitArgs(val), true
				}
				if j+1 < len(w) {
					return j + 2, splitArgs(w[j+1]), true
				}
			}
			if takes && !eq {
				j += 2
			} else {
				j++
			}
			continue
		}
		if name == "nice" && isFd(a[1:]) { // nice -10 (digits)
			j++
			continue
		}
		next := 1
		for k := 1; k < len(a); k++ {
			c := a[k]
			if strings.IndexByte(s.noRun, c) >= 0 {
				return j, nil, false
			}
			if strings.IndexByte(s.args, c) >= 0 {
				if name == "env" && c == 'S' {
					if k+1 < len(a) {
						return j + 1, splitArgs(a[k+1:]), true
					}
					if j+1 < len(w) {
						return j + 2, splitArgs(w[j+1]), true
					}
				}
				if k+1 == len(a) {
					next = 2 // the value is the next word
				}
				break
			}
			if strings.IndexByte(s.optional, c) >= 0 {
				break // the rest of the cluster is its value
			}
		}
		j += next
	}
	return min(j, len(w)), nil, true
}

// splitArgs splits an env -S string into words: quotes and backslashes
// are resolved, only blanks separate words.
func splitArgs(s string) []string {
	st := &state{opts: Options{}.withDefaults(), split: true, scan: scanBudget(len(s))}
	p := &parser{st: st, src: s}
	words := p.splitWords(false)
	if words == nil {
		words = []string{}
	}
	return words
}

// assignWord reports whether w is NAME=value (or NAME+=value).
func assignWord(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	name := w[:eq]
	if name[len(name)-1] == '+' {
		name = name[:len(name)-1]
	}
	return validName(name)
}

// baseName returns the last path segment of a command word, in lower case,
// without a .exe suffix.
func baseName(w string) string {
	if i := strings.LastIndexByte(w, '/'); i >= 0 {
		w = w[i+1:]
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 'A' && c <= 'Z' {
			w = strings.ToLower(w)
			break
		}
	}
	return strings.TrimSuffix(w, ".exe")
}
