package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/monad-hooks/monad-hooks/engine/hosts"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/internal/suggest"
)

// validator turns a node tree into a File, collecting every problem.
type validator struct {
	file    string
	tier    Tier
	toml    bool
	dir     string
	errs    Errors
	warns   Errors
	dropped bool
}

func (v *validator) report(list *Errors, line, col int, code, field, format string, args ...any) {
	if len(*list) >= MaxErrors {
		if list == &v.errs {
			v.dropped = true
		}
		return
	}
	*list = append(*list, &Error{Code: code, File: v.file, Line: line, Col: col, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// errAt reports a problem with a value; errKey one with a key.
func (v *validator) errAt(n *node, code, field, format string, args ...any) {
	v.report(&v.errs, n.line, n.col, code, field, format, args...)
}

func (v *validator) errKey(m member, code, field, format string, args ...any) {
	v.report(&v.errs, m.line, m.col, code, field, format, args...)
}

// result returns the problems in document order, or nil.
func (v *validator) result() Errors {
	if len(v.errs) == 0 {
		return nil
	}
	sortErrors(v.errs)
	if v.dropped {
		v.errs = append(v.errs, &Error{Code: CodeTooManyErrors, File: v.file,
			Msg: fmt.Sprintf("more than %d problems; the rest are not reported", MaxErrors)})
	}
	return v.errs
}

func (v *validator) sortedWarnings() Errors {
	sortErrors(v.warns)
	return v.warns
}

func sortErrors(es Errors) {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Line != es[j].Line {
			return es[i].Line < es[j].Line
		}
		return es[i].Col < es[j].Col
	})
}

func (v *validator) pos(n *node) Pos { return Pos{File: v.file, Line: n.line, Col: n.col} }

// kindName names the type of n for a message, in the file's own terms.
func (v *validator) kindName(n *node) string {
	switch n.kind {
	case kindNull:
		return "null"
	case kindBool:
		return "a boolean"
	case kindNumber:
		if v.toml && n.float {
			return "a float (" + n.str + ")"
		}
		return "a number (" + n.str + ")"
	case kindString:
		return "a string"
	case kindDatetime:
		return "a datetime"
	case kindArray:
		return "an array"
	case kindObject:
		if v.toml {
			return "a table"
		}
		return "an object"
	}
	return "a value"
}

// members returns the members of an object, each key once: a repeated key is
// reported and its later occurrences dropped.
func (v *validator) members(n *node, field string) []member {
	if len(n.mems) < 2 {
		return n.mems
	}
	first := make(map[string]member, len(n.mems))
	out := make([]member, 0, len(n.mems))
	for _, m := range n.mems {
		if f, dup := first[m.key]; dup {
			v.errKey(m, CodeDuplicateKey, fieldKey(field, m.key),
				"duplicate key %q (first at line %d, column %d)", m.key, f.line, f.col)
			continue
		}
		first[m.key] = m
		out = append(out, m)
	}
	return out
}

// keyAliases maps keys people write by habit (from other hook systems, or
// other casings) to the key meant: a table the compiler lays out, where a
// map was built as every process started (BenchmarkCLIRunNoStdlib).
var keyAliases = [...]struct{ from, to string }{
	{"timeout", "timeoutMs"},
	{"timeout_ms", "timeoutMs"},
	{"timeoutms", "timeoutMs"},
	{"on_error", "onError"},
	{"onerror", "onError"},
	{"cmd", "command"},
	{"matchers", "matcher"},
	{"hook", "hooks"},
	{"policy_hooks", "policyHooks"},
	{"policyhooks", "policyHooks"},
	{"atom", "atoms"},
	{"params", "with"},
	{"parameters", "with"},
}

// didYouMean returns ` (did you mean "x"?)` when key looks like one of known:
// a known alias, or the same but for case or a typo (see suggest.DidYouMean).
func didYouMean(key string, known ...string) string {
	return suggest.DidYouMean(key, known, keyAlias)
}

// keyAlias returns the key meant by one people write by habit, or "".
func keyAlias(key string) string {
	key = strings.ToLower(key)
	for _, a := range keyAliases {
		if a.from == key {
			return a.to
		}
	}
	return ""
}

// eventHint says which event an unknown name was probably meant to be
// (another agent runtime's name for it, a typo) and lists the events.
func eventHint(name string) string {
	return suggest.Hint(name, events.Names(), hosts.Alias)
}

func (v *validator) document(root *node) *File {
	f := &File{Path: v.file, Tier: v.tier}
	if root.kind != kindObject {
		v.errAt(root, CodeWrongType, "", "the document must be %s, got %s", map[bool]string{false: "an object", true: "a table"}[v.toml], v.kindName(root))
		return f
	}
	for _, m := range v.members(root, "") {
		field := fieldKey("", m.key)
		if m.val.kind == kindNull {
			continue // null is the same as absent
		}
		switch m.key {
		case "hooks":
			if v.tier == TierPolicy {
				v.errKey(m, CodeHooksInPolicy, field, `"hooks" in a policy file: the operator's command hooks belong under "policyHooks"`)
				continue
			}
			f.Hooks, f.HooksKey = v.hooks(m.val, field), true
		case "policyHooks":
			if v.tier == TierUser {
				v.errKey(m, CodePolicyInUser, field, `"policyHooks" in a user file: policy hooks come only from the operator's policy source`)
				continue
			}
			f.Hooks, f.HooksKey = v.hooks(m.val, field), true
		case "atoms":
			if v.tier == TierPolicy {
				v.errKey(m, CodeAtomsInPolicy, field, `"atoms" in a policy file: the policy tier holds shell command hooks only`)
				continue
			}
			f.Atoms = v.atoms(m.val, field)
		case "tools":
			f.Tools = v.tools(m.val, field)
		case "$schema":
			// The JSON Schema editors use to check the file: not ours to
			// interpret, but a string.
			if m.val.kind != kindString {
				v.errAt(m.val, CodeWrongType, field, "$schema must be a string, got %s", v.kindName(m.val))
			}
		default:
			// A key we do not know would be ignored, and a misspelling of
			// ours ("Hooks") would silently disarm the hooks it holds.
			want := `"hooks", "atoms" or "tools"`
			known := []string{"hooks", "atoms", "tools", "policyHooks"}
			if v.tier == TierPolicy {
				want = `"policyHooks" or "tools"`
				known = []string{"policyHooks", "tools", "hooks", "atoms"}
			}
			v.errKey(m, CodeUnknownKey, field, "unknown key %q in a %s file: want %s%s", m.key, v.tier, want, didYouMean(m.key, known...))
		}
	}
	return f
}

func (v *validator) hooks(n *node, field string) map[events.Event][]Group {
	if n.kind != kindObject {
		v.errAt(n, CodeWrongType, field, "%s must be %s mapping event names to matcher groups, got %s",
			field, map[bool]string{false: "an object", true: "a table"}[v.toml], v.kindName(n))
		return nil
	}
	var out map[events.Event][]Group
	for _, m := range v.members(n, field) {
		ef := fieldKey(field, m.key)
		ev, err := events.ParseEvent(m.key)
		if err != nil {
			v.errKey(m, CodeUnknownEvent, ef, "unknown event %q%s", m.key, eventHint(m.key))
		}
		groups := v.groups(m.val, ef, ev)
		if ev.Valid() && len(groups) > 0 {
			if out == nil {
				out = make(map[events.Event][]Group)
			}
			out[ev] = groups
		}
	}
	return out
}

func (v *validator) groups(n *node, field string, ev events.Event) []Group {
	if n.kind == kindNull {
		return nil
	}
	if n.kind != kindArray {
		v.errAt(n, CodeWrongType, field, "%s must be an array of matcher groups, got %s", field, v.kindName(n))
		return nil
	}
	out := make([]Group, 0, len(n.elems))
	for i, e := range n.elems {
		if g, ok := v.group(e, fieldIndex(field, i), ev); ok {
			out = append(out, g)
		}
	}
	return out
}

func (v *validator) group(n *node, field string, ev events.Event) (Group, bool) {
	g := Group{Pos: v.pos(n)}
	if n.kind != kindObject {
		v.errAt(n, CodeWrongType, field, `a matcher group must be %s with "matcher" and "hooks", got %s`,
			map[bool]string{false: "an object", true: "a table"}[v.toml], v.kindName(n))
		return g, false
	}
	hasHooks := false
	for _, m := range v.members(n, field) {
		mf := fieldKey(field, m.key)
		switch m.key {
		case "matcher":
			g.Matcher = v.matcher(m.val, mf, ev)
		case "kind":
			g.Kinds = v.kinds(m.val, mf, ev)
		case "hooks":
			if m.val.kind != kindNull {
				hasHooks = true
				g.Hooks = v.hookList(m.val, mf, ev)
			}
		default:
			v.errKey(m, CodeUnknownKey, mf, `unknown key %q in a matcher group: want "matcher", "kind" or "hooks"%s`,
				m.key, didYouMean(m.key, "matcher", "kind", "hooks"))
		}
	}
	if !hasHooks {
		v.errAt(n, CodeMissingHooks, fieldKey(field, "hooks"), `matcher group has no "hooks" list`)
	}
	return g, true
}

func (v *validator) matcher(n *node, field string, ev events.Event) string {
	switch {
	case n.kind == kindNull:
		return ""
	case n.kind != kindString:
		v.errAt(n, CodeBadMatcher, field, "matcher must be a string (an RE2 regular expression), got %s", v.kindName(n))
		return ""
	case n.str == "" || n.str == "*":
		return ""
	}
	if _, err := regexp.Compile(n.str); err != nil {
		msg := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			msg = se.Code.String() + ": `" + se.Expr + "`"
		}
		v.errAt(n, CodeBadMatcher, field, "matcher %q is not a valid RE2 regular expression: %s", n.str, msg)
		return n.str
	}
	if ev.Valid() && !ev.Spec().Matcher {
		v.report(&v.warns, n.line, n.col, CodeMatcherIgnored, field,
			"matcher %q is ignored: %s is not tool-scoped, so its hooks always run (matchers apply to BeforeTool, ApprovalRequest and AfterTool)",
			n.str, ev)
	}
	return n.str
}

// kinds validates a group's kind: a tool kind or a non-empty list of them,
// at a tool-scoped event.
func (v *validator) kinds(n *node, field string, ev events.Event) []events.ToolKind {
	var elems []*node
	switch n.kind {
	case kindNull:
		return nil
	case kindString:
		elems = []*node{n}
	case kindArray:
		if len(n.elems) == 0 {
			v.errAt(n, CodeBadKind, field, "kind must be a tool kind or a non-empty list of them")
			return nil
		}
		elems = n.elems
	default:
		v.errAt(n, CodeBadKind, field, "kind must be a tool kind (a string) or a list of them, got %s", v.kindName(n))
		return nil
	}
	if ev.Valid() && !ev.Spec().Matcher {
		v.errAt(n, CodeBadKind, field, "kind applies only at the tool-scoped events (BeforeTool, ApprovalRequest, AfterTool), not at %s", ev)
		return nil
	}
	var out []events.ToolKind
	for i, e := range elems {
		ef := field
		if n.kind == kindArray {
			ef = fieldIndex(field, i)
		}
		if k, ok := v.toolKind(e, ef); ok {
			out = append(out, k)
		}
	}
	return out
}

// toolKind validates one tool kind name.
func (v *validator) toolKind(n *node, field string) (events.ToolKind, bool) {
	if n.kind != kindString {
		v.errAt(n, CodeBadKind, field, "a tool kind must be a string, got %s", v.kindName(n))
		return "", false
	}
	k, err := events.ParseToolKind(n.str)
	if err != nil {
		names := make([]string, 0, 8)
		for _, k := range events.ToolKinds() {
			names = append(names, string(k))
		}
		hint := didYouMean(n.str, names...)
		if hint == "" {
			hint = ": want one of " + strings.Join(names, ", ")
		}
		v.errAt(n, CodeBadKind, field, "unknown tool kind %q%s", n.str, hint)
		return "", false
	}
	return k, true
}

// tools validates the tools key: an object mapping tool names to their
// declarations.
func (v *validator) tools(n *node, field string) []Tool {
	if n.kind != kindObject {
		v.errAt(n, CodeWrongType, field, "tools must be %s mapping tool names to {kind, command, paths, contents, urls}, got %s",
			map[bool]string{false: "an object", true: "a table"}[v.toml], v.kindName(n))
		return nil
	}
	var out []Tool
	for _, m := range v.members(n, field) {
		tf := fieldKey(field, m.key)
		t := Tool{Name: m.key, Pos: Pos{File: v.file, Line: m.line, Col: m.col}}
		if m.val.kind != kindObject {
			v.errAt(m.val, CodeBadTool, tf, "a tool declaration must be %s with a \"kind\", got %s",
				map[bool]string{false: "an object", true: "a table"}[v.toml], v.kindName(m.val))
			continue
		}
		hasKind, ok := false, true
		for _, d := range v.members(m.val, tf) {
			df := fieldKey(tf, d.key)
			switch d.key {
			case "kind":
				hasKind = true
				var good bool
				t.Kind, good = v.toolKind(d.val, df)
				ok = ok && good
			case "shell":
				if d.val.kind != kindString || !(d.val.str == "" || d.val.str == "sh" || d.val.str == "powershell" || d.val.str == "cmd") {
					ok = false
					v.errAt(d.val, CodeBadTool, df, `a tool's shell must be "sh", "powershell" or "cmd"%s`, didYouMean(d.val.str, "sh", "powershell", "cmd"))
					continue
				}
				t.Shell = d.val.str
			case "command", "paths", "contents", "urls":
				locs, good := v.locations(d.val, df)
				ok = ok && good
				switch d.key {
				case "command":
					t.Command = locs
				case "paths":
					t.Paths = locs
				case "contents":
					t.Contents = locs
				default:
					t.URLs = locs
				}
			default:
				ok = false
				v.errKey(d, CodeUnknownKey, df, `unknown key %q in a tool declaration: want "kind", "command", "paths", "contents", "urls" or "shell"%s`,
					d.key, didYouMean(d.key, "kind", "command", "paths", "contents", "urls", "shell"))
			}
		}
		if !hasKind {
			ok = false
			v.errAt(m.val, CodeBadTool, fieldKey(tf, "kind"), `tool declaration has no "kind"`)
		}
		if ok {
			out = append(out, t)
		}
	}
	return out
}

// locations validates a list of location strings (or one string).
func (v *validator) locations(n *node, field string) ([]string, bool) {
	switch n.kind {
	case kindString:
		return []string{n.str}, true
	case kindArray:
		out := make([]string, 0, len(n.elems))
		for i, e := range n.elems {
			if e.kind != kindString {
				v.errAt(e, CodeBadTool, fieldIndex(field, i), "a location must be a string, got %s", v.kindName(e))
				return nil, false
			}
			out = append(out, e.str)
		}
		return out, true
	}
	v.errAt(n, CodeBadTool, field, "locations must be a string or a list of strings, got %s", v.kindName(n))
	return nil, false
}

func (v *validator) hookList(n *node, field string, ev events.Event) []Hook {
	if n.kind != kindArray {
		v.errAt(n, CodeWrongType, field, "%s must be an array of hook entries, got %s", field, v.kindName(n))
		return nil
	}
	out := make([]Hook, 0, len(n.elems))
	for i, e := range n.elems {
		if h, ok := v.hook(e, fieldIndex(field, i), ev); ok {
			out = append(out, h)
		}
	}
	return out
}

func (v *validator) hook(n *node, field string, ev events.Event) (Hook, bool) {
	h := Hook{Pos: v.pos(n)}
	if n.kind != kindObject {
		v.errAt(n, CodeWrongType, field, `a hook entry must be %s with a "command", got %s`,
			map[bool]string{false: "an object", true: "a table"}[v.toml], v.kindName(n))
		return h, false
	}
	hasCommand := false
	for _, m := range v.members(n, field) {
		mf := fieldKey(field, m.key)
		val := m.val
		switch m.key {
		case "command":
			if val.kind == kindNull {
				continue
			}
			hasCommand = true
			switch {
			case val.kind != kindString:
				v.errAt(val, CodeWrongType, mf, "command must be a string, got %s", v.kindName(val))
			case strings.TrimSpace(val.str) == "":
				v.errAt(val, CodeMissingCommand, mf, "command is empty")
			case strings.IndexByte(val.str, 0) >= 0:
				v.errAt(val, CodeBadCommand, mf, "command contains a NUL character")
			default:
				h.Command = val.str
			}
		case "timeoutMs":
			h.TimeoutMs = v.timeout(val, mf)
		case "onError":
			switch {
			case val.kind == kindNull:
			case val.kind != kindString:
				v.errAt(val, CodeBadOnError, mf, `onError must be "deny" or "skip", got %s`, v.kindName(val))
			case val.str == OnErrorDeny:
				h.OnError = OnErrorDeny
			case val.str == OnErrorSkip:
			default:
				v.errAt(val, CodeBadOnError, mf, `onError must be "deny" or "skip", got %q`, val.str)
			}
		case "input":
			h.Input = v.input(val, mf, ev)
		case "persistent":
			switch val.kind {
			case kindNull:
			case kindBool:
				h.Persistent = val.b
			default:
				v.errAt(val, CodeWrongType, mf, "persistent must be true or false, got %s", v.kindName(val))
			}
		default:
			v.errKey(m, CodeUnknownKey, mf, `unknown key %q in a hook entry: want "command", "timeoutMs", "onError", "input" or "persistent"%s`,
				m.key, didYouMean(m.key, "command", "timeoutMs", "onError", "input", "persistent"))
		}
	}
	if h.Persistent && h.Input != "" {
		for _, m := range n.mems {
			if m.key == "input" {
				v.errAt(m.val, CodeBadInput, fieldKey(field, "input"), `a persistent hook speaks HookInput and HookOutput lines: "input" (an agent's contract of one call per process) does not apply`)
			}
		}
		h.Input = ""
	}
	if !hasCommand {
		v.errAt(n, CodeMissingCommand, fieldKey(field, "command"), `hook entry has no "command"`)
	}
	return h, true
}

// input validates a hook entry's input: the agent whose hook contract the
// command speaks, "HOST" or "HOST:EVENT" (EVENT one of the agent's events
// that maps to ev; without it, the agent's first one for ev). "monad", the
// seed's contract, is the default and is stored as "".
func (v *validator) input(n *node, field string, ev events.Event) string {
	if n.kind == kindNull {
		return ""
	}
	if n.kind != kindString {
		v.errAt(n, CodeBadInput, field, "input must be a string naming an agent (%s), got %s", strings.Join(hosts.Names(), ", "), v.kindName(n))
		return ""
	}
	name, event, _ := strings.Cut(n.str, ":")
	h, ok := hosts.Lookup(name)
	if !ok {
		hint := didYouMean(name, hosts.Names()...)
		if hint == "" {
			hint = ": want one of " + strings.Join(hosts.Names(), ", ")
		}
		v.errAt(n, CodeBadInput, field, "unknown agent %q%s", name, hint)
		return ""
	}
	if !ev.Valid() {
		return n.str // the event's own error is reported
	}
	if _, ok := h.EventFor(ev, event); !ok {
		var names []string
		for _, e := range h.Events {
			if e.Monad == ev {
				names = append(names, name+":"+e.Name)
			}
		}
		switch {
		case len(names) == 0:
			v.errAt(n, CodeBadInput, field, "agent %s has no hook event for %s, so a hook written for it cannot run there", name, ev)
		default:
			v.errAt(n, CodeBadInput, field, "agent %s has no event %q for %s (want %s)", name, event, ev, strings.Join(names, " or "))
		}
		return ""
	}
	if n.str == "monad" {
		return ""
	}
	return n.str
}

func (v *validator) timeout(n *node, field string) int {
	if n.kind == kindNull {
		return 0
	}
	if n.kind != kindNumber {
		v.errAt(n, CodeBadTimeout, field, "timeoutMs must be an integer number of milliseconds, got %s", v.kindName(n))
		return 0
	}
	ms, err := strconv.ParseInt(n.str, 10, 64)
	if n.float || err != nil && !errors.Is(err, strconv.ErrRange) {
		got := n.str
		if n.float {
			got = v.kindName(n)
		}
		v.errAt(n, CodeBadTimeout, field, "timeoutMs must be an integer number of milliseconds, got %s", got)
		return 0
	}
	if err != nil || ms < 1 || ms > MaxTimeoutMs {
		v.errAt(n, CodeBadTimeout, field, "timeoutMs must be between 1 and %d (10 minutes), got %s", MaxTimeoutMs, n.str)
		return 0
	}
	return int(ms)
}

func (v *validator) atoms(n *node, field string) []Atom {
	if n.kind != kindArray {
		v.errAt(n, CodeWrongType, field, "atoms must be an array of paths and {path or stdlib, with} entries, got %s", v.kindName(n))
		return nil
	}
	out := make([]Atom, 0, len(n.elems))
	for i, e := range n.elems {
		if a, ok := v.atom(e, fieldIndex(field, i)); ok {
			out = append(out, a)
		}
	}
	return out
}

func (v *validator) atom(n *node, field string) (Atom, bool) {
	a := Atom{Pos: v.pos(n)}
	switch n.kind {
	case kindString:
		a.Path = v.atomPath(n, field)
		return a, true
	case kindObject:
	default:
		v.errAt(n, CodeWrongType, field, "an atoms entry must be a path string or %s, got %s",
			map[bool]string{false: "an object", true: "a table"}[v.toml], v.kindName(n))
		return a, false
	}
	var hasPath, hasStdlib bool
	for _, m := range v.members(n, field) {
		mf := fieldKey(field, m.key)
		val := m.val
		switch m.key {
		case "path":
			if val.kind != kindNull {
				hasPath = true
				a.Path = v.atomPath(val, mf)
			}
		case "stdlib":
			switch {
			case val.kind == kindNull:
			case val.kind != kindString:
				hasStdlib = true
				v.errAt(val, CodeWrongType, mf, "stdlib must be a pack name string, got %s", v.kindName(val))
			case strings.TrimSpace(val.str) == "":
				hasStdlib = true
				v.errAt(val, CodeBadAtom, mf, "stdlib pack name is empty")
			default:
				hasStdlib = true
				a.Stdlib = val.str
			}
		case "with":
			switch val.kind {
			case kindNull:
			case kindObject:
				a.With, _ = v.plain(val, mf).(map[string]any)
				a.WithPos = make(map[string]Pos, len(val.mems))
				for _, w := range val.mems {
					if _, dup := a.WithPos[w.key]; !dup { // as plain, the first of duplicates
						a.WithPos[w.key] = Pos{File: v.file, Line: w.line, Col: w.col}
					}
				}
			default:
				v.errAt(val, CodeWrongType, mf, "with must be %s of parameters, got %s",
					map[bool]string{false: "an object", true: "a table"}[v.toml], v.kindName(val))
			}
		default:
			v.errKey(m, CodeUnknownKey, mf, `unknown key %q in an atoms entry: want "path", "stdlib" or "with"%s`,
				m.key, didYouMean(m.key, "path", "stdlib", "with"))
		}
	}
	switch {
	case hasPath && hasStdlib:
		v.errAt(n, CodeBadAtom, field, `atoms entry names both "path" and "stdlib": give exactly one`)
	case !hasPath && !hasStdlib:
		v.errAt(n, CodeBadAtom, field, `atoms entry names neither "path" nor "stdlib": give exactly one`)
	}
	return a, true
}

// atomPath validates a path string and resolves it against the config
// file's directory.
func (v *validator) atomPath(n *node, field string) string {
	switch {
	case n.kind != kindString:
		v.errAt(n, CodeWrongType, field, "an atom path must be a string, got %s", v.kindName(n))
		return ""
	case strings.TrimSpace(n.str) == "":
		v.errAt(n, CodeBadAtom, field, "atom path is empty")
		return ""
	case strings.IndexByte(n.str, 0) >= 0:
		v.errAt(n, CodeBadAtom, field, "atom path contains a NUL character")
		return ""
	}
	p := filepath.FromSlash(n.str)
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(v.dir, p)
}

// plain converts a parameter value to plain Go values (see Atom.With).
func (v *validator) plain(n *node, field string) any {
	switch n.kind {
	case kindNull:
		return nil
	case kindBool:
		return n.b
	case kindString:
		return n.str
	case kindNumber:
		if n.float && (n.str == "nan" || n.str == "+Inf" || n.str == "-Inf") {
			v.errAt(n, CodeBadAtom, field, "parameter %s is not a finite number, which JSON cannot represent", n.str)
			return nil
		}
		return json.Number(n.str)
	case kindDatetime:
		v.errAt(n, CodeBadAtom, field, "parameter is a TOML datetime (%s), which JSON cannot represent: quote it as a string", n.str)
		return nil
	case kindArray:
		out := make([]any, len(n.elems))
		for i, e := range n.elems {
			out[i] = v.plain(e, fieldIndex(field, i))
		}
		return out
	case kindObject:
		mems := v.members(n, field)
		out := make(map[string]any, len(mems))
		for _, m := range mems {
			out[m.key] = v.plain(m.val, fieldKey(field, m.key))
		}
		return out
	}
	return nil
}
