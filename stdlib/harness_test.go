package stdlib_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"
	"github.com/monad-hooks/monad-hooks/tools"
)

// testHome is the home directory the packs see in these tests.
const testHome = "/home/agent"

// pack is one stdlib pack loaded in its own pool.
type pack struct {
	name  string
	pool  *luaapi.Pool
	hooks []luaapi.Hook
}

// errMissingModule reports a pack that needs a Lua module the runtime does
// not have yet.
var errMissingModule = errors.New("missing module")

func loadPack(tb testing.TB, name string, with map[string]any) (*pack, error) {
	tb.Helper()
	if err := stdlib.ValidateParams(name, with); err != nil {
		return nil, err
	}
	return loadPackUnchecked(tb, name, with)
}

// loadPackUnchecked loads a pack without ValidateParams, as a host that
// skips it would.
func loadPackUnchecked(tb testing.TB, name string, with map[string]any) (*pack, error) {
	tb.Helper()
	info, ok := stdlib.Lookup(name)
	if !ok {
		tb.Fatalf("no pack %q", name)
	}
	src, err := fs.ReadFile(stdlib.FS(), info.Script)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := luaapi.Compile("stdlib/"+info.Script, src)
	if err != nil {
		return nil, err
	}
	p, err := luaapi.NewPool(context.Background(), []luaapi.Source{{Script: s, Params: with}}, luaapi.Options{Home: testHome, Libraries: libraries(tb)})
	if err != nil {
		if strings.Contains(err.Error(), "not found (available") {
			return nil, fmt.Errorf("%w: %v", errMissingModule, err)
		}
		return nil, err
	}
	tb.Cleanup(func() { p.Close() })
	return &pack{name: name, pool: p, hooks: p.Hooks()}, nil
}

// libraries compiles the packs' shared libraries, as the engine does.
func libraries(tb testing.TB) map[string]*luaapi.Script {
	tb.Helper()
	out := map[string]*luaapi.Script{}
	for name, src := range stdlib.Libraries() {
		s, err := luaapi.Compile(name, src)
		if err != nil {
			tb.Fatalf("library %s: %v", name, err)
		}
		out[name] = s
	}
	return out
}

// compilePack compiles an embedded pack as the engine names it.
func compilePack(tb testing.TB, info stdlib.PackInfo) *luaapi.Script {
	tb.Helper()
	src, err := fs.ReadFile(stdlib.FS(), info.Script)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := luaapi.Compile("stdlib/"+info.Script, src)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// mustLoad loads a pack, skipping the test when the runtime lacks a module
// the pack needs.
func mustLoad(tb testing.TB, name string, with map[string]any) *pack {
	tb.Helper()
	p, err := loadPack(tb, name, with)
	if errors.Is(err, errMissingModule) {
		tb.Skipf("%s: %v", name, err)
	}
	if err != nil {
		tb.Fatalf("load %s: %v", name, err)
	}
	return p
}

// builtinTools is the built-in tool table, which the engine matches hook
// kinds against and computes input.tool from.
var builtinTools = sync.OnceValue(func() *tools.Table {
	t, err := tools.NewTable(tools.Builtin()...)
	if err != nil {
		panic(err)
	}
	return t
})

// call runs every hook of the pack that matches the input, chaining rewrites
// the way the engine does (the tool view and kinds from the built-in tool
// table), and returns the combined output: the strongest decision with its
// reason, and the last rewrite of each field.
func (p *pack) call(tb testing.TB, in events.Input) events.Output {
	tb.Helper()
	var res events.Output
	cur := in
	tab := builtinTools()
	if in.Event.Spec().Matcher {
		cur.Tool = tab.View(in.ToolName, in.ToolInput)
	}
	for i, h := range p.hooks {
		if h.Event != in.Event || !h.Matches(in.ToolName) {
			continue
		}
		if len(h.Kinds) > 0 && !slices.Contains(h.Kinds, tab.Kind(in.ToolName)) {
			continue
		}
		out, err := p.pool.Call(context.Background(), i, &cur)
		if err != nil {
			tb.Fatalf("%s hook %d on %v: %v", p.name, i, in.Event, err)
		}
		if out.Decision.Rank() > res.Decision.Rank() {
			res.Decision, res.Reason = out.Decision, out.Reason
		}
		if out.UpdatedToolOutput != nil {
			res.UpdatedToolOutput = out.UpdatedToolOutput
			cur.ToolResult = out.UpdatedToolOutput
		}
		if out.MutatedText != nil {
			res.MutatedText = out.MutatedText
			if in.Event == events.AfterSubagent {
				cur.SubagentResult = *out.MutatedText
			} else {
				cur.Response = *out.MutatedText
			}
		}
		if out.MutatedRequest != nil {
			res.MutatedRequest = out.MutatedRequest
			cur.Request = out.MutatedRequest
		}
	}
	return res
}

func shellInput(cmd string) events.Input {
	return events.Input{Event: events.BeforeTool, ToolName: "bash", Cwd: "/work/proj", ToolInput: map[string]any{"command": cmd}}
}

// readLines returns the non-blank lines of a testdata file that do not
// start with #, with their line numbers.
func readLines(tb testing.TB, name string) (lines []string, nums []int) {
	tb.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		lines = append(lines, strings.TrimRight(l, " \t\r"))
		nums = append(nums, i+1)
	}
	return lines, nums
}

var placeholder = regexp.MustCompile(`\{\{([a-zA-Z]*):?([0-9]*)\}\}`)

var alphabets = map[string]string{
	"a": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	"A": "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
	"U": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	"l": "abcdefghijklmnopqrstuvwxyz",
	"L": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
	"h": "0123456789abcdef",
	"H": "0123456789ABCDEF",
	"d": "0123456789",
	"b": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
	"u": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
	"z": "abcdefghijklmnopqrstuvwxyz0123456789",
}

// expand fills a corpus template: {{a:36}} is 36 pseudo-random characters
// of alphabet a (see alphabets), {{}} is nothing (it splits literal token
// prefixes so that secret scanners do not flag the corpus), {{nl}} is a
// newline and {{jnl}} a JSON-escaped one. The characters depend only on
// seed, so every run builds the same fake values.
func expand(tmpl string, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	return placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		sub := placeholder.FindStringSubmatch(m)
		switch sub[1] {
		case "":
			return ""
		case "nl":
			return "\n"
		case "jnl":
			return `\n`
		}
		alpha, ok := alphabets[sub[1]]
		if !ok {
			panic("unknown alphabet in " + m)
		}
		n, _ := strconv.Atoi(sub[2])
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		return string(b)
	})
}
