package luaapi

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// MaxScriptSize bounds the source of one script (256 KiB, over three times
// the largest stdlib pack): with MaxNesting, it bounds the time Compile
// takes (see SECURITY.md for the figures).
const MaxScriptSize = 256 << 10

// A Script is a compiled Lua script: parsed, checked and compiled to
// gopher-lua byte code once by [Compile]. A Script is immutable and safe for
// concurrent use; one Script may be shared by any number of pools (and
// appear several times in one pool with different parameters).
type Script struct {
	name  string
	proto *lua.FunctionProto
	// hooks are the positions in the source of the hook{ ... } calls, by
	// line, for the errors of a registration.
	hooks map[int]hookCall
	// lazy, when set, makes proto and hooks on first use (see LazyScript).
	lazy *lazyScript
}

// A lazyScript is the compiled form of a LazyScript, made once.
type lazyScript struct {
	once sync.Once
	load func() (*Script, error)
	s    *Script
	err  error
}

// LazyScript returns a Script called name whose compiled form load makes
// the first time a VM runs it or a script requires it as a library, and
// never if none does: a host with many scripts of which a pool may need
// few (the engine's embedded libraries) decodes only those
// (BenchmarkCLIRun). load runs at most once, whatever the number of pools
// and VMs sharing the Script, which is safe for concurrent use. It must
// return a Script called name; a failure of load (or another name) fails
// every use, as a script that does not compile would: [NewPool] for a
// pool's script, the require call for a library, so that the script that
// needed it fails to load.
func LazyScript(name string, load func() (*Script, error)) *Script {
	return &Script{name: name, lazy: &lazyScript{load: load}}
}

// compiled returns the Script with its compiled form: s itself, or what
// LazyScript's load made.
func (s *Script) compiled() (*Script, error) {
	if s.lazy == nil {
		return s, nil
	}
	z := s.lazy
	z.once.Do(func() {
		c, err := z.load()
		switch {
		case err != nil:
			z.err = err
		case c == nil:
			z.err = fmt.Errorf("luaapi: script %s: its load returned no script", s.name)
		default:
			if c, err = c.compiled(); err != nil {
				z.err = err
			} else if c.name != s.name {
				z.err = fmt.Errorf("luaapi: script %s: its load returned script %s", s.name, c.name)
			} else {
				z.s = c
			}
		}
	})
	return z.s, z.err
}

// syntaxError converts an error of gopher-lua's parser into a ScriptError
// with the position of the token at fault ("syntax error near '}'"), or of
// the end of the file.
func syntaxError(name string, src []byte, err error) *ScriptError {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return &ScriptError{Script: name, Kind: ScriptSyntax, Msg: strings.TrimSpace(err.Error())}
	}
	se := &ScriptError{Script: name, Kind: ScriptSyntax, Line: pe.Pos.Line, Col: pe.Pos.Column}
	msg := pe.Message // "syntax error", or the lexer's ("unterminated string")
	switch {
	case se.Line <= 0:
		// The parser met the end of the file: point there.
		se.Line = bytes.Count(src, []byte("\n")) + 1
		se.Col = len(src) - (bytes.LastIndexByte(src, '\n') + 1) + 1
		msg += " at end of file"
	case pe.Token != "":
		msg = fmt.Sprintf("%s near '%s'", msg, pe.Token)
		// The parser gives the column of the token's last byte: point at
		// its first when the line holds it there.
		lines := bytes.Split(src, []byte("\n"))
		if start := se.Col - len(pe.Token); se.Line <= len(lines) && start >= 0 && se.Col <= len(lines[se.Line-1]) &&
			string(lines[se.Line-1][start:se.Col]) == pe.Token {
			se.Col = start + 1
		}
	}
	if se.Col <= 0 {
		se.Col = 0
	}
	se.Msg = msg
	return se
}

// Name returns the name the script was compiled with, which error messages
// and [Hook.Script] use.
func (s *Script) Name() string { return s.name }

// Compile parses, checks and compiles one Lua script. name is how errors and
// [Hook.Script] refer to it (usually its path). Every error is a
// *[ScriptError] naming the script and, when known, the line:
//
//   - a syntax error;
//   - a source larger than [MaxScriptSize];
//   - a source nesting deeper than [MaxNesting] (brackets, blocks, elseif
//     chains, chained operators), found before the parser runs;
//   - a construct gopher-lua v1.1.2 miscompiles (issue #490, see the package
//     documentation, "Rejected constructs").
//
// Compile does not run the script; registrations are checked by [NewPool].
func Compile(name string, src []byte) (s *Script, err error) {
	if len(src) > MaxScriptSize {
		return nil, &ScriptError{Script: name, Kind: ScriptLimit, Msg: fmt.Sprintf("script is %d bytes, more than the limit of %d", len(src), MaxScriptSize)}
	}
	if err := prescan(name, src); err != nil {
		return nil, err
	}
	defer func() {
		// The parser and compiler are not expected to panic, but a
		// malformed input must never take the host down.
		if r := recover(); r != nil {
			s, err = nil, &ScriptError{Script: name, Kind: ScriptSyntax, Msg: fmt.Sprintf("internal compiler error: %v", r)}
		}
	}()
	chunk, err := parse.Parse(bytes.NewReader(src), name)
	if err != nil {
		return nil, syntaxError(name, src, err)
	}
	if chunk == nil && len(bytes.TrimSpace(src)) > 0 {
		// parse.Parse swallows non-error panics and returns no chunk.
		return nil, &ScriptError{Script: name, Kind: ScriptSyntax, Msg: "syntax error"}
	}
	hooks, nested, err := checkChunk(name, chunk)
	if err != nil {
		return nil, err
	}
	positions := hookPositions(src, hooks)
	undo, rewritten := rewriteReturns(hooks, nested) // BenchmarkLuaGuardPeers: see outreturn.go
	proto, err := lua.Compile(chunk, name)
	if err != nil && rewritten > 0 {
		// The rewrite may need registers or constants the chunk as
		// written does not: compile it as written.
		undo()
		proto, err = lua.Compile(chunk, name)
	}
	if err != nil {
		return nil, &ScriptError{Script: name, Kind: ScriptSyntax, Msg: "compile error: " + err.Error()}
	}
	return &Script{name: name, proto: proto, hooks: positions}, nil
}

// MustCompile is like [Compile] but panics on error. It is for scripts
// embedded in the program (tests, built-in packs).
func MustCompile(name string, src []byte) *Script {
	s, err := Compile(name, src)
	if err != nil {
		panic(err)
	}
	return s
}
