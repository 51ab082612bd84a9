package syntax

import "strings"

// isShell reports whether the program called name runs its -c argument as
// a command line (a switch, not a map built as every process started:
// BenchmarkCLIRunNoStdlib).
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "rbash", "zsh", "dash", "ksh", "ksh93", "mksh", "pdksh", "oksh", "ash", "yash", "posh", "fish", "csh", "tcsh":
		return true
	}
	return false
}

// runners parses the commands that a simple command runs from its
// arguments (after Unwrap): the string of sh -c, su -c, eval, ssh HOST,
// watch, trap, script -c, flock -c, sg, and the commands of find -exec.
// They are listed after the current pipeline, one deeper.
func (p *parser) runners(words []string, depth int) {
	// Unwrap makes at most 32 passes over the words; the words' bytes were
	// counted when they were read.
	p.st.steps += len(words)
	w := Unwrap(words)
	if len(w) < 2 || p.st.split || p.st.full {
		return
	}
	name := baseName(w[0])
	switch {
	case isShell(name):
		if s, ok := shellString(w); ok {
			p.subText(s, depth+1, name, true)
		}
	case name == "su" || name == "runuser":
		if s, ok := optValue(w[1:], 'c', " command session-command ", "csgGw", " shell group supp-group whitelist-environment "); ok {
			p.subText(s, depth+1, name, true)
		}
	case name == "script":
		if s, ok := optValue(w[1:], 'c', " command ", "cEIOBTmo", " echo log-in log-out log-io log-timing logging-format output-limit "); ok {
			p.subText(s, depth+1, name, true)
		}
	case name == "flock":
		for i := 1; i+1 < len(w); i++ {
			if w[i] == "-c" || w[i] == "--command" {
				p.subText(w[i+1], depth+1, name, true)
				break
			}
			if v, ok := strings.CutPrefix(w[i], "--command="); ok {
				p.subText(v, depth+1, name, true)
				break
			}
		}
	case name == "eval":
		args := w[1:]
		if args[0] == "--" {
			args = args[1:]
		}
		p.subText(strings.Join(args, " "), depth+1, name, true)
	case name == "ssh":
		if s := sshCommand(w); s != "" {
			p.subText(s, depth+1, name, true)
		}
	case name == "watch":
		p.watch(w, depth)
	case name == "trap":
		args := w[1:]
		if args[0] == "--" {
			args = args[1:]
		}
		if len(args) >= 2 && (args[0] == "" || args[0][0] != '-') {
			p.subText(args[0], depth+1, name, true)
		}
	case name == "sg":
		args := w[1:]
		if args[0] == "-" {
			args = args[1:]
		}
		if len(args) >= 2 {
			args = args[1:] // the group
			if args[0] == "-c" {
				args = args[1:]
			}
			if len(args) > 0 {
				p.subText(strings.Join(args, " "), depth+1, name, true)
			}
		}
	case name == "find":
		for i := 1; i < len(w); i++ {
			switch w[i] {
			case "-exec", "-execdir", "-ok", "-okdir":
				j := i + 1
				for j < len(w) && w[j] != ";" && !(w[j] == "+" && w[j-1] == "{}") {
					j++
				}
				p.subArgv(w[i+1:j], depth+1, name)
				i = j
			}
		}
	}
}

// shellString returns the command string of a shell run with -c: the
// first operand after the options, one of which holds c.
func shellString(w []string) (string, bool) {
	sawC := false
	for i := 1; i < len(w); i++ {
		a := w[i]
		if a == "--" || a == "-" {
			if sawC && i+1 < len(w) {
				return w[i+1], true
			}
			return "", false
		}
		if len(a) > 1 && (a[0] == '-' || a[0] == '+') {
			if strings.HasPrefix(a, "--") {
				if a == "--rcfile" || a == "--init-file" {
					i++
				}
				continue
			}
			if a[0] == '-' && strings.IndexByte(a, 'c') > 0 {
				sawC = true
			}
			if last := a[len(a)-1]; last == 'o' || last == 'O' {
				i++ // -o OPTION, +O SHOPT
			}
			continue
		}
		if sawC {
			return a, true
		}
		return "", false
	}
	return "", false
}

// optValue finds the value of the short option c or a long option of
// longs (" a b ") among args, the GNU way (options may follow operands).
// takes and longTakes list the options that take a value.
func optValue(args []string, c byte, longs, takes, longTakes string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return "", false
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		if a[1] == '-' {
			opt, val, eq := strings.Cut(a[2:], "=")
			if strings.Contains(longs, " "+opt+" ") {
				if eq {
					return val, true
				}
				if i+1 < len(args) {
					return args[i+1], true
				}
				return "", false
			}
			if !eq && strings.Contains(longTakes, " "+opt+" ") {
				i++
			}
			continue
		}
		for k := 1; k < len(a); k++ {
			if strings.IndexByte(takes, a[k]) < 0 {
				continue
			}
			val, next := a[k+1:], false
			if val == "" {
				next = true
				if i+1 < len(args) {
					val = args[i+1]
				}
			}
			if a[k] == c {
				return val, val != "" || !next
			}
			if next {
				i++
			}
			break
		}
	}
	return "", false
}

// sshTakes are the ssh options that take a value.
const sshTakes = "BbcDEeFIiJLlmOoPpQRSWw"

// sshCommand returns the remote command of ssh [options] HOST [options]
// [--] COMMAND..., joined by spaces as ssh does, or "".
func sshCommand(w []string) string {
	i, host := 1, false
	for i < len(w) {
		a := w[i]
		if a == "--" {
			i++
			if !host && i < len(w) {
				i++ // the host
			}
			break
		}
		if len(a) < 2 || a[0] != '-' {
			if host {
				break
			}
			host = true
			i++
			continue
		}
		for k := 1; k < len(a); k++ {
			if strings.IndexByte(sshTakes, a[k]) >= 0 {
				if k+1 == len(a) {
					i++
				}
				break
			}
		}
		i++
	}
	if !host || i >= len(w) {
		return ""
	}
	return strings.Join(w[i:], " ")
}

// watch parses the command of watch [options] COMMAND...: a string joined
// by spaces (run by sh -c), or the words themselves with -x/--exec.
func (p *parser) watch(w []string, depth int) {
	exec := false
	i := 1
	for i < len(w) {
		a := w[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		if a[1] == '-' {
			opt, _, eq := strings.Cut(a[2:], "=")
			switch {
			case opt == "exec":
				exec = true
			case !eq && (opt == "interval" || opt == "equexit"):
				i++
			}
			i++
			continue
		}
		for k := 1; k < len(a); k++ {
			if a[k] == 'x' {
				exec = true
			}
			if a[k] == 'n' || a[k] == 'q' {
				if k+1 == len(a) {
					i++
				}
				break
			}
		}
		i++
	}
	if i >= len(w) {
		return
	}
	if exec {
		p.subArgv(w[i:], depth+1, "watch")
		return
	}
	p.subText(strings.Join(w[i:], " "), depth+1, "watch", true)
}
