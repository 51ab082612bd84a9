package luaapi

import (
	"path"
	"path/filepath"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Paths are slash-separated (POSIX), whatever the host OS.

const (
	maxGlobSegments = 256
	maxMatchPath    = 64 << 10
)

func (v *vm) pathModule() *lua.LTable {
	return v.funcs(map[string]lua.LGFunction{
		"clean":  func(L *lua.LState) int { L.Push(lua.LString(path.Clean(L.CheckString(1)))); return 1 },
		"base":   func(L *lua.LState) int { L.Push(lua.LString(path.Base(L.CheckString(1)))); return 1 },
		"dir":    func(L *lua.LState) int { L.Push(lua.LString(path.Dir(L.CheckString(1)))); return 1 },
		"ext":    func(L *lua.LState) int { L.Push(lua.LString(path.Ext(L.CheckString(1)))); return 1 },
		"isabs":  func(L *lua.LState) int { L.Push(lua.LBool(path.IsAbs(L.CheckString(1)))); return 1 },
		"join":   pathJoin,
		"expand": v.pathExpand,
		"root":   func(L *lua.LState) int { L.Push(lua.LString(v.pl.opts.Root)); return 1 },
		"config": v.pathConfig,
		"match":  pathMatch,
	})
}

// path.config() -> a new array of Options.ConfigPaths (slash-separated)
func (v *vm) pathConfig(L *lua.LState) int {
	if v.loading {
		v.configRead[v.curSource] = true
	}
	t := L.CreateTable(len(v.pl.opts.ConfigPaths), 0)
	for _, p := range v.pl.opts.ConfigPaths {
		t.Append(lua.LString(filepath.ToSlash(p)))
	}
	L.Push(t)
	return 1
}

// path.join(...) -> the elements joined and cleaned ("" elements ignored)
func pathJoin(L *lua.LState) int {
	n := L.GetTop()
	parts := make([]string, 0, n)
	for i := 1; i <= n; i++ {
		parts = append(parts, L.CheckString(i))
	}
	L.Push(lua.LString(path.Join(parts...)))
	return 1
}

// path.expand(p) -> p with a leading "~" or "~/" and every $HOME or
// ${HOME} replaced by Options.Home (left alone when Home is empty); other
// variables and ~user are not expanded.
func (v *vm) pathExpand(L *lua.LState) int {
	L.Push(lua.LString(expandHome(L.CheckString(1), v.pl.opts.Home)))
	return 1
}

func expandHome(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		p = home + p[1:]
	}
	p = strings.ReplaceAll(p, "${HOME}", home)
	// $HOME, but not $HOMEDIR.
	var b strings.Builder
	for {
		i := strings.Index(p, "$HOME")
		if i < 0 {
			b.WriteString(p)
			break
		}
		end := i + len("$HOME")
		if end < len(p) && isNameByte(p[end]) {
			b.WriteString(p[:end])
			p = p[end:]
			continue
		}
		b.WriteString(p[:i])
		b.WriteString(home)
		p = p[end:]
	}
	return b.String()
}

// path.match(glob, p) -> boolean. The glob is matched segment by segment
// with Go's path.Match syntax (* ? [...] \), and a segment "**" matches
// any number of segments, none included. A bad glob is an error.
func pathMatch(L *lua.LState) int {
	glob := L.CheckString(1)
	p := L.CheckString(2)
	if len(glob) > MaxPatternSize {
		L.ArgError(1, "glob too long")
	}
	if len(p) > maxMatchPath {
		L.ArgError(2, "path too long")
	}
	ok, err := globMatch(glob, p)
	if err != nil {
		L.RaiseError("path.match: bad glob %q: %v", glob, err)
	}
	L.Push(lua.LBool(ok))
	return 1
}

func globMatch(glob, p string) (bool, error) {
	gs := strings.Split(glob, "/")
	if len(gs) > maxGlobSegments {
		return false, errGlobTooLong
	}
	for _, g := range gs {
		if g != "**" {
			if _, err := path.Match(g, ""); err != nil {
				return false, err
			}
		}
	}
	ps := strings.Split(p, "/")
	// match[i][j]: gs[i:] matches ps[j:]; filled backwards.
	next := make([]bool, len(ps)+1)
	cur := make([]bool, len(ps)+1)
	next[len(ps)] = true
	for i := len(gs) - 1; i >= 0; i-- {
		for j := len(ps); j >= 0; j-- {
			switch {
			case gs[i] == "**":
				cur[j] = next[j] || (j < len(ps) && cur[j+1])
			case j == len(ps):
				cur[j] = false
			default:
				m, _ := path.Match(gs[i], ps[j])
				cur[j] = m && next[j+1]
			}
		}
		next, cur = cur, next
	}
	return next[0], nil
}

type globError string

func (e globError) Error() string { return string(e) }

const errGlobTooLong = globError("more than 256 segments")

// isNameByte reports whether c may continue a shell variable name.
func isNameByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
