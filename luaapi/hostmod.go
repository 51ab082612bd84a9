package luaapi

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"unicode"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"

	"github.com/monad-hooks/monad-hooks/internal/lazy"
)

// Host modules: Go values an embedder exposes to every script as
// require(name) (Options.Modules), converted by gopher-luar.
//
// gopher-luar makes a Go value's exported fields and methods reachable from
// Lua, and converts arguments and results by reflection. What that reaches
// is decided by the value's type, so ValidateModule walks the type graph
// first (the types of exported fields, of method and function parameters
// and results, of elements) and refuses, naming the route, what could lead
// out of the sandbox or past the hook's deadline:
//
//   - channels (a receive blocks the VM's goroutine for ever);
//   - function parameters (a Lua callback called from Go runs on a
//     gopher-lua thread the watchdog cannot stop);
//   - interfaces other than error as a function's last result and
//     context.Context as a module function's first parameter (they could
//     carry any host object, or a raw Lua value, at run time);
//   - unsafe pointers, uintptr and complex numbers;
//   - recursive types (gopher-luar's table conversion recurses on them
//     without a bound).
//
// In the VM, every gopher-luar value is read-only: assigning a field, an
// element or through a pointer is a Lua error (methods the embedder wrote
// may still change their receiver). Unexported fields and methods are not
// reachable. Module functions (the value itself or an entry of a
// map[string]any module) whose first parameter is a context.Context get one
// that ends at the hook's deadline (or when the caller's context ends).
// A non-nil error as the last result of a function or method is raised as
// a Lua error (a nil one is dropped). Methods cannot take a context. A Go
// function runs to completion: one that ignores its context can hold the
// hook past its timeout. A Go panic in one is a hook failure (FailPanic;
// the VM is discarded).

var (
	typeContext = reflect.TypeOf((*context.Context)(nil)).Elem()
	typeError   = reflect.TypeOf((*error)(nil)).Elem()
)

// moduleName is compiled on first use: package initialisation is part of
// every start of the CLI (BenchmarkCLIRunNoStdlib).
var moduleName = lazy.Regexp{Expr: `^[a-z][a-z0-9_.-]{0,63}$`}

// hostModule is a validated module: its value and the gopher-luar types
// reachable from it.
type hostModule struct {
	name  string
	value any
	types []reflect.Type
}

// ValidateModule reports whether value can be exposed to Lua scripts as
// require(name): name is lowercase (letters, digits, '_', '.', '-') and not
// a built-in module's, and value is a function, a map[string]any of
// functions and values, or any other value whose type graph passes the
// rules of the package doc ("Host modules"). The error names the route to
// what is refused.
func ValidateModule(name string, value any) error {
	_, err := checkModule(name, value)
	return err
}

func checkModule(name string, value any) (hostModule, error) {
	m := hostModule{name: name, value: value}
	if !moduleName.Get().MatchString(name) {
		return m, fmt.Errorf("module name %q: want lowercase letters, digits, '_', '.' or '-'", name)
	}
	if isModuleName(name) {
		return m, fmt.Errorf("module %q shadows the built-in module of that name", name)
	}
	if value == nil {
		return m, fmt.Errorf("module %q is nil", name)
	}
	c := typeCheck{onStack: map[reflect.Type]bool{}, done: map[reflect.Type]bool{}}
	var err error
	switch x := value.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if x[k] == nil {
				return m, fmt.Errorf("%s.%s is nil", name, k)
			}
			if err = c.value(reflect.TypeOf(x[k]), name+"."+k); err != nil {
				return m, err
			}
		}
	default:
		err = c.value(reflect.TypeOf(value), name)
	}
	m.types = c.types
	return m, err
}

// typeCheck walks a type graph (see the package doc).
type typeCheck struct {
	onStack map[reflect.Type]bool
	done    map[reflect.Type]bool
	types   []reflect.Type // the gopher-luar (userdata) types met
}

// value checks a module value's type: a function may take a context.
func (c *typeCheck) value(t reflect.Type, where string) error {
	if t.Kind() == reflect.Func {
		return c.fn(t, where, 0, true)
	}
	return c.typ(t, where)
}

func (c *typeCheck) typ(t reflect.Type, where string) error {
	if c.done[t] {
		return nil
	}
	if c.onStack[t] {
		return fmt.Errorf("%s: recursive type %s", where, t)
	}
	c.onStack[t] = true
	var err error
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
	case reflect.Slice, reflect.Array:
		err = c.typ(t.Elem(), where+"[]")
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		default:
			return fmt.Errorf("%s: a map keyed by %s", where, t.Key())
		}
		err = c.typ(t.Elem(), where+"[key]")
	case reflect.Pointer:
		err = c.typ(t.Elem(), where)
	case reflect.Struct:
		for i := 0; i < t.NumField() && err == nil; i++ {
			if f := t.Field(i); f.IsExported() {
				err = c.typ(f.Type, where+"."+f.Name)
			}
		}
	case reflect.Func:
		return fmt.Errorf("%s: a function value inside a value (only module functions and methods are callable)", where)
	case reflect.Chan:
		return fmt.Errorf("%s: a channel", where)
	case reflect.Interface:
		return fmt.Errorf("%s: an interface (%s) can hold any host value", where, t)
	default:
		return fmt.Errorf("%s: a %s", where, t.Kind())
	}
	delete(c.onStack, t)
	if err != nil {
		return err
	}
	c.done[t] = true
	// gopher-luar exposes the methods of a value's type, and gives struct
	// and array fields as pointers: check the methods of T and *T (after
	// marking T done: a method may take or return T without recursing).
	for _, mt := range []reflect.Type{t, reflect.PointerTo(t)} {
		for i := 0; i < mt.NumMethod(); i++ {
			m := mt.Method(i)
			if err := c.fn(m.Type, where+":"+m.Name, 1, false); err != nil {
				return err
			}
		}
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Array, reflect.Slice, reflect.Map, reflect.Pointer:
		c.addType(t)
	}
	if k := t.Kind(); k == reflect.Struct || k == reflect.Array {
		c.addType(reflect.PointerTo(t))
	}
	return nil
}

func (c *typeCheck) addType(t reflect.Type) {
	if !slices.Contains(c.types, t) {
		c.types = append(c.types, t)
	}
}

// fn checks a function type whose first skip parameters are a receiver;
// a module function (ctx) may take a context.Context first.
func (c *typeCheck) fn(t reflect.Type, where string, skip int, ctx bool) error {
	for i := skip; i < t.NumIn(); i++ {
		in := t.In(i)
		switch {
		case in == typeContext && i == skip && ctx:
			continue
		case in == typeContext:
			return fmt.Errorf("%s: a context parameter (only module functions take one, as their first parameter)", where)
		case in.Kind() == reflect.Func:
			return fmt.Errorf("%s: a function parameter (a Lua callback)", where)
		}
		if err := c.typ(in, fmt.Sprintf("%s(parameter %d)", where, i+1-skip)); err != nil {
			return err
		}
	}
	for i := 0; i < t.NumOut(); i++ {
		out := t.Out(i)
		if out == typeError && i == t.NumOut()-1 {
			continue
		}
		if err := c.typ(out, fmt.Sprintf("%s(result %d)", where, i+1)); err != nil {
			return err
		}
	}
	return nil
}

// installHostModules adds the pool's host modules to v.modules.
func (v *vm) installHostModules() {
	L := v.L
	locked := map[reflect.Type]bool{}
	for _, m := range v.pl.mods {
		for _, t := range m.types {
			if !locked[t] {
				locked[t] = true
				v.lockLuarType(t)
			}
		}
		var lv lua.LValue
		switch x := m.value.(type) {
		case map[string]any:
			t := L.CreateTable(0, len(x))
			for k, e := range x {
				t.RawSetString(k, v.hostValue(m.name+"."+k, e))
			}
			lv = v.readonly(t, m.name)
		default:
			lv = v.hostValue(m.name, x)
		}
		v.modules[m.name] = lv
	}
}

// hostValue converts one module value: a function wrapped (see hostFunc),
// anything else by gopher-luar.
func (v *vm) hostValue(name string, x any) lua.LValue {
	if reflect.TypeOf(x).Kind() == reflect.Func {
		return luar.New(v.L, v.hostFunc(name, x))
	}
	return luar.New(v.L, x)
}

// lockLuarType adapts gopher-luar's metatable of t in this VM: it is made
// read-only (no assignment through __newindex, to fields and elements, or
// through a pointer with __pow), and methods whose last result is an error
// raise it as a Lua error instead of returning it.
func (v *vm) lockLuarType(t reflect.Type) {
	L := v.L
	mt := luar.MT(L, reflect.Zero(t).Interface())
	if mt == nil {
		return
	}
	readOnly := L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("cannot modify a Go value (%s) from Lua", t)
		return 0
	})
	for _, k := range []string{"__newindex", "__pow"} {
		if mt.RawGetString(k) != lua.LNil {
			mt.RawSetString(k, readOnly)
		}
	}
	methods, ok := mt.RawGetString("methods").(*lua.LTable)
	if !ok {
		return
	}
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		if !m.IsExported() || m.Type.NumOut() == 0 || m.Type.Out(m.Type.NumOut()-1) != typeError {
			continue
		}
		f, ok := methods.RawGetString(m.Name).(*lua.LFunction)
		if !ok {
			continue
		}
		w := raiseError(L, f, m.Name)
		methods.RawSetString(m.Name, w)
		r, n := utf8.DecodeRuneInString(m.Name)
		methods.RawSetString(string(unicode.ToLower(r))+m.Name[n:], w) // gopher-luar's second name
	}
}

// raiseError wraps a gopher-luar method whose last result is an error: a
// non-nil error is raised, a nil one dropped.
func raiseError(L *lua.LState, f *lua.LFunction, name string) *lua.LFunction {
	return L.NewFunction(func(L *lua.LState) int {
		L.Insert(f, 1)
		L.Call(L.GetTop()-1, lua.MultRet)
		n := L.GetTop()
		if ud, ok := L.Get(n).(*lua.LUserData); ok {
			if err, ok := ud.Value.(error); ok {
				L.RaiseError("%s: %s", name, err.Error())
			}
		}
		L.Pop(1)
		return n - 1
	})
}

// hostFunc wraps a module function: a leading context.Context parameter is
// filled with the hook's context, a trailing error result is raised.
func (v *vm) hostFunc(name string, fn any) any {
	fv := reflect.ValueOf(fn)
	ft := fv.Type()
	takesCtx := ft.NumIn() > 0 && ft.In(0) == typeContext
	returnsErr := ft.NumOut() > 0 && ft.Out(ft.NumOut()-1) == typeError
	if !takesCtx && !returnsErr {
		return fn
	}
	var in, out []reflect.Type
	for i := 0; i < ft.NumIn(); i++ {
		if i > 0 || !takesCtx {
			in = append(in, ft.In(i))
		}
	}
	for i := 0; i < ft.NumOut(); i++ {
		if i < ft.NumOut()-1 || !returnsErr {
			out = append(out, ft.Out(i))
		}
	}
	wrapped := reflect.FuncOf(in, out, ft.IsVariadic())
	return reflect.MakeFunc(wrapped, func(args []reflect.Value) []reflect.Value {
		if takesCtx {
			ctx, cancel := v.hostContext()
			defer cancel()
			args = append([]reflect.Value{reflect.ValueOf(ctx)}, args...)
		}
		var res []reflect.Value
		if ft.IsVariadic() {
			res = fv.CallSlice(args)
		} else {
			res = fv.Call(args)
		}
		if returnsErr {
			last := res[len(res)-1]
			res = res[:len(res)-1]
			if !last.IsNil() {
				v.L.RaiseError("%s: %s", name, last.Interface().(error).Error())
			}
		}
		return res
	}).Interface()
}

// hostContext returns the context a module function gets: the caller's,
// ending at the hook's deadline.
func (v *vm) hostContext() (context.Context, context.CancelFunc) {
	parent := v.ctx.own
	if parent == nil {
		parent = context.Background()
	}
	return context.WithTimeoutCause(parent, max(v.ctx.remaining(), 0), errHookDeadline)
}

var errHookDeadline = errors.New("the hook's deadline passed")
