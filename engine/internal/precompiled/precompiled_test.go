package precompiled

import (
	"context"
	"hash/crc32"
	"testing"

	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/stretchr/testify/require"
)

// TestServesOnlyItsSource: a script is served for exactly the source it
// was compiled from, and equals what Compile makes of it. (The engine's
// TestPrecompiledUpToDate checks that stdlib.luac holds its scripts.)
func TestServesOnlyItsSource(t *testing.T) {
	srcs := map[string][]byte{
		"a.lua": []byte(`hook{ event = "BeforeTool", handler = function(i) return { reason = "a" } end }`),
		"lib.x": []byte(`return { n = 1.5, s = "x" }`),
	}
	pool := newPool(t, "a.lua", srcs["a.lua"])
	rec, err := pool.Record(0)
	require.NoError(t, err)
	recData, err := rec.MarshalBinary()
	require.NoError(t, err)
	data, err := Build("v0.0.0-test", srcs, map[string][]byte{"lib.x": []byte("made from this")}, map[string][]byte{"a.lua": recData})
	require.NoError(t, err)
	idx, err := parse(string(data))
	require.NoError(t, err)
	require.Equal(t, "v0.0.0-test", idx.luaVersion)
	for name, src := range srcs {
		key := src
		if name == "lib.x" {
			require.Nil(t, lookup(idx, name, src), "an entry with a key is served for its key")
			key = []byte("made from this")
		}
		s := lookup(idx, name, key)
		require.NotNil(t, s, name)
		c, err := luaapi.Compile(name, src)
		require.NoError(t, err)
		a, err := s.MarshalBinary()
		require.NoError(t, err)
		b, err := c.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, b, a, name)

		changed := append([]byte(nil), key...)
		changed[len(changed)/2] ^= 1
		require.Nil(t, lookup(idx, name, changed), "%s: changed source", name)
		require.Nil(t, lookup(idx, name, append(key, '\n')), "%s: longer source", name)
		r := recordIn(idx, name, len(key), crc32.ChecksumIEEE(key))
		if name != "a.lua" {
			require.Nil(t, r, "%s has no Record", name)
			continue
		}
		require.NotNil(t, r, "the Record of %s", name)
		got, err := r.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, string(recData), string(got))
		require.Nil(t, recordIn(idx, name, len(changed), crc32.ChecksumIEEE(changed)), "%s: the Record of a changed source", name)
	}
	require.Nil(t, lookup(idx, "no-such-script", nil))
	_, err = parse(string(data[:len(data)-3]))
	require.Error(t, err)
}

// newPool loads the script src called name in a pool.
func newPool(t *testing.T, name string, src []byte) *luaapi.Pool {
	s, err := luaapi.Compile(name, src)
	require.NoError(t, err)
	p, err := luaapi.NewPool(context.Background(), []luaapi.Source{{Script: s}}, luaapi.Options{PoolSize: 1, OnDemand: true})
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	return p
}
