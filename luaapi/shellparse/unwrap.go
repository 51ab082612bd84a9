package shellparse

import "strings"

// A wrapper runs the command given in its arguments. opts lists the
// options that take a value (as separate words or attached); every other
// word starting with '-' is a flag. skip is how many positional arguments
// come before the command (timeout's duration).
type wrapper struct {
	opts     string   // short options taking a value
	longOpts []string // long options taking a value (without "--")
	skip     int
	assigns  bool // NAME=VALUE words before the command are skipped (env, sudo)
}

var wrappers = map[string]wrapper{
	"sudo":     {opts: "CDghpRrTtUu", longOpts: []string{"chdir", "close-from", "group", "host", "prompt", "role", "type", "command-timeout", "other-user", "user", "chroot"}, assigns: true},
	"doas":     {opts: "Cu"},
	"env":      {opts: "CuS", longOpts: []string{"chdir", "unset", "split-string"}, assigns: true},
	"nohup":    {},
	"time":     {opts: "fo", longOpts: []string{"format", "output"}},
	"nice":     {opts: "n", longOpts: []string{"adjustment"}},
	"timeout":  {opts: "ks", longOpts: []string{"kill-after", "signal"}, skip: 1},
	"xargs":    {opts: "aEdIiLlnPs", longOpts: []string{"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}},
	"exec":     {opts: "a"},
	"command":  {},
	"builtin":  {},
	"stdbuf":   {opts: "ioe", longOpts: []string{"input", "output", "error"}},
	"ionice":   {opts: "cnp", longOpts: []string{"class", "classdata", "pid"}},
	"setsid":   {},
	"chrt":     {},
	"taskset":  {skip: 1},
	"unbuffer": {},
	"chroot":   {longOpts: []string{"userspec", "groups"}, skip: 1},
}

// Unwrap strips the wrappers a command runs under and returns the effective
// command and its arguments: sudo (with its options and VAR=value words),
// doas, env (options, -u NAME, VAR=value; a -S string is split), nohup,
// time, nice, timeout (options and the duration), xargs (options), exec,
// command, builtin, stdbuf, ionice, setsid, chrt (priority), taskset (mask),
// unbuffer and chroot (the new root), repeatedly, so "sudo env X=1 nice rm"
// is "rm". Wrappers are recognised by their base name (/usr/bin/sudo).
// command -v/-V (which only look a command up) unwrap to nothing. The
// returned slice may share words' backing array.
func Unwrap(words []string) []string {
	for n := 0; n < 64 && len(words) > 0; n++ {
		name := base(words[0])
		w, ok := wrappers[name]
		if !ok {
			return words
		}
		rest := words[1:]
		i := 0
		for i < len(rest) {
			a := rest[i]
			if a == "--" {
				i++
				break
			}
			if w.assigns {
				if _, ok := assignment(a); ok {
					i++
					continue
				}
			}
			if len(a) < 2 || a[0] != '-' {
				break
			}
			if name == "nice" && len(a) > 1 && isDigits(a[1:]) { // nice -10
				i++
				continue
			}
			if name == "command" && (a == "-v" || a == "-V") {
				return nil
			}
			if name == "env" && (a == "-S" || strings.HasPrefix(a, "--split-string")) {
				// env -S "cmd args": the string is split into words.
				s := ""
				if a == "-S" || a == "--split-string" {
					if i+1 < len(rest) {
						s = rest[i+1]
					}
				} else if eq := strings.IndexByte(a, '='); eq >= 0 {
					s = a[eq+1:]
				}
				inner, _ := Split(s)
				return Unwrap(inner)
			}
			if strings.HasPrefix(a, "--") {
				long := a[2:]
				if eq := strings.IndexByte(long, '='); eq >= 0 {
					i++
					continue
				}
				i++
				for _, lo := range w.longOpts {
					if lo == long {
						i++
						break
					}
				}
				continue
			}
			if name == "chrt" && isDigits(a[1:]) {
				i++
				continue
			}
			// Short options, possibly combined (-ue root, -n10).
			i++
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(w.opts, a[j]) >= 0 {
					if j == len(a)-1 {
						i++ // the value is the next word
					}
					break
				}
			}
		}
		if name == "chrt" && i < len(rest) && isDigits(rest[i]) {
			i++ // the priority
		}
		i += w.skip
		if i > len(rest) {
			return nil
		}
		words = rest[i:]
	}
	return words
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
