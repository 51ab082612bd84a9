package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/monad-hooks/monad-hooks/engine/hosts"
	"github.com/monad-hooks/monad-hooks/events"
)

// maxTimeoutMs is the largest timeoutMs agents.json accepts (ten minutes).
const maxTimeoutMs = 600_000

// An Imported is what Import made of an agent's hook settings: the hooks of
// an agents.json, and what did not carry over.
type Imported struct {
	// Hooks are the imported command hooks by Monad event, each event's
	// groups in file order.
	Hooks map[events.Event][]Group
	// Imported counts the hook entries imported; Dropped those that were
	// not (each has a Note with Dropped set).
	Imported, Dropped int
	// Notes lists, in file order, every hook that was not imported and
	// everything of an imported hook that was approximated or ignored.
	Notes []Note
}

// A Group is one matcher group of agents.json.
type Group struct {
	Matcher string
	Kind    events.ToolKind // "" for none
	Hooks   []Hook
}

// A Hook is one command hook of agents.json.
type Hook struct {
	Command   string
	TimeoutMs int    // 0: the engine's default
	OnError   string // "deny" or ""
	// Input is the agent (and event) whose hook contract the command
	// speaks: "claude-code", "cursor:beforeShellExecution", ...
	Input string
}

// A Note says what of a hook did not carry over.
type Note struct {
	// Where is the hook's place in the agent's file
	// ("hooks.PreToolUse[0].hooks[1]").
	Where string
	// Msg says what happened and why.
	Msg string
	// Dropped is true when the hook was not imported.
	Dropped bool
}

// String is "Where: not imported: Msg" or "Where: Msg".
func (n Note) String() string {
	if n.Dropped {
		return n.Where + ": not imported: " + n.Msg
	}
	return n.Where + ": " + n.Msg
}

// Import reads host's hook settings (path names the file in errors and
// gives its format: .toml for Codex's config.toml, else JSON) and returns
// the equivalent agents.json hooks. Each imported hook keeps its own input
// format ("input": the host, or "host:Event" for an event that is not the
// host's first for its Monad event), so that its script runs unchanged;
// events map to Monad events, matchers to RE2 matchers (an exact name or
// list to an anchored one), timeouts to milliseconds, Cursor's failClosed to
// onError deny. What cannot be mapped is listed in Notes, never dropped
// silently. The error is for a file that is not the agent's settings.
func Import(host, path string, data []byte) (*Imported, error) {
	a, err := lookup(host)
	if err != nil {
		return nil, err
	}
	var root any
	if strings.EqualFold(filepath.Ext(path), ".toml") {
		var m map[string]any
		if _, err := toml.Decode(string(data), &m); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		root = fromTOML(m)
	} else if root, err = parseJSON(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	doc, ok := root.(*object)
	if !ok {
		return nil, fmt.Errorf("%s: not a JSON object", path)
	}
	im := &importer{a: a, h: hostOf(a), out: &Imported{Hooks: map[events.Event][]Group{}}}
	im.top(doc)
	hv, ok := doc.get("hooks")
	if !ok {
		return im.out, nil
	}
	hooksObj, ok := hv.(*object)
	if !ok {
		return nil, fmt.Errorf("%s: hooks is not an object", path)
	}
	for _, ev := range hooksObj.keys {
		im.event("hooks."+ev, ev, hooksObj.vals[ev])
	}
	return im.out, nil
}

type importer struct {
	a        *agent
	h        *hosts.Host
	out      *Imported
	disabled map[string]bool // Gemini hook names disabled in hooksConfig
}

func (im *importer) note(where, format string, args ...any) {
	im.out.Notes = append(im.out.Notes, Note{Where: where, Msg: fmt.Sprintf(format, args...)})
}

func (im *importer) drop(where string, n int, format string, args ...any) {
	im.out.Notes = append(im.out.Notes, Note{Where: where, Msg: fmt.Sprintf(format, args...), Dropped: true})
	im.out.Dropped += n
}

// top reads the keys beside hooks that change which hooks run.
func (im *importer) top(doc *object) {
	if v, _ := doc.get("disableAllHooks"); v == true {
		im.note("disableAllHooks", "is true: %s runs none of these hooks, while the imported file runs them all", im.a.host)
	}
	if im.a.version > 0 {
		if v, ok := doc.get("version"); ok && fmt.Sprint(v) != strconv.Itoa(im.a.version) {
			im.note("version", "is %v: this import knows version %d", v, im.a.version)
		}
	}
	if hc, ok := doc.get("hooksConfig"); ok {
		if o, ok := hc.(*object); ok {
			if v, _ := o.get("enabled"); v == false {
				im.note("hooksConfig.enabled", "is false: %s runs none of these hooks, while the imported file runs them all", im.a.host)
			}
			if d, ok := o.get("disabled"); ok {
				im.disabled = map[string]bool{}
				for _, n := range asList(d) {
					if s, ok := n.(string); ok {
						im.disabled[s] = true
					}
				}
			}
		}
	}
}

// count returns the number of hook entries under an event's value.
func (im *importer) count(v any) int {
	n := 0
	for _, g := range asList(v) {
		if im.a.shape == flat {
			n++
			continue
		}
		if o, ok := g.(*object); ok {
			hs, _ := o.get("hooks")
			n += len(asList(hs))
		}
	}
	return n
}

func (im *importer) event(where, name string, v any) {
	switch name {
	case "enabled", "disabled", "notifications":
		if im.a.host == "gemini-cli" {
			im.note(where, "is a setting of Gemini's hook system, not an event: ignored")
			return
		}
	}
	hev, ok := im.h.Lookup(name)
	switch {
	case !ok:
		im.drop(where, im.count(v), "unknown %s event %q", im.a.host, name)
		return
	case hev.Monad == events.Invalid:
		im.drop(where, im.count(v), "%s event %s has no Monad equivalent", im.a.host, name)
		return
	case im.a.host == "claude-code" && name == "PostToolUseFailure":
		im.drop(where, im.count(v), "PostToolUseFailure would become AfterTool, which runs after every tool call, not only the failed ones")
		return
	}
	input := im.a.host
	if first, _ := im.h.EventFor(hev.Monad, ""); first.Name != hev.Name {
		input += ":" + hev.Name
	}
	list, ok := v.([]any)
	if !ok {
		im.drop(where, 0, "is not a list")
		return
	}
	for i, g := range list {
		gw := where + "[" + strconv.Itoa(i) + "]"
		go_, ok := g.(*object)
		if !ok {
			im.drop(gw, 1, "is not an object")
			continue
		}
		// A flat entry is a hook with its own matcher; a group holds its
		// hooks under one.
		entries := []any{go_}
		if im.a.shape != flat {
			hs, _ := go_.get("hooks")
			entries = asList(hs)
		}
		matcher, keep := im.matcher(gw, name, hev, go_)
		if !keep {
			im.drop(gw, len(entries), "its matcher cannot be carried over")
			continue
		}
		for _, k := range go_.keys {
			switch {
			case im.a.shape == flat, k == "matcher", k == "hooks":
			case k == "sequential":
				im.note(gw+".sequential", "ignored: monad-hooks runs the hooks of a serial event one after another, in order, anyway")
			default:
				im.note(gw+"."+k, "ignored: not a key this import knows")
			}
		}
		grp := Group{Matcher: matcher, Kind: kindOf(hev)}
		for j, e := range entries {
			hw := gw
			if im.a.shape != flat {
				hw += ".hooks[" + strconv.Itoa(j) + "]"
			}
			eo, ok := e.(*object)
			if !ok {
				im.drop(hw, 1, "is not an object")
				continue
			}
			if h, ok := im.hook(hw, eo, input); ok {
				grp.Hooks = append(grp.Hooks, h)
			}
		}
		if len(grp.Hooks) > 0 {
			im.add(hev, grp)
		}
	}
}

func (im *importer) add(hev hosts.Event, g Group) {
	im.out.Hooks[hev.Monad] = append(im.out.Hooks[hev.Monad], g)
	im.out.Imported += len(g.Hooks)
}

// kindOf restricts a group of a host event that exists for one kind of tool
// (Cursor's beforeShellExecution, beforeReadFile) to that kind.
func kindOf(hev hosts.Event) events.ToolKind {
	switch hev.Name {
	case "beforeShellExecution", "afterShellExecution":
		return events.ToolShell
	case "beforeReadFile":
		return events.ToolRead
	}
	return ""
}

// exactList reports whether m is in the character set of a Claude Code
// matcher that names tools exactly ("Bash", "Edit|Write", "Edit, Write"):
// ^[A-Za-z0-9_\- ,|]+$, without a regexp built as every process starts
// (BenchmarkCLIRunNoStdlib).
func exactList(m string) bool {
	for _, c := range []byte(m) {
		if !wordByte(c) && c != '-' && c != ' ' && c != ',' && c != '|' {
			return false
		}
	}
	return m != ""
}

// wordByte reports whether c is an ASCII letter, digit or '_'.
func wordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// matcher converts a group's (or a flat entry's) matcher; keep is false
// when it cannot be expressed and the hooks must not be imported.
func (im *importer) matcher(where, event string, hev hosts.Event, o *object) (string, bool) {
	v, ok := o.get("matcher")
	if !ok || v == nil {
		return "", true
	}
	m, isString := v.(string)
	if !isString {
		im.note(where+".matcher", "is not a string")
		return "", false
	}
	if m == "" || m == "*" {
		return "", true
	}
	isTool := false
	for _, e := range im.a.toolEvents {
		isTool = isTool || e == event
	}
	if !isTool {
		im.note(where+".matcher", "%q dropped: a Monad %s has no matcher, so the hook runs at every %s", m, hev.Monad, event)
		return "", true
	}
	if hev.Name == "beforeShellExecution" || hev.Name == "afterShellExecution" {
		im.note(where+".matcher", "%q dropped: it filtered the command line, which a matcher cannot; the hook runs for every shell command and checks it itself", m)
		return "", true
	}
	var re string
	switch im.a.host {
	case "claude-code", "codex":
		if exactList(m) {
			var names []string
			for _, n := range strings.FieldsFunc(m, func(r rune) bool { return r == '|' || r == ',' }) {
				if n = strings.TrimSpace(n); n != "" {
					names = append(names, regexp.QuoteMeta(n))
				}
			}
			re = "^(?:" + strings.Join(names, "|") + ")$"
		} else {
			re = m
		}
	default:
		re = m
	}
	c, err := regexp.Compile(re)
	if err != nil {
		if im.a.host == "gemini-cli" {
			// Gemini falls back to an exact match.
			return "^" + regexp.QuoteMeta(m) + "$", true
		}
		im.note(where+".matcher", "%q is not an RE2 regular expression: %v", m, err)
		return "", false
	}
	if im.a.host == "codex" && (c.MatchString("Edit") || c.MatchString("Write")) && !c.MatchString("apply_patch") {
		// Codex matches apply_patch under the aliases Edit and Write.
		re = "(?:" + re + ")|^apply_patch$"
	}
	return re, true
}

// hook converts one hook entry; false when it is not imported.
func (im *importer) hook(where string, o *object, input string) (Hook, bool) {
	h := Hook{Input: input}
	typ := "command"
	if v, ok := o.get("type"); ok {
		typ, _ = v.(string)
	}
	if typ != "command" {
		im.drop(where, 1, "a %q hook: monad-hooks runs command hooks only", typ)
		return h, false
	}
	cmd, _ := o.vals["command"].(string)
	if strings.TrimSpace(cmd) == "" {
		im.drop(where, 1, "no command")
		return h, false
	}
	h.Command = cmd
	var notes []string
	for _, k := range o.keys {
		v := o.vals[k]
		switch k {
		case "type", "command":
		case "args":
			argv := []string{shellQuote(cmd)}
			for _, a := range asList(v) {
				s, ok := a.(string)
				if !ok {
					im.drop(where, 1, "args holds a value that is not a string")
					return h, false
				}
				argv = append(argv, shellQuote(s))
			}
			h.Command = strings.Join(argv, " ")
		case "timeout":
			ms, ok := timeoutMs(v, im.a.timeoutMs)
			switch {
			case !ok:
				notes = append(notes, fmt.Sprintf("timeout %v ignored: not a positive number", v))
			case ms > maxTimeoutMs:
				notes = append(notes, fmt.Sprintf("timeout %v cut to 10 minutes, the most agents.json allows", v))
				h.TimeoutMs = maxTimeoutMs
			default:
				h.TimeoutMs = ms
			}
		case "async", "asyncRewake":
			if v == true {
				im.drop(where, 1, "an %s hook: %s runs it in the background and does not read its answer, which monad-hooks would", k, im.a.host)
				return h, false
			}
		case "shell":
			if s, _ := v.(string); s != "" && s != "bash" {
				im.drop(where, 1, "shell %q: monad-hooks runs commands with /bin/sh", s)
				return h, false
			}
		case "failClosed":
			if v == true {
				h.OnError = "deny"
			}
		case "env":
			env, ok := v.(*object)
			if !ok {
				im.drop(where, 1, "env is not an object")
				return h, false
			}
			var sets []string
			for _, ek := range env.keys {
				s, ok := env.vals[ek].(string)
				if !ok || !envName(ek) {
					im.drop(where, 1, "env %q cannot be set by a shell", ek)
					return h, false
				}
				sets = append(sets, "export "+ek+"="+shellQuote(s)+";")
			}
			if len(sets) > 0 {
				h.Command = strings.Join(sets, " ") + " " + h.Command
			}
		case "name":
			if s, _ := v.(string); im.disabled[s] || im.disabled[cmd] {
				im.drop(where, 1, "%q is disabled in hooksConfig.disabled", s)
				return h, false
			}
			notes = append(notes, fmt.Sprintf("name %q ignored (audit records name a hook by its command)", v))
		case "if":
			notes = append(notes, fmt.Sprintf("condition if %q dropped: the hook runs for every call its matcher matches", v))
		case "loop_limit":
			notes = append(notes, fmt.Sprintf("loop_limit %v dropped: the bound on continuations is --max-stop-continues (default 3) for every hook", v))
		case "statusMessage", "description", "once", "matcher":
			if k != "matcher" {
				notes = append(notes, fmt.Sprintf("%s ignored", k))
			}
		default:
			notes = append(notes, fmt.Sprintf("%s ignored: not a key this import knows", k))
		}
	}
	if im.disabled[cmd] {
		im.drop(where, 1, "it is disabled in hooksConfig.disabled")
		return h, false
	}
	for _, n := range notes {
		im.note(where, "%s", n)
	}
	return h, true
}

// envName reports whether s is a variable name: ^[A-Za-z_][A-Za-z0-9_]*$.
func envName(s string) bool {
	for i, c := range []byte(s) {
		if !wordByte(c) || i == 0 && '0' <= c && c <= '9' {
			return false
		}
	}
	return s != ""
}

// timeoutMs converts a timeout in the agent's unit (unitMs milliseconds)
// to whole milliseconds, at least 1.
func timeoutMs(v any, unitMs float64) (int, bool) {
	var f float64
	switch x := v.(type) {
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		return 0, false
	}
	if !(f > 0) || math.IsInf(f, 0) {
		return 0, false
	}
	ms := f * unitMs
	if ms > maxTimeoutMs {
		return maxTimeoutMs + 1, true
	}
	return max(int(math.Round(ms)), 1), true
}

// shellQuote quotes s for /bin/sh: as it is when it needs no quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// fromTOML turns a decoded TOML document into the JSON values Import walks
// (its tables' keys sorted: TOML decoding does not keep their order; an
// array of tables keeps its order).
func fromTOML(v any) any {
	switch x := v.(type) {
	case map[string]any:
		o := newObject()
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			o.set(k, fromTOML(x[k]))
		}
		return o
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fromTOML(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fromTOML(e)
		}
		return out
	}
	return v
}

// JSON returns the imported hooks as an agents.json document.
func (im *Imported) JSON() []byte {
	doc := newObject()
	hooks := newObject()
	doc.set("hooks", hooks)
	for _, ev := range events.All() {
		gs := im.Hooks[ev]
		if len(gs) == 0 {
			continue
		}
		var list []any
		for _, g := range gs {
			o := newObject()
			if g.Matcher != "" {
				o.set("matcher", g.Matcher)
			}
			if g.Kind != "" {
				o.set("kind", string(g.Kind))
			}
			var hs []any
			for _, h := range g.Hooks {
				e := newObject()
				e.set("command", h.Command)
				if h.TimeoutMs > 0 {
					e.set("timeoutMs", h.TimeoutMs)
				}
				if h.OnError != "" {
					e.set("onError", h.OnError)
				}
				e.set("input", h.Input)
				hs = append(hs, e)
			}
			o.set("hooks", hs)
			list = append(list, o)
		}
		hooks.set(ev.String(), list)
	}
	return encodeJSON(doc, "  ")
}

// TOML returns the imported hooks as an agents.toml document.
func (im *Imported) TOML() ([]byte, error) {
	type hook struct {
		Command   string `toml:"command"`
		TimeoutMs int    `toml:"timeoutMs,omitzero"`
		OnError   string `toml:"onError,omitempty"`
		Input     string `toml:"input"`
	}
	type group struct {
		Matcher string `toml:"matcher,omitempty"`
		Kind    string `toml:"kind,omitempty"`
		Hooks   []hook `toml:"hooks"`
	}
	doc := struct {
		Hooks map[string][]group `toml:"hooks"`
	}{Hooks: map[string][]group{}}
	for ev, gs := range im.Hooks {
		for _, g := range gs {
			tg := group{Matcher: g.Matcher, Kind: string(g.Kind)}
			for _, h := range g.Hooks {
				tg.Hooks = append(tg.Hooks, hook(h))
			}
			doc.Hooks[ev.String()] = append(doc.Hooks[ev.String()], tg)
		}
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
