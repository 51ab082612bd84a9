package luaapi

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScriptErrorPositions: a load error says file:line:col with one
// "syntax error", a stable kind, and a did-you-mean for hook{} keys and for
// event names, other agents' included (issue 14.3).
func TestScriptErrorPositions(t *testing.T) {
	const events13 = "; want one of SessionStart, BeforeTurn, BeforeModel, BeforeTool, ApprovalRequest, AfterTool, AfterModel, BeforeCompact, AfterCompact, BeforeSubagent, AfterSubagent, AfterTurn, SessionEnd"
	for _, c := range []struct {
		name, src string
		kind      ScriptErrorKind
		want      string // Error()
	}{
		{"syntax", "hook{ event = 'BeforeTool', handler = function(i)\n  if x then\nend }\n", ScriptSyntax,
			"reg.lua:3:5: syntax error near '}'"},
		{"syntax, a long token", "local x = 1 12345", ScriptSyntax, "reg.lua:1:13: syntax error near '12345'"},
		{"syntax at the end", "local s = 'abc", ScriptSyntax, "reg.lua:1:15: unterminated string at end of file"},
		{"another agent's event", "hook{\n  event = 'PreToolUse',\n  handler = function() end,\n}\n", ScriptHook,
			`reg.lua:2:11: hook{}: event: unknown event "PreToolUse" (did you mean "BeforeTool"?)` + events13},
		{"a misspelt event", "hook{ event = \"BeforTool\", handler = function() end }", ScriptHook,
			`reg.lua:1:15: hook{}: event: unknown event "BeforTool" (did you mean "BeforeTool"?)` + events13},
		{"an unknown event", "hook{ event = 'Whenever', handler = function() end }", ScriptHook,
			`reg.lua:1:15: hook{}: event: unknown event "Whenever"` + events13},
		{"a misspelt key", "hook{ event = 'BeforeTool',\n\tmatchr = 'x',\n  handler = function() end }", ScriptHook,
			`reg.lua:2:2: hook{}: unknown key "matchr" (did you mean "matcher"?); want one of event, name, matcher, kind, prefilter, handler, onError, timeoutMs`},
		{"another key", "hook{ event = 'BeforeTool', handler = function() end, timeout = 5 }", ScriptHook,
			`reg.lua:1:55: hook{}: unknown key "timeout" (did you mean "timeoutMs"?); want one of event, name, matcher, kind, prefilter, handler, onError, timeoutMs`},
		{"a wrong value", "local x = 1\nhook{ event = 'BeforeTool', timeoutMs = '50', handler = function() end }", ScriptHook,
			"reg.lua:2:41: hook{}: timeoutMs: want a number, got string"},
		{"a missing handler points at the call", "  hook{ event = 'BeforeTool' }", ScriptHook, "reg.lua:1:3: hook{}: missing handler"},
		{"a spec built elsewhere has the line only", "local s = { event = 'Nope', handler = function() end }\nhook(s)", ScriptHook,
			`reg.lua:2: hook{}: event: unknown event "Nope"` + events13},
		{"an error at load has its line", "local x = nil\n\nx.y = 1", ScriptLoad, "reg.lua:3: attempt to index a non-table object(nil) with key 'y'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := loadErr(t, c.src, nil)
			var se *ScriptError
			require.True(t, errors.As(err, &se), "%v", err)
			assert.Equal(t, c.want, se.Error())
			assert.Equal(t, c.kind, se.Kind)
		})
	}
}
