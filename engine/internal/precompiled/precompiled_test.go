package precompiled

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/stretchr/testify/require"
)

// TestUpToDate: stdlib.luac is what go generate writes now, for the
// gopher-lua version go.mod requires.
func TestUpToDate(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", luaModule).Output()
	require.NoError(t, err)
	want, err := Build(strings.TrimSpace(string(out)))
	require.NoError(t, err)
	require.True(t, string(want) == file, "stdlib.luac is stale (a pack, a library, luaapi's compiler or gopher-lua changed): run go generate ./engine/...")
}

// TestServesOnlyItsSource: a script is served for exactly the source it
// was compiled from, and equals what Compile makes of it.
func TestServesOnlyItsSource(t *testing.T) {
	srcs, err := Sources()
	require.NoError(t, err)
	require.NotEmpty(t, srcs)
	for name, src := range srcs {
		s := Script(name, src)
		require.NotNil(t, s, name)
		c, err := luaapi.Compile(name, src)
		require.NoError(t, err)
		a, err := s.MarshalBinary()
		require.NoError(t, err)
		b, err := c.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, b, a, name)

		changed := append([]byte(nil), src...)
		changed[len(changed)/2] ^= 1
		require.Nil(t, Script(name, changed), "%s: changed source", name)
		require.Nil(t, Script(name, append(src, '\n')), "%s: longer source", name)
	}
	require.Nil(t, Script("stdlib/no-such-pack", nil))
}
