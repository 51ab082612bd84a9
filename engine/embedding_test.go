package engine_test

import (
	"os"
	"testing"

	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// TestGlobalLuaSettingIsDocumented: linking the engine lowers gopher-lua's
// process-global MaxArrayIndex, and the embedding documentation says so.
func TestGlobalLuaSettingIsDocumented(t *testing.T) {
	require.Equal(t, luaapi.MaxArrayIndex, lua.MaxArrayIndex)
	for _, f := range []string{"doc.go", "../README.md"} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.Contains(t, string(b), "lua.MaxArrayIndex", f)
		require.Contains(t, string(b), "1 Mi", f)
	}
}
