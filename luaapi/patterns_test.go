package luaapi

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// patternProbe runs every pattern function on (s, p) and renders the
// results; errors render as "error". It keeps out of the two places where
// stock gopher-lua departs from Lua 5.1 on well-formed patterns (see
// TestPatternsMatchLua51 for those): an init past the end of the subject
// (clamped by Lua 5.1, no match in gopher-lua) and gmatch with a leading
// '^' (a literal '^' in Lua 5.1, an anchor in gopher-lua).
const patternProbe = `
local function render(...)
  local n = select("#", ...)
  local out = {}
  for k = 1, n do out[#out + 1] = tostring((select(k, ...))) end
  return table.concat(out, ",")
end
local function try(f, ...)
  local res = { pcall(f, ...) }
  if not res[1] then return "error" end
  return render(unpack(res, 2, table.maxn(res)))
end
function probe(s, p)
  local parts = {}
  parts[#parts + 1] = try(string.find, s, p)
  parts[#parts + 1] = try(string.find, s, p, math.min(3, #s + 1))
  parts[#parts + 1] = try(string.find, s, p, -2)
  parts[#parts + 1] = try(string.match, s, p)
  parts[#parts + 1] = try(string.match, s, p, math.min(2, #s + 1))
  parts[#parts + 1] = try(string.gsub, s, p, "<%0>")
  parts[#parts + 1] = try(string.gsub, s, p, "[%1]", 2)
  parts[#parts + 1] = try(string.gsub, s, p, function(a, b) return b and (a .. b) or a:upper() end)
  parts[#parts + 1] = try(string.gsub, s, p, { a = "A", hello = "HI" })
  parts[#parts + 1] = try(function()
    if string.sub(p, 1, 1) == "^" then return "-" end
    local all = {}
    local n = 0
    for a, b in string.gmatch(s, p) do
      n = n + 1
      if n > 50 then break end
      all[#all + 1] = tostring(a) .. "/" .. tostring(b)
    end
    return table.concat(all, ";")
  end)
  return table.concat(parts, " | ")
end
`

// patternCases reads the pattern cases of package luapattern (a subject
// and a pattern per line, each Go-quoted), on which stock gopher-lua
// follows Lua 5.1.
func patternCases(t *testing.T) []struct{ s, p string } {
	t.Helper()
	data, err := os.ReadFile("luapattern/testdata/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []struct{ s, p string }
	for n, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, err := strconv.QuotedPrefix(line)
		var s, p string
		if err == nil {
			s, _ = strconv.Unquote(q)
			p, err = strconv.Unquote(strings.TrimSpace(line[len(q):]))
		}
		if err != nil {
			t.Fatalf("cases.txt:%d: %v", n+1, err)
		}
		out = append(out, struct{ s, p string }{s, p})
	}
	return out
}

func TestPatternsMatchGopherLua(t *testing.T) {
	stock := lua.NewState()
	defer stock.Close()
	if err := stock.DoString(patternProbe); err != nil {
		t.Fatal(err)
	}
	p := newTestPool(t, Options{}, "probe.lua", patternProbe+`
hook{ event = "BeforeTool", handler = function(i) return { additionalContext = probe(i.toolInput.s, i.toolInput.p) } end }`)
	for _, c := range patternCases(t) {
		if err := stock.CallByParam(lua.P{Fn: stock.GetGlobal("probe"), NRet: 1, Protect: true}, lua.LString(c.s), lua.LString(c.p)); err != nil {
			t.Fatalf("%q %q: stock: %v", c.s, c.p, err)
		}
		want := stock.Get(-1).String()
		stock.Pop(1)
		out, err := p.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolInput: map[string]any{"s": c.s, "p": c.p}})
		if err != nil {
			t.Fatalf("%q %q: %v", c.s, c.p, err)
		}
		if out.AdditionalContext != want {
			t.Errorf("s=%q p=%q\n got %s\nwant %s", c.s, c.p, out.AdditionalContext, want)
		}
	}
}

// TestPatternsMatchLua51 runs testdata/lua51/patterns.lua as a hook and
// compares its output with patterns.out, which PUC Lua 5.1.5 wrote from the
// same script (scripts/lua51-golden.sh): the cases where implementations
// differ (position back-references, gfind, init past the end, a trailing
// '%' in a replacement, '^' in gmatch, %f, odd classes, errors).
func TestPatternsMatchLua51(t *testing.T) {
	script, err := os.ReadFile("testdata/lua51/patterns.lua")
	require.NoError(t, err)
	want, err := os.ReadFile("testdata/lua51/patterns.out")
	require.NoError(t, err)
	p := newTestPool(t, Options{}, "patterns.lua", string(script))
	out, err := p.Call(context.Background(), 0, bashInput("x"))
	require.NoError(t, err)
	got := strings.Split(out.AdditionalContext, "\n")
	wantLines := strings.Split(string(want), "\n")
	for i := 0; i < max(len(got), len(wantLines)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if g != w {
			t.Errorf("line %d:\n got  %s\n want %s", i+1, g, w)
		}
	}
}

func TestPatternErrors(t *testing.T) {
	for _, c := range []struct{ pat, want string }{
		{"%", "malformed pattern (ends with '%')"},
		{"[a", "malformed pattern (missing ']')"},
		{"(()", "unfinished capture"},
		{"%1", "invalid capture index"},
		{"a)", "invalid pattern capture"},
		{"%b", "unbalanced pattern"},
		{"%fx", "missing '[' after '%f' in pattern"},
		{strings.Repeat("(", 40) + "a" + strings.Repeat(")", 40), "too many captures"},
		{"(" + strings.Repeat("a?", 300) + ")", "pattern too complex"},
	} {
		p := handlerPool(t, `return { reason = tostring(string.match(input.toolInput.command, `+luaQuote(c.pat)+`)) }`)
		_, err := p.Call(context.Background(), 0, bashInput(strings.Repeat("a", 300)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.pat, err, c.want)
		}
	}
}

func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 32 || c >= 127:
			b.WriteString("\\" + itoa(int(c)))
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for n > 0 {
		d = append([]byte{byte('0' + n%10)}, d...)
		n /= 10
	}
	return string(d)
}
