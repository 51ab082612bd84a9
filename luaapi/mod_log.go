package luaapi

import (
	"log/slog"

	lua "github.com/yuin/gopher-lua"
)

// MaxLogMessage bounds the length of one logged message; longer messages
// are truncated.
const MaxLogMessage = 4096

func (v *vm) logModule() *lua.LTable {
	return v.funcs(map[string]lua.LGFunction{
		"info":  func(L *lua.LState) int { return v.logAt(L, slog.LevelInfo) },
		"warn":  func(L *lua.LState) int { return v.logAt(L, slog.LevelWarn) },
		"error": func(L *lua.LState) int { return v.logAt(L, slog.LevelError) },
	})
}

// log.info(msg [, fields]) and friends.
func (v *vm) logAt(L *lua.LState, level slog.Level) int {
	msg := lua.LVAsString(L.ToStringMeta(L.CheckAny(1)))
	if len(msg) > MaxLogMessage {
		msg = msg[:MaxLogMessage] + "..."
	}
	var fields map[string]any
	switch f := L.Get(2).(type) {
	case *lua.LNilType:
	case *lua.LTable:
		b := v.newBudgetOf(1000, 16*MaxLogMessage)
		x, err := v.fromLua(f, 0, b)
		if err != nil {
			L.ArgError(2, err.Error())
		}
		m, ok := x.(map[string]any)
		if !ok {
			L.ArgError(2, "fields must be a table with string keys")
		}
		if len(m) > 0 {
			fields = m
		}
	default:
		L.ArgError(2, "table expected, got "+f.Type().String())
	}
	v.log(level, msg, fields, v.scriptLine(L))
	return 0
}
