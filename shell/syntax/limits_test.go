package syntax

import (
	"errors"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestLimits(t *testing.T) {
	t.Run("depth", func(t *testing.T) {
		line := strings.Repeat("echo $(", 12) + "rm -rf /" + strings.Repeat(")", 12)
		cmds, err := Commands(line, Options{})
		if !errors.Is(err, ErrTooDeep) {
			t.Fatalf("err = %v", err)
		}
		maxd := 0
		for _, c := range cmds {
			maxd = max(maxd, c.Depth)
		}
		if maxd != DefaultMaxDepth {
			t.Fatalf("deepest %d", maxd)
		}
		if cmds[0].Words[0] != "echo" || cmds[0].Malformed {
			t.Fatalf("first %q", render(cmds[0]))
		}
	})
	t.Run("depth option", func(t *testing.T) {
		cmds, err := Commands("echo $(a $(b))", Options{MaxDepth: 1})
		if !errors.Is(err, ErrTooDeep) || len(cmds) != 2 {
			t.Fatalf("%q %v", renderAll(cmds), err)
		}
	})
	t.Run("strings nested", func(t *testing.T) {
		line := "rm -rf /"
		for range 12 {
			line = "bash -c " + shellQuote(line)
		}
		cmds, err := Commands(line, Options{})
		if !errors.Is(err, ErrTooDeep) || len(cmds) != DefaultMaxDepth+1 {
			t.Fatalf("%d commands, %v", len(cmds), err)
		}
		cmds, err = Commands(line, Options{MaxDepth: 20})
		if err != nil || strings.Join(cmds[len(cmds)-1].Words, " ") != "rm -rf /" {
			t.Fatalf("%q %v", renderAll(cmds), err)
		}
	})
	t.Run("groups past the depth are flattened", func(t *testing.T) {
		line := strings.Repeat("( ", 20) + "rm -rf /" + strings.Repeat(" )", 20) + "; ls"
		cmds, err := Commands(line, Options{})
		if !errors.Is(err, ErrTooDeep) {
			t.Fatalf("err = %v", err)
		}
		got := renderAll(cmds)
		if len(got) != 2 || got[0] != "^8:( rm -rf / ;" && got[0] != "^8:( rm -rf /" || got[1] != "ls" {
			t.Fatalf("%q", got)
		}
	})
	t.Run("commands", func(t *testing.T) {
		cmds, err := Commands(strings.Repeat("a;", 100), Options{MaxCommands: 10})
		if !errors.Is(err, ErrTooMany) || len(cmds) != 10 {
			t.Fatalf("%d %v", len(cmds), err)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		cmds, err := Commands("ls; rm -rf /", Options{MaxBytes: 4})
		if !errors.Is(err, ErrTooLong) || len(cmds) != 1 {
			t.Fatalf("%q %v", renderAll(cmds), err)
		}
	})
	t.Run("string budget", func(t *testing.T) {
		line := `bash -c "` + strings.Repeat("a;", 40) + `"`
		_, err := Commands(line, Options{MaxBytes: 60})
		if !errors.Is(err, ErrTooLong) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("control nesting", func(t *testing.T) {
		line := strings.Repeat("if a; then ", 300) + "rm -rf /" + strings.Repeat("; fi", 300)
		cmds, _ := Commands(line, Options{})
		found := false
		for _, c := range cmds {
			if strings.Join(c.Words, " ") == "rm -rf /" {
				found = true
			}
		}
		if !found {
			t.Fatal("the innermost command was lost")
		}
	})
}

// pathological are inputs that could make a parser slow or deep, built
// at a size n.
var pathological = map[string]func(n int) string{
	"$($(":        func(n int) string { return strings.Repeat("$($(", n/4) },
	"((((":        func(n int) string { return strings.Repeat("(", n) },
	"$((((":       func(n int) string { return "$" + strings.Repeat("(", n-1) },
	"((( )":       func(n int) string { return strings.Repeat("(( ", n/3) },
	"${${":        func(n int) string { return strings.Repeat("${", n/2) },
	"\"${\"${":    func(n int) string { return strings.Repeat(`"${`, n/3) },
	"backticks":   func(n int) string { return strings.Repeat("`", n) },
	"escaped bt":  func(n int) string { return strings.Repeat("`\\`", n/3) },
	"quotes":      func(n int) string { return strings.Repeat(`"'`, n/2) },
	"heredocs":    func(n int) string { return strings.Repeat("cat <<A ", n/8) + "\n" },
	"heredoc eof": func(n int) string { return "cat <<A\n" + strings.Repeat("x\n", n/2) },
	"eval chain":  func(n int) string { return strings.Repeat("eval ", n/5) + "rm" },
	"bash -c":     func(n int) string { return strings.Repeat("bash -c ", n/8) },
	"ifs":         func(n int) string { return strings.Repeat("if ", n/3) },
	"for":         func(n int) string { return strings.Repeat("for x in ", n/9) },
	"case":        func(n int) string { return strings.Repeat("case x in ", n/10) },
	"braces":      func(n int) string { return strings.Repeat("{ ", n/2) },
	"semicolons":  func(n int) string { return strings.Repeat(";", n) },
	"words":       func(n int) string { return strings.Repeat("a ", n/2) },
	"pipes":       func(n int) string { return strings.Repeat("a|", n/2) },
	"arith":       func(n int) string { return "((" + strings.Repeat("(", n-4) + "))" },
	"array":       func(n int) string { return strings.Repeat("a=(", n/3) },
	"redirects":   func(n int) string { return strings.Repeat("<", n) },
	"sub arith":   func(n int) string { return strings.Repeat("$(( $(", n/6) },
	"newlines":    func(n int) string { return strings.Repeat("\n", n) },
	"continue":    func(n int) string { return strings.Repeat("\\\n", n/2) },
	"ssh":         func(n int) string { return strings.Repeat("ssh h ", n/6) },
	"find":        func(n int) string { return "find " + strings.Repeat("-exec find ", n/11) },
	"fd braces":   func(n int) string { return strings.Repeat("(a) {x ", n/7) },
	"groups":      func(n int) string { return strings.Repeat("{ (", n/3) },
	"subst case":  func(n int) string { return strings.Repeat("$(case x in a) ", n/15) },
}

// TestPathological checks that every pathological input is parsed with
// output bounded by MaxCommands, and that the parse is linear: counted in
// steps (state.steps, deterministic, unlike a clock on a loaded machine),
// sixteen times the input may take at most 20 times the steps (quadratic
// growth would be 256 times). With MaxCommands out of the way the whole
// input is parsed, so the limit cannot hide the growth. Without the race
// detector, inputs of 1 MiB (the default MaxBytes) are parsed too.
func TestPathological(t *testing.T) {
	unbounded := Options{MaxCommands: 1 << 30}
	for name, gen := range pathological {
		t.Run(name, func(t *testing.T) {
			small, large := gen(1<<13), gen(1<<17)
			_, ss, _ := commands(small, Options{})
			cmds, sl, _ := commands(large, Options{})
			assert.LessOrEqual(t, len(cmds), DefaultMaxCommands, "commands listed")
			assert.LessOrEqual(t, sl, 20*ss, "Commands grows faster than linearly: %d steps for %d bytes, %d for %d", ss, len(small), sl, len(large))
			_, ss, _ = commands(small, unbounded)
			_, sl, _ = commands(large, unbounded)
			assert.LessOrEqual(t, sl, 20*ss, "Commands without a command limit grows faster than linearly: %d steps for %d bytes, %d for %d", ss, len(small), sl, len(large))
			assert.GreaterOrEqual(t, sl, len(large)/2, "the step counter does not count the bytes read")
			_, ss, _ = split(small, nil)
			_, sl, _ = split(large, nil)
			assert.LessOrEqual(t, sl, 20*ss, "Split grows faster than linearly: %d steps for %d bytes, %d for %d", ss, len(small), sl, len(large))
			assert.GreaterOrEqual(t, sl, len(large)/2, "the step counter does not count the bytes read")
			if raceEnabled || testing.Short() {
				return
			}
			in := gen(1 << 20)
			cmds, _ = Commands(in, Options{})
			assert.LessOrEqual(t, len(cmds), DefaultMaxCommands, "commands listed")
			Split(in)
		})
	}
}

// TestPathologicalTiming checks, on the clock, what TestPathological
// proves in steps: that the step counter misses no work that grows faster
// than linearly. Sixteen times the input may not take more than 48 times
// as long (quadratic growth would be 256 times). It asserts a timing
// ratio, so it runs only with MONAD_TIMING=1 (scripts/bench.sh), and
// measures what a loaded machine does not distort much: the CPU time of
// the test's own thread (not the time other processes ran instead), the
// best of five runs taken in turns with the other size (not one size
// during a burst of load and the other after it), without garbage
// collection.
func TestPathologicalTiming(t *testing.T) {
	needTiming(t)
	// best returns the least CPU time that each of f and g took.
	best := func(f, g func()) (df, dg time.Duration) {
		// The growth of the parse, not of the collector's work: no
		// collection during the runs.
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		df, dg = time.Duration(1<<62), time.Duration(1<<62)
		for range 5 {
			for _, r := range []struct {
				run func()
				d   *time.Duration
			}{{f, &df}, {g, &dg}} {
				runtime.GC()
				s := threadCPU()
				r.run()
				*r.d = min(*r.d, threadCPU()-s)
			}
		}
		return df, dg
	}
	for name, gen := range pathological {
		t.Run(name, func(t *testing.T) {
			small, large := gen(1<<13), gen(1<<17)
			ds, dl := best(func() { Commands(small, Options{}) }, func() { Commands(large, Options{}) })
			if dl > 48*ds && dl > 20*time.Millisecond {
				t.Errorf("Commands grows faster than linearly: %v for 8 KiB, %v for 128 KiB (CPU time)", ds, dl)
			}
			ds, dl = best(func() { Split(small) }, func() { Split(large) })
			if dl > 48*ds && dl > 20*time.Millisecond {
				t.Errorf("Split grows faster than linearly: %v for 8 KiB, %v for 128 KiB (CPU time)", ds, dl)
			}
		})
	}
}

// shellQuote quotes s for a shell, in single quotes.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
