package events

import "testing"

// TestAlias: other agent runtimes' event names suggest ours, whatever their
// case and separators; our own names and unknown ones are no alias.
func TestAlias(t *testing.T) {
	for name, want := range map[string]string{
		"PreToolUse": "BeforeTool", "pre_tool_use": "BeforeTool", "UserPromptSubmit": "BeforeTurn",
		"BeforeAgent": "BeforeTurn", "beforeShellExecution": "BeforeTool", "tool.execute.after": "AfterTool",
		"Stop": "AfterTurn", "BeforeTool": "", "Notification": "", "": "",
	} {
		if got := Alias(name); got != want {
			t.Errorf("Alias(%q) = %q, want %q", name, got, want)
		}
	}
	for k := range hostEvents {
		if foldName(k) != k {
			t.Errorf("hostEvents key %q is not folded", k)
		}
	}
	if got := Names(); len(got) != Count-1 || got[0] != "SessionStart" || got[len(got)-1] != "SessionEnd" {
		t.Errorf("Names() = %v", got)
	}
}
