package config

import (
	"encoding/json"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

// TestTOMLPositions places values in awkward TOML: strings holding brackets,
// keys and comments; quoted and dotted keys; multi-line inline tables (TOML
// 1.1); nested arrays of tables; a super-table defined after its sub-tables.
func TestTOMLPositions(t *testing.T) {
	src := `# [[hooks.BeforeTool]] in a comment
"$schema" = """
[[hooks.BeforeTool]]
matcher = "x" """
atoms = [{ stdlib = "p", with = { other = '''it's [not] a "table"''''', literal = 'C:\path' } }]
# a comment [[hooks.X]]

[[ hooks . "BeforeTool" ]] # spaces and a quoted key
matcher = "^a$"
hooks = [
  { command = "one", timeoutMs = 10 },  # comment [x]
  {
    command = "two ] }",
    onError = "deny",
  },
]

[[hooks.BeforeTool]]
hooks.0 = 1

[hooks]
AfterTurn = [{ hooks = [{ command = "t" }] }]

[[hooks.AfterTool]]
  [[hooks.AfterTool.hooks]]
  command = "a"
  [[hooks.AfterTool.hooks]]
  "command" = "b"
  timeoutMs = 1_000
`
	es := parseErrors(t, "a.toml", src, TierUser)
	// hooks.0 = 1 makes the second BeforeTool group's hooks a table, placed
	// at the dotted key's first segment.
	equal(t, []string{"19:1 wrong_type hooks.BeforeTool[1].hooks"}, brief(es))

	src2 := replaceOnce(src, "hooks.0 = 1", "hooks = []")
	f, err := Parse("a.toml", []byte(src2), TierUser)
	noErr(t, err)
	bt := f.Hooks[events.BeforeTool]
	equal(t, Pos{"a.toml", 8, 1}, bt[0].Pos)
	equal(t, "^a$", bt[0].Matcher)
	equal(t, []Hook{
		{Command: "one", TimeoutMs: 10, Pos: Pos{"a.toml", 11, 3}},
		{Command: "two ] }", OnError: OnErrorDeny, Pos: Pos{"a.toml", 12, 3}},
	}, bt[0].Hooks)
	equal(t, Pos{"a.toml", 18, 1}, bt[1].Pos)
	equal(t, []Hook{{Command: "t", Pos: Pos{"a.toml", 22, 25}}}, f.Hooks[events.AfterTurn][0].Hooks)
	at := f.Hooks[events.AfterTool][0]
	equal(t, Pos{"a.toml", 24, 1}, at.Pos)
	equal(t, []Hook{
		{Command: "a", Pos: Pos{"a.toml", 25, 3}},
		{Command: "b", TimeoutMs: 1000, Pos: Pos{"a.toml", 27, 3}},
	}, at.Hooks)

	// A problem deep in the multi-line inline table is placed exactly.
	src3 := replaceOnce(src2, `onError = "deny"`, `onError = "no"`)
	es = parseErrors(t, "a.toml", src3, TierUser)
	equal(t, []string{"14:15 bad_on_error hooks.BeforeTool[0].hooks[1].onError"}, brief(es))
	// And one in the last array-of-tables entry, after a quoted key.
	src4 := replaceOnce(src2, `timeoutMs = 1_000`, `timeoutMs = 0`)
	es = parseErrors(t, "a.toml", src4, TierUser)
	equal(t, []string{"29:15 bad_timeout hooks.AfterTool[0].hooks[1].timeoutMs"}, brief(es))
}

func replaceOnce(s, old, new string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + new + s[i+len(old):]
		}
	}
	panic("replaceOnce: " + old + " not found")
}

func TestTOMLEscapedKeys(t *testing.T) {
	src := "[hooks]\n\"Before\\u0054ool\" = [{ hooks = [{ command = \"x\", \"time\\x6Fut\" = 1 }] }]\n"
	es := parseErrors(t, "a.toml", src, TierUser)
	// The escaped event name decodes to BeforeTool; the escaped key is
	// unknown, and placed exactly although spelled with escapes.
	equal(t, []string{"2:50 unknown_key hooks.BeforeTool[0].hooks[0].timeout"}, brief(es))
}

func TestTOMLWithValues(t *testing.T) {
	src := `atoms = [{ stdlib = "p", with = { i = 7, f = 0.25, big = 1e300, hex = 0xff, s = "x", b = false, l = [1, "a"], t = { k = 2 } } }]`
	f, err := Parse("/etc/a.toml", []byte(src), TierUser)
	noErr(t, err)
	equal(t, map[string]any{
		"i": json.Number("7"), "f": json.Number("0.25"), "big": json.Number("1e+300"),
		"hex": json.Number("255"), "s": "x", "b": false,
		"l": []any{json.Number("1"), "a"}, "t": map[string]any{"k": json.Number("2")},
	}, f.Atoms[0].With)
}

func TestAtomPaths(t *testing.T) {
	src := `{"atoms": ["a.lua", "dir/", "./x/../b.lua", "/abs//c.lua", {"path": "../d.lua"}]}`
	f, err := Parse("/etc/monad/agents.json", []byte(src), TierUser)
	noErr(t, err)
	var got []string
	for _, a := range f.Atoms {
		got = append(got, a.Path)
	}
	equal(t, []string{"/etc/monad/a.lua", "/etc/monad/dir", "/etc/monad/b.lua", "/abs/c.lua", "/etc/d.lua"}, got)

	// A relative config path gives relative atom paths: nothing reads the
	// working directory.
	f, err = Parse("conf/agents.json", []byte(src), TierUser)
	noErr(t, err)
	equal(t, "conf/a.lua", f.Atoms[0].Path)
}
