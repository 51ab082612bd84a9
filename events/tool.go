package events

import (
	"fmt"
	"strings"
)

// A ToolKind says what a tool does, so that guards can act on what a tool
// does rather than on its name: a shell guard checks the command of every
// tool of kind [ToolShell], whatever the host calls it. The zero value ""
// means unknown: a tool no table describes.
type ToolKind string

// The tool kinds.
const (
	// ToolShell runs a command line.
	ToolShell ToolKind = "shell"
	// ToolRead reads files or lists and searches directories.
	ToolRead ToolKind = "read"
	// ToolWrite creates or overwrites files.
	ToolWrite ToolKind = "write"
	// ToolEdit changes part of a file.
	ToolEdit ToolKind = "edit"
	// ToolPatch applies a patch (apply_patch or unified diff) to files.
	ToolPatch ToolKind = "patch"
	// ToolDelete deletes files.
	ToolDelete ToolKind = "delete"
	// ToolFetch reaches a URL (and may save what it gets).
	ToolFetch ToolKind = "fetch"
	// ToolQuery runs statements (SQL) in a database; the view's Contents
	// are the statements.
	ToolQuery ToolKind = "query"
	// ToolOther is a known tool that is none of the above: no guard reads
	// its input (a todo list, a question to the user, a subagent).
	ToolOther ToolKind = "other"
)

var toolKinds = []ToolKind{ToolShell, ToolRead, ToolWrite, ToolEdit, ToolPatch, ToolDelete, ToolFetch, ToolQuery, ToolOther}

// ToolKinds returns every tool kind, in the order of the constants. The
// caller owns the slice.
func ToolKinds() []ToolKind { return append([]ToolKind(nil), toolKinds...) }

// Valid reports whether k is one of the tool kinds (the zero value is not).
func (k ToolKind) Valid() bool {
	for _, x := range toolKinds {
		if k == x {
			return true
		}
	}
	return false
}

// ParseToolKind returns the kind named s ("shell", "read", ...); an unknown
// name is an error that lists the kinds.
func ParseToolKind(s string) (ToolKind, error) {
	if k := ToolKind(s); k.Valid() {
		return k, nil
	}
	names := make([]string, len(toolKinds))
	for i, k := range toolKinds {
		names[i] = string(k)
	}
	return "", fmt.Errorf("unknown tool kind %q (want one of %s)", s, strings.Join(names, ", "))
}

// ToolView is the engine's normalized view of one tool call: what the tool
// does and the parts of its input that guards read, found where the tool's
// declaration says they live (see package tools). It is an extension beyond
// the seed's contract, computed by the engine (never sent by a host) and
// given to hooks as input.tool.
type ToolView struct {
	Kind ToolKind `json:"kind"`
	// Command is the command line a shell tool runs: a command given as a
	// list of words (argv) is joined into one line with shell quoting, and
	// ["bash", "-lc", "LINE"] is LINE, ["powershell.exe", "-NoProfile",
	// "-Command", "LINE"] and ["cmd", "/c", "LINE"] are LINE in the dialect
	// of Shell; several commands are joined with newlines.
	Command string `json:"command,omitempty"`
	// Shell is the dialect of Command: "" for a POSIX shell (sh, bash: the
	// default), "powershell" for PowerShell (a tool declared so, such as
	// Claude Code's PowerShell, or an argv of powershell or pwsh
	// -Command), "cmd" for cmd.exe (an argv of cmd /c). A host on Windows
	// may still send PowerShell text with no dialect (Gemini CLI runs
	// run_shell_command through powershell.exe): guards that read commands
	// also recognise the names only PowerShell runs.
	Shell string `json:"shell,omitempty"`
	// Paths are the files and directories the tool reads, writes, edits or
	// deletes, as written in the input; after them, for a tool that is not
	// a shell, the target of each that is (or lies under) a symbolic link,
	// when the engine can resolve links (engine.LinkResolver).
	Paths []string `json:"paths,omitempty"`
	// Contents are the texts the tool writes: file contents, replacement
	// strings, patches; for a query tool, the statements it runs.
	Contents []string `json:"contents,omitempty"`
	// URLs are the URLs the tool reaches.
	URLs []string `json:"urls,omitempty"`
}
