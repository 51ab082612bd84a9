package tools

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/shell/pwsh"
	"github.com/monad-hooks/monad-hooks/shell/syntax"
)

// A Spec declares one tool: its name, its kind, and the locations (see the
// package documentation) of the parts of its input that guards read.
type Spec struct {
	// Name is the tool name as the host sends it (case-sensitive).
	Name string `json:"name"`
	// Kind is what the tool does.
	Kind events.ToolKind `json:"kind"`
	// Locations of the command line (shell tools), the paths, the contents
	// written (patches included) and the URLs. When all four are empty the
	// kind's defaults apply (DefaultLocations).
	Command  []string `json:"command,omitempty"`
	Paths    []string `json:"paths,omitempty"`
	Contents []string `json:"contents,omitempty"`
	URLs     []string `json:"urls,omitempty"`
	// Shell is the dialect of a shell tool's command lines: "" (a POSIX
	// shell, the default), "powershell" or "cmd" (see events.ToolView).
	Shell string `json:"shell,omitempty"`
	// Agents names the agents whose tool this is (built-in specs only):
	// "claude-code", "gemini-cli", "codex", "cursor", "opencode", "crush",
	// "monad".
	Agents []string `json:"agents,omitempty"`
}

// Locations are where the parts of a tool's input live (see [Spec]).
type Locations struct {
	Command, Paths, Contents, URLs []string
}

// pathAndEditFields are the keys a path is found at (the first
// pathFieldCount), then those of an edit tool's list of edits.
var pathAndEditFields = [...]string{"file_path", "filePath", "path", "paths[]", "absolute_path", "target_file", "notebook_path",
	"filename", "file", "files[]", "dir_path", "directory", "target_directory",
	"edits[].file_path", "edits[].filePath", "edits[].path"}

const pathFieldCount = 13

// defaults returns the locations of kind k, shared (callers clone). It is a
// switch over constant slices rather than a map, which every process built
// at its start (BenchmarkCLIRunNoStdlib).
func defaults(k events.ToolKind) Locations {
	pathFields := pathAndEditFields[:pathFieldCount:pathFieldCount]
	switch k {
	case events.ToolShell:
		return Locations{Command: []string{"command", "cmd", "commands[]", "script", "args", ""}}
	case events.ToolRead, events.ToolDelete:
		return Locations{Paths: pathFields}
	case events.ToolWrite:
		return Locations{Paths: pathFields, Contents: []string{"content", "contents", "text", "data"}}
	case events.ToolEdit:
		return Locations{Paths: pathAndEditFields[:], Contents: []string{"new_string", "newString", "edits[].new_string", "edits[].newString", "code_edit", "replacement", "new_source", "content"}}
	case events.ToolPatch:
		return Locations{Contents: []string{"patch", "input", "patchText", "patch_text", "diff", "command", ""}}
	case events.ToolFetch:
		return Locations{URLs: []string{"url", "uri", "href", "urls[]"}, Paths: []string{"file_path", "filePath", "path", "output", "destination"}}
	case events.ToolQuery:
		return Locations{Contents: []string{"sql", "query", "statement", "statements[]"}}
	}
	return Locations{}
}

// DefaultLocations returns the locations a Spec of kind k gets when it
// gives none. The caller owns the slices.
func DefaultLocations(k events.ToolKind) Locations {
	d := defaults(k)
	return Locations{Command: slices.Clone(d.Command), Paths: slices.Clone(d.Paths), Contents: slices.Clone(d.Contents), URLs: slices.Clone(d.URLs)}
}

// Locations returns the locations in force for s: its own, or its kind's
// defaults when it gives none.
func (s Spec) Locations() Locations {
	if len(s.Command)+len(s.Paths)+len(s.Contents)+len(s.URLs) == 0 {
		return DefaultLocations(s.Kind)
	}
	return Locations{Command: slices.Clone(s.Command), Paths: slices.Clone(s.Paths), Contents: slices.Clone(s.Contents), URLs: slices.Clone(s.URLs)}
}

// step is one segment of a compiled location: a key (or "" for the value
// itself) and whether the value there is an array to walk.
type step struct {
	key  string
	each bool
}

type location []step

// parseLocation compiles a location; see the package documentation.
func parseLocation(loc string) (location, error) {
	if loc == "" {
		return nil, nil
	}
	var out location
	for i, seg := range strings.Split(loc, ".") {
		each := strings.HasSuffix(seg, "[]")
		key := strings.TrimSuffix(seg, "[]")
		if key == "" && !(i == 0 && each) {
			return nil, fmt.Errorf("location %q: empty key", loc)
		}
		if strings.ContainsAny(key, "[]") {
			return nil, fmt.Errorf("location %q: [] may only end a key", loc)
		}
		out = append(out, step{key: key, each: each})
	}
	return out, nil
}

// walk hands every value at loc in v to c.
func (loc location) walk(v any, c *collector) {
	for len(loc) > 0 {
		st := loc[0]
		if st.key != "" {
			m, ok := v.(map[string]any)
			if !ok {
				return
			}
			if v, ok = m[st.key]; !ok {
				return
			}
		}
		loc = loc[1:]
		if st.each {
			if a, ok := v.([]any); ok {
				for _, e := range a {
					loc.walk(e, c)
				}
			}
			return
		}
	}
	if v != nil {
		c.add(v)
	}
}

// A collector gathers the values of one part of a view: command lines, or
// the strings of paths, contents or URLs. It is a value on the caller's
// stack, so that collecting allocates only what the view keeps.
type collector struct {
	command bool     // command lines, else strings
	urls    bool     // strings are URLs (or texts holding them)
	first   string   // the first command line
	lines   []string // the command lines after it
	out     *[]string
	base    string // the tool's dialect (of a line given as a string)
	shell   string // the dialect of the lines
	mixed   bool   // the lines are not all in one dialect
}

func (c *collector) add(x any) {
	if !c.command {
		*c.out = appendStrings(*c.out, x, c.urls)
		return
	}
	l, d, argv := commandLine(x)
	if !argv {
		d = c.base
	}
	if l != "" && c.first == "" {
		c.shell = d
	} else if l != "" && d != c.shell {
		c.mixed = true
	}
	switch {
	case l == "":
	case c.first == "":
		c.first = l
	default:
		c.lines = append(c.lines, l)
	}
}

// compiled is a Spec with its locations compiled.
type compiled struct {
	spec                           Spec
	command, paths, contents, urls []location
	fit                            *fit // an MCP entry's inputs; nil: every input
	// argv, for an MCP entry of a tool that takes fields, builds the argv
	// of its command-line twin: the view's command (mcpargv.go).
	argv func(map[string]any) []string
}

func compile(s Spec) (*compiled, error) {
	compiles.Add(1)
	if s.Name == "" {
		return nil, fmt.Errorf("tool spec without a name")
	}
	if !s.Kind.Valid() {
		_, err := events.ParseToolKind(string(s.Kind))
		return nil, fmt.Errorf("tool %q: %w", s.Name, err)
	}
	if !ValidShell(s.Shell) {
		return nil, fmt.Errorf("tool %q: unknown shell %q: want \"\", \"sh\", \"powershell\" or \"cmd\"", s.Name, s.Shell)
	}
	l := s.Locations()
	c := &compiled{spec: s}
	for _, f := range []struct {
		locs []string
		into *[]location
	}{{l.Command, &c.command}, {l.Paths, &c.paths}, {l.Contents, &c.contents}, {l.URLs, &c.urls}} {
		for _, loc := range f.locs {
			p, err := parseLocation(loc)
			if err != nil {
				return nil, fmt.Errorf("tool %q: %w", s.Name, err)
			}
			*f.into = append(*f.into, p)
		}
	}
	return c, nil
}

// view extracts the normalized view of input into *v.
func (c *compiled) view(input any, v *events.ToolView) {
	*v = events.ToolView{Kind: c.spec.Kind}
	col := collector{command: true, base: dialect(c.spec.Shell)}
	for _, loc := range c.command {
		loc.walk(input, &col)
	}
	v.Command = col.first
	if len(col.lines) > 0 {
		v.Command = col.first + "\n" + strings.Join(col.lines, "\n")
	}
	// the lines' dialect (lines in several dialects are read as POSIX,
	// where the guards also look for what only PowerShell runs)
	if !col.mixed {
		v.Shell = col.shell
	}
	if c.argv != nil {
		if m, ok := input.(map[string]any); ok {
			if argv := c.argv(m); len(argv) > 0 {
				v.Command = syntax.Join(argv)
				v.Shell = "" // an argv joined with POSIX quoting
			}
		}
	}
	for _, f := range [...]struct {
		locs []location
		into *[]string
		urls bool
	}{{c.paths, &v.Paths, false}, {c.contents, &v.Contents, false}, {c.urls, &v.URLs, true}} {
		col := collector{urls: f.urls, out: f.into}
		for _, loc := range f.locs {
			loc.walk(input, &col)
		}
	}
}

// appendStrings appends the non-empty strings of x (a string or a list)
// to out; with urls, the URLs they hold.
func appendStrings(out []string, x any, urls bool) []string {
	add := func(s string) {
		switch {
		case s == "":
		case urls && strings.ContainsAny(s, " \t\r\n"):
			out = append(out, urlsIn(s)...)
		default:
			out = append(out, s)
		}
	}
	switch x := x.(type) {
	case string:
		add(x)
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				add(s)
			}
		}
	}
	return out
}

// urlsIn returns the http and https URLs written in a text, each up to the
// next white space (and without trailing punctuation).
func urlsIn(text string) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		i := strings.Index(w, "http://")
		if j := strings.Index(w, "https://"); j >= 0 && (i < 0 || j < i) {
			i = j
		}
		if i < 0 {
			continue
		}
		if u := strings.TrimRight(w[i:], ".,;:!?)]}>'\"`"); strings.Contains(u, "://") {
			out = append(out, u)
		}
	}
	return out
}

// ValidShell reports whether s names a dialect a Spec may declare: "",
// "sh", "powershell" or "cmd".
func ValidShell(s string) bool {
	return s == "" || s == "sh" || s == "powershell" || s == "cmd"
}

// dialect is the view's name of a declared dialect ("sh" is "").
func dialect(s string) string {
	if s == "sh" {
		return ""
	}
	return s
}

// commandLine returns the command line of a command value: a string, or an
// argv (a list of strings and numbers), with the dialect an argv sets and
// whether it was one.
func commandLine(x any) (string, string, bool) {
	switch x := x.(type) {
	case string:
		return x, "", false
	case []any:
		argv := make([]string, 0, len(x))
		for _, e := range x {
			switch e := e.(type) {
			case string:
				argv = append(argv, e)
			case bool, float64:
				argv = append(argv, fmt.Sprint(e))
			case fmt.Stringer: // json.Number
				argv = append(argv, e.String())
			default:
				return "", "", false // not an argv
			}
		}
		l, d := argvLine(argv)
		return l, d, true
	}
	return "", "", false
}

// isShell reports whether name is a POSIX shell's program name.
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash":
		return true
	}
	return false
}

// argvLine is the command line of an argv and its dialect: the script of
// ["bash", "-lc", SCRIPT]; the command string of powershell, pwsh or cmd
// (pwsh.Script: ["powershell.exe", "-NoProfile", "-Command", LINE] is
// LINE in PowerShell); else the words joined with shell quoting.
func argvLine(argv []string) (string, string) {
	if len(argv) == 3 && isShell(path.Base(argv[0])) && isCOption(argv[1]) {
		return argv[2], ""
	}
	if len(argv) > 1 {
		if text, d, err := pwsh.Script(argv); err == nil && d != "" && strings.TrimSpace(text) != "" {
			return text, d
		}
	}
	return syntax.Join(argv), ""
}

// isCOption reports whether w is a cluster of short options holding c
// ("-c", "-lc", "-ec").
func isCOption(w string) bool {
	if len(w) < 2 || w[0] != '-' || !strings.Contains(w, "c") {
		return false
	}
	for _, r := range w[1:] {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return false
		}
	}
	return true
}

// Extract returns the view of one call of the tool s with the given input
// (decoded JSON: map[string]any, []any, string, ...). It fails only for a
// Spec that is invalid (no name, an unknown kind, a malformed location).
func Extract(s Spec, input any) (events.ToolView, error) {
	c, err := compile(s)
	if err != nil {
		return events.ToolView{}, err
	}
	var v events.ToolView
	c.view(input, &v)
	return v, nil
}

// compiles counts the specs compiled (tests: export_test.go).
var compiles atomic.Int64

// A Table maps tool names to their specs, compiled. It is immutable and
// safe for concurrent use. The zero Table knows no tool.
type Table struct {
	m map[string]*compiled
	// builtin: the names m lacks are looked up in the built-in table
	// (NewBuiltinTable), and those found are added to a copy of m in
	// seen, so that a dispatch's lookup stays one map access
	// (BenchmarkLuaGuard).
	builtin bool
	seen    atomic.Pointer[map[string]*compiled]
}

// NewTable compiles specs into a Table. A spec replaces an earlier one of
// the same name (so NewTable(append(Builtin(), mine...)...) lets the host's
// own declarations win). It fails for an invalid spec, naming it.
func NewTable(specs ...Spec) (*Table, error) {
	t := &Table{m: make(map[string]*compiled, len(specs))}
	for _, s := range specs {
		c, err := compile(s)
		if err != nil {
			return nil, err
		}
		c.spec = s.clone()
		t.m[s.Name] = c
	}
	return t, nil
}

// NewBuiltinTable is NewTable(append(Builtin(), specs...)...), but the
// built-in specs are merged and compiled when a name is first looked up
// (once per process), not all at once: a one-shot process looks up one
// tool or two (BenchmarkCLIRunNoStdlib). It fails for an invalid spec of
// specs, naming it.
func NewBuiltinTable(specs ...Spec) (*Table, error) {
	t, err := NewTable(specs...)
	if err != nil {
		return nil, err
	}
	t.builtin = true
	t.seen.Store(&t.m)
	return t, nil
}

// maxSeen bounds the names a Table made by NewBuiltinTable remembers:
// the built-in names are a few hundred, the MCP names (mcp__SERVER__TOOL)
// as many as a host sends.
const maxSeen = 1024

// entry returns the compiled spec of the tool called name, nil when the
// table does not know it: its own specs, then (for a Table made by
// NewBuiltinTable) the built-in table, then the MCP table (mcp.go).
func (t *Table) entry(name string) *compiled {
	if t == nil {
		return nil
	}
	if !t.builtin {
		return t.m[name]
	}
	seen := t.seen.Load()
	if c, ok := (*seen)[name]; ok {
		return c
	}
	c := builtinEntry(name)
	if c == nil {
		if c = mcpEntry(name); c == nil {
			return nil
		}
		if len(*seen) >= maxSeen {
			return c // the names of MCP tools are many: remember a bounded number
		}
	}
	// Copy on write: at most one copy per built-in name, and per MCP name
	// up to maxSeen names.
	for {
		next := make(map[string]*compiled, len(*seen)+1)
		for k, v := range *seen {
			next[k] = v
		}
		next[name] = c
		if t.seen.CompareAndSwap(seen, &next) {
			return c
		}
		seen = t.seen.Load()
		if c2, ok := (*seen)[name]; ok {
			return c2
		}
	}
}

// Lookup returns the spec of the tool called name, and false when the table
// does not know it.
//
// A tool of an MCP server known by its tool part (see the package
// documentation) is found whatever its input; its spec has the name
// looked up. Known says whether it applies to a call's input.
func (t *Table) Lookup(name string) (Spec, bool) {
	c := t.entry(name)
	if c == nil {
		return Spec{}, false
	}
	s := c.spec.clone()
	s.Name = name
	return s, true
}

// Known reports whether the table knows the tool called name for a call
// with the given input: false for a name it does not know, and for a tool
// of an MCP server known by its tool part (see the package documentation)
// whose input holds none of the fields its entry reads, or a field of
// another server's tool of the same name; true otherwise.
func (t *Table) Known(name string, input any) bool {
	c := t.entry(name)
	return c != nil && c.fits(input)
}

// Kind returns the kind of the tool called name, "" when the table does
// not know it. The kind of a tool of an MCP server known by its tool part
// does not depend on a call's input (see Known).
func (t *Table) Kind(name string) events.ToolKind {
	if c := t.entry(name); c != nil {
		return c.spec.Kind
	}
	return ""
}

// View returns the view of one call of the tool called name, or nil when
// the table does not know the tool for this input (see Known). The view
// is new: the caller owns it.
func (t *Table) View(name string, input any) *events.ToolView {
	c := t.entry(name)
	if c == nil || !c.fits(input) {
		return nil
	}
	v := new(events.ToolView)
	c.view(input, v)
	return v
}

// ViewInto is View that fills *v (reset first) instead of allocating a
// view; it reports false, leaving *v alone, when the table does not know
// the tool for this input (see Known).
func (t *Table) ViewInto(name string, input any, v *events.ToolView) bool {
	c := t.entry(name)
	if c == nil || !c.fits(input) {
		return false
	}
	c.view(input, v)
	return true
}

// Specs returns every spec of the table, sorted by name. The caller owns
// the slice.
func (t *Table) Specs() []Spec {
	if t == nil {
		return nil
	}
	out := make([]Spec, 0, len(t.m))
	for _, c := range t.m {
		out = append(out, c.spec.clone())
	}
	if t.builtin {
		for _, s := range builtin() {
			if _, own := t.m[s.Name]; !own {
				out = append(out, s.clone())
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
