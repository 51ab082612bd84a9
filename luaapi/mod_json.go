package luaapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/monad-hooks/monad-hooks/events"
	lua "github.com/yuin/gopher-lua"
)

func (v *vm) jsonModule() *lua.LTable {
	t := v.funcs(map[string]lua.LGFunction{
		"encode": v.jsonEncode,
		"decode": v.jsonDecode,
		"array":  v.jsonArray,
		"object": v.jsonObject,
	})
	t.RawSetString("null", v.null)
	return t
}

// json.encode(v) -> string. Object keys are sorted.
func (v *vm) jsonEncode(L *lua.LState) int {
	b := v.newBudgetOf(defaultMaxNodes, v.pl.opts.MaxStringSize)
	x, err := v.fromLua(L.CheckAny(1), 0, b)
	if err != nil {
		L.RaiseError("json.encode: %s", err.Error())
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		L.RaiseError("json.encode: %s", err.Error())
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(out) > v.pl.opts.MaxStringSize {
		L.RaiseError("json.encode: the result is larger than %d bytes", v.pl.opts.MaxStringSize)
	}
	L.Push(lua.LString(out))
	return 1
}

// json.decode(s) -> value. null becomes json.null, arrays and objects
// marked tables. The decoding polls the stop flag (see remain.go).
func (v *vm) jsonDecode(L *lua.LState) int {
	s := L.CheckString(1)
	if len(s) > v.pl.opts.MaxStringSize {
		L.RaiseError("json.decode: the document is larger than %d bytes", v.pl.opts.MaxStringSize)
	}
	if len(strings.TrimSpace(s)) == 0 {
		L.RaiseError("json.decode: empty document")
	}
	d := jsonDecoder{dec: json.NewDecoder(strings.NewReader(s)), stop: &v.ctx}
	d.dec.UseNumber()
	x, err := d.value(0)
	v.pl.work.jsonValues.Add(int64(d.n))
	if err != nil {
		L.RaiseError("json.decode: %s", err.Error())
	}
	lv, err := v.toLua(x, 0)
	if err != nil {
		L.RaiseError("json.decode: %s", err.Error())
	}
	L.Push(lv)
	return 1
}

// A jsonDecoder decodes one JSON value token by token into the free-form
// Go representation (as events.DecodeValue does), polling the stop flag
// every stopCheckEvery values.
type jsonDecoder struct {
	dec  *json.Decoder
	stop *vmCtx
	n    int
}

func (d *jsonDecoder) token() (json.Token, error) {
	d.n++
	if d.n%stopCheckEvery == 0 && d.stop.stopped() {
		return nil, errStopped
	}
	t, err := d.dec.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return t, err
}

func (d *jsonDecoder) value(depth int) (any, error) {
	t, err := d.token()
	if err != nil {
		return nil, err
	}
	return d.rest(t, depth)
}

// rest decodes the value that begins with token t.
func (d *jsonDecoder) rest(t json.Token, depth int) (any, error) {
	switch t := t.(type) {
	case json.Delim:
		if depth >= events.MaxDepth {
			return nil, fmt.Errorf("nested deeper than %d levels", events.MaxDepth)
		}
		if t == '[' {
			arr := []any{}
			for d.dec.More() {
				x, err := d.value(depth + 1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, x)
			}
			_, err := d.token() // ]
			return arr, err
		}
		obj := map[string]any{}
		for d.dec.More() {
			k, err := d.token()
			if err != nil {
				return nil, err
			}
			x, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			obj[k.(string)] = x
		}
		_, err := d.token() // }
		return obj, err
	}
	return t, nil // json.Number (toLua checks its range), string, bool, nil
}

// json.array([t]) and json.object([t]) mark t (or a new table) and return
// it.
func (v *vm) jsonArray(L *lua.LState) int  { return v.jsonMark(L, v.arrayMT) }
func (v *vm) jsonObject(L *lua.LState) int { return v.jsonMark(L, v.objectMT) }

func (v *vm) jsonMark(L *lua.LState, mt *lua.LTable) int {
	var t *lua.LTable
	switch x := L.Get(1).(type) {
	case *lua.LNilType:
		t = L.CreateTable(0, 0)
	case *lua.LTable:
		t = x
		if _, ro := v.ro[t]; ro {
			L.ArgError(1, "cannot mark a read-only table")
		}
		if cur := t.Metatable; cur != lua.LNil && cur != v.arrayMT && cur != v.objectMT && cur != v.inputMT {
			L.ArgError(1, "the table already has a metatable")
		}
		if t == v.input {
			if err := v.materializeAll(t); err != nil {
				L.RaiseError("%s", err.Error())
			}
			v.inputDirty = true
		}
	default:
		L.ArgError(1, "table expected, got "+x.Type().String())
	}
	t.Metatable = mt
	L.Push(t)
	return 1
}
