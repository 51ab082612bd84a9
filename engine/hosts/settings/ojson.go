package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// An object is a JSON object that keeps its keys in the order of the file,
// so that editing a person's settings file changes only what it must.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// set sets k, appending it when new.
func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// maxDepth bounds the nesting of a settings file.
const maxDepth = 100

// parseJSON decodes one JSON document into *object, []any, string,
// json.Number, bool and nil, objects in file order. A repeated key keeps
// its last value, as JSON readers do.
func parseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, jsonError(data, dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, jsonError(data, dec, errors.New("more than one JSON value"))
	}
	return v, nil
}

// jsonError adds the line and column where the decoder stopped.
func jsonError(data []byte, dec *json.Decoder, err error) error {
	off := int(dec.InputOffset())
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = int(se.Offset)
	}
	off = min(off, len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Errorf("line %d, column %d: %w (comments are not JSON: remove them first)", line, col, err)
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.set(k, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	}
	return tok, nil
}

// encodeJSON writes v indented by indent, keys in order, without HTML
// escaping, ending in a newline.
func encodeJSON(v any, indent string) []byte {
	var b bytes.Buffer
	writeValue(&b, v, indent, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any, indent string, level int) {
	nl := func(l int) {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(indent, l))
	}
	switch x := v.(type) {
	case *object:
		if len(x.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(level + 1)
			writeString(b, k)
			b.WriteString(": ")
			writeValue(b, x.vals[k], indent, level+1)
		}
		nl(level)
		b.WriteByte('}')
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(level + 1)
			writeValue(b, e, indent, level+1)
		}
		nl(level)
		b.WriteByte(']')
	case string:
		writeString(b, x)
	case json.Number:
		b.WriteString(x.String())
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	case int:
		b.WriteString(strconv.Itoa(x))
	default:
		enc, err := json.Marshal(x)
		if err != nil {
			b.WriteString("null")
			return
		}
		b.Write(enc)
	}
}

func writeString(b *bytes.Buffer, s string) {
	var e bytes.Buffer
	enc := json.NewEncoder(&e)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimSuffix(e.Bytes(), []byte("\n")))
}

// indentOf returns the indentation unit of a JSON file: the leading white
// space of its first indented line; two spaces when it has none.
func indentOf(data []byte) string {
	for _, line := range strings.Split(string(data), "\n")[1:] {
		t := strings.TrimLeft(line, " \t")
		if t != "" && len(t) < len(line) {
			return line[:len(line)-len(t)]
		}
	}
	return "  "
}
