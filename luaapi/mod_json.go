package luaapi

import (
	"bytes"
	"encoding/json"

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
// marked tables.
func (v *vm) jsonDecode(L *lua.LState) int {
	s := L.CheckString(1)
	if len(s) > v.pl.opts.MaxStringSize {
		L.RaiseError("json.decode: the document is larger than %d bytes", v.pl.opts.MaxStringSize)
	}
	x, err := events.DecodeValue([]byte(s))
	if err != nil {
		L.RaiseError("json.decode: %s", err.Error())
	}
	if rest := bytes.TrimSpace([]byte(s)); len(rest) == 0 {
		L.RaiseError("json.decode: empty document")
	}
	lv, err := v.toLua(x, 0)
	if err != nil {
		L.RaiseError("json.decode: %s", err.Error())
	}
	L.Push(lv)
	return 1
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
			v.inputDirty = true
		}
	default:
		L.ArgError(1, "table expected, got "+x.Type().String())
	}
	t.Metatable = mt
	L.Push(t)
	return 1
}
