package luaapi

import (
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// processStart anchors os.clock.
var processStart = time.Now()

// osModule is the os subset scripts get: time, clock and date, on the
// injected clock (Options.Now) and its location.
func (v *vm) osModule() *lua.LTable {
	return v.funcs(map[string]lua.LGFunction{
		"time":  v.osTime,
		"clock": osClock,
		"date":  v.osDate,
	})
}

// os.time([t]) -> seconds since the epoch, now or of the date table t
// (year, month, day required; hour 12, min 0, sec 0 by default), in the
// clock's location.
func (v *vm) osTime(L *lua.LState) int {
	now := v.pl.opts.Now()
	if L.GetTop() == 0 || L.Get(1) == lua.LNil {
		L.Push(lua.LNumber(now.Unix()))
		return 1
	}
	t := v.unwrap(L.CheckTable(1))
	field := func(k string, def int, required bool) int {
		switch x := t.RawGetString(k).(type) {
		case lua.LNumber:
			return int(x)
		case *lua.LNilType:
			if required {
				L.RaiseError("field '%s' missing in date table", k)
			}
			return def
		default:
			L.RaiseError("field '%s' is not a number", k)
		}
		return 0
	}
	d := time.Date(field("year", 0, true), time.Month(field("month", 0, true)), field("day", 0, true),
		field("hour", 12, false), field("min", 0, false), field("sec", 0, false), 0, now.Location())
	L.Push(lua.LNumber(d.Unix()))
	return 1
}

// os.clock() -> seconds (with fractions) since the process started; a
// monotonic clock for measuring durations, not CPU time.
func osClock(L *lua.LState) int {
	L.Push(lua.LNumber(time.Since(processStart).Seconds()))
	return 1
}

// os.date([format [, t]]): format as C strftime (a common subset), "*t"
// for a table; a leading "!" formats in UTC.
func (v *vm) osDate(L *lua.LState) int {
	format := L.OptString(1, "%c")
	now := v.pl.opts.Now()
	t := now
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		t = time.Unix(int64(L.CheckNumber(2)), 0).In(now.Location())
	}
	if strings.HasPrefix(format, "!") {
		format = format[1:]
		t = t.UTC()
	}
	if strings.HasPrefix(format, "*t") {
		tb := L.CreateTable(0, 9)
		tb.RawSetString("year", lua.LNumber(t.Year()))
		tb.RawSetString("month", lua.LNumber(t.Month()))
		tb.RawSetString("day", lua.LNumber(t.Day()))
		tb.RawSetString("hour", lua.LNumber(t.Hour()))
		tb.RawSetString("min", lua.LNumber(t.Minute()))
		tb.RawSetString("sec", lua.LNumber(t.Second()))
		tb.RawSetString("wday", lua.LNumber(t.Weekday()+1))
		tb.RawSetString("yday", lua.LNumber(t.YearDay()))
		tb.RawSetString("isdst", lua.LFalse)
		L.Push(tb)
		return 1
	}
	if len(format) > 256 {
		L.RaiseError("os.date: format longer than 256 bytes")
	}
	out, err := strftime(format, t)
	if err != nil {
		L.RaiseError("os.date: %s", err.Error())
	}
	L.Push(lua.LString(out))
	return 1
}

// strftime formats t like C's strftime for the conversions scripts use.
func strftime(format string, t time.Time) (string, error) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(format) {
			return "", fmt.Errorf("invalid conversion specifier '%%'")
		}
		switch format[i] {
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'b', 'h':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'c':
			b.WriteString(t.Format("Mon Jan  2 15:04:05 2006"))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'D':
			b.WriteString(t.Format("01/02/06"))
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			fmt.Fprintf(&b, "%02d", h)
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'n':
			b.WriteByte('\n')
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 's':
			fmt.Fprintf(&b, "%d", t.Unix())
		case 't':
			b.WriteByte('\t')
		case 'T', 'X':
			b.WriteString(t.Format("15:04:05"))
		case 'u':
			wd := int(t.Weekday())
			if wd == 0 {
				wd = 7
			}
			fmt.Fprintf(&b, "%d", wd)
		case 'w':
			fmt.Fprintf(&b, "%d", int(t.Weekday()))
		case 'x':
			b.WriteString(t.Format("01/02/06"))
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'Y':
			fmt.Fprintf(&b, "%d", t.Year())
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			b.WriteString(t.Format("MST"))
		case '%':
			b.WriteByte('%')
		default:
			return "", fmt.Errorf("invalid conversion specifier '%%%c'", format[i])
		}
	}
	return b.String(), nil
}
