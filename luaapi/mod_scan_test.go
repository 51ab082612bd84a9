package luaapi

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// scanHook runs body (which returns a string) in a handler with scan and
// returns that string; a Lua error fails the test unless wantErr is set,
// when the error message is returned.
func scanHook(t *testing.T, body string, wantErr bool) string {
	t.Helper()
	p := newTestPool(t, Options{}, "s.lua", `local scan = require("scan")
hook{ event = "BeforeTool", handler = function(input)
  local function run() `+body+` end
  local ok, res = pcall(run)
  if not ok then return { decision = "deny", reason = tostring(res) } end
  return { reason = res }
end }`)
	out, err := p.Call(context.Background(), 0, bashInput("x"))
	require.NoError(t, err)
	require.Equal(t, wantErr, out.Decision == "deny", "%s", out.Reason)
	return out.Reason
}

func TestScanKeywordsFind(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		// the occurrence that ends first, the longest of those
		{`local a, b, k = scan.keywords({ "cd", "bcd", "abcdx", "d" }):find("xabcdx") return a .. " " .. b .. " " .. k`, "3 5 bcd"},
		{`local a = scan.keywords({ "zz" }):find("abc") return tostring(a)`, "nil"},
		// init, negative init
		{`local a = scan.keywords({ "ab" }):find("abxab", 2) return tostring(a)`, "4"},
		{`local a = scan.keywords({ "ab" }):find("abxab", -2) return tostring(a)`, "4"},
		{`local a = scan.keywords({ "ab" }):find("abxab", 9) return tostring(a)`, "nil"},
		// token: only at the start of a token
		{`local a, b, k = scan.keywords({ "rm" }, { token = "[a-z0-9_.-]" }):find("format; xrm; rm -rf") return a .. " " .. k`, "14 rm"},
		{`local a = scan.keywords({ "rm" }, { token = "[a-z]" }):find("rm") return tostring(a)`, "1"},
		{`local a = scan.keywords({ "é" }, { token = "[a-z]" }):find("aé") return tostring(a)`, "nil"},
		// the same set compiled twice is one Go value per pool
		{`return tostring(scan.keywords({ "a" }) ~= nil)`, "true"},
	} {
		require.Equal(t, c.want, scanHook(t, c.body, false), c.body)
	}
	for _, c := range []struct{ body, want string }{
		{`scan.keywords({ "a", "" })`, "scan.keywords[2]: want a non-empty string"},
		{`scan.keywords({ "a", 1 })`, "scan.keywords[2]: want a non-empty string"},
		{`scan.keywords({ "a" }, { token = "[" })`, "token: bad RE2 pattern"},
		{`scan.keywords({ "a" }, { tokens = "[a]" })`, "unknown option tokens"},
		{`local s = scan.keywords({ "a" }) s.x = 1`, "cannot modify a scan.keywords value"},
		{`local s = scan.keywords({ "a" }) return getmetatable(s)`, "scan.keywords"},
		{`local r = scan.rules({ { kw = { "a" } } })`, "scan.rules: rule 1: no rx"},
		{`local r = scan.rules({ { kw = { "a" }, rx = "a" } })`, "rx and at need two groups"},
		{`local r = scan.rules({ { words = { "a" }, name = "x" } })`, "an assignment rule needs words, name and value"},
		{`local r = scan.rules({ { kw = { "a" }, rx = "(" } })`, "scan.rules: rule 1.rx: bad RE2 pattern"},
	} {
		got := scanHook(t, c.body, !strings.Contains(c.body, "getmetatable"))
		require.Contains(t, got, c.want, c.body)
	}
}

func TestScanCompilesOncePerPool(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 2}, "s.lua", `local scan = require("scan")
local set = scan.keywords({ "a", "b" })
local rules = scan.rules({ { kw = { "a" }, rx = "()(a)" } })
hook{ event = "BeforeTool", handler = function(input) end }`)
	p.waitWarm()
	require.Len(t, p.plan.scans.m, 2, "one set and one rule set for every VM of the pool")
}

// TestScanRulesCandidates: the candidates of each kind of rule, as
// monad.redact's Lua found them (its own behaviour is pinned by the
// stdlib's quality corpora).
func TestScanRulesCandidates(t *testing.T) {
	run := func(rules, text string) string {
		return scanHook(t, `local r = scan.rules(`+rules+`)
local spans, wanted = r:candidates(`+luaString(text)+`)
local out = {}
for i = 1, #spans, 3 do out[#out + 1] = spans[i] .. "-" .. spans[i + 1] .. ":" .. spans[i + 2] end
local w = {}
for _, i in ipairs(wanted) do w[#w + 1] = tostring(i) end
return table.concat(out, " ") .. " | " .. table.concat(w, " ")`, false)
	}
	// at each keyword: an anchored expression, a word boundary before
	require.Equal(t, "5-10:1 | ", run(`{ { kw = { "tok_" }, bound = true, rx = "()(tok_[0-9]+)", at = "^()(tok_[0-9]+)" } }`, "xx: tok_12 atok_34 tok_"))
	// in windows around the keywords (rx searched from each window's start)
	require.Equal(t, "9-12:1 | ", run(`{ { kw = { "@" }, back = 8, ahead = 8, rx = "(:)([a-z]+)@" } }`, "aaaaa u:pass@host"))
	// lowercase keywords; no keyword: no candidate; no keyword list: always
	require.Equal(t, "1-3:1 1-3:2 | ", run(`{ { ikw = { "abc" }, rx = "()(ABC)" }, { rx = "()(ABC)" }, { ikw = { "zzz" }, rx = "()(ABC)" } }`, "ABC"))
	// a custom expression: its first group is the value
	require.Equal(t, "6-8:1 | ", run(`{ { custom = "k=([0-9]+)", rx = "k=([0-9]+)" } }`, "xx k=123"))
	// an assignment: identifier, name, value; the rule left to Lua
	require.Equal(t, "30-37:1 | 2", run(`{ { words = { "token" }, name = "^(?:[a-z]+_)?token$", value = [[^\s*=\s*([a-z0-9]{8,})]] }, { words = { "login" }, lua = true } }`, "my_token = short app_token = a1b2c3d4 login"))
	// a text whose lowercase has another length: lowercase keywords are not
	// searched, the rules run over the text, every Lua rule is wanted
	require.Equal(t, "5-7:1 | 2", run(`{ { ikw = { "abc" }, rx = "()(ABC)" }, { words = { "zzz" }, lua = true } }`, "\u0130 xABC"))
}

func TestLowerTextIsToLower(t *testing.T) {
	p := newTestPool(t, Options{}, "s.lua", `hook{ event = "BeforeTool", handler = function(input) end }`)
	v, _, err := p.get(context.Background(), DefaultTimeout)
	require.NoError(t, err)
	defer p.put(v, true)
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "Z", "\u0130", "\u212A", "é", "É", "\xff", "\xe2\x84", "ſ", "Σ"}
	for range 20 {
		var b strings.Builder
		n := r.IntN(3 * scanBlock)
		for b.Len() < n {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		require.Equal(t, strings.ToLower(s), v.lowerText(v.L, s))
	}
	plain := strings.Repeat("abc", scanBlock)
	require.Equal(t, plain, v.lowerText(v.L, plain))
}
