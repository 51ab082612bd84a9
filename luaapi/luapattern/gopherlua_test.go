package luapattern

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// patternCase is a subject and a pattern.
type patternCase struct{ s, p string }

// readCases reads testdata/cases.txt: per line, a subject and a pattern,
// each a Go-quoted string; # starts a comment line.
func readCases(t testing.TB) []patternCase {
	t.Helper()
	f, err := os.Open("testdata/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []patternCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, rest, err := unquotePrefix(line)
		if err == nil {
			var p string
			p, err = strconv.Unquote(strings.TrimSpace(rest))
			out = append(out, patternCase{s, p})
		}
		if err != nil {
			t.Fatalf("testdata/cases.txt:%d: %v", n, err)
		}
	}
	if len(out) == 0 {
		t.Fatal("testdata/cases.txt: no cases")
	}
	return out
}

func unquotePrefix(line string) (string, string, error) {
	q, err := strconv.QuotedPrefix(line)
	if err != nil {
		return "", "", err
	}
	s, err := strconv.Unquote(q)
	return s, line[len(q):], err
}

// stockProbe renders string.find, string.match from 2 (1 for an empty
// subject: gopher-lua, unlike Lua 5.1, finds nothing past the end) and
// string.gsub with "<%0>" at most 3 times, each as its values joined by ","
// ("error" for an error, "nil" for no value), joined by "|".
const stockProbe = `function probe(s, p)
  local function show(ok, ...) if not ok then return "error" end if select("#", ...) == 0 then return "nil" end local t = {} for i = 1, select("#", ...) do t[#t + 1] = tostring((select(i, ...))) end return table.concat(t, ",") end
  return show(pcall(string.find, s, p)) .. "|" .. show(pcall(string.match, s, p, math.min(2, #s + 1))) .. "|" .. show(pcall(string.gsub, s, p, "<%0>", 3))
end`

// probe renders what stockProbe renders, with this package.
func probe(s, p string) string {
	show := func(vals []string, err error) string {
		if err != nil {
			return "error"
		}
		return strings.Join(vals, ",")
	}
	captures := func(m *Match, whole bool) ([]string, error) {
		n := len(m.Captures)
		if n == 0 && whole {
			n = 1
		}
		var out []string
		for i := 0; i < n; i++ {
			c, err := m.Capture(i)
			if err != nil {
				return nil, err
			}
			out = append(out, c.Text(s))
		}
		return out, nil
	}
	find := func() ([]string, error) {
		m, ok, err := Find(s, p, 0, false, Options{})
		if err != nil || !ok {
			return []string{"nil"}, err
		}
		caps, err := captures(&m, false)
		return append([]string{strconv.Itoa(m.Start + 1), strconv.Itoa(m.End)}, caps...), err
	}
	match := func() ([]string, error) {
		m, ok, err := FindPattern(s, p, min(1, len(s)), Options{})
		if err != nil || !ok {
			return []string{"nil"}, err
		}
		return captures(&m, true)
	}
	gsub := func() ([]string, error) {
		out, n, err := Gsub(s, p, "<%0>", 3, Options{})
		return []string{out, strconv.Itoa(n)}, err
	}
	return show(find()) + "|" + show(match()) + "|" + show(gsub())
}

func newStock(t testing.TB) *lua.LState {
	t.Helper()
	L := lua.NewState()
	t.Cleanup(L.Close)
	if err := L.DoString(stockProbe); err != nil {
		t.Fatal(err)
	}
	return L
}

// stock runs stockProbe on stock gopher-lua; ok is false when the probe
// itself failed.
func stock(L *lua.LState, s, p string) (string, bool) {
	if err := L.CallByParam(lua.P{Fn: L.GetGlobal("probe"), NRet: 1, Protect: true}, lua.LString(s), lua.LString(p)); err != nil {
		return "", false
	}
	defer L.Pop(1)
	return L.Get(-1).String(), true
}

// stockDiffers reports the patterns where stock gopher-lua departs from Lua
// 5.1: %f; a '-' next to another '-' or a ']' in a class ([0--] is the
// empty range 0..- in Lua 5.1); a back-reference where a position capture
// may be referred to (gopher-lua matches "()%1" as empty, Lua 5.1 never
// matches it). Patterns with "\0" are left out too (Lua 5.1 ends a pattern
// there; see the package doc).
func stockDiffers(p string) bool {
	return strings.Contains(p, "%f") || strings.Contains(p, "\x00") ||
		strings.Contains(p, "--") || strings.Contains(p, "-]") ||
		strings.Contains(p, "()") && backReference.MatchString(p)
}

var backReference = regexp.MustCompile(`%[1-9]`)

// TestMatchesGopherLua: on the cases, this package gives what stock
// gopher-lua's string functions give.
func TestMatchesGopherLua(t *testing.T) {
	L := newStock(t)
	for _, c := range readCases(t) {
		want, ok := stock(L, c.s, c.p)
		if !ok {
			t.Fatalf("%q %q: the stock probe failed", c.s, c.p)
		}
		if got := probe(c.s, c.p); got != want {
			t.Errorf("s=%q p=%q\n got %s\nwant %s", c.s, c.p, got, want)
		}
	}
}

// FuzzPatterns runs this package on small inputs (it must never panic) and
// compares it with stock gopher-lua wherever stock gopher-lua follows Lua
// 5.1 (see stockDiffers; malformed patterns, which stock gopher-lua accepts
// silently, are not compared either).
func FuzzPatterns(f *testing.F) {
	for _, c := range readCases(f) {
		f.Add(c.s, c.p)
	}
	L := newStock(f)
	f.Fuzz(func(t *testing.T, s, p string) {
		if len(s) > 64 || len(p) > 16 {
			return
		}
		got := probe(s, p) // never panics, whatever the pattern
		if stockDiffers(p) || strings.Contains(got, "error") {
			return // malformed patterns: stock gopher-lua accepts many
		}
		want, ok := stock(L, s, p)
		if ok && got != want && !strings.Contains(want, "error") {
			t.Fatalf("s=%q p=%q\n got %s\nwant %s", s, p, got, want)
		}
	})
}
