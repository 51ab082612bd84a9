package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/monad-hooks/monad-hooks/engine/internal/config"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/tools"
)

// WithTools declares the host's tools: for each tool name, its kind and
// where its input holds the command, paths, contents and URLs (see package
// tools). Declarations add to the built-in table of the agents the project
// knows (tools.Builtin) and replace a built-in spec of the same name; the
// "tools" of an operator policy file replace them in turn. A hook that
// selects tools by kind (GoHook.Kinds, hook{ kind = ... } in Lua, "kind"
// in a matcher group), and so every stdlib guard, covers a declared tool
// as soon as it is declared. An invalid spec is a ConfigError
// (CodeBadTool) from New.
func WithTools(specs ...tools.Spec) Option {
	return func(o *options) { o.tools = append(o.tools, specs...) }
}

// WithUnguardedTools sets the decision for a tool-scoped dispatch
// (BeforeTool, ApprovalRequest, AfterTool) of a tool that is neither
// declared nor in the built-in table, so that no guard knows what it does.
// Such a dispatch is always visible: the Result says UnguardedTool and its
// audit starts with an engine record (Kind "engine", Hook "unguardedTool").
// With events.Proceed (the default) that is all; with events.Ask or
// events.Deny the record decides so at the events that honour it (a deny
// runs no hook; AfterTool cannot deny and only flags). Another decision is
// a ConfigError (CodeBadOption) from New.
func WithUnguardedTools(d events.Decision) Option {
	return func(o *options) { o.unguarded = d }
}

// toolDecl is one tool declared by a configuration file.
type toolDecl struct {
	spec tools.Spec
	pos  config.Pos // of the declaration
}

// knownTools returns who declares each tool before the configuration files
// do beyond the built-in table (see declaredBy): the WithTools specs.
func knownTools(opt []tools.Spec) map[string]string {
	known := make(map[string]string, len(opt))
	for _, s := range opt {
		known[s.Name] = "WithTools"
	}
	return known
}

// declaredBy says who declares the tool called name: known (see
// knownTools), else the built-in table, looked up by name rather than
// listed at every load (BenchmarkCLIRunNoStdlib).
func declaredBy(known map[string]string, name string) (string, bool) {
	if by, ok := known[name]; ok {
		return by, true
	}
	if agents, ok := tools.BuiltinAgents(name); ok {
		return "the built-in table (" + strings.Join(agents, ", ") + ")", true
	}
	return "", false
}

// checkWithTools reports the invalid specs of WithTools (problems of the
// options).
func checkWithTools(opt []tools.Spec) ConfigErrors {
	var errs ConfigErrors
	for i, s := range opt {
		if _, err := tools.Extract(s, nil); err != nil {
			errs = append(errs, &ConfigError{Code: CodeBadTool, Msg: fmt.Sprintf("WithTools #%d: %v", i, err)})
		}
	}
	return errs
}

// fileTools checks the tools one configuration file declares. known says
// who declares each tool so far; the file's declarations are added to it
// when they are all valid, else the file's problems are returned. A policy
// file's declaration replaces a known spec of the same name; a user file
// may only add tools: one that redeclares a known tool (to make bash
// "other", say) is an error.
func fileTools(known map[string]string, ts []config.Tool, policy bool) ([]toolDecl, ConfigErrors) {
	var decls []toolDecl
	var errs ConfigErrors
	for _, t := range ts {
		d := toolDecl{spec: tools.Spec{Name: t.Name, Kind: t.Kind, Command: t.Command, Paths: t.Paths, Contents: t.Contents, URLs: t.URLs, Shell: t.Shell}, pos: t.Pos}
		if _, err := tools.Extract(d.spec, nil); err != nil {
			errs = append(errs, atomError(CodeBadTool, t.Pos, err))
			continue
		}
		if by, ok := declaredBy(known, t.Name); ok && !policy {
			errs = append(errs, atomError(CodeBadTool, t.Pos, fmt.Errorf(
				"tool %q is already declared by %s: a user file may declare new tools, not redeclare known ones", t.Name, by)))
			continue
		}
		decls = append(decls, d)
	}
	if errs != nil {
		return nil, errs
	}
	for _, d := range decls {
		known[d.spec.Name] = d.pos.String()
	}
	return decls, nil
}

// buildTools compiles the tool table of a generation: the built-in table,
// then the WithTools specs, then the declarations of the files (checked by
// fileTools), each replacing an earlier spec of the same name. declared
// maps each tool declared beyond the built-in table to who declared it.
func buildTools(opt []tools.Spec, decls []toolDecl) (*tools.Table, map[string]string, error) {
	specs := slices.Clone(opt)
	declared := make(map[string]string, len(opt)+len(decls))
	for _, s := range opt {
		declared[s.Name] = "WithTools"
	}
	for _, d := range decls {
		specs = append(specs, d.spec)
		declared[d.spec.Name] = d.pos.String()
	}
	// The built-in specs are compiled when a dispatch first names them
	// (BenchmarkCLIRunNoStdlib).
	tab, err := tools.NewBuiltinTable(specs...)
	return tab, declared, err
}

// kindEntry says whether a generation's tool table knows one tool name,
// remembered in the generation's kinds.
type kindEntry struct {
	name  string
	known bool
	// byInput: the table knows the tool only for some inputs (a tool of
	// an MCP server, tools.Table.Known), so each call asks it.
	byInput bool
}

// toolKnown reports whether the generation's tool table knows the tool
// called name for a call with this input (tools.Table.Known). The
// dispatch path asks it at every tool-scoped event, so the answer for a
// name is remembered in a direct-mapped front of matchSlots slots (the
// first name of each slot; a lookup is one atomic load and one string
// comparison); other names are looked up in the table, which allocates
// nothing either.
func (g *generation) toolKnown(name string, input any) bool {
	slot := &g.kinds[slotOf(name)]
	e := slot.Load()
	switch {
	case e == nil:
		known := g.tools.Kind(name) != ""
		e = &kindEntry{name: name, known: known, byInput: known && !g.tools.Known(name, nil)}
		slot.CompareAndSwap(nil, e)
	case e.name != name:
		return g.tools.Known(name, input)
	}
	return e.known && (!e.byInput || g.tools.Known(name, input))
}

// checkKinds reports a hook's kinds that are invalid or at an event that
// is not tool-scoped.
func checkKinds(ev events.Event, kinds []events.ToolKind) error {
	if len(kinds) == 0 {
		return nil
	}
	if !ev.Spec().Matcher {
		return fmt.Errorf("kinds apply only at the tool-scoped events (BeforeTool, ApprovalRequest, AfterTool), not at %s", ev)
	}
	for _, k := range kinds {
		if _, err := events.ParseToolKind(string(k)); err != nil {
			return err
		}
	}
	return nil
}

func kindList(ks []events.ToolKind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, " or ")
}

func kindPhrase(k events.ToolKind) string {
	if k == "" {
		return "not in the tool table"
	}
	return "of kind " + string(k)
}

// unguardedReason is the reason of the engine's unguardedTool record.
// known says the table knows the name for other inputs (a tool of an MCP
// server, tools.Table.Known).
func unguardedReason(tool string, known bool) string {
	if known {
		return fmt.Sprintf("tool %q is a tool of an MCP server whose input holds none of the fields the tool table reads for that name (or another server's), so no guard knows what it does: declare it (engine.WithTools, or \"tools\" in agents.json)", tool)
	}
	return fmt.Sprintf("tool %q is neither declared nor known, so no guard knows what it does: declare it (engine.WithTools, or \"tools\" in agents.json)", tool)
}

// ToolInfo describes one tool of the engine's tool table and the hooks
// that cover it.
type ToolInfo struct {
	tools.Spec
	// DeclaredBy says who declared the tool beyond the built-in table:
	// "WithTools", or the file:line:col of a tools entry; "" for a tool of
	// the built-in table only.
	DeclaredBy string `json:"declaredBy,omitempty"`
	// Hooks lists, for each tool-scoped event, the hooks whose matcher and
	// kinds select the tool, in plan order (their IDs).
	Hooks map[events.Event][]string `json:"hooks,omitempty"`
}

// Tools returns the engine's tool table, sorted by name, with the hooks that
// cover each tool; with declaredOnly, only the tools declared beyond the
// built-in table (WithTools, configuration files). When the configuration
// files changed it first waits for them to load, as [Engine.Reload] does
// (bounded by ctx). The caller owns the slice.
func (e *Engine) Tools(ctx context.Context, declaredOnly bool) []ToolInfo {
	e.sync(ctx)
	g := e.gen.Load()
	var out []ToolInfo
	for _, s := range g.tools.Specs() {
		by := g.declared[s.Name]
		if declaredOnly && by == "" {
			continue
		}
		out = append(out, g.toolInfo(s, by))
	}
	return out
}

// Tool returns what the engine knows of the tool called name, and false
// when it is unguarded (neither declared nor built in). When the
// configuration files changed it first waits for them to load, as
// [Engine.Reload] does (bounded by ctx).
func (e *Engine) Tool(ctx context.Context, name string) (ToolInfo, bool) {
	e.sync(ctx)
	g := e.gen.Load()
	s, ok := g.tools.Lookup(name)
	if !ok {
		return ToolInfo{}, false
	}
	return g.toolInfo(s, g.declared[name]), true
}

func (g *generation) toolInfo(s tools.Spec, by string) ToolInfo {
	info := ToolInfo{Spec: s, DeclaredBy: by}
	for _, ev := range events.All() {
		spec := ev.Spec()
		if !spec.Matcher {
			continue
		}
		for _, h := range g.byEvent[ev] {
			if h.matches(spec, s.Name) {
				if info.Hooks == nil {
					info.Hooks = map[events.Event][]string{}
				}
				info.Hooks[ev] = append(info.Hooks[ev], h.id)
			}
		}
	}
	return info
}
