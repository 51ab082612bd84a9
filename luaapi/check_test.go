package luaapi

import (
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func TestIssue490Rejected(t *testing.T) {
	prelude := "local function F() return false end\nlocal function T() return true end\nlocal x = 1\n"
	bad := []string{
		"local r = true\nr = r and (F() and T())",
		"local r = true\nr = (F() and T()) and r",
		"local r = true\nr = F() and 1",
		"local r = true\nr = T() and F()",
		"local r, a = false, true\nr = ((r or a) or x ~= 1) and (not T() or r)",
		"local r = false\nlocal function get() return r end\nr = (F() or T()) and get()",
		"local r = true\nr = not x and T()",
		"local r, s = true, 1\nr, s = F() and T(), 2",
		"local r = true\nr = (F() or F()) and T()",
		"local r = true\nr = r and F() and T()",
		"local r = true\nr = (G and r)",
		"local r = true\nfor i = 1, 2 do r = r and (F() and T()) end",
		"hook{event='BeforeTool', handler=function(i)\nlocal ok = true\nok = ok and (F() and T())\nend}",
	}
	for _, src := range bad {
		_, err := Compile("bad.lua", []byte(prelude+src))
		se, ok := err.(*ScriptError)
		if !ok || !strings.Contains(se.Msg, "#490") || se.Line < 4 {
			t.Errorf("%q: err = %v, want a #490 ScriptError with a line", src, err)
		}
		if ok && !strings.Contains(se.Msg, "rewrite as") {
			t.Errorf("%q: no hint in %q", src, se.Msg)
		}
	}
	good := []string{
		"local r = true\nlocal q = r and (F() and T())",
		"local r = true\nr = r and (T() == F())",
		"local r = true\nr = F() or T()",
		"r = true\nr = r and (F() and T())", // global
		"local r = true\nlocal function g() r = r and (F() and T()) end",
		"local t = {}\nt.r = F() and T()",
		"local r, a, b = true, true, false\nr = r and (a and b)",
		"local r = true\nr = x == 1 and r",
		"local r = true\nif not (F() and T()) then r = false end",
		"local r = true\nr = x == 1 and T()",
		"local r = true\nreturn F() and T()",
	}
	for _, src := range good {
		if _, err := Compile("good.lua", []byte(prelude+src)); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

var n490 = flag.Int("n490", 800, "expressions TestIssue490Differential generates")

// TestIssue490Differential generates random and/or/not expressions assigned
// to an existing local (and to other targets), and checks that every
// assignment Compile accepts evaluates as Lua 5.1 would, and that the check
// rejects at least the shapes issue #490 names.
func TestIssue490Differential(t *testing.T) {
	n := *n490
	if testing.Short() {
		n /= 4
	}
	rng := rand.New(rand.NewSource(490))
	L := lua.NewState()
	defer L.Close()
	rejected, accepted := 0, 0
	prelude := "local a, b, x = true, false, 1\nlocal function F() return false end\nlocal function T() return true end\nlocal function N() return nil end\n"
	for i := 0; i < n; i++ {
		e := genLogical(rng, 3)
		for _, rv := range []string{"true", "false", "nil", "1"} {
			for _, tmpl := range []string{
				"local r = %s\nlocal r0 = r\nlocal function get() return r0 end\nr = %s\nreturn r",
				"local r = %s\nlocal function get() return r end\nr = %s\nreturn r",
				"local r = %s\nlocal function get() return r end\nlocal q = %s\nreturn q",
				"local r = %s\nlocal function get() return r end\nlocal function g() r = %s end\ng()\nreturn r",
				"local r = %s\nlocal function get() return r end\nlocal t = {}\nt.r = %s\nreturn t.r",
			} {
				src := prelude + fmt.Sprintf(tmpl, rv, e.String())
				s, err := Compile("d.lua", []byte(src))
				if err != nil {
					if !strings.Contains(err.Error(), "#490") {
						t.Fatalf("%s: %v", src, err)
					}
					rejected++
					continue
				}
				accepted++
				fn := L.NewFunctionFromProto(s.proto)
				L.Push(fn)
				if err := L.PCall(0, 1, nil); err != nil {
					t.Fatalf("%s: %v", src, err)
				}
				got := L.Get(-1).String()
				L.Pop(1)
				if want := e.eval(rv); got != want {
					t.Fatalf("accepted but miscompiled:\n%s\ngot %s, want %s", src, got, want)
				}
			}
		}
	}
	t.Logf("accepted %d, rejected %d", accepted, rejected)
	if rejected == 0 {
		t.Fatal("the differential test rejected nothing; the generator is too weak")
	}
}

type logicalExpr struct {
	op   string // "and", "or", "not", "" for an atom
	atom string
	l, r *logicalExpr
}

var logicalAtoms = []string{"r", "F()", "T()", "N()", "a", "b", "nil", "true", "false", "x == 1", "x ~= 1", "1", "G", "get()"}

func genLogical(rng *rand.Rand, depth int) *logicalExpr {
	if depth == 0 || rng.Intn(3) == 0 {
		return &logicalExpr{atom: logicalAtoms[rng.Intn(len(logicalAtoms))]}
	}
	switch rng.Intn(5) {
	case 0:
		return &logicalExpr{op: "not", l: genLogical(rng, depth-1)}
	case 1, 2:
		return &logicalExpr{op: "and", l: genLogical(rng, depth-1), r: genLogical(rng, depth-1)}
	default:
		return &logicalExpr{op: "or", l: genLogical(rng, depth-1), r: genLogical(rng, depth-1)}
	}
}

func (e *logicalExpr) String() string {
	switch e.op {
	case "":
		return e.atom
	case "not":
		return "not (" + e.l.String() + ")"
	}
	return "(" + e.l.String() + ") " + e.op + " (" + e.r.String() + ")"
}

func luaTruthy(s string) bool { return s != "nil" && s != "false" }

// eval is the reference semantics of Lua 5.1.
func (e *logicalExpr) eval(r string) string {
	switch e.op {
	case "":
		switch e.atom {
		case "r", "get()":
			return r
		case "F()", "b", "false", "x ~= 1":
			return "false"
		case "T()", "a", "true", "x == 1":
			return "true"
		case "nil", "N()", "G":
			return "nil"
		case "1":
			return "1"
		}
	case "not":
		if luaTruthy(e.l.eval(r)) {
			return "false"
		}
		return "true"
	case "and":
		if l := e.l.eval(r); !luaTruthy(l) {
			return l
		}
		return e.r.eval(r)
	case "or":
		if l := e.l.eval(r); luaTruthy(l) {
			return l
		}
		return e.r.eval(r)
	}
	panic(e.op)
}
