package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// DecodeInput decodes and validates one HookInput JSON object. Keys are matched
// exactly (case-sensitive); unknown keys are ignored; a value of the wrong
// type, an unknown or missing event, or anything [Input.Validate] rejects is
// an error (a *[FieldError] when one field is at fault). Numbers in free-form
// payloads are kept as json.Number so they round-trip exactly; a number out
// of the range of a float64 (1e400) is an error.
func DecodeInput(b []byte) (Input, error) {
	var in Input
	obj, err := decodeObject(b)
	if err != nil {
		return in, err
	}
	raw, ok := obj["event"]
	if !ok || isNull(raw) {
		return in, &FieldError{Field: "event", Msg: "missing event"}
	}
	name, ok := plainString(raw)
	if !ok && json.Unmarshal(raw, &name) != nil {
		return in, &FieldError{Field: "event", Msg: "want a string, got " + rawKind(raw)}
	}
	if in.Event, err = ParseEvent(name); err != nil {
		return in, &FieldError{Field: "event", Msg: err.Error()}
	}
	d := fieldDecoder{obj: obj}
	d.str("sessionId", &in.SessionID)
	d.str("cwd", &in.Cwd)
	d.str("timestamp", &in.Timestamp)
	d.str("prompt", &in.Prompt)
	d.str("toolName", &in.ToolName)
	d.value("toolInput", &in.ToolInput)
	d.value("toolResult", &in.ToolResult)
	d.str("toolCallId", &in.ToolCallID)
	if raw, ok := d.get("ok"); ok {
		var v bool
		if d.into("ok", raw, &v, "a boolean") {
			in.OK = &v
		}
	}
	d.str("error", &in.Error)
	d.str("reason", &in.Reason)
	d.value("usage", &in.Usage)
	if raw, ok := d.get("cost"); ok {
		var v float64
		if d.into("cost", raw, &v, "a number") {
			in.Cost = &v
		}
	}
	if raw, ok := d.get("caller"); ok {
		sub := d.object("caller", raw)
		if sub != nil {
			in.Caller = &Caller{}
			sd := fieldDecoder{obj: sub, prefix: "caller."}
			if _, ok := sub["kind"]; !ok && d.err == nil {
				d.err = &FieldError{Field: "caller.kind", Msg: "missing kind"}
			}
			sd.str("kind", &in.Caller.Kind)
			sd.str("agentName", &in.Caller.AgentName)
			d.adopt(sd.err)
		}
	}
	d.value("request", &in.Request)
	d.str("response", &in.Response)
	if raw, ok := d.get("compaction"); ok {
		sub := d.object("compaction", raw)
		if sub != nil {
			in.Compaction = &Compaction{}
			sd := fieldDecoder{obj: sub, prefix: "compaction."}
			sd.str("trigger", &in.Compaction.Trigger)
			if raw, ok := sd.get("tokens"); ok {
				sd.integer("tokens", raw, &in.Compaction.Tokens)
			}
			d.adopt(sd.err)
		}
	}
	d.str("subagentName", &in.SubagentName)
	d.str("subagentResult", &in.SubagentResult)
	if raw, ok := d.get("stopContinues"); ok {
		var n int64
		d.integer("stopContinues", raw, &n)
		in.StopContinues = int(n)
	}
	if d.err != nil {
		return in, d.err
	}
	return in, in.Validate()
}

// DecodeOutput decodes and validates one HookOutput JSON object, the stdout of
// a command hook. Keys are matched exactly; unknown keys are ignored; null is
// the same as an absent key; a value of the wrong type, an unknown decision
// or a mutatedToolInput that is not an object is an error (a *[FieldError]
// when one field is at fault). Anything but a single JSON object is an error.
func DecodeOutput(b []byte) (Output, error) {
	var o Output
	obj, err := decodeObject(b)
	if err != nil {
		return o, err
	}
	d := fieldDecoder{obj: obj}
	var dec string
	d.str("decision", &dec)
	if raw, ok := d.get("decision"); ok && dec == "" && d.err == nil {
		d.fail("decision", "allow, deny or ask", raw)
	}
	o.Decision = Decision(dec)
	d.str("reason", &o.Reason)
	d.str("additionalContext", &o.AdditionalContext)
	if raw, ok := d.get("mutatedPrompt"); ok {
		var s string
		if d.into("mutatedPrompt", raw, &s, "a string") {
			o.MutatedPrompt = &s
		}
	}
	d.str("modelOverride", &o.ModelOverride)
	d.value("mutatedToolInput", &o.MutatedToolInput)
	d.value("updatedToolOutput", &o.UpdatedToolOutput)
	d.value("mutatedRequest", &o.MutatedRequest)
	if raw, ok := d.get("mutatedText"); ok {
		var s string
		if d.into("mutatedText", raw, &s, "a string") {
			o.MutatedText = &s
		}
	}
	if raw, ok := d.get("continueWork"); ok {
		sub := d.object("continueWork", raw)
		if sub != nil {
			o.ContinueWork = &ContinueWork{}
			sd := fieldDecoder{obj: sub, prefix: "continueWork."}
			if r, ok := sd.get("reason"); !ok || isNull(r) {
				sd.err = &FieldError{Field: "continueWork.reason", Msg: "missing reason"}
			}
			sd.str("reason", &o.ContinueWork.Reason)
			d.adopt(sd.err)
		}
	}
	if d.err != nil {
		return o, d.err
	}
	return o, o.Validate()
}

// ErrNotObject is returned (wrapped) when a document is valid JSON but not an
// object.
var ErrNotObject = errors.New("not a JSON object")

// DecodeObject splits b, one JSON object, into its members as json.Unmarshal
// into a map[string]json.RawMessage does (each value without the space
// around it, the last of a repeated key wins, its own copy of the bytes),
// without reflection for a valid object: a one-shot process that reads its
// payload with it pages in none of encoding/json's decoder
// (BenchmarkCLIRunNoStdlib). A document that is empty, not valid JSON, more
// than one value or not an object (null included) is the error
// [DecodeInput] gives for it. It is safe for concurrent use.
func DecodeObject(b []byte) (map[string]json.RawMessage, error) {
	return decodeObject(bytes.Clone(b))
}

func decodeObject(b []byte) (map[string]json.RawMessage, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, errors.New("empty document")
	}
	if b[0] != '{' {
		if json.Valid(b) {
			return nil, fmt.Errorf("got %s: %w", rawKind(b), ErrNotObject)
		}
		return nil, fmt.Errorf("invalid JSON: %w", syntaxErr(b))
	}
	// a valid object is split by hand, a Decoder says what is wrong with
	// the rest (BenchmarkDecodeInput, BenchmarkServeLines)
	if json.Valid(b) {
		if obj, ok := objectMembers(b); ok {
			return obj, nil
		}
	}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: more than one value")
	}
	return obj, nil
}

// objectMembers splits a valid JSON object (json.Valid, starting with '{')
// into its members as json.Unmarshal into a map of json.RawMessage does
// (values without the space around them, the last of a repeated key
// wins), except that the values share b's bytes. ok is false for a key
// that is not a plain string (see plainString), which Unmarshal decodes.
func objectMembers(b []byte) (obj map[string]json.RawMessage, ok bool) {
	obj = make(map[string]json.RawMessage, 8)
	i := skipSpace(b, 1)
	if b[i] == '}' {
		return obj, true
	}
	for {
		end := valueEnd(b, i)
		key, ok := plainString(b[i:end])
		if !ok {
			return nil, false
		}
		i = skipSpace(b, skipSpace(b, end)+1) // past ':'
		end = valueEnd(b, i)
		obj[key] = b[i:end:end]
		i = skipSpace(b, end)
		if b[i] == '}' {
			return obj, true
		}
		i = skipSpace(b, i+1) // past ','
	}
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just after the value that starts at i in
// valid JSON.
func valueEnd(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			for i++; b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i // the end of the enclosing object or array
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

func syntaxErr(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	return errors.New("not valid")
}

type fieldDecoder struct {
	obj    map[string]json.RawMessage
	prefix string
	err    error
}

func (d *fieldDecoder) adopt(err error) {
	if d.err == nil && err != nil {
		d.err = err
	}
}

// get returns the raw value of key when present and not null.
func (d *fieldDecoder) get(key string) (json.RawMessage, bool) {
	raw, ok := d.obj[key]
	if !ok || isNull(raw) {
		return nil, false
	}
	return raw, true
}

func (d *fieldDecoder) fail(key, want string, raw json.RawMessage) {
	d.adopt(&FieldError{Field: d.prefix + key, Msg: "want " + want + ", got " + rawKind(raw)})
}

func (d *fieldDecoder) into(key string, raw json.RawMessage, dst any, want string) bool {
	if err := json.Unmarshal(raw, dst); err != nil {
		d.fail(key, want, raw)
		return false
	}
	return true
}

func (d *fieldDecoder) str(key string, dst *string) {
	if raw, ok := d.get(key); ok {
		if s, plain := plainString(raw); plain {
			*dst = s
			return
		}
		d.into(key, raw, dst, "a string")
	}
}

// plainString returns the string a raw JSON value holds when it is a
// string without escapes, control bytes or invalid UTF-8 (what
// json.Unmarshal would return for it, without its reflection:
// BenchmarkDecodeInput); ok is false for anything else, which json.Unmarshal
// then decodes or rejects.
func plainString(raw json.RawMessage) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c < 0x20 || c == '"' || c == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

func (d *fieldDecoder) integer(key string, raw json.RawMessage, dst *int64) {
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f != math.Trunc(f) || f < 0 || f > 1<<53 {
		d.fail(key, "a non-negative integer", raw)
		return
	}
	*dst = int64(f)
}

func (d *fieldDecoder) object(key string, raw json.RawMessage) map[string]json.RawMessage {
	var sub map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &sub) != nil {
		d.fail(key, "an object", raw)
		return nil
	}
	return sub
}

func (d *fieldDecoder) value(key string, dst *any) {
	raw, ok := d.get(key)
	if !ok {
		return
	}
	v, err := DecodeValue(raw)
	if err != nil {
		d.adopt(&FieldError{Field: d.prefix + key, Msg: err.Error()})
		return
	}
	*dst = v
}

// DecodeValue decodes one JSON value into the free-form representation used by
// payload fields: map[string]any, []any, string, json.Number, bool or nil.
// Numbers keep their text; a number out of the range of a float64 (1e400)
// and values nested deeper than [MaxDepth] are errors.
func DecodeValue(raw []byte) (any, error) {
	var v any
	// a valid value is parsed by hand, a Decoder says what is wrong with
	// the rest (BenchmarkDecodeInput, BenchmarkServeLines)
	ok := false
	if json.Valid(raw) {
		var end int
		v, end, ok = parseValue(raw, skipSpace(raw, 0), 0)
		ok = ok && skipSpace(raw, end) == len(raw)
	}
	if !ok {
		var err error
		if v, err = decodeValue(raw); err != nil {
			return nil, err
		}
	}
	if err := checkJSONValue(v, 0); err != nil {
		return nil, err
	}
	return v, nil
}

// decodeValue decodes the first JSON value of raw with a Decoder, numbers
// as json.Number.
func decodeValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// parseValue parses the value at i of valid JSON as decodeValue does
// (objects as map[string]any, the last of a repeated key winning; arrays
// as []any; numbers as json.Number) and returns it with the index after
// it. ok is false beyond MaxDepth+1 levels and for an object key that is
// not a plain string (see plainString): decodeValue decides those.
func parseValue(b []byte, i, depth int) (v any, end int, ok bool) {
	if depth > MaxDepth+1 {
		return nil, 0, false
	}
	switch b[i] {
	case '{':
		m := map[string]any{}
		i = skipSpace(b, i+1)
		if b[i] == '}' {
			return m, i + 1, true
		}
		for {
			kend := valueEnd(b, i)
			key, plain := plainString(b[i:kend])
			if !plain {
				return nil, 0, false
			}
			i = skipSpace(b, skipSpace(b, kend)+1) // past ':'
			if m[key], i, ok = parseValue(b, i, depth+1); !ok {
				return nil, 0, false
			}
			i = skipSpace(b, i)
			if b[i] == '}' {
				return m, i + 1, true
			}
			i = skipSpace(b, i+1) // past ','
		}
	case '[':
		a := []any{}
		i = skipSpace(b, i+1)
		if b[i] == ']' {
			return a, i + 1, true
		}
		for {
			var e any
			if e, i, ok = parseValue(b, i, depth+1); !ok {
				return nil, 0, false
			}
			a = append(a, e)
			i = skipSpace(b, i)
			if b[i] == ']' {
				return a, i + 1, true
			}
			i = skipSpace(b, i+1) // past ','
		}
	case '"':
		end = valueEnd(b, i)
		if s, plain := plainString(b[i:end]); plain {
			return s, end, true
		}
		var s string
		if json.Unmarshal(b[i:end], &s) != nil {
			return nil, 0, false
		}
		return s, end, true
	case 't':
		return true, i + 4, true
	case 'f':
		return false, i + 5, true
	case 'n':
		return nil, i + 4, true
	}
	end = valueEnd(b, i)
	return json.Number(b[i:end]), end, true
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 4 && string(raw) == "null"
}

func rawKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// jsonKind names the JSON type of a free-form Go value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64, float32, int, int64, int32, uint, uint64, uint32:
		return "a number"
	}
	return fmt.Sprintf("a non-JSON Go value of type %T", v)
}

// checkNumber rejects a json.Number that is not a number or that no float64
// can hold (1e400): a consumer that reads it as a float would get an
// infinity, which JSON cannot carry back. Numbers that only lose precision
// as a float64 (12345678901234567890, 1e-400) are kept: their text is the
// value.
func checkNumber(n json.Number) error {
	if _, err := strconv.ParseFloat(string(n), 64); err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("number %.40s is out of the range of a 64-bit float (about ±1.8e308)", string(n))
		}
		return fmt.Errorf("%.40q is not a JSON number", string(n))
	}
	return nil
}

// checkJSONValue reports whether v is made only of free-form JSON shapes,
// with numbers a float64 can hold, and nests no deeper than MaxDepth.
func checkJSONValue(v any, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("nested deeper than %d levels", MaxDepth)
	}
	switch x := v.(type) {
	case nil, string, bool, int, int64, int32, uint, uint64, uint32:
		return nil
	case json.Number:
		return checkNumber(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.New("a number that JSON cannot carry (NaN or infinity)")
		}
		return nil
	case float32:
		return checkJSONValue(float64(x), depth)
	case map[string]any:
		for _, e := range x {
			if err := checkJSONValue(e, depth+1); err != nil {
				return err
			}
		}
		return nil
	case []any:
		for _, e := range x {
			if err := checkJSONValue(e, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("want a JSON value, got %s", jsonKind(v))
}
