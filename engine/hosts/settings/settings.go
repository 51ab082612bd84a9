// Package settings reads and edits the hook settings of the agents package
// hosts knows: [Import] turns an agent's hook configuration (Claude Code's
// settings.json, Gemini CLI's settings.json, Codex's hooks.json or
// config.toml, Cursor's hooks.json, Crush's crush.json) into the equivalent
// agents.json, each hook keeping its own input format ("input": "AGENT"),
// and lists everything it cannot carry over; [Install] and [Uninstall] add
// and remove the entries that route an agent's hook events through
// `monad-hooks run --host AGENT`, leaving the rest of the file as it was
// (its keys in order, its indentation).
//
// Everything here is pure: it reads and returns bytes, and [Locate] joins
// paths it is given; the caller reads and writes the files (atomically, with
// a backup). It is safe for concurrent use.
package settings

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/monad-hooks/monad-hooks/engine/hosts"
)

// A Scope says whose settings file to edit.
type Scope uint8

// The scopes of Locate.
const (
	// Project: the project's own file (.claude/settings.json, ...).
	Project Scope = iota
	// User: the person's file in the home folder (~/.claude/settings.json,
	// ...).
	User
)

// shape is how an agent's file holds its hooks.
type shape uint8

const (
	// groups: "hooks": {Event: [{"matcher": ..., "hooks": [{"type":
	// "command", "command": ...}]}]} (Claude Code, Gemini CLI, Codex).
	groups shape = iota
	// flat: "hooks": {event: [{"command": ...}]} (Cursor, Crush).
	flat
)

// agent is what this package knows of an agent's settings files.
type agent struct {
	host    string
	shape   shape
	project string   // the project file, relative to the project folder
	user    string   // the user file, relative to the home folder
	managed []string // files the organization manages: never written
	// events are the events install routes through monad-hooks, in the
	// order of the agent's documentation.
	events []string
	// timeoutMs is the unit of the agent's timeout: 1000 for seconds, 1 for
	// milliseconds.
	timeoutMs float64
	// version is the "version" a flat file needs (Cursor's 1); 0 for none.
	version int
	// entry adds what the agent's hook entries need besides the command.
	entry func(e *object)
	// stateDir is the folder of the state file install names, relative to
	// $HOME.
	stateDir string
	// toolEvents are the events whose matcher filters tool names.
	toolEvents []string
}

var agents = []*agent{
	{
		host: "claude-code", shape: groups, project: ".claude/settings.json", user: ".claude/settings.json",
		managed: []string{"/etc/claude-code/managed-settings.json", "/Library/Application Support/ClaudeCode/managed-settings.json",
			`C:\Program Files\ClaudeCode\managed-settings.json`, `C:\ProgramData\ClaudeCode\managed-settings.json`},
		events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
			"SubagentStart", "SubagentStop", "Stop", "PreCompact", "PostCompact", "SessionEnd"},
		timeoutMs: 1000, stateDir: ".claude",
		toolEvents: []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"},
		entry:      func(e *object) { e.set("type", "command") },
	},
	{
		host: "gemini-cli", shape: groups, project: ".gemini/settings.json", user: ".gemini/settings.json",
		managed: []string{"/etc/gemini-cli/settings.json", "/etc/gemini-cli/system-defaults.json",
			"/Library/Application Support/GeminiCli/settings.json", `C:\ProgramData\gemini-cli\settings.json`},
		// AfterModel fires for every streamed chunk: a process per chunk
		// is left to those who add it by hand.
		events:    []string{"SessionStart", "BeforeAgent", "BeforeModel", "BeforeTool", "AfterTool", "AfterAgent", "PreCompress", "SessionEnd"},
		timeoutMs: 1, stateDir: ".gemini",
		toolEvents: []string{"BeforeTool", "AfterTool"},
		entry:      func(e *object) { e.set("name", "monad-hooks"); e.set("type", "command") },
	},
	{
		host: "codex", shape: groups, project: ".codex/hooks.json", user: ".codex/hooks.json",
		managed: []string{"/etc/codex/requirements.toml", "/etc/codex/managed_config.toml"},
		events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
			"PreCompact", "PostCompact", "SubagentStart", "SubagentStop", "Stop"},
		timeoutMs: 1000, stateDir: ".codex",
		toolEvents: []string{"PreToolUse", "PostToolUse", "PermissionRequest"},
		entry:      func(e *object) { e.set("type", "command") },
	},
	{
		host: "cursor", shape: flat, project: ".cursor/hooks.json", user: ".cursor/hooks.json",
		managed: []string{"/etc/cursor/hooks.json", "/Library/Application Support/Cursor/hooks.json", `C:\ProgramData\Cursor\hooks.json`},
		events: []string{"sessionStart", "beforeSubmitPrompt", "preToolUse", "beforeReadFile", "postToolUse",
			"subagentStart", "subagentStop", "preCompact", "stop", "sessionEnd"},
		timeoutMs: 1000, version: 1, stateDir: ".cursor",
		toolEvents: []string{"preToolUse", "postToolUse"},
		// Cursor fails open on a hook that crashes or times out unless
		// it is told otherwise.
		entry: func(e *object) { e.set("type", "command"); e.set("failClosed", true) },
	},
	{
		host: "crush", shape: flat, project: ".crush.json", user: ".config/crush/crush.json",
		events: []string{"PreToolUse"}, timeoutMs: 1000, stateDir: ".config/crush",
		toolEvents: []string{"PreToolUse"},
	},
}

func lookup(host string) (*agent, error) {
	for _, a := range agents {
		if a.host == host {
			return a, nil
		}
	}
	var names []string
	for _, a := range agents {
		names = append(names, a.host)
	}
	return nil, fmt.Errorf("no settings known for agent %q (want one of %s)", host, strings.Join(names, ", "))
}

// Agents returns the agents whose settings this package reads and edits.
func Agents() []string {
	out := make([]string, len(agents))
	for i, a := range agents {
		out[i] = a.host
	}
	return out
}

// Locate returns the settings file of host for scope: under project for
// Project, under home for User. It refuses a file the organization manages
// (a managed-settings or policy file), and an empty folder to look in.
func Locate(host string, scope Scope, project, home string) (string, error) {
	a, err := lookup(host)
	if err != nil {
		return "", err
	}
	var p string
	switch scope {
	case Project:
		if project == "" {
			return "", fmt.Errorf("no project folder")
		}
		p = filepath.Join(project, filepath.FromSlash(a.project))
	case User:
		if home == "" {
			return "", fmt.Errorf("no home folder (HOME is not set)")
		}
		p = filepath.Join(home, filepath.FromSlash(a.user))
	default:
		return "", fmt.Errorf("unknown scope %d", scope)
	}
	if Managed(host, p) {
		return "", fmt.Errorf("%s is a file %s's organization manages: monad-hooks never writes it", p, host)
	}
	return p, nil
}

// Managed reports whether path is a settings file host's organization
// manages (one of its managed locations, or a file named like one), which
// install never writes.
func Managed(host, path string) bool {
	a, err := lookup(host)
	if err != nil {
		return false
	}
	clean := filepath.Clean(path)
	base := filepath.Base(clean)
	if base == "managed-settings.json" || base == "requirements.toml" || base == "managed_config.toml" {
		return true
	}
	return slices.ContainsFunc(a.managed, func(m string) bool { return filepath.Clean(m) == clean })
}

// hostOf returns the host contract of an agent.
func hostOf(a *agent) *hosts.Host {
	h, _ := hosts.Lookup(a.host)
	return h
}
