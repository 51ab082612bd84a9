package fieldpath

import "testing"

func TestPaths(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Key("", "hooks"), "hooks"},
		{Key("hooks", "BeforeTool"), "hooks.BeforeTool"},
		{Index(Key("hooks", "BeforeTool"), 0), "hooks.BeforeTool[0]"},
		{Key("programs", "a b"), `programs["a b"]`},
		{Key("", ""), `[""]`},
		{Key(Index("rule", 3), "notFlags"), "rule[3].notFlags"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
