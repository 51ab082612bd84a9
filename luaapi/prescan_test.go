package luaapi

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// deepSources are scripts whose syntax trees nest a million levels deep
// (or as deep as MaxScriptSize allows): gopher-lua's compiler recursion
// overflowed the Go stack on them, a fatal error.
func deepSources() map[string]string {
	const n = 1000000
	r := strings.Repeat
	fit := func(unit string) int { return min(n, (MaxScriptSize-64)/len(unit)) }
	return map[string]string{
		"hash":        "local x = " + r("#", fit("#")) + "y",
		"minus":       "local x = " + r("- ", fit("- ")) + "1",
		"not":         "local x = " + r("not ", fit("not ")) + "1",
		"parens":      "local x = " + r("(", fit("()")) + "1" + r(")", fit("()")),
		"tables":      "local x = " + r("{", fit("{}")) + r("}", fit("{}")),
		"index":       "local x = y" + r("[1]", fit("[1]")),
		"functions":   r("local function f() ", fit("local function f() end ")) + r("end ", fit("local function f() end ")),
		"do":          r("do ", fit("do end ")) + r("end ", fit("do end ")),
		"if":          r("if x then ", fit("if x then end ")) + r("end ", fit("if x then end ")),
		"elseif":      "if x then " + r("elseif x then ", fit("elseif x then ")) + "end",
		"concat":      "local x = 'a'" + r("..'a'", fit("..'a'")),
		"plus":        "local x = 1" + r("+1", fit("+1")),
		"fields":      "local x = y" + r(".z", fit(".z")),
		"calls":       "local x = f" + r("()", fit("()")),
		"methods":     "local x = f" + r(":m()", fit(":m()")),
		"and":         "local x = a" + r(" and a", fit(" and a")),
		"unclosed":    "local x = " + r("(", fit("(")),
		"unclosedfn":  r("function f() ", fit("function f() ")),
		"string call": "local x = f" + r(" 'a'", fit(" 'a'")),
	}
}

// TestDeepNestingIsALoadError: every deep source is a ScriptError with a
// line, never a Go stack overflow (which would kill the test binary).
func TestDeepNestingIsALoadError(t *testing.T) {
	for name, src := range deepSources() {
		t.Run(name, func(t *testing.T) {
			_, err := Compile("deep.lua", []byte(src))
			var se *ScriptError
			require.True(t, errors.As(err, &se), "%v", err)
			require.Equal(t, "deep.lua", se.Script)
			require.Equal(t, 1, se.Line)
			require.Contains(t, se.Msg, fmt.Sprintf("nest deeper than %d levels", MaxNesting))
		})
	}
}

// TestNestingBound: the bound is exact where the depth is obvious, and
// siblings and statement lists do not add up.
func TestNestingBound(t *testing.T) {
	r := strings.Repeat
	ok := func(src string) {
		t.Helper()
		require.Nil(t, prescan("x.lua", []byte(src)), "%.80s", src)
	}
	deep := func(src string, line int) {
		t.Helper()
		err := prescan("x.lua", []byte(src))
		require.NotNil(t, err, "%.80s", src)
		require.Equal(t, line, err.Line)
	}
	// A chunk's operator chain and brackets: "local x = " restarts.
	ok("local x = " + r("(", MaxNesting) + "1" + r(")", MaxNesting))
	deep("local x = "+r("(", MaxNesting+1)+"1"+r(")", MaxNesting+1), 1)
	ok("local x = 1" + r("+1", MaxNesting))
	deep("local x = 1"+r("+1", MaxNesting+1), 1)
	deep("local x = 1\n\n"+r("+1\n", MaxNesting+1), 3+MaxNesting)
	// Siblings and statements.
	ok("local t = {" + r("{1+2+3}, ", 10000) + "}")
	ok(r("print('x') x = y .. z\n", 10000))
	ok(r("local function f() return a.b.c(d) end\n", 10000))
	ok("f(" + r("a + b, ", 10000) + "c)")
	ok("if a then " + r("elseif b then x = 1 ", MaxNesting-1) + "end")
	deep("if a then "+r("elseif b then x = 1 ", MaxNesting)+"end", 1)
	// Strings and comments hide what looks like nesting.
	ok("local s = '" + r("(", 10000) + "' --" + r("(", 10000) + "\n--[==[" + r("{", 10000) + "]==] local t = [[" + r("((", 10000) + "]]")
	ok(`local s = "\"((((" .. 'it\'s' -- ((((`)
}

// TestPrescanAcceptsRealScripts: every shipped pack and test script passes,
// well within the bound.
func TestPrescanAcceptsRealScripts(t *testing.T) {
	var n int
	for _, root := range []string{"../stdlib/packs", "../stdlib/lib", "testdata", "../engine/testdata", "../spec"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".lua") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := prescanner{src: src, line: 1, stack: make([]scanCtx, 1, 16)}
			line, what := s.run()
			require.Zero(t, line, "%s: %s", p, what)
			require.Less(t, s.maxSeen, MaxNesting/3, "%s nests %d deep", p, s.maxSeen)
			t.Logf("%s: %d deep", p, s.maxSeen)
			n++
			return nil
		})
		require.NoError(t, err)
	}
	require.GreaterOrEqual(t, n, 6)
}

// worstCaseSources are scripts of about MaxScriptSize that pass prescan
// with a nesting just under the bound: the slowest inputs Compile accepts.
func worstCaseSources() map[string]string {
	const d = MaxNesting - 2
	r := strings.Repeat
	fill := func(prefix, unit, suffix string) string {
		return prefix + r(unit, (MaxScriptSize-len(prefix)-len(suffix))/len(unit)) + suffix
	}
	return map[string]string{
		"parens":     fill("local t = {", r("(", d)+"1"+r(")", d)+",", "}"),
		"tables":     fill("local t = {", r("{", d)+r("}", d)+",", "}"),
		"functions":  fill("", r("local function f() ", d-1)+r("end ", d-1), ""),
		"do":         fill("", r("do ", d)+r("end ", d), ""),
		"if":         fill("", r("if x then ", d)+r("end ", d), ""),
		"elseif":     fill("", "if x then "+r("elseif x then ", d-1)+"end ", ""),
		"concat":     fill("", "x = 'a'"+r("..'a'", d)+"\n", ""),
		"plus":       fill("", "x = 1"+r("+1", d)+"\n", ""),
		"fields":     fill("", "x = y"+r(".z", d)+"\n", ""),
		"calls":      fill("", "x = f"+r("()", d)+"\n", ""),
		"hash":       fill("", "x = "+r("#", d)+"y\n", ""),
		"flat":       fill("", "x = y + z * 2 - f(a, b, 'c') .. d.e[1]\n", ""),
		"small fns":  fill("", "local function f(a, b) return a + b end\n", ""),
		"array":      fill("local t = {", "1,", "}"),
		"fn nest if": fill("", r("function f() if x then ", d/2-1)+r("end end ", d/2-1), ""),
	}
}

// TestCompileWorstCase measures Compile on worstCaseSources (timing only
// with MONAD_TIMING=1; the figures are in SECURITY.md). Without it, it
// checks that every source compiles or is rejected cleanly.
func TestCompileWorstCase(t *testing.T) {
	timing := os.Getenv("MONAD_TIMING") == "1"
	if !timing {
		// Correctness only, on a tenth of the size (full size takes
		// seconds under the race detector).
		for name, src := range worstCaseSources() {
			src = src[:len(src)/10]
			if _, err := Compile(name, []byte(src)); err != nil {
				var se *ScriptError
				require.ErrorAs(t, err, &se)
				require.NotContains(t, se.Msg, "nest deeper", name)
			}
		}
		return
	}
	var worst time.Duration
	for name, src := range worstCaseSources() {
		start := time.Now()
		_, err := Compile(name, []byte(src))
		d := time.Since(start)
		worst = max(worst, d)
		msg := "ok"
		if err != nil {
			msg = err.Error()
			if len(msg) > 60 {
				msg = msg[:60]
			}
		}
		t.Logf("%-10s %7d bytes %8.1f ms  %s", name, len(src), float64(d.Microseconds())/1000, msg)
	}
	t.Logf("worst: %v", worst)
}
