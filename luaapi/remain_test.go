package luaapi

import (
	"sync/atomic"
	"time"

	"context"
	"fmt"
	"github.com/monad-hooks/monad-hooks/shell/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAllMatchesLikeGo: the match-by-match search (direct and polled)
// finds what Go's FindAll finds, context assertions and empty matches
// included.
func TestAllMatchesLikeGo(t *testing.T) {
	p := newTestPool(t, Options{PoolSize: 1}, "h.lua", "hook{event='BeforeTool', handler=function() end}")
	v, _, err := p.get(context.Background(), p.plan.opts.DefaultTimeout)
	require.NoError(t, err)
	defer p.put(v, false)
	patterns := []string{`a`, `\w+`, `\b\w`, `\B\w`, `^\w+`, `(?m)^\w+`, `(?m)$`, `$`, `x*`, `a|`, `\b`, `(a)(b)?`, `é+`, `[^a]`,
		`(?i)AB`, `foo\b`, `ab+`, `é\w`, `a.*?b`, `o(?m)$`, `\d{2,3}`, `(?s).`, `\Aa`, `a\z`, `(?U)a+`, `(?m)^$`, `\bfoo\b`, `(\w)(\w)?`, ``, `[[:space:]]+`, `\pL+`}
	subjects := []string{"", "a", "ab ab", "aaa", "ab\nab\n\nb", "foo foo.foo_foo", "x\xffa\xffé é", "12 345 6789", "  a  ", "éé aé\n"}
	for _, pat := range patterns {
		e := newRegexpEntry(pat)
		require.NoError(t, e.err, pat)
		for _, s := range subjects {
			want := fmt.Sprint(e.re.FindAllStringSubmatchIndex(s, -1))
			for _, polled := range []bool{false, true} {
				v.polledOnly = polled
				var got [][]int
				require.NoError(t, v.allMatches(e, s, -1, func(m []int) error { got = append(got, m); return nil }))
				if got == nil {
					got = [][]int(nil)
				}
				require.Equal(t, want, fmt.Sprint(got), "pattern %q subject %q polled %v", pat, s, polled)
				for _, n := range []int{0, 1, 2} {
					var k int
					require.NoError(t, v.allMatches(e, s, n, func([]int) error { k++; return nil }))
					require.Equal(t, len(e.re.FindAllStringSubmatchIndex(s, n)), k)
				}
			}
			v.polledOnly = false
			// re.split and re.gsub agree with Go's Split and ReplaceAll.
			if pat == `` {
				continue
			}
			parts := e.re.Split(s, resultCap(-1))
			lua := fmt.Sprintf("local t = re.split(%s, %s) local n = #t return table.concat(t, '|') .. '#' .. n .. '#' .. (re.gsub(%s, %s, '<$0>'))", luaString(s), luaString(pat), luaString(s), luaString(pat))
			gp := newTestPool(t, Options{}, "g.lua", "local re = require('re') hook{event='BeforeTool', handler=function() return { reason = (function() "+lua+" end)() } end}")
			out, err := gp.Call(context.Background(), 0, bashInput("x"))
			require.NoError(t, err)
			require.Equal(t, strings.Join(parts, "|")+"#"+fmt.Sprint(len(parts))+"#"+e.re.ReplaceAllString(s, "<$0>"), out.Reason, "pattern %q subject %q", pat, s)
		}
	}
}

// luaString quotes s as a Lua 5.1 string literal.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\%03d", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestHostFunctionsHonourTheDeadline: host functions given work that takes
// seconds stop at the call's timeout: the call is a timeout, and the
// counters show the work stopped early (no wall-clock assertion).
func TestHostFunctionsHonourTheDeadline(t *testing.T) {
	ab8 := strings.Repeat("ab ", 8<<20/3)
	doc := "[" + strings.Repeat(`{"a":[1,2,"x"]},`, 6<<20/16) + "1]"
	shellLine := strings.Repeat("a 'b' | c; ", 8<<20/11)
	// shell.commands parses at most syntax.DefaultMaxBytes.
	cmdLine := strings.Repeat("a 'b' \"c\" ", syntax.DefaultMaxBytes/10)
	fullPolls := func(split bool) int64 {
		var n int64
		stop := func() bool { n++; return false }
		if split {
			_, _ = syntax.SplitStop(shellLine, stop)
		} else {
			_, _ = syntax.Commands(cmdLine, syntax.Options{Stop: stop, MaxCommands: 1 << 30})
		}
		return n
	}
	counter := func(p *Pool, c *atomic.Int64) int64 { return c.Load() }
	cases := []struct {
		name, body string
		subject    string
		work       func(*Pool) *atomic.Int64
		full       int64 // the counter's value for the whole work
	}{
		{"re.find counted repetition", `re.find(s, [[(\w+\s?){1,1000}$]])`, strings.Repeat("ab ", 100<<10/3), func(p *Pool) *atomic.Int64 { return &p.plan.work.reBytes }, 100 << 10},
		{"re.match counted repetition", `re.match(s, [[(\w+\s?){1,1000}$]])`, strings.Repeat("ab ", 100<<10/3), func(p *Pool) *atomic.Int64 { return &p.plan.work.reBytes }, 100 << 10},
		{"re.gsub", `re.gsub(s, "b", "c")`, ab8, func(p *Pool) *atomic.Int64 { return &p.plan.work.reSearches }, int64(len(ab8) / 3)},
		{"re.split", `re.split(s, " ")`, ab8, func(p *Pool) *atomic.Int64 { return &p.plan.work.reSearches }, int64(len(ab8) / 3)},
		{"re.findall", `re.findall(s, "a")`, ab8, func(p *Pool) *atomic.Int64 { return &p.plan.work.reSearches }, int64(len(ab8) / 3)},
		{"json.decode", `json.decode(s)`, doc, func(p *Pool) *atomic.Int64 { return &p.plan.work.jsonValues }, int64(len(doc) / 16 * 8)},
		{"table.sort", `table.sort(input.toolInput.list)`, "", func(p *Pool) *atomic.Int64 { return &p.plan.work.sortCompares }, 1 << 20 * 19},
		{"shell.split", `shell.split(s)`, shellLine, func(p *Pool) *atomic.Int64 { return &p.plan.work.shellPolls }, fullPolls(true)},
		{"shell.commands", `shell.commands(s)`, cmdLine, func(p *Pool) *atomic.Int64 { return &p.plan.work.shellPolls }, fullPolls(false)},
		{"scan.keywords", `scan.keywords({ "ab", "cab" }):find(s)`, strings.Repeat("ac", 32<<20/2), func(p *Pool) *atomic.Int64 { return &p.plan.work.scanBytes }, 32 << 20},
		{"scan.rules", `scan.rules({ { kw = { "ab" }, rx = "()(ab)" } }):candidates(s)`, strings.Repeat("ac", 32<<20/2), func(p *Pool) *atomic.Int64 { return &p.plan.work.scanBytes }, 32 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// shell.commands parses at most 1 MiB: 40 ms on a loaded
			// machine, so it gets a shorter timeout.
			timeout := "20"
			switch c.name {
			case "scan.keywords", "scan.rules":
				timeout = "1" // a GB/s search
			case "shell.commands":
				timeout = "1"
			case "table.sort":
				// Converting the million-string input takes longer than
				// any short timeout on a loaded machine (see
				// TestInputConversionCounts): the caller cancels the
				// call once the sort has started instead.
				timeout = "60000"
			}
			p := newTestPool(t, Options{}, "h.lua", `local re, json, shell, scan = require("re"), require("json"), require("shell"), require("scan")
hook{ event = "BeforeTool", timeoutMs = `+timeout+`, handler = function(input)
  local s = input.toolInput.command
  local ok, err = pcall(function() return `+c.body+` end)
  return { reason = "finished: " .. tostring(ok) .. " " .. tostring(err) }
end }`)
			// A first call compiles the pattern (tens of milliseconds for
			// the counted repetition) and warms the pool.
			warm := bashInput("ab")
			warm.ToolInput = map[string]any{"command": "ab", "list": []any{"b", "a"}}
			_, _ = p.Call(context.Background(), 0, warm) // may time out compiling, under -race
			// The deadline starts when the host function first polls
			// it, not at the call's start, which a loaded machine can
			// leave behind for longer than the timeout before the work
			// began (the counter still 0).
			p.holdDeadlines()
			before := counter(p, c.work(p))
			in := bashInput(c.subject)
			if c.name == "table.sort" {
				in.ToolInput = map[string]any{"list": millionStrings()}
			}
			ctx, want := context.Background(), FailTimeout
			if c.name == "table.sort" {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
				want = FailCanceled
				go func() {
					for counter(p, c.work(p)) == before && ctx.Err() == nil {
						time.Sleep(time.Millisecond)
					}
					cancel()
				}()
			}
			start := time.Now()
			_, err := p.Call(ctx, 0, in)
			elapsed := time.Since(start)
			var he *HookError
			require.ErrorAs(t, err, &he)
			require.Equal(t, want, he.Kind, "%v", err)
			done := counter(p, c.work(p)) - before
			require.Greater(t, done, int64(0), "the work did not start")
			require.Less(t, done, c.full/2, "the work did not stop early")
			t.Logf("%s: stopped after %d of %d units, %v", c.name, done, c.full, elapsed)
		})
	}
}

func millionStrings() []any {
	list := make([]any, MaxArrayIndex-1)
	for i := range list {
		list[i] = fmt.Sprint(i * 7919 % 1000003)
	}
	return list
}

// TestInputConversionCounts: converting the input counts against the
// call's timeout, and stops at it.
func TestInputConversionCounts(t *testing.T) {
	p := newTestPool(t, Options{}, "h.lua", `hook{ event = "BeforeTool", timeoutMs = 1, handler = function(input) end }`)
	in := bashInput("x")
	in.ToolInput = map[string]any{"a": millionStrings(), "b": millionStrings(), "c": millionStrings()}
	_, err := p.Call(context.Background(), 0, in)
	var he *HookError
	require.ErrorAs(t, err, &he)
	require.Equal(t, FailTimeout, he.Kind, "%v", err)
	require.Contains(t, he.Msg, "converting the input")
}

// TestDeepBackwardPattern: a pattern that looks at the rune before a
// position (\b) and nests just below RE2's limit compiles, but the
// expression that searches it from a later position (regexpEntry.ctx)
// nests deeper than the limit: it is refused as a bad pattern up front,
// not a Go panic at its second match (which left the shared entry without
// its expression for every later search).
func TestDeepBackwardPattern(t *testing.T) {
	t.Parallel()
	pat := `\\b` + strings.Repeat("(", 998) + "a" + strings.Repeat(")", 998)
	p := handlerPool(t, "local re = require('re')\nreturn { reason = tostring(#re.findall('a a a', '"+pat+"')) }")
	for range 2 {
		_, err := callReturns(t, context.Background(), p, 0, bashInput("x"))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "bad RE2 pattern: expression nests too deeply")
		assert.NotContains(t, err.Error(), "panic")
	}
}
