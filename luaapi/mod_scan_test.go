package luaapi

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi/ahocorasick"
	"github.com/stretchr/testify/assert"
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
		// refused when loading, not when first used (see TestDeepBackwardPattern)
		{`local r = scan.rules({ { kw = { "a" }, rx = "()\\b` + strings.Repeat("(", 997) + "a" + strings.Repeat(")", 997) + `" } })`, "scan.rules: rule 1.rx: bad RE2 pattern: expression nests too deeply"},
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

// TestScanKeywordsBuiltOnFirstSearch: a keyword set's automaton is built
// when a search first needs it, once per pool: never at load, not for the
// first searches of a short text (strings.Index, see first), and not for
// a set no search reaches (counted, not timed).
func TestScanKeywordsBuiltOnFirstSearch(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 2}, "s.lua", `local scan = require("scan")
local unused = scan.keywords({ "never", "searched" })
local first = scan.keywords({ "rm" }, { token = "[a-z]" })
local second = scan.keywords({ "sudo", "dd" })
hook{ event = "BeforeTool", kind = "shell", prefilter = scan.any({ first, second }),
  handler = function(input) return { decision = "deny", reason = "ran" } end }`)
	built := func() int64 { return p.plan.work.automata.Load() }
	require.Zero(t, built(), "loading builds no automaton")
	call := func(cmd string, want events.Decision) {
		t.Helper()
		out, err := p.Call(context.Background(), 0, shellCall(cmd))
		require.NoError(t, err)
		require.Equal(t, want, out.Decision, cmd)
	}
	for range naiveSearches {
		call("rm -rf x", events.Deny)
	}
	require.Zero(t, built(), "short texts, first searches: no automaton")
	call("rm -rf x", events.Deny)
	require.Equal(t, int64(1), built(), "the first set found rm: the others are not built")
	call("ls", events.Decision(""))
	require.Equal(t, int64(1), built(), "the second set's first search is by strings.Index")
	call(strings.Repeat("x", naiveMaxText+1), events.Decision(""))
	require.Equal(t, int64(2), built(), "a longer text runs the second set's automaton")
	p.waitWarm()
	require.Equal(t, int64(2), built())
}

// TestNaiveFirstIsTheAutomatons: the first searches of a set, by
// strings.Index, find what its automaton finds, token rule included, for
// random keyword sets, texts and starting points (the automaton's own
// correctness is ahocorasick's tests').
func TestNaiveFirstIsTheAutomatons(t *testing.T) {
	token := new([256]bool)
	token['a'], token['-'] = true, true
	naiveAgainstAutomaton(t, rand.New(rand.NewPCG(17, 3)), []string{"a", "b", "-", "/", " ", "."}, token, 3000, 24)
	// multi-byte runes, and a token class past ASCII
	token, err := byteClass(`[\pL-]`)
	require.NoError(t, err)
	naiveAgainstAutomaton(t, rand.New(rand.NewPCG(5, 8)), []string{"a", "é", "É", "-", " ", "\u00a0", "ß", "\xff"}, token, 2000, 16)
	// the budget: a search that would read more gives way to the automaton
	set := &kwSet{words: slices.Repeat([]string{"zz"}, naiveBudget/naiveMaxText+1), built: new(atomic.Int64)}
	_, _, ok := set.firstNaive(strings.Repeat("a", naiveMaxText), 0)
	require.False(t, ok)
	start, _, _, err := set.first(strings.Repeat("a", naiveMaxText-2)+"zz", 0, func(int) bool { return false })
	require.NoError(t, err)
	require.Equal(t, naiveMaxText-2, start)
	require.Equal(t, int64(1), set.built.Load())
}

// TestScanKeywordsTooLargeIsALoadError: a set whose automaton would be too
// large fails scan.keywords (the script's load), not its first search.
func TestScanKeywordsTooLargeIsALoadError(t *testing.T) {
	s, err := Compile("big.lua", []byte(`local scan = require("scan")
local words = {}
for b = 0, 255 do words[#words + 1] = string.char(b) end
for i = 1, 5 do words[#words + 1] = string.rep("z", 4000 + i) end
local set = scan.keywords(words)`))
	require.NoError(t, err)
	_, err = NewPool(context.Background(), []Source{{Script: s}}, Options{LoadTimeout: MaxTimeout})
	require.ErrorContains(t, err, "scan.keywords: ahocorasick: 261 keywords")
}

// rulesPool loads a script that makes a scan.rules set of 40 keyword rules
// (word k<i> before a value) and one assignment rule, and whose handler
// returns the candidates of the input's command (or the error of the call).
func rulesPool(t *testing.T) *Pool {
	return newTestPool(t, Options{PoolSize: 2}, "r.lua", `local scan = require("scan")
local list = {}
for i = 1, 40 do
  list[#list + 1] = { kw = { "k" .. i .. "=" }, rx = "(k" .. i .. "=)([a-z]{4,})" }
end
list[#list + 1] = { words = { "secret" }, name = "^[a-z_]*secret$", value = [[^\s*=\s*([A-Za-z0-9]{8,})]] }
local rules = scan.rules(list)
hook{ event = "BeforeTool", handler = function(input)
  local ok, spans = pcall(function() return (rules:candidates(input.toolInput.command)) end)
  if not ok then return { decision = "deny", reason = tostring(spans) } end
  return { reason = table.concat(spans, ",") }
end }`)
}

// TestScanRulesCompiledOnFirstUse: scan.rules only checks its rules'
// expressions; a rule's are compiled when a text first needs the rule,
// once per pool (counted, not timed), with the candidates of a rule set
// compiled whole.
func TestScanRulesCompiledOnFirstUse(t *testing.T) {
	p := rulesPool(t)
	compiled := func() int64 { return p.plan.work.ruleCompiles.Load() }
	require.Zero(t, compiled(), "loading compiles no rule")
	call := func(cmd string) string {
		out, err := p.Call(context.Background(), 0, bashInput(cmd))
		require.NoError(t, err)
		require.Empty(t, out.Decision, out.Reason)
		return out.Reason
	}
	require.Equal(t, "", call("nothing to see"))
	require.Zero(t, compiled(), "no keyword occurs: no rule runs")
	require.Equal(t, "4,7,7", call("k7=abcd"))
	require.Equal(t, int64(1), compiled(), "one rule of 41 compiled")
	require.Equal(t, "4,7,7,13,16,12", call("k7=abcd k12=wxyz"))
	require.Equal(t, "13,21,41", call("my_secret = abcdefgh1"))
	require.Equal(t, int64(3), compiled())
	p.waitWarm()
	require.Equal(t, "4,7,7", call("k7=abcd"))
	require.Equal(t, int64(3), compiled(), "once per pool, whichever VM runs")

	// concurrent first uses compile each rule once (run with -race)
	q := rulesPool(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 10 {
				out, err := q.Call(context.Background(), 0, bashInput("k3=abcd k9=wxyz my_secret = abcdefgh1"))
				assert.NoError(t, err)
				assert.Equal(t, "4,7,3,12,15,9,29,37,41", out.Reason)
			}
		})
	}
	wg.Wait()
	require.Equal(t, int64(3), q.plan.work.ruleCompiles.Load())
}

// TestScanRuleFailingToCompileFailsTheCall: a rule whose expression fails
// to compile at first use (which checkPattern rules out) raises in
// rules:candidates, so that the hook fails and its onError decides: the
// text is never let through unsearched.
func TestScanRuleFailingToCompileFailsTheCall(t *testing.T) {
	p := rulesPool(t)
	var rs *ruleSet
	for _, x := range p.plan.scans.m {
		if y, ok := x.(*ruleSet); ok {
			rs = y
		}
	}
	require.NotNil(t, rs)
	rs.rules[6].pats.rx = "(k7=)(" // a pattern scan.rules would have refused
	out, err := p.Call(context.Background(), 0, bashInput("k7=abcd"))
	require.NoError(t, err)
	require.Equal(t, events.Deny, out.Decision)
	require.Contains(t, out.Reason, "rules:candidates: rule 7: bad RE2 pattern: missing closing )")
}

// TestUnbuildableSetFailsClosed: a set whose automaton fails to build
// (which ahocorasick.Check rules out at scan.keywords) finds something
// outside a VM, so that a prefilter runs the handler, and is an error in
// one.
func TestUnbuildableSetFailsClosed(t *testing.T) {
	broken := func() *kwSet { return &kwSet{words: []string{"zz", ""}, built: new(atomic.Int64)} }
	long := strings.Repeat("nothing here ", naiveMaxText) // past the strings.Index searches
	require.True(t, goTester{}.find(broken(), long))
	_, _, _, err := broken().first(long, 0, func(int) bool { return false })
	require.ErrorIs(t, err, ahocorasick.ErrEmptyKeyword)
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

// borrowVM returns a VM of a pool of an empty hook, given back when the
// test ends.
func borrowVM(t *testing.T) *vm {
	p := newTestPool(t, Options{}, "s.lua", `hook{ event = "BeforeTool", handler = function(input) end }`)
	v, _, err := p.get(context.Background(), DefaultTimeout)
	require.NoError(t, err)
	t.Cleanup(func() { p.put(v, true) })
	return v
}

func TestLowerTextIsToLower(t *testing.T) {
	v := borrowVM(t)
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

func TestScanAny(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		// a keyword set, an expression, a nested test: any one finds
		{`return tostring(scan.any({ scan.keywords({ "zz" }), "a+b" }):test("xaab"))`, "true"},
		{`return tostring(scan.any({ scan.keywords({ "zz" }), "a+b" }):test("xab_zz"))`, "true"},
		{`return tostring(scan.any({ scan.keywords({ "zz" }), "a+b" }):test("xa b"))`, "false"},
		{`return tostring(scan.any({ scan.any({ "q" }) }):test("q"))`, "true"},
		// lower: the items search the lowercase text; drop removes bytes after it
		{`return tostring(scan.any({ scan.keywords({ "rm" }) }):test("RM"))`, "false"},
		{`return tostring(scan.any({ scan.keywords({ "rm" }) }, { lower = true }):test("RM"))`, "true"},
		{`return tostring(scan.any({ scan.keywords({ "rm" }) }, { lower = true, drop = "\\'" }):test("R\\'M"))`, "true"},
		{`return tostring(scan.any({ scan.keywords({ "rm" }) }, { drop = "x" }):test("rxm"))`, "true"},
		{`return tostring(scan.any({ scan.keywords({ "rm" }) }, { drop = "x" }):test("r m"))`, "false"},
		// the token rule of a set holds inside a test
		{`return tostring(scan.any({ scan.keywords({ "rm" }, { token = "[a-z]" }) }):test("form"))`, "false"},
	} {
		require.Equal(t, c.want, scanHook(t, c.body, false), c.body)
	}
	deep := `local t = scan.any({ "a" }) for _ = 1, 20 do t = scan.any({ t }) end`
	for _, c := range []struct{ body, want string }{
		{`scan.any({})`, "scan.any: want from 1 to"},
		{`scan.any({ 1 })`, "item 1: want a keyword set, an RE2 expression or a test, got number"},
		{`scan.any({ "(" })`, "item 1: bad RE2 pattern"},
		{`scan.any({ "a" }, { upper = true })`, "unknown option upper"},
		{`scan.any({ "a" }, { drop = "" })`, "drop: want from 1 to 32 bytes"},
		{`scan.any({ "a" }, { drop = 1 })`, "drop: want a string"},
		{deep, "tests nested deeper than 16"},
		{`local s = scan.any({ "a" }) s.x = 1`, "cannot modify a scan.any value"},
	} {
		require.Contains(t, scanHook(t, c.body, true), c.want, c.body)
	}
}

// prefilterPool loads one BeforeTool hook of kind shell whose handler
// denies every call, with the prefilter scan.any({ scan.keywords({ "rm" }) }).
func prefilterPool(t *testing.T, opts Options) *Pool {
	return newTestPool(t, opts, "p.lua", `local scan = require("scan")
hook{ event = "BeforeTool", kind = "shell", prefilter = scan.any({ scan.keywords({ "rm" }) }),
  handler = function(input) return { decision = "deny", reason = "ran" } end }`)
}

// shellCall is a shell call whose command is the engine's view of it.
func shellCall(cmd string) *events.Input {
	in := bashInput(cmd)
	in.Tool = &events.ToolView{Kind: events.ToolShell, Command: cmd}
	return in
}

func TestHookPrefilter(t *testing.T) {
	ctx := context.Background()
	p := prefilterPool(t, Options{})
	decide := func(in *events.Input) events.Decision {
		out, err := p.Call(ctx, 0, in)
		require.NoError(t, err)
		return out.Decision
	}
	// nothing found: proceed without the handler
	require.Equal(t, events.Decision(""), decide(shellCall("ls -la")))
	require.Equal(t, events.Decision(""), decide(shellCall("")))
	require.Equal(t, Stats{Size: p.Stats().Size, Skipped: 2, Created: p.Stats().Created}, p.Stats())
	// found, no view of the tool, another kind, a command beyond the
	// bound: the handler runs
	require.Equal(t, events.Deny, decide(shellCall("sudo rm x")))
	require.Equal(t, events.Deny, decide(bashInput("ls")))
	in := shellCall("ls")
	in.Tool.Kind = events.ToolRead
	require.Equal(t, events.Deny, decide(in))
	require.Equal(t, events.Deny, decide(shellCall(strings.Repeat("x", maxPrefilterText+1))))
	require.Equal(t, int64(4), p.Stats().Calls)
	require.Equal(t, int64(2), p.Stats().Skipped)
	// a canceled call fails, prefilter or not
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err := p.Call(canceled, 0, shellCall("ls"))
	require.ErrorIs(t, err, context.Canceled)

	// concurrent calls share the prefilter (run with -race)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range 50 {
				cmd, want := "ls -la", events.Decision("")
				if (g+k)%2 == 0 {
					cmd, want = "rm -rf x", events.Deny
				}
				out, err := p.Call(ctx, 0, shellCall(cmd))
				assert.NoError(t, err)
				assert.Equal(t, want, out.Decision, cmd)
			}
		})
	}
	wg.Wait()

	// IgnorePrefilters: every call runs the handler
	all := prefilterPool(t, Options{IgnorePrefilters: true})
	out, err := all.Call(ctx, 0, shellCall("ls -la"))
	require.NoError(t, err)
	require.Equal(t, events.Deny, out.Decision)
	require.Zero(t, all.Stats().Skipped)
}

func TestHookPrefilterErrors(t *testing.T) {
	for _, c := range []struct{ hook, want string }{
		{`kind = "shell", prefilter = "rm"`, "prefilter: want a scan.any test or a scan.keywords set, got string"},
		{`kind = "shell", prefilter = scan.rules({ { kw = { "a" }, rx = "()(a)" } })`, "prefilter: want a scan.any test or a scan.keywords set, got userdata"},
		{`prefilter = scan.any({ "rm" })`, `prefilter: needs kind = "shell"`},
		{`kind = { "shell", "read" }, prefilter = scan.any({ "rm" })`, `prefilter: needs kind = "shell"`},
		{`kind = "shell", prefiltr = scan.any({ "rm" })`, `unknown key "prefiltr"`},
	} {
		s, err := Compile("p.lua", []byte(`local scan = require("scan")
hook{ event = "BeforeTool", `+c.hook+`, handler = function() end }`))
		require.NoError(t, err)
		_, err = NewPool(context.Background(), []Source{{Script: s}}, Options{})
		require.ErrorContains(t, err, c.want, c.hook)
	}
	// a keyword set is a prefilter too
	p := newTestPool(t, Options{}, "k.lua", `hook{ event = "BeforeTool", kind = "shell", prefilter = require("scan").keywords({ "rm" }),
  handler = function(input) return { decision = "deny", reason = "ran" } end }`)
	out, err := p.Call(context.Background(), 0, shellCall("ls"))
	require.NoError(t, err)
	require.Equal(t, events.Decision(""), out.Decision)
}

// TestFoldableAgreesWithToLower: where foldable holds, the lowercase keeps
// every byte in place, ASCII bytes ASCII-lowercased and the others
// non-ASCII (so the folded automaton finds what the plain one finds in
// the lowercase); texts with an invalid byte or a rune whose lowercase is
// ASCII or of another length are not foldable.
func TestFoldableAgreesWithToLower(t *testing.T) {
	v := borrowVM(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, pieces := range [][]string{
		{"a", "Z", "é", "É", "Σ", "ß", "\uFFFD", "-"},
		{"a", "Z", "\u0130", "\u212A", "\xff", "\xe2\x84", "ſ", "\u023A"},
	} {
		folds := 0
		for range 200 {
			var b strings.Builder
			n := r.IntN(40)
			for b.Len() < n {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			s := b.String()
			if !v.foldable(v.L, s) {
				continue
			}
			folds++
			low := strings.ToLower(s)
			require.Len(t, low, len(s), "%q", s)
			for i := 0; i < len(s); i++ {
				if s[i] < 0x80 {
					require.Equal(t, lowerASCII(s[i:i+1]), low[i:i+1], "%q at %d", s, i)
				} else {
					require.GreaterOrEqual(t, low[i], byte(0x80), "%q at %d", s, i)
				}
			}
		}
		require.Positive(t, folds)
	}
	for _, s := range []string{"\xff", "a\u0130", "\u212A", "x\u023A"} {
		require.False(t, v.foldable(v.L, s), "%q", s)
	}
}

// gatedRules are expressions of redact-pii's shape (no keyword: over the
// whole text), which rules:candidates runs at candidates only.
const gatedRules = `{
  { pre = [[(?:^|[^\w.+/:-])]], rx = [[((?:^|[^\w.+/:-]))(\+[1-9]\d{0,2}(?:[ .-]\(?\d{1,5}\)?){1,5}[ .-]\d{2,8}|\+[1-9]\d{7,14}|\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}|\d{3}[.-]\d{3}[.-]\d{4}|1[ .-]\d{3}[ .-]\d{3}[ .-]\d{4})(?:$|[^\w.:/-])]] },
  { rx = [[((?:^|[^\w.-]))(\d{4}(?:[ -]?\d{4}){2,3}(?:[ -]?\d{1,3})?|\d{4}[ -]?\d{6}[ -]?\d{4,5}|\d{13,19})(?:$|[^\w.-])]] },
  { rx = [[((?:^|[^A-Za-z0-9]))([A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?)(?:$|[^A-Za-z0-9])]] },
  { kw = { "-" }, rx = [[((?:^|[^\w.-]))(\d{3}-\d{2}-\d{4})(?:$|[^\w.-])]] },
  { rx = [[(?m)(^|é)(\d{4}[a-c]{2})(?:$|x)]] },
  { kw = { "@" }, back = 16, ahead = 40, rx = [[((?:^|[^A-Za-z0-9._%+-]))([A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*\.[A-Za-z]{2,24})(?:$|[^A-Za-z0-9_-])]] },
  { rx = [[(\s?)(ab+b+@)]] },
}`

// TestScanGateFindsWhatTheWholeSearchFinds: the rules' candidates are the
// same with and without their gates, over texts made to hit the edges
// (values at the start, after a value, after multibyte runes and invalid
// bytes, in windows of keyword rules), and the gated expressions run at
// candidates only: in a log, at the two places per line where a phone
// number could begin (the timestamp, the address), and once per value.
func TestScanGateFindsWhatTheWholeSearchFinds(t *testing.T) {
	p := newTestPool(t, Options{}, "s.lua", `local scan = require("scan")
local rules = scan.rules(`+gatedRules+`)
hook{ event = "BeforeTool", handler = function(input)
  local spans = rules:candidates(input.toolInput.command)
  local out = {}
  for i = 1, #spans, 3 do out[#out + 1] = spans[i] .. "-" .. spans[i + 1] .. ":" .. spans[i + 2] end
  return { reason = table.concat(out, " ") }
end }`)
	candidates := func(s string) string {
		out, err := p.Call(context.Background(), 0, bashInput(s))
		require.NoError(t, err)
		return out.Reason
	}
	saved := map[*scanRule]*scanGate{}
	gates := func(on bool) {
		for _, x := range p.plan.scans.m {
			if rs, ok := x.(*ruleSet); ok {
				for i := range rs.rules {
					if on {
						rs.rules[i].gate = saved[&rs.rules[i]]
					} else if rs.rules[i].gate != nil {
						saved[&rs.rules[i]], rs.rules[i].gate = rs.rules[i].gate, nil
					}
				}
			}
		}
		require.Len(t, saved, 7, "every rule has a gate")
	}
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"0", "1", "4", "5", "9", " ", "-", ".", "(", ")", "+", "DE", "GB82", "a", "b", "x", "\n", ":", "/", "é", "\xff", "4111 1111 1111 1111", "+44 20 7946 0958", "415-555-0132", "123-45-6789", "DE89 3704 0044 0532 0130 00", "1234ab", "@", "jane.doe@mail.acme.io", ".", "a.b", "abbb@", "ab", "b@b"}
	var texts []string
	for range 3000 {
		var b strings.Builder
		for n := r.IntN(80); n > 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	gated := make([]string, len(texts))
	for i, s := range texts {
		gated[i] = candidates(s)
	}
	gates(false)
	for i, s := range texts {
		require.Equal(t, candidates(s), gated[i], "%q", s)
	}
	gates(true)

	runs := func(s string) int64 {
		before := p.plan.work.scanRuns.Load()
		candidates(s)
		return p.plan.work.scanRuns.Load() - before
	}
	log := strings.Repeat("2026-01-15T10:20:30Z INFO listening on 0.0.0.0:8080 (pid 4242) id 123e4567-e89b-12d3-a456-426614174000\n", 600)
	require.Equal(t, int64(2*600), runs(log))
	values := "call +1 415 555 0132 or pay with 4111 1111 1111 1111 to DE89 3704 0044 0532 0130 00\n"
	// each value, and each group of digits after a space that may begin a phone number
	require.Equal(t, int64(2*2*600+13), runs(log+values+log))
}

// TestScanSkipsSearchesWithoutTheLiteral: a rule's expression is not run
// over the rest of a window that lacks a literal every match holds.
func TestScanSkipsSearchesWithoutTheLiteral(t *testing.T) {
	p := newTestPool(t, Options{}, "s.lua", `local scan = require("scan")
local rules = scan.rules({ { kw = { "://" }, back = 16, ahead = 200, rx = [[([a-z]+://[^:@/\s]*:)([^@/\s]{1,128})@]] } })
hook{ event = "BeforeTool", handler = function(input)
  local spans = rules:candidates(input.toolInput.command)
  return { reason = #spans .. " " .. tostring(spans[1]) .. "-" .. tostring(spans[2]) }
end }`)
	before := p.plan.work.scanSearches.Load()
	out, err := p.Call(context.Background(), 0, bashInput("url postgres://u:secret@db, then text: more text, and more"))
	require.NoError(t, err)
	require.Equal(t, "3 18-23", out.Reason)
	require.Equal(t, int64(1), p.plan.work.scanSearches.Load()-before, "one search: the rest of the window has no ://")
}

// TestValueWindowFindsWhatTheTextFinds: an anchored value expression
// searched in its window (the run of bytes its matches can hold) finds
// what it finds in the whole text; an unanchored one gets no window.
func TestValueWindowFindsWhatTheTextFinds(t *testing.T) {
	exprs := []string{
		`^["']?\s*(?::=|=>|[:=])\s*["'` + "`" + `]?([^\s"'` + "`" + `,;)}\]]{8,200})`,
		`(?i)^(?:["']?\s*[:=]\s*["']?\s*(?:bearer|basic|token|bot)\s+|\s+)([A-Za-z0-9._~+/-]{12,}=*)`,
		`^"?\s*:\s*"([A-Za-z0-9+/]{8,}={0,2})"`,
		`^\s*=\s*([A-Za-z0-9+/]{40,88}={0,2})$`,
		`^(ab|a)\b`,
	}
	r := rand.New(rand.NewPCG(9, 10))
	pieces := []string{"a", "b", "Z", "0", " ", "\n", "=", ":", "\"", "'", ",", ")", "é", "\xff", "bearer ", "abcdefgh", "ABCDEFGHIJ0123456789", "/+"}
	for _, x := range exprs {
		e := newRegexpEntry(x)
		require.NoError(t, e.err)
		run := anchoredRun(e)
		require.NotNil(t, run, x)
		for range 3000 {
			var b strings.Builder
			for n := r.IntN(40); n > 0; n-- {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			s := b.String()
			require.Equal(t, e.re.FindStringSubmatchIndex(s), e.re.FindStringSubmatchIndex(valueWindow(run, s)), "%s on %q", x, s)
		}
	}
	require.Nil(t, anchoredRun(newRegexpEntry(`a\s*=`)))
	require.Nil(t, anchoredRun(newRegexpEntry(`(?m)^a`)))
}

// TestByteClassReadsRanges checks that byteClass, which reads a character
// class from its ranges, gives each byte the verdict of matching it with
// the compiled pattern, for classes of every shape (negated, folded,
// named, past ASCII) and for expressions that are not a class.
func TestByteClassReadsRanges(t *testing.T) {
	for _, cls := range []string{
		"[a-z0-9_.+-]", "[a-z0-9_.:+@-]", `[^\s]`, `\w`, `\S`, "[[:alpha:]]", "(?i)[a-f]",
		"[^a-z]", "[\x00-\x7f]", "[^\x00-\x7f]", `[\x{80}-\x{10FFFF}]`, "[é]", `[^\n]`, `\pL`,
		".", "(?s).", "a", "ab", "a|b", "[a-", "",
	} {
		got, gotErr := byteClass(cls)
		want, wantErr := byteClassMatched(`\A(?:` + cls + `)\z`)
		if wantErr != nil {
			require.Error(t, gotErr, cls)
			continue
		}
		require.NoError(t, gotErr, cls)
		require.Equal(t, want, got, cls)
	}
}

// naiveAgainstAutomaton compares firstNaive with firstAutomaton at every
// position of random texts (up to maxText pieces of alpha) for random sets
// of keywords (1 to 3 pieces each), every other set with token.
func naiveAgainstAutomaton(t *testing.T, rng *rand.Rand, alpha []string, token *[256]bool, iters, maxText int) {
	t.Helper()
	str := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alpha[rng.IntN(len(alpha))])
		}
		return b.String()
	}
	for iter := range iters {
		words := make([]string, 1+rng.IntN(6))
		for i := range words {
			words[i] = str(1 + rng.IntN(3))
		}
		set := &kwSet{words: words, built: new(atomic.Int64)}
		if iter%2 == 0 {
			set.token = token
		}
		text := str(rng.IntN(maxText))
		for from := 0; from <= len(text); from++ {
			ns, nw, ok := set.firstNaive(text, from)
			require.True(t, ok)
			as, aw, _, err := set.firstAutomaton(text, from, func(int) bool { return false })
			require.NoError(t, err)
			require.Equal(t, [2]int{as, aw}, [2]int{ns, nw}, "words %q text %q from %d token %v", words, text, from, set.token != nil)
		}
	}
}
