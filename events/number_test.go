package events

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNumbersOutOfFloatRange: a number no float64 can hold is an error at
// decode, naming the field and the number, wherever it is nested; numbers
// that only lose precision keep their text.
func TestNumbersOutOfFloatRange(t *testing.T) {
	for _, doc := range []string{
		`{"event":"BeforeTool","toolInput":{"n":1e400}}`,
		`{"event":"BeforeTool","toolInput":{"a":[1,{"b":-1e400}]}}`,
		`{"event":"AfterTool","toolResult":1.8e308}`,
	} {
		_, err := DecodeInput([]byte(doc))
		var fe *FieldError
		require.True(t, errors.As(err, &fe), "%s: %v", doc, err)
		require.Contains(t, fe.Error(), "out of the range of a 64-bit float", doc)
		require.Regexp(t, `^field (toolInput|toolResult): number -?1\.?8?e[34]0?8?`, fe.Error(), doc)
	}
	_, err := DecodeOutput([]byte(`{"mutatedToolInput":{"n":1e999}}`))
	require.ErrorContains(t, err, "field mutatedToolInput: number 1e999 is out of the range of a 64-bit float")
	_, err = DecodeValue([]byte(`[1e400]`))
	require.Error(t, err)
	require.Error(t, (&Input{Event: BeforeTool, ToolInput: map[string]any{"n": json.Number("1e400")}}).Validate())
	require.Error(t, (&Input{Event: BeforeTool, ToolInput: map[string]any{"n": json.Number("x")}}).Validate())

	in, err := DecodeInput([]byte(`{"event":"BeforeTool","toolInput":{"big":12345678901234567890,"tiny":1e-400,"odd":9007199254740993}}`))
	require.NoError(t, err)
	require.Equal(t, map[string]any{"big": json.Number("12345678901234567890"), "tiny": json.Number("1e-400"), "odd": json.Number("9007199254740993")}, in.ToolInput)
}
