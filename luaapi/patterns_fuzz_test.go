package luaapi

import (
	"context"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	lua "github.com/yuin/gopher-lua"
)

// FuzzPatterns runs string.find, string.match and string.gsub on small
// inputs with our matcher and with stock gopher-lua's, and requires the same
// results wherever stock gopher-lua follows Lua 5.1 (see the exclusions;
// malformed patterns, which stock accepts silently, are skipped too).
func FuzzPatterns(f *testing.F) {
	for _, c := range patternCases {
		f.Add(c.s, c.p)
	}
	stock := lua.NewState()
	defer stock.Close()
	const probe = `function probe(s, p)
  local function show(ok, ...) if not ok then return "error" end if select("#", ...) == 0 then return "nil" end local t = {} for i = 1, select("#", ...) do t[#t + 1] = tostring((select(i, ...))) end return table.concat(t, ",") end
  return show(pcall(string.find, s, p)) .. "|" .. show(pcall(string.match, s, p, 2)) .. "|" .. show(pcall(string.gsub, s, p, "<%0>", 3))
end`
	if err := stock.DoString(probe); err != nil {
		f.Fatal(err)
	}
	p, err := NewPool(context.Background(), []Source{{Script: MustCompile("probe.lua", []byte(probe+`
hook{ event = "BeforeTool", handler = function(i) return { additionalContext = probe(i.toolInput.s, i.toolInput.p) } end }`))}}, Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer p.Close()
	f.Fuzz(func(t *testing.T, s, pat string) {
		// Stock gopher-lua departs from Lua 5.1 for %f and for a '-'
		// next to another '-' or a ']' in a class ([0--] is the empty
		// range 0..- in Lua 5.1).
		if len(s) > 64 || len(pat) > 16 || strings.Contains(pat, "%f") || strings.Contains(pat, "\x00") ||
			strings.Contains(pat, "--") || strings.Contains(pat, "-]") {
			return
		}
		out, err := p.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolInput: map[string]any{"s": s, "p": pat}})
		if err != nil {
			t.Fatalf("%q %q: %v", s, pat, err)
		}
		got := out.AdditionalContext
		if strings.Contains(got, "error") {
			return // malformed patterns: stock gopher-lua accepts many
		}
		if err := stock.CallByParam(lua.P{Fn: stock.GetGlobal("probe"), NRet: 1, Protect: true}, lua.LString(s), lua.LString(pat)); err != nil {
			return
		}
		want := stock.Get(-1).String()
		stock.Pop(1)
		if got != want && !strings.Contains(want, "error") {
			t.Fatalf("s=%q p=%q\n got %s\nwant %s", s, pat, got, want)
		}
	})
}
