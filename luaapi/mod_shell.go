package luaapi

import (
	"errors"

	"github.com/monad-hooks/monad-hooks/shell/pwsh"
	"github.com/monad-hooks/monad-hooks/shell/syntax"
	lua "github.com/yuin/gopher-lua"
)

// The Lua module shell (require("shell")) over package syntax, with
// syntax's default bounds (a script cannot change them):
//
//	shell.split(s) -> words [, message]
//	    syntax.Split; the message (err.Error()) is a second value when a
//	    quote or substitution is not closed (the words are still returned).
//	shell.commands(line [, dialect]) -> list of commands [, message]
//	    syntax.Commands, or with dialect "powershell" pwsh.Commands and
//	    with "cmd" pwsh.CmdCommands (nil, "" and "sh" are POSIX; another
//	    value is an error); a message (errMalformed) is a second value
//	    when a command is malformed (the commands are still returned), so
//	    that a pack that approves can refuse a line the shell would not
//	    read as listed. A limit (depth, command count, size) raises a Lua
//	    error "shell.commands: ...", so that a pack fails closed instead of
//	    judging a partial parse.
//	shell.likely(line) -> boolean
//	    pwsh.Likely: the line, sent as POSIX, names a command only
//	    PowerShell or cmd.exe runs.
//	shell.unwrap(words) -> words
//	    syntax.Unwrap on t[1] .. t[n]; an element that is not a string, or
//	    more than syntax.DefaultMaxBytes words, raises an error.
//
// Lists are tables marked as JSON arrays, commands and redirections tables
// marked as JSON objects. Each command has every key:
//
//	{
//	  words     = {"rm", "-rf", "/"},  -- list of strings, may be empty
//	  op        = "|",   -- ";" "&&" "||" "|" "|&" "&" or "" (see Command.Op)
//	  redirects = { {op = ">&", fd = "2", target = "1"},
//	                {op = "<<", fd = "", target = "EOF", body = "text\n"} },
//	  assigns   = {X = "1"},  -- NAME -> value; empty table when none
//	  depth     = 0,      -- number: 0 top level, +1 per nesting
//	  via       = "",     -- "$(" "`" "<(" ">(" "(" "{" or a command name
//	  func      = "",     -- the function whose body holds it (Command.Func), or ""
//	  forkloop  = false,  -- run with & by an endless loop (Command.ForkLoop)
//	  malformed = false,  -- boolean
//	}
//
// A PowerShell or cmd.exe command (pwsh.Command) has the same keys (assigns
// empty, func "", forkloop false; words[1] the normalised name: a cmdlet's
// canonical name, a program's base name) and five more:
//
//	written = "rd",     -- the name as written
//	cmdlet  = true,     -- words[1] is a cmdlet
//	invoke  = "",       -- "&" or "." when run through one
//	expr    = false,    -- an expression, not a command
//	dialect = "powershell",  -- or "cmd": how it was read
//
// A redirection's op never includes its descriptor (fd is "" when none is
// written); body is present for "<<" and "<<-" only. This file is the one
// definition of the shape; types/monad-hooks.d.lua describes it to editors
// and TestShellCommandShape pins it.
func (v *vm) shellModule() *lua.LTable {
	return v.funcs(map[string]lua.LGFunction{
		"split":    v.shellSplit,
		"commands": v.shellCommands,
		"unwrap":   v.shellUnwrap,
		"likely":   v.shellLikely,
	})
}

// stringList returns ss, parts of src, as a json.array table (see
// ownString), polling the stop flag (raising it) every stopCheckEvery
// strings.
func (v *vm) stringList(ss []string, src string) *lua.LTable {
	t := v.L.CreateTable(len(ss), 0)
	t.Metatable = v.arrayMT
	for i, s := range ss {
		if i%stopCheckEvery == stopCheckEvery-1 {
			v.pl.work.listItems.Add(stopCheckEvery)
			if v.ctx.stopped() {
				v.L.RaiseError("%s", errStopped.Error())
			}
		}
		t.RawSetInt(i+1, ownString(s, src))
	}
	return t
}

// shellStop is the Stop of the shell parser: the call's stop flag, with
// the polls counted.
func (v *vm) shellStop() bool {
	v.pl.work.shellPolls.Add(1)
	return v.ctx.stopped()
}

// shell.split(cmd) -> words [, err]
func (v *vm) shellSplit(L *lua.LState) int {
	line := L.CheckString(1)
	words, err := syntax.SplitStop(line, v.shellStop)
	if errors.Is(err, syntax.ErrStopped) {
		L.RaiseError("shell.split: %s", errStopped.Error())
	}
	L.Push(v.stringList(words, line))
	if err != nil {
		L.Push(lua.LString(err.Error()))
		return 2
	}
	return 1
}

// errMalformed is shell.commands' second value for a malformed line.
const errMalformed = "shell.commands: the line is not well formed (an unclosed quote, substitution or compound command, or a stray operator)"

// shell.commands(line [, dialect]) -> list of {words, op, redirects, assigns, depth, via, func, forkloop, malformed} [, message]
func (v *vm) shellCommands(L *lua.LState) int {
	line := L.CheckString(1)
	if L.GetTop() > 1 && L.Get(2) != lua.LNil {
		d, ok := L.Get(2).(lua.LString)
		switch {
		case !ok:
			L.ArgError(2, `shell.commands takes a line and a dialect ("sh", "powershell" or "cmd"); its bounds are fixed`)
		case d == "powershell" || d == "cmd":
			return v.pwshCommands(L, line, d == "cmd")
		case d != "" && d != "sh":
			L.ArgError(2, `unknown dialect "`+string(d)+`": want "sh", "powershell" or "cmd"`)
		}
	}
	cmds, err := syntax.Commands(line, syntax.Options{Stop: v.shellStop})
	if errors.Is(err, syntax.ErrStopped) {
		L.RaiseError("shell.commands: %s", errStopped.Error())
	}
	if err != nil {
		L.RaiseError("shell.commands: %s", err.Error())
		return 0
	}
	tables := make([]*lua.LTable, len(cmds))
	malformed := false
	for i, c := range cmds {
		malformed = malformed || c.Malformed
		t := v.commandTable(line, c.Words, c.Op, c.Depth, c.Via, c.Malformed, 9)
		rs := L.CreateTable(len(c.Redirects), 0)
		rs.Metatable = v.arrayMT
		for j, r := range c.Redirects {
			rt := v.redirectTable(r.Op, r.Fd, r.Target)
			if r.Op == "<<" || r.Op == "<<-" {
				rt.RawSetString("body", lua.LString(r.Body))
			}
			rs.RawSetInt(j+1, rt)
		}
		t.RawSetString("redirects", rs)
		as := L.CreateTable(0, len(c.Assigns))
		as.Metatable = v.objectMT
		for k, val := range c.Assigns {
			as.RawSetString(k, lua.LString(val))
		}
		t.RawSetString("assigns", as)
		t.RawSetString("func", lua.LString(c.Func))
		t.RawSetString("forkloop", lua.LBool(c.ForkLoop))
		tables[i] = t
	}
	return v.pushCommands(L, tables, malformed)
}

// commandTable makes the table of one command with the keys of every
// dialect (words, op, depth, via, malformed); size is its number of keys.
func (v *vm) commandTable(line string, words []string, op string, depth int, via string, malformed bool, size int) *lua.LTable {
	t := v.L.CreateTable(0, size)
	t.Metatable = v.objectMT
	t.RawSetString("words", v.stringList(words, line))
	t.RawSetString("op", lua.LString(op))
	t.RawSetString("depth", lua.LNumber(depth))
	t.RawSetString("via", lua.LString(via))
	t.RawSetString("malformed", lua.LBool(malformed))
	return t
}

// redirectTable makes the table of one redirection.
func (v *vm) redirectTable(op, fd, target string) *lua.LTable {
	rt := v.L.CreateTable(0, 4)
	rt.Metatable = v.objectMT
	rt.RawSetString("op", lua.LString(op))
	rt.RawSetString("fd", lua.LString(fd))
	rt.RawSetString("target", lua.LString(target))
	return rt
}

// pushCommands pushes the list of command tables, and errMalformed as a
// second value when a command is malformed.
func (v *vm) pushCommands(L *lua.LState, tables []*lua.LTable, malformed bool) int {
	list := L.CreateTable(len(tables), 0)
	list.Metatable = v.arrayMT
	for i, t := range tables {
		list.RawSetInt(i+1, t)
	}
	L.Push(list)
	if malformed {
		L.Push(lua.LString(errMalformed))
		return 2
	}
	return 1
}

// pwshCommands is shell.commands(line, "powershell"|"cmd").
func (v *vm) pwshCommands(L *lua.LState, line string, cmd bool) int {
	read := pwsh.Commands
	if cmd {
		read = pwsh.CmdCommands
	}
	cmds, err := read(line, pwsh.Options{Stop: v.shellStop})
	if errors.Is(err, pwsh.ErrStopped) {
		L.RaiseError("shell.commands: %s", errStopped.Error())
	}
	if err != nil {
		L.RaiseError("shell.commands: %s", err.Error())
		return 0
	}
	tables := make([]*lua.LTable, len(cmds))
	malformed := false
	for i, c := range cmds {
		malformed = malformed || c.Malformed
		t := v.commandTable(line, c.Words, c.Op, c.Depth, c.Via, c.Malformed, 14)
		rs := L.CreateTable(len(c.Redirects), 0)
		rs.Metatable = v.arrayMT
		for j, r := range c.Redirects {
			rs.RawSetInt(j+1, v.redirectTable(r.Op, r.Fd, r.Target))
		}
		t.RawSetString("redirects", rs)
		as := L.CreateTable(0, 0)
		as.Metatable = v.objectMT
		t.RawSetString("assigns", as)
		t.RawSetString("func", lua.LString(""))
		t.RawSetString("forkloop", lua.LFalse)
		t.RawSetString("written", lua.LString(c.Written))
		t.RawSetString("cmdlet", lua.LBool(c.Cmdlet))
		t.RawSetString("invoke", lua.LString(c.Invoke))
		t.RawSetString("expr", lua.LBool(c.Expr))
		t.RawSetString("dialect", lua.LString(c.Dialect))
		tables[i] = t
	}
	return v.pushCommands(L, tables, malformed)
}

// shell.likely(line) -> boolean
func (v *vm) shellLikely(L *lua.LState) int {
	L.Push(lua.LBool(pwsh.Likely(L.CheckString(1))))
	return 1
}

// shell.unwrap(words) -> words
func (v *vm) shellUnwrap(L *lua.LState) int {
	t := v.unwrap(L.CheckTable(1))
	n := t.Len()
	if n > syntax.DefaultMaxBytes {
		L.ArgError(1, "too many words")
	}
	words := make([]string, 0, n)
	for i := 1; i <= n; i++ {
		s, ok := t.RawGetInt(i).(lua.LString)
		if !ok {
			L.ArgError(1, "words must be strings")
		}
		words = append(words, string(s))
	}
	L.Push(v.stringList(syntax.Unwrap(words), ""))
	return 1
}
