package spec_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/spec"
)

// TestDecodeUnknownKeys: an unknown key of a case file is reported at its
// file:line:col with a did-you-mean, every one of them, in document order;
// keys inside free-form values (input, args, files) are not checked
// (issue 14.2).
func TestDecodeUnknownKeys(t *testing.T) {
	_, err := spec.Decode("tests/mine.toml", []byte(`[[case]]
name = "ok"
event = "BeforeTool"
input = { toolName = "bash", anything = { goes = 1 } }
  [case.want]
  decison = "deny"
  audit = [{ hok = "x" }]
[[case]]
nam = "y"
  [[case.hook]]
  lua = "x"
  tier = "user"
  zzz = 1
`))
	require.Error(t, err)
	assert.Equal(t, `tests/mine.toml:6:3: unknown key "decison" in [case.want] (did you mean "decision"?)
tests/mine.toml:7:14: unknown key "hok" in [case.want.audit] (did you mean "hook"?)
tests/mine.toml:9:1: unknown key "nam" in [case] (did you mean "name"?)
tests/mine.toml:13:3: unknown key "zzz" in [case.hook]; want one of tier, event, matcher, onError, timeoutMs, kind, go, args, lua, command, persistent`, err.Error())

	_, err = spec.Decode("t.toml", []byte("[[case]]\nname = \"a\"\n\n[[case]]\nevent = \"BeforeTool\"\n"))
	assert.EqualError(t, err, "t.toml:4:1: case #2 has no name")
	_, err = spec.Decode("t.toml", []byte("[[case]]\nname = = 1\n"))
	assert.ErrorContains(t, err, "t.toml:2:8: ")
}
