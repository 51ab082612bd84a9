package hosts

import (
	"strings"

	"github.com/monad-hooks/monad-hooks/events"
)

// otherAgents maps the event names of agent runtimes that have no host
// profile here to ours, for the "did you mean" of [Alias] (the events of
// the hosts come from their tables). Keys are folded (see aliasKey). Events
// with no equivalent are left out: no suggestion is better than a wrong
// one.
var otherAgents = [...]struct {
	key string
	ev  events.Event
}{
	// GitHub Copilot (and VS Code, whose names are Claude Code's).
	{"userpromptsubmitted", events.BeforeTurn},
	{"agentstop", events.AfterTurn},
	// OpenCode's plugin hooks.
	{"toolexecutebefore", events.BeforeTool},
	{"toolexecuteafter", events.AfterTool},
	{"permissionask", events.ApprovalRequest},
	// Droid.
	{"onuserinput", events.BeforeTurn},
}

// aliasKey folds an event name for Alias: lower case, without '_', '-',
// '.' and spaces ("pre_tool_use", "PreToolUse" and "tool.execute.before"'s
// kin are compared alike).
func aliasKey(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '.', ' ':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// Alias returns the name of our event that an agent runtime calls name
// (Claude Code's "PreToolUse" is "BeforeTool", Gemini CLI's "BeforeAgent"
// is "BeforeTurn", Cursor's "beforeShellExecution" is "BeforeTool"), or ""
// when name is none of theirs, has no equivalent, or is ours already. Case,
// '_', '-', '.' and spaces are ignored. The hosts' own event tables are the
// source, then a few agents without a profile. It is for suggestions only
// (the "did you mean" of an unknown event in a configuration file, a
// script or a command line): events.ParseEvent accepts our names alone.
func Alias(name string) string {
	if len(name) > 64 {
		return ""
	}
	key := aliasKey(name)
	if _, err := events.ParseEvent(name); err == nil || key == "" {
		return ""
	}
	for _, h := range all() {
		if h.raw {
			continue
		}
		for _, e := range h.Events {
			if e.Monad != events.Invalid && aliasKey(e.Name) == key {
				return e.Monad.String()
			}
		}
	}
	for _, o := range otherAgents {
		if o.key == key {
			return o.ev.String()
		}
	}
	return ""
}
