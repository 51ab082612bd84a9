package engine_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// encodeReflect is what AppendJSON must give: a json.Encoder without HTML
// escaping, its newline cut.
func encodeReflect(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}

// strs are strings that exercise every escape of a JSON string.
var strs = []string{"", "plain", `q"uote\back`, "<a href='x'>&amp;</a>", "ctl\x00\x01\x1f\x7f\b\f\n\r\t",
	"utf-8 é ✓ 😀", "bad \xff\xfe utf-8 \xe2\x82", "sep\u2028line\u2029para", "deny-destructive: rm -rf /"}

// fill sets v (a settable value) to random content drawn from strs, so
// that every exported field of Result and Record, present or future, is
// sometimes empty and sometimes not.
func fill(rng *rand.Rand, v reflect.Value) {
	switch v.Type() {
	case reflect.TypeFor[events.Event]():
		v.Set(reflect.ValueOf(events.All()[rng.Intn(len(events.All()))]))
		return
	case reflect.TypeFor[engine.Tier]():
		v.SetUint(uint64(rng.Intn(4)))
		return
	}
	if rng.Intn(3) == 0 && v.Kind() != reflect.Struct {
		return // the zero value: omitted where omitempty
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(strs[rng.Intn(len(strs))])
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float64:
		v.SetFloat([]float64{0, 0.022967, 1e-7, 3.5e-9, 12345.678, 1e21, 2.5e22, -0.5, 1e20, 123456789}[rng.Intn(10)])
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(rng, p.Elem())
		v.Set(p)
	case reflect.Slice:
		n := rng.Intn(3) // 0: an empty, non-nil slice
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(rng, s.Index(i))
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(rng, v.Field(i))
			}
		}
	case reflect.Interface:
		v.Set(reflect.ValueOf([]any{
			map[string]any{"command": strs[rng.Intn(len(strs))], "n": json.Number("1.50e3"), "l": []any{1.5, nil, true}},
			strs[rng.Intn(len(strs))], 42.0, []any{}, map[string]any{}, (*string)(nil),
		}[rng.Intn(6)]))
	default:
		panic("fill: no case for " + v.Type().String())
	}
}

// TestResultAppendJSON: AppendJSON writes what encoding/json writes, on
// random Results that fill every field.
func TestResultAppendJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	for i := range 3000 {
		var r engine.Result
		fill(rng, reflect.ValueOf(&r).Elem())
		want, err := encodeReflect(r)
		require.NoError(t, err, "round %d", i)
		got, err := r.AppendJSON([]byte("prefix"))
		require.NoError(t, err, "round %d", i)
		require.Equal(t, string(want), string(bytes.TrimPrefix(got, []byte("prefix"))), "round %d", i)
	}
}

// TestResultAppendJSONErrors: AppendJSON fails where encoding/json does.
func TestResultAppendJSONErrors(t *testing.T) {
	for name, r := range map[string]engine.Result{
		"invalid event":        {},
		"invalid record event": {Event: events.BeforeTool, Audit: []engine.Record{{}}},
		"NaN latency":          {Event: events.BeforeTool, Audit: []engine.Record{{Event: events.BeforeTool, LatencyMs: math.NaN()}}},
		"infinite latency":     {Event: events.BeforeTool, Audit: []engine.Record{{Event: events.BeforeTool, LatencyMs: math.Inf(-1)}}},
		"channel payload":      {Event: events.BeforeTool, MutatedToolInput: make(chan int)},
	} {
		_, wantErr := encodeReflect(r)
		require.Error(t, wantErr, name)
		_, err := r.AppendJSON(nil)
		assert.Error(t, err, name)
	}
}
