// Package tools is the table of agent tools the engine's guards know: for
// each tool name, what the tool does (an [events.ToolKind]: shell, read,
// write, edit, patch, delete, fetch or other) and where its input holds
// what guards read (the command, the paths, the contents it writes, the
// URLs it reaches). With it, a guard acts on what a tool does rather than
// on its name: the stdlib's shell guards check every tool of kind shell,
// whether the host calls it Bash, run_shell_command or bash, and a host
// with tool names of its own is guarded as soon as it declares them
// (engine.WithTools, or "tools" in agents.json).
//
// [Builtin] is the table of the agents the project knows (Claude Code,
// Gemini CLI, Codex, Cursor, OpenCode, Crush and the seed's own names);
// [Agents] lists them. [NewTable] compiles specs into a [Table], and
// [Table.View] (or [Extract] for one spec) turns a tool's input into the
// normalized [events.ToolView] that hooks receive as input.tool.
//
// # MCP tools
//
// The hosts name the tools of MCP servers after the server (named by the
// user) and the tool: mcp__SERVER__TOOL (Claude Code, Codex),
// mcp_SERVER_TOOL (Gemini CLI 0.46 and later, Crush), MCP:TOOL (Cursor),
// SERVER__TOOL (Gemini CLI before 0.46). A Table made by NewBuiltinTable
// resolves a name of these forms, when neither its own specs nor the
// built-in table have it, by its tool part against the MCP table: the kind
// and locations of the tools of the MCP servers agents use most (the
// reference filesystem, git, fetch, memory, sqlite and postgres servers,
// desktop-commander, Playwright and Puppeteer navigation, shell and
// database servers; mcp.md lists them with their sources). In
// mcp_SERVER_TOOL the longest TOOL the table has wins, since SERVER may
// hold underscores. OpenCode's SERVER_TOOL has no prefix and is not
// resolved.
//
// Tool names are not unique across servers, and some are common words, so
// an MCP entry applies to a call only when the call's input holds one of
// the fields its locations start with and none of the fields of another
// server's tool of the same name ([Table.Known]): a search tool called
// query whose input is {"query": ...} is not read as SQL (the entry query
// reads only sql), GitHub's delete_file (owner, repo, path) is not read as
// a deletion on the disk. Such a call is unknown, as is a name whose tool
// part the MCP table lacks: the engine reports it unguardedTool. The kind
// of an MCP name ([Table.Kind]) does not depend on the input. A Table
// remembers at most a bounded number of MCP names; it answers the same
// for the others.
//
// A tool that takes an action as fields rather than a command line
// (git-mcp-server's git_push {force: true}, GitHub's delete_repository)
// is of kind shell, and its view's command is the command line it is the
// twin of (git push --force origin main, gh repo delete OWNER/REPO), so
// that the shell guards check it as they check the shell.
//
// # Locations
//
// A location names where a value lives in a tool's input (decoded JSON): a
// key ("command"), keys of nested objects joined by dots ("options.path"),
// and [] after a key for every element of the array it holds
// ("edits[].file_path"). The empty location "" is the input itself (a tool
// whose input is a bare string, such as a freeform patch). A location that
// is absent from an input, or holds a value of another type, yields
// nothing.
//
// What a location yields depends on the part of the view:
//
//   - Command: a string is a command line; a list of strings is an argv,
//     joined into one line with shell quoting (syntax.Join), except that
//     ["bash", "-lc", "LINE"] (any sh, bash, zsh, dash or ksh with an
//     option cluster holding c, and exactly one more word) is LINE itself,
//     and the argv of a Windows shell is its command string in that
//     shell's dialect (pwsh.Script: ["powershell.exe", "-NoProfile",
//     "-Command", "LINE"] and ["pwsh", "-c", "LINE"] are LINE in
//     PowerShell, ["cmd", "/c", "LINE"] is LINE in cmd.exe). Several lines
//     are joined with newlines, the way a shell reads a script.
//
// # Dialects
//
// A shell tool's Spec.Shell says in which shell its command lines are
// written: "" or "sh" (POSIX, the default), "powershell" (Claude Code's
// PowerShell tool) or "cmd". The view's Shell is the dialect of its lines:
// the tool's, or the one an argv names; lines in several dialects are
// given as POSIX (the stdlib's guards then also read, as PowerShell, a
// line holding a name only PowerShell runs: pwsh.Likely).
//   - Paths and Contents: a string, or every string of a list.
//   - URLs: a string that is a URL, or every http(s) URL written in a text
//     (a tool such as Gemini CLI's web_fetch takes a prompt that holds
//     them), and the same for every string of a list.
//
// A Spec that gives no location at all gets the defaults of its kind
// ([DefaultLocations]), which cover the field names agents commonly use
// ("command", "cmd", "file_path", "filePath", "path", "content", "url",
// ...).
//
// Everything in this package is a pure function of its arguments or
// immutable data: safe for concurrent use.
package tools
