package settings

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// Command returns the hook command install writes for host: bin (which
// must be monad-hooks, by name or path) runs --host host, with --state in
// the agent's folder of the home directory (the continuation count and
// the session context across runs), then extra arguments (--config FILE,
// ...), quoted for the shell.
func Command(host, bin string, extra []string) (string, error) {
	a, err := lookup(host)
	if err != nil {
		return "", err
	}
	if path.Base(strings.ReplaceAll(bin, `\`, "/")) != "monad-hooks" {
		return "", fmt.Errorf("the command %q is not monad-hooks: install and uninstall know their entries by it", bin)
	}
	parts := []string{shellQuote(bin), "run", "--host", host,
		"--state", `"$HOME/` + a.stateDir + `/monad-hooks-state.json"`}
	for _, x := range extra {
		parts = append(parts, shellQuote(x))
	}
	return strings.Join(parts, " "), nil
}

// ours reports whether a hook command is one install wrote for host.
func ours(cmd, host string) bool {
	f := strings.Fields(cmd)
	if len(f) < 4 || f[1] != "run" || f[2] != "--host" || f[3] != host {
		return false
	}
	bin := strings.Trim(f[0], `'"`)
	return path.Base(strings.ReplaceAll(bin, `\`, "/")) == "monad-hooks"
}

// Install returns host's settings file data with the entries that route
// each of its hook events through command (from Command), and whether that
// changed anything: an entry of ours with another command is replaced, one
// with the same command is left where it is, and every other key, event
// and hook of the file stays as it was, in its order and indentation. Empty
// data is an empty file. A file that is not a JSON object (JSON with
// comments included) is an error: it is never rewritten.
func Install(host string, data []byte, command string) ([]byte, bool, error) {
	return edit(host, data, command)
}

// Uninstall returns host's settings file data without the entries Install
// wrote (a group, event or hooks key left empty by their removal goes too),
// and whether that changed anything.
func Uninstall(host string, data []byte) ([]byte, bool, error) {
	return edit(host, data, "")
}

// edit installs command for every event of host, or with command ""
// removes ours.
func edit(host string, data []byte, command string) ([]byte, bool, error) {
	a, err := lookup(host)
	if err != nil {
		return nil, false, err
	}
	doc := newObject()
	if len(bytes.TrimSpace(data)) > 0 {
		v, err := parseJSON(data)
		if err != nil {
			return nil, false, err
		}
		var ok bool
		if doc, ok = v.(*object); !ok {
			return nil, false, fmt.Errorf("the file is not a JSON object")
		}
	}
	before := encodeJSON(doc, indentOf(data))
	hooks, _ := doc.vals["hooks"].(*object)
	if _, ok := doc.vals["hooks"]; ok && hooks == nil {
		return nil, false, fmt.Errorf("its hooks key is not an object")
	}
	if hooks == nil {
		if command == "" {
			return data, false, nil
		}
		hooks = newObject()
	}
	touched := false
	for _, ev := range a.events {
		list, _ := hooks.vals[ev].([]any)
		if _, ok := hooks.vals[ev]; ok && list == nil && hooks.vals[ev] != nil {
			return nil, false, fmt.Errorf("hooks.%s is not a list", ev)
		}
		kept, removed, same := a.without(list, command)
		switch {
		case same, command == "" && removed == 0:
			continue // installed as it is; nothing of ours
		case command != "":
			kept = append(kept, a.newEntry(command))
		}
		touched = true
		if len(kept) == 0 {
			hooks.del(ev)
		} else {
			hooks.set(ev, kept)
		}
	}
	switch {
	case !touched:
	case len(hooks.keys) == 0:
		doc.del("hooks")
	default:
		doc.set("hooks", hooks)
		if a.version > 0 {
			if _, ok := doc.get("version"); !ok {
				doc.set("version", a.version)
			}
		}
	}
	after := encodeJSON(doc, indentOf(data))
	if bytes.Equal(before, after) {
		return data, false, nil
	}
	return after, true, nil
}

// without returns an event's list without our entries, how many it
// removed, and same true when the list holds exactly one of ours, with
// command, as install writes it (then nothing is to be done).
func (a *agent) without(list []any, command string) (kept []any, removed int, same bool) {
	n, exact := 0, false
	for _, e := range list {
		o, ok := e.(*object)
		if !ok {
			kept = append(kept, e)
			continue
		}
		if a.shape == flat {
			if cmd, _ := o.vals["command"].(string); ours(cmd, a.host) {
				n++
				exact = exact || cmd == command && len(o.keys) == len(a.newEntry(command).(*object).keys)
				continue
			}
			kept = append(kept, e)
			continue
		}
		hs, _ := o.vals["hooks"].([]any)
		var rest []any
		took := false
		for _, h := range hs {
			var cmd string
			if ho, ok := h.(*object); ok {
				cmd, _ = ho.vals["command"].(string)
			}
			if ours(cmd, a.host) {
				n++
				took = true
				_, hasMatcher := o.get("matcher")
				exact = exact || cmd == command && len(hs) == 1 && !hasMatcher
				continue
			}
			rest = append(rest, h)
		}
		switch {
		case !took:
			kept = append(kept, e)
		case len(rest) > 0:
			g := newObject()
			for _, k := range o.keys {
				g.set(k, o.vals[k])
			}
			g.set("hooks", rest)
			kept = append(kept, g)
		}
	}
	if command != "" && n == 1 && exact {
		return list, 0, true
	}
	return kept, n, false
}

// newEntry is the entry install writes at one event.
func (a *agent) newEntry(command string) any {
	e := newObject()
	if a.entry != nil {
		a.entry(e)
	}
	e.set("command", command)
	if a.shape == flat {
		return e
	}
	g := newObject()
	g.set("hooks", []any{e})
	return g
}
