// Package syntax parses shell command lines the way a POSIX shell or
// bash reads them, without running or expanding anything, so that guards
// can see which commands a line runs. It is the project's one home for that
// knowledge: native Go guards use it directly, and it backs the Lua host
// module shell (require("shell")) that the stdlib packs use. It imports only
// the standard library.
//
// Three functions make the API:
//
//   - Commands lists every simple command of a line with its words (quotes
//     and backslashes resolved, expansions kept as written), the operator
//     that follows it, its redirections (here-document bodies included) and
//     its NAME=value assignments; it descends into substitutions, groups,
//     control structures, function bodies and the command strings of sh -c,
//     eval, su -c, ssh, watch, trap and the like, within the bounds of
//     Options.
//   - Split returns the words of a line (operators as words of their own).
//   - Unwrap strips wrappers (sudo, env, nohup, timeout, xargs, ...) from a
//     command's words and returns the command that is effectively run.
//
// Malformed input (an unclosed quote, a missing fi) is parsed as far as it
// goes: the words seen are kept and the commands are flagged, never
// dropped. Every input is parsed in time and memory linear in its length
// (with the bounds of Options).
//
// All functions are pure: they keep no state, and are safe for concurrent
// use.
//
// # What is not done
//
// Nothing is expanded: $VAR, ${VAR}, globs, braces and ~ stay as written,
// and the output of a substitution is unknown, so "R=rm; $R -rf /" lists
// the command $R -rf / after the assignment R=rm; the packs resolve such
// variables themselves from Command.Assigns and from export/declare words.
// Aliases are not expanded. Commands inside one-line programs (python -c,
// node -e) and inside docker exec or kubectl exec are not listed.
//
// # Wiring
//
// The luaapi module shell exposes three functions; Values, Command.Value,
// Redirect.Value and WordsValue build their results as free-form Go values
// (strings, ints, bools, []any, map[string]any), which luaapi's Go-to-Lua
// conversion turns into tables (lists are 1-based):
//
//	shell.commands(line [, opts]) -> list of commands
//	    cmds, err := syntax.Commands(line, syntax.Options{...})
//	    if err != nil: raise a Lua error "shell.commands: " + err.Error()
//	    else return toLua(syntax.Values(cmds))
//	shell.split(s) -> list of strings [, message]
//	    words, err := syntax.Split(s)
//	    return toLua(syntax.WordsValue(words)), and err.Error() as a
//	    second value when err != nil (the words are still returned)
//	shell.unwrap(words) -> list of strings
//	    words: a list of strings (t[1] .. t[n], up to the first nil; raise
//	    a Lua error for a non-string element or a non-table argument)
//	    return toLua(syntax.WordsValue(syntax.Unwrap(words)))
//
// Each command is a table with every key present:
//
//	{
//	  words     = {"rm", "-rf", "/"},  -- list of strings, may be empty
//	  op        = "|",   -- ";" "&&" "||" "|" "|&" "&" or "" (see Command.Op)
//	  redirects = { {op = ">&", fd = "2", target = "1"},
//	                {op = "<<", fd = "", target = "EOF", body = "text\n"} },
//	  assigns   = {X = "1"},  -- NAME -> value; empty table when none
//	  depth     = 0,      -- number: 0 top level, +1 per nesting
//	  via       = "",     -- "$(" "`" "<(" ">(" "(" "{" or a command name
//	  malformed = false,  -- boolean
//	}
//
// A redirection's op never includes its descriptor (fd is "" when none is
// written); body is present only for "<<" and "<<-". The packs detect the
// module by calling shell.commands("a x | b && c") and checking that it
// returns 3 commands, that c[1].words[1] is "a", c[1].op is "|" and
// c[2].op is "&&"; that holds.
//
// opts, when given, is a table with optional numbers maxDepth, maxCommands
// and maxBytes (Options); the module should accept values only up to the
// defaults, so that a script cannot raise the bounds. A limit error is
// raised rather than returned, so that a pack that calls shell.commands in
// pcall falls back or fails closed (deny-destructive falls back to its Lua
// parser; approve-readonly approves nothing) instead of judging a partial
// parse.
package syntax
