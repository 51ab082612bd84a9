package stdlib_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// mcpInput is one line of mcp.jsonl: a tool call through an MCP server,
// the decision wanted ("" for none) of the default set or of pack, and
// whether it must stay unguarded (no entry of the MCP table reads it).
type mcpInput struct {
	Tool      string         `json:"tool"`
	Input     map[string]any `json:"input"`
	Pack      string         `json:"pack"`
	Want      *string        `json:"want"`
	Unguarded bool           `json:"unguarded"`
}

// TestQualityMCP measures the guards on tool calls through MCP servers
// (tools/mcp.md): every dangerous call caught, no look-alike touched, and
// no call unguarded but those the corpus says (a name the MCP table must
// not read).
func TestQualityMCP(t *testing.T) {
	packs := map[string]*pack{"": loadDefaultSet(t), "gate-network": mustLoad(t, "gate-network", nil)}
	caught, touched := newTally(), newTally()
	const file = "mcp.jsonl"
	for _, l := range readJSONCorpus(t, file) {
		var c mcpInput
		if err := json.Unmarshal([]byte(l.text), &c); err != nil || c.Want == nil {
			t.Fatalf("%s:%d: %v (want is required)", file, l.num, err)
		}
		p := packs[c.Pack]
		if p == nil {
			t.Fatalf("%s:%d: no pack %q", file, l.num, c.Pack)
		}
		res := p.call(t, events.Input{Event: events.BeforeTool, ToolName: c.Tool, Cwd: testRoot, ToolInput: c.Input})
		if res.UnguardedTool != c.Unguarded {
			t.Errorf("%s:%d: unguardedTool %v, want %v: %s", file, l.num, res.UnguardedTool, c.Unguarded, l.text)
		}
		if *c.Want == "" {
			if res.Decision != "" {
				t.Errorf("%s:%d: %s: %s", file, l.num, res.Decision, res.Reason)
			}
			touched.add(l.group, res.Decision != "")
			continue
		}
		hit := res.Decision == events.Decision(*c.Want)
		if !hit {
			t.Errorf("%s:%d: %q (want %s): %s", file, l.num, res.Decision, *c.Want, l.text)
		} else {
			checkReason(t, "", l.text, res.Reason)
		}
		caught.add(l.group, hit)
	}
	rows := append(caught.report(file, "caught"), touched.report(file, "touched")...)
	t.Logf("MCP tool calls:\n%s", strings.Join(rows, "\n"))
	checkQualitySection(t, "mcp", rows)
}

// mcpBlindLine is one line of mcp-blind.jsonl (written blind, session
// 25): a call through an MCP server, the pack whose contract names it,
// and want: deny or ask (stopped: denied or asked), allowed (nothing
// decides).
type mcpBlindLine struct {
	Tool  string         `json:"tool"`
	Input map[string]any `json:"input"`
	Want  string         `json:"want"`
	Pack  string         `json:"pack"`
}

// mcpBlindGaps are the groups of mcp-blind.jsonl that no guard covers
// yet, and why (README.md, "Tools of MCP servers").
var mcpBlindGaps = map[string]string{
	"fetch and browsers: other hosts (gate-network asks)": "desktop-commander's read_file {isUrl: true} reads the URL in path, and the paths of a read are not gated (1 line)",
}

// TestQualityMCPBlind measures the default set (and gate-network on the
// lines that name it) on the blind held-out MCP corpus, in its home and
// project root. Held out: the misses are logged (go test -v). No
// look-alike outside the group "ambiguous" may be touched, and every
// group but "ambiguous" and the known gaps (mcpBlindGaps) must stop at
// least minDangerousDenied of its dangerous calls.
func TestQualityMCPBlind(t *testing.T) {
	const file, home, root = "mcp-blind.jsonl", "/home/dev", "/home/dev/project"
	load := func(names ...string) *pack {
		e, err := engine.New(context.Background(), engine.WithStdlib(names...), engine.WithFiles(engine.Files{Home: home, Root: root}), engine.WithLuaPool(0, testLuaTimeout))
		if err != nil {
			t.Fatalf("load %v: %v", names, err)
		}
		t.Cleanup(func() { e.Close() })
		return &pack{name: strings.Join(names, ","), eng: e}
	}
	def, net := load("default"), load("default", "gate-network")
	caught, touched := newTally(), newTally()
	for _, l := range readJSONCorpus(t, file) {
		var c mcpBlindLine
		if err := json.Unmarshal([]byte(l.text), &c); err != nil {
			t.Fatalf("%s:%d: %v", file, l.num, err)
		}
		p := def
		if c.Pack == "gate-network" {
			p = net
		}
		res := p.call(t, events.Input{Event: events.BeforeTool, ToolName: c.Tool, Cwd: root, ToolInput: c.Input})
		stopped := res.Decision == events.Deny || res.Decision == events.Ask
		if c.Want == "allowed" {
			if stopped {
				t.Logf("%s:%d: %s (want allowed): %s: %s", file, l.num, res.Decision, l.text, res.Reason)
			}
			touched.add(l.group, stopped)
			continue
		}
		if !stopped {
			t.Logf("%s:%d: not stopped (want %s, unguarded %v): %s", file, l.num, c.Want, res.UnguardedTool, l.text)
		}
		caught.add(l.group, stopped)
	}
	for g, n := range caught.n {
		if _, gap := mcpBlindGaps[g]; gap || g == "ambiguous" {
			continue
		}
		if r := float64(caught.hit[g]) / float64(n); r < minDangerousDenied {
			t.Errorf("%s: group %q: stopped %.3f, below %.2f", file, g, r, minDangerousDenied)
		}
	}
	for g, hit := range touched.hit {
		if hit > 0 && g != "ambiguous" {
			t.Errorf("%s: group %q: %d look-alikes touched", file, g, hit)
		}
	}
	rows := append(caught.report(file, "stopped"), touched.report(file, "touched")...)
	t.Logf("MCP blind corpus:\n%s", strings.Join(rows, "\n"))
	checkQualitySection(t, "mcp-blind", rows)
}
