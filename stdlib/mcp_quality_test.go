package stdlib_test

import (
	"encoding/json"
	"strings"
	"testing"

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
