package events

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestObjectMembersIsUnmarshal: the members objectMembers splits out of
// valid objects are those json.Unmarshal decodes into a map of RawMessage.
func TestObjectMembersIsUnmarshal(t *testing.T) {
	for _, doc := range []string{
		`{}`, ` { } `, `{"a":1}`, "{ \"a\" :\t1 ,\n\"b\": [1, {\"c\": \"]}\"}] , \"d\":\"x\\\"y\" }",
		`{"a":null,"b":true,"c":false,"d":-1.5e3,"e":"","f":{},"g":[]}`,
		`{"a":1,"a":2}`, `{"a":{"b":{"c":[[],[{}]]}},"z":"\\"}`, `{"é":"ü","k":"\u00e9"}`,
		`{"event":"BeforeTool","toolInput":{"command":"rm -rf / # \"x\" {y} [z]"}}`,
	} {
		b := bytes.TrimSpace([]byte(doc))
		require.True(t, json.Valid(b), doc)
		got, ok := objectMembers(b)
		require.True(t, ok, doc)
		var want map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &want))
		require.Equal(t, len(want), len(got), doc)
		for k, v := range want {
			require.Equal(t, string(v), string(got[k]), "%s: %s", doc, k)
		}
	}
	// a key with an escape or invalid UTF-8 is left to Unmarshal
	for _, doc := range []string{`{"a\"b":1}`, `{"a\u0062":1}`, "{\"\xff\":1}"} {
		_, ok := objectMembers([]byte(doc))
		require.False(t, ok, doc)
	}
}

// FuzzObjectMembers: on any valid object, objectMembers agrees with
// json.Unmarshal.
func FuzzObjectMembers(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":[1,{"b":"}"}],"c":"\\"}`, `{"event":"BeforeTool","toolInput":{"command":"ls"}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		b := []byte(doc)
		b = bytes.TrimSpace(b)
		if len(b) == 0 || b[0] != '{' || !json.Valid(b) {
			return
		}
		var want map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &want))
		got, ok := objectMembers(b)
		if !ok {
			return
		}
		require.Equal(t, len(want), len(got))
		for k, v := range want {
			require.Equal(t, string(v), string(got[k]), k)
		}
	})
}

// sameAsDecoder checks that DecodeValue's hand parse of raw, when it
// takes one, is what the Decoder makes of it.
func sameAsDecoder(t *testing.T, raw []byte) {
	if !json.Valid(raw) {
		return
	}
	got, end, ok := parseValue(raw, skipSpace(raw, 0), 0)
	if !ok {
		return
	}
	require.Equal(t, len(raw), skipSpace(raw, end), "%q", raw)
	want, err := decodeValue(raw)
	require.NoError(t, err)
	require.Equal(t, want, got, "%q", raw)
}

// TestParseValueIsDecoder: the values parseValue reads out of valid JSON
// are those a Decoder with UseNumber decodes.
func TestParseValueIsDecoder(t *testing.T) {
	for _, doc := range []string{
		`1`, ` -1.5e+300 `, `"a"`, `"a\"b\u00e9\n"`, "\"\xff\"", `true`, `false`, `null`, `[]`, `{}`, ` [ 1 , "x" , [ ] , { } ] `,
		`{"a":{"b":[1,{"c":null}]},"a":2,"d":"}]"}`, `{"command":"rm -rf / # \"x\""}`, `[[[[[]]]]]`, `12345678901234567890`,
	} {
		sameAsDecoder(t, []byte(doc))
		_, _, ok := parseValue([]byte(doc), skipSpace([]byte(doc), 0), 0)
		require.True(t, ok, doc)
	}
	// too deep, or a key with an escape: the Decoder decides
	deep := []byte(strings.Repeat("[", MaxDepth+3) + strings.Repeat("]", MaxDepth+3))
	_, _, ok := parseValue(deep, 0, 0)
	require.False(t, ok)
	_, err := DecodeValue(deep)
	require.ErrorContains(t, err, "deeper")
	_, _, ok = parseValue([]byte(`{"a\"":1}`), 0, 0)
	require.False(t, ok)
	v, err := DecodeValue([]byte(`{"a\"":1}`))
	require.NoError(t, err)
	require.Equal(t, map[string]any{`a"`: json.Number("1")}, v)
}

// FuzzParseValue: on any valid JSON, parseValue agrees with the Decoder.
func FuzzParseValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"}"}],"c":"\\"}`, `[1, 2.5e3, "x", null, true]`, `{"command":"ls"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		sameAsDecoder(t, []byte(doc))
	})
}

// TestDecodeObjectIsUnmarshal: DecodeObject gives the members json.Unmarshal
// decodes into a map of RawMessage, in bytes of its own; what is not an
// object is DecodeInput's error (hosts.Decode refuses a payload with it).
func TestDecodeObjectIsUnmarshal(t *testing.T) {
	for _, doc := range []string{
		`{}`, " {\"a\" : 1 }\n", `{"a":1,"a":2}`, `{"a\"b":[1,{"c":"}"}],"k":"\u00e9"}`, "{\"\xff\":\"\xfe\"}",
		`{"event":"BeforeTool","toolInput":{"command":"ls"}}`,
	} {
		b := []byte(doc)
		got, err := DecodeObject(b)
		require.NoError(t, err, doc)
		var want map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &want))
		require.Equal(t, want, got, doc)
		for i := range b {
			b[i] = 'x' // the members are copies
		}
		require.Equal(t, want, got, doc)
	}
	for _, doc := range []string{``, ` `, `null`, `[]`, `"x"`, `1`, `{`, `{"a":1}{}`, `{"a":1} x`, `{"a":}`} {
		_, err := DecodeObject([]byte(doc))
		require.Error(t, err, doc)
		_, derr := DecodeInput([]byte(doc))
		require.Equal(t, derr.Error(), err.Error(), doc)
	}
}
