package events

import "strings"

// hostEvents maps the event names of other agent runtimes to ours, for the
// "did you mean" of a configuration or a script written with another host's
// vocabulary. Keys are folded (see foldName). Events with no equivalent
// (Claude Code's Notification, Gemini CLI's BeforeToolSelection) are left
// out: no suggestion is better than a wrong one.
var hostEvents = map[string]Event{
	// Claude Code, Codex, Crush, VS Code (and Copilot's camelCase).
	"pretooluse":        BeforeTool,
	"posttooluse":       AfterTool,
	"permissionrequest": ApprovalRequest,
	"userpromptsubmit":  BeforeTurn,
	"stop":              AfterTurn,
	"subagentstart":     BeforeSubagent,
	"subagentstop":      AfterSubagent,
	"precompact":        BeforeCompact,
	"postcompact":       AfterCompact,
	// Gemini CLI.
	"beforeagent": BeforeTurn,
	"afteragent":  AfterTurn,
	"precompress": BeforeCompact,
	// Cursor.
	"beforesubmitprompt":   BeforeTurn,
	"beforeshellexecution": BeforeTool,
	"beforemcpexecution":   BeforeTool,
	"beforereadfile":       BeforeTool,
	"aftershellexecution":  AfterTool,
	"aftermcpexecution":    AfterTool,
	"afterfileedit":        AfterTool,
	"afteragentresponse":   AfterModel,
	// GitHub Copilot.
	"userpromptsubmitted": BeforeTurn,
	"agentstop":           AfterTurn,
	// OpenCode's plugin hooks.
	"toolexecutebefore": BeforeTool,
	"toolexecuteafter":  AfterTool,
	"permissionask":     ApprovalRequest,
	// Droid.
	"onuserinput": BeforeTurn,
}

// foldName folds an event name for hostEvents: lower case, without '_',
// '-', '.' and spaces ("pre_tool_use" and "PreToolUse" are the same).
func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '.', ' ':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// Alias returns the name of our event that another agent runtime calls
// name (Claude Code's "PreToolUse" is "BeforeTool", Gemini CLI's
// "BeforeAgent" is "BeforeTurn", Cursor's "beforeShellExecution" is
// "BeforeTool"), or "" when name is none of theirs. Case, '_', '-' and '.'
// are ignored. It is for suggestions only: ParseEvent accepts our names
// alone.
func Alias(name string) string {
	if len(name) > 64 {
		return ""
	}
	if e, ok := hostEvents[foldName(name)]; ok {
		return e.String()
	}
	return ""
}

// Names returns the names of the thirteen events in firing order. The caller
// owns the returned slice.
func Names() []string {
	out := make([]string, 0, Count-1)
	for _, e := range All() {
		out = append(out, e.String())
	}
	return out
}
