package engine_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/fstest"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/stretchr/testify/require"
)

// TestIdentityHookIsBitIdentical: a Lua hook that returns its tool input
// unchanged gives the Result the input's numbers as they were written.
func TestIdentityHookIsBitIdentical(t *testing.T) {
	ctx := context.Background()
	scripts := fstest.MapFS{"h/echo.lua": {Data: []byte(
		`hook{ event = "BeforeTool", handler = function(input) return { mutatedToolInput = input.toolInput } end }`)}}
	eng, err := engine.New(ctx, testLuaPool, engine.WithFiles(engine.Files{LuaFS: []engine.ScriptFS{{FS: scripts, Dir: "h"}}}))
	require.NoError(t, err)
	defer eng.Close()
	const tool = `{"big":12345678901234567890,"odd":9007199254740993,"one":1.0,"list":[1.50,2E3]}`
	in, err := events.DecodeInput([]byte(`{"event":"BeforeTool","toolName":"x","toolInput":` + tool + `}`))
	require.NoError(t, err)
	res, err := eng.Dispatch(ctx, in)
	require.NoError(t, err)
	got, err := json.Marshal(res.MutatedToolInput)
	require.NoError(t, err)
	require.Equal(t, `{"big":12345678901234567890,"list":[1.50,2E3],"odd":9007199254740993,"one":1.0}`, string(got))

	_, err = events.DecodeInput([]byte(`{"event":"BeforeTool","toolInput":{"n":1e400}}`))
	require.ErrorContains(t, err, "field toolInput: number 1e400 is out of the range of a 64-bit float")
}
