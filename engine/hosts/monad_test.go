package hosts

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
)

// TestMonadDecodeSkipsReencoding: a monad payload that names its event as a
// plain string is decoded as it is, and gives what the payload re-encoded
// with its event escaped (the slow path) gives, error or not.
func TestMonadDecodeSkipsReencoding(t *testing.T) {
	payloads := []string{
		`{"event":"BeforeTool","sessionId":"s1","cwd":"/w","toolName":"bash","toolInput":{"command":"ls -l <a> & b"}}`,
		"  {\"event\" : \"BeforeTool\", \"toolName\":\"bash\",\n \"toolInput\": { \"command\" : \"x\\u2028y\u2028\", \"n\": 1.50e3 , \"l\":[1, {\"a\":null}] } }\n",
		`{"event":"BeforeTool","toolName":"bash","toolName":"Bash","toolInput":{"command":"dup"}}`,
		`{"event":"BeforeTool","toolName":"b\u0061sh","t\u006folInput":{"command":"esc"},"toolInput":{"command":"x"}}`,
		"{\"event\":\"BeforeTool\",\"toolName\":\"bash\",\"toolInput\":{\"command\":\"\xff\xfe bad utf-8\"}}",
		`{"event":"BeforeTool","toolName":7,"toolInput":{"command":"x"}}`,
		`{"event":"BeforeTool","toolName":"bash","toolInput":"not an object"}`,
		`{"event":"BeforeTool","sessionId":"s","cost":1e400}`,
		`{"event":"AfterTool","toolName":"bash","toolInput":{"command":"x"},"toolResult":"out","ok":true,"caller":{"kind":"subagent","agentName":"a"}}`,
		`{"event":"BeforeTurn","prompt":"hello","usage":{"tokens":12}}`,
		`{"event":"BeforeCompact","compaction":{"trigger":"auto","tokens":1.5}}`,
	}
	h, _ := Lookup("monad")
	for _, p := range payloads {
		c := h.Decode([]byte(p), events.Invalid)
		require.NotNil(t, c.Raw, p)
		fast, fastErr := c.Input, c.Err
		before := reencodes.Load()
		slow := cloneRaw(c.Raw)
		name := c.Event.Monad.String()
		slow["event"] = []byte(`"\u00` + hex2(name[0]) + name[1:] + `"`)
		in, err := h.input(&c.Event, slow, nil)
		assert.Equal(t, before+1, reencodes.Load(), "the escaped event takes the slow path: %s", p)
		if err != nil {
			require.Error(t, fastErr, p)
			assert.Equal(t, "invalid input: "+err.Error(), fastErr.Error(), p)
			continue
		}
		require.NoError(t, fastErr, p)
		assert.Equal(t, in, fast, p)
	}
	before := reencodes.Load()
	c := h.Decode([]byte(payloads[0]), events.BeforeTool)
	require.Equal(t, Decoded, c.Status)
	assert.Equal(t, before, reencodes.Load(), "a plain event name is not re-encoded")
	assert.Equal(t, "ls -l <a> & b", c.Input.ToolInput.(map[string]any)["command"])
}

func cloneRaw(m map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = bytes.Clone(v)
	}
	return out
}

func hex2(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&15]})
}

// TestHostsBuiltOnLookup: the package builds no host as it initialises, and
// a lookup builds the host it returns alone (a run looks up one:
// BenchmarkCLIRunNoStdlib); every host's Name is its name in the table.
func TestHostsBuiltOnLookup(t *testing.T) {
	// No other test of the package runs in parallel with this one.
	built := hostsBuilt.Load()
	require.LessOrEqual(t, built, int64(len(table)))
	var fresh lazyHost = lazyHost{name: table[4].name, build: table[4].build}
	before := hostsBuilt.Load()
	h := fresh.host()
	assert.Equal(t, before+1, hostsBuilt.Load())
	fresh.host()
	assert.Equal(t, before+1, hostsBuilt.Load(), "built once")
	assert.Equal(t, "cursor", h.Name)
	for i := range table {
		assert.Equal(t, table[i].name, table[i].host().Name)
	}
}
