package luaapi

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	lua "github.com/yuin/gopher-lua"
)

// patternProbe runs every pattern function on (s, p) and renders the
// results; errors render as "error".
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
  parts[#parts + 1] = try(string.find, s, p, 3)
  parts[#parts + 1] = try(string.find, s, p, -2)
  parts[#parts + 1] = try(string.match, s, p)
  parts[#parts + 1] = try(string.match, s, p, 2)
  parts[#parts + 1] = try(string.gsub, s, p, "<%0>")
  parts[#parts + 1] = try(string.gsub, s, p, "[%1]", 2)
  parts[#parts + 1] = try(string.gsub, s, p, function(a, b) return b and (a .. b) or a:upper() end)
  parts[#parts + 1] = try(string.gsub, s, p, { a = "A", hello = "HI" })
  parts[#parts + 1] = try(function()
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

// TestPatternsWhereGopherLuaDiffers pins results where stock gopher-lua
// departs from Lua 5.1 (its %f frontier, find with an empty pattern and an
// init, silent acceptance of malformed patterns).
func TestPatternsWhereGopherLuaDiffers(t *testing.T) {
	p := newTestPool(t, Options{}, "probe.lua", `
hook{ event = "BeforeTool", handler = function(i)
  local out = {}
  local function add(...) local t = {} for k = 1, select("#", ...) do t[#t + 1] = tostring((select(k, ...))) end out[#out + 1] = table.concat(t, ",") end
  add(string.find("THE (quick) fox", "%f[%a]%a+"))
  add(string.find("THE (quick) fox", "%f[%a]%a+", 2))
  add(string.gsub("THE (quick) fox", "%f[%w]%w+", "<%0>"))
  add(string.gsub("hello world from Lua", "%f[%a]%a", string.upper))
  add(string.find("abc", "", 3))
  add(string.find("abc", "", 10))
  add(string.gsub("hello", "(()", "<%0>"))
  add(pcall(string.find, "hello", "%"))
  add(string.find("a00", "[0--]"))
  return { additionalContext = table.concat(out, " | ") }
end }`)
	out, err := p.Call(context.Background(), 0, bashInput("x"))
	if err != nil {
		t.Fatal(err)
	}
	want := "1,3 | 6,10 | <THE> (<quick>) <fox>,3 | Hello World From Lua,4 | 3,2 | nil | <>h<>e<>l<>l<>o<>,6 | false,probe.lua:12: malformed pattern (ends with '%') | nil"
	if out.AdditionalContext != want {
		t.Fatalf("got  %s\nwant %s", out.AdditionalContext, want)
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
