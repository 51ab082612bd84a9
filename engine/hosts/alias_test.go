package hosts

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAlias: other agent runtimes' event names suggest ours, whatever their
// case and separators, from the hosts' tables and the agents without a
// profile; our own names, events with no equivalent and unknown names are
// no alias.
func TestAlias(t *testing.T) {
	for name, want := range map[string]string{
		"PreToolUse": "BeforeTool", "pre_tool_use": "BeforeTool", "UserPromptSubmit": "BeforeTurn",
		"BeforeAgent": "BeforeTurn", "beforeShellExecution": "BeforeTool", "tool.execute.after": "AfterTool",
		"Stop": "AfterTurn", "PostToolUseFailure": "AfterTool", "afterAgentResponse": "", // Cursor has no equivalent for it
		"userPromptSubmitted": "BeforeTurn", "BeforeTool": "", "Notification": "", "": "", "Nope": "",
	} {
		assert.Equal(t, want, Alias(name), "Alias(%q)", name)
	}
	for _, o := range otherAgents {
		k := o.key
		assert.Equal(t, aliasKey(k), k, "otherAgents key is not folded")
		for _, h := range all() {
			_, ok := h.lookup(k)
			assert.False(t, ok, "%s: an event of host %s belongs in its table", k, h.Name)
		}
	}
}
