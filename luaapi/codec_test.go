package luaapi

import (
	"context"
	"hash/crc32"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/stdlib"
	"github.com/stretchr/testify/require"
)

// codecSources are scripts to encode: the stdlib's packs and libraries
// (the largest scripts the project has) and a few small ones.
func codecSources(t *testing.T) map[string][]byte {
	srcs := map[string][]byte{
		"empty.lua":  nil,
		"consts.lua": []byte(`local a, b, c = 1.5, -0.0, 2^60 + 1; g = "x"; hook{ event = "BeforeTool", handler = function(i) return { reason = tostring(a + b + c) .. g } end }`),
	}
	for _, p := range stdlib.Packs() {
		src, err := fs.ReadFile(stdlib.FS(), p.Script)
		require.NoError(t, err)
		srcs["stdlib/"+p.Name] = src
	}
	for name, src := range stdlib.Libraries() {
		srcs[name] = src
	}
	return srcs
}

// TestDecodedScriptsEqualCompiled: decoding what MarshalBinary encoded
// gives the compiler's protos, every field (unexported ones included)
// equal, and encoding is deterministic.
func TestDecodedScriptsEqualCompiled(t *testing.T) {
	for name, src := range codecSources(t) {
		s, err := Compile(name, src)
		require.NoError(t, err, name)
		data, err := s.MarshalBinary()
		require.NoError(t, err, name)
		again, err := s.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, data, again, "%s: encoding is deterministic", name)
		d, err := DecodeScript(string(data))
		require.NoError(t, err, name)
		require.Equal(t, name, d.Name())
		require.True(t, reflect.DeepEqual(s.proto, d.proto), "%s: the decoded proto differs from the compiled one", name)
	}
}

// TestDecodedScriptRuns: a decoded script loads and runs as the compiled
// one (globals, string constants, numbers, errors with their line).
func TestDecodedScriptRuns(t *testing.T) {
	src := []byte(`
local n = 2^53 + 2
g = "glob"
hook{ event = "BeforeTool", handler = function(i)
  if i.toolName == "boom" then error("boom here") end
  return { reason = g .. " " .. string.format("%.0f", n) .. " " .. i.toolName }
end }`)
	s, err := Compile("run.lua", src)
	require.NoError(t, err)
	data, err := s.MarshalBinary()
	require.NoError(t, err)
	d, err := DecodeScript(string(data))
	require.NoError(t, err)
	p, err := NewPool(context.Background(), []Source{{Script: d}}, Options{PoolSize: 1, DefaultTimeout: MaxTimeout}) // far above a call's cost
	require.NoError(t, err)
	defer p.Close()
	out, err := p.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: "bash"})
	require.NoError(t, err)
	require.Equal(t, "glob 9007199254740994 bash", out.Reason)
	_, err = p.Call(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: "boom"})
	var he *HookError
	require.ErrorAs(t, err, &he)
	require.Equal(t, 4, he.Line) // the hook{} line; the message has the error's
	require.Contains(t, he.Msg, "run.lua:5: boom here")
}

// TestDecodeScriptRefusesDamage: bytes that MarshalBinary did not make are
// an error, never a panic or a proto.
func TestDecodeScriptRefusesDamage(t *testing.T) {
	s, err := Compile("d.lua", []byte(`hook{ event = "BeforeTool", handler = function(i) return { reason = "x" } end }`))
	require.NoError(t, err)
	data, err := s.MarshalBinary()
	require.NoError(t, err)
	good := string(data)
	for name, bad := range map[string]string{
		"empty":     "",
		"magic":     "MHLC\x02" + good[5:],
		"truncated": good[:len(good)/2],
		"flipped":   good[:len(good)/2] + string(good[len(good)/2]^1) + good[len(good)/2+1:],
		"appended":  good + "x",
	} {
		d, err := DecodeScript(bad)
		require.Error(t, err, name)
		require.Nil(t, d, name)
	}
	// A body that is malformed under a valid checksum (as a program with
	// a bug would write it) is refused by the shape checks.
	for cut := len(codecMagic); cut < len(good)-4; cut += 7 {
		body := good[:cut]
		d, err := DecodeScript(withChecksum(body))
		require.Error(t, err)
		require.Nil(t, d)
		require.True(t, strings.Contains(err.Error(), "malformed") || strings.Contains(err.Error(), "not an encoded"), err.Error())
	}
}

func withChecksum(body string) string {
	b := []byte(body)
	sum := crc32Of(b)
	return string(append(b, byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24)))
}

// BenchmarkDecodeScript decodes the largest stdlib pack, against
// compiling it (BenchmarkCompileScript): the start-up of monad-hooks run.
func BenchmarkDecodeScript(b *testing.B) {
	src, err := fs.ReadFile(stdlib.FS(), "deny-destructive.lua")
	require.NoError(b, err)
	s, err := Compile("stdlib/deny-destructive", src)
	require.NoError(b, err)
	data, err := s.MarshalBinary()
	require.NoError(b, err)
	str := string(data)
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := DecodeScript(str); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileScript compiles the largest stdlib pack.
func BenchmarkCompileScript(b *testing.B) {
	src, err := fs.ReadFile(stdlib.FS(), "deny-destructive.lua")
	require.NoError(b, err)
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Compile("stdlib/deny-destructive", src); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCRCStringIsChecksumIEEE: crcString, block by block, is the checksum
// of the whole string, for sizes around its block.
func TestCRCStringIsChecksumIEEE(t *testing.T) {
	for _, n := range []int{0, 1, 4<<10 - 1, 4 << 10, 4<<10 + 1, 3*4<<10 + 17} {
		s := strings.Repeat("monad-hooks\x00\xff", n/13+1)[:n]
		require.Equal(t, crc32.ChecksumIEEE([]byte(s)), crcString(s), n)
	}
}
