package luaapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/internal/suggest"
	"github.com/monad-hooks/monad-hooks/luaapi/luapattern"
	lua "github.com/yuin/gopher-lua"
)

// VM sizing. The call stack bounds Lua recursion ("stack overflow"); the
// registry (gopher-lua's value stack) starts small, grows in large steps
// (growth is additive, so a small step makes it quadratic) and is capped,
// which bounds unpack/select/string.byte style explosions ("registry
// overflow").
const (
	callStackSize    = 200
	registrySize     = 1024 * 4
	registryMaxSize  = 1024 * 64
	registryGrowStep = 1024
)

// MaxArrayIndex is the value luaapi gives gopher-lua's process-global
// lua.MaxArrayIndex in its package initialisation (the default is 64 Mi).
// gopher-lua fills the array part of a table with nils up to any integer key
// below that bound in one uninterruptible instruction, so `t[6e7] = true`
// costs seconds and gigabytes; with 1 Mi it costs at most 16 MB. Keys at or
// above it live in the hash part: a sequence longer than this reports a
// shorter #t. The value is set before any LState of the process exists, as
// later changes would corrupt iteration of existing tables; a program that
// links luaapi gets it for every gopher-lua VM it runs (a property of
// embedding, documented in package engine and the README). A lower value
// set before luaapi's initialisation is kept.
const MaxArrayIndex = 1 << 20

func init() {
	// Only lower it: the process may have set a lower value already.
	if lua.MaxArrayIndex > MaxArrayIndex {
		lua.MaxArrayIndex = MaxArrayIndex
	}
}

// vm is one gopher-lua state with every script of a plan loaded.
type vm struct {
	pl       *plan
	L        *lua.LState
	handlers []*lua.LFunction // what the pool calls (see directHandler), index-aligned with plan.hooks
	ctx      vmCtx
	uses     int

	// load state
	loading   bool
	curSource int
	regs      []Hook
	loadErr   *ScriptError
	// configRead[i]: source i called path.config() while it loaded (see
	// Record)
	configRead []bool

	// call state
	curHook  int
	logs     []LogEntry // what the call logged, with keepLogs
	keepLogs bool
	tainted  bool // a pcall inside the handler caught a Go panic
	// inHandler: the handler runs (see handlerDirect); outVals and outSet
	// are the HookOutput fields its rewritten return gave (see
	// outreturn.go), indexed as outputKeys, read by readOutput through
	// outToken.
	inHandler bool
	outVals   [len(outputKeys)]lua.LValue
	outSet    bool
	outToken  *lua.LUserData
	// outputFn is the host function of outputFuncName; directEnvs the
	// environments of the pool's copies of rewritten handlers, by the
	// environment of the handler (see directHandler).
	outputFn   *lua.LFunction
	directEnvs map[*lua.LTable]*lua.LTable
	tramp      *lua.LFunction

	// sandbox objects
	null         *lua.LUserData
	arrayMT      *lua.LTable
	objectMT     *lua.LTable
	inputMT      *lua.LTable
	input        *lua.LTable // reused input table, see inputTable
	inputSet     uint32      // the fields set in input (bits: the in* constants)
	inputDirty   bool
	callIn       *events.Input            // the call's input, while it runs
	callView     ToolViewer               // computes callIn.Tool when it is nil, while the call runs (see Pool.CallView)
	pending      uint32                   // the lazyFields of callIn not built yet
	readNow      uint32                   // the fields the handler read through __index during the call
	reads        []fieldReads             // by hook: what its handler reads, see predictReads
	boxed        [inFieldCount]lua.LValue // short strings of the last call, see inputBuilder.same
	reused       [4]reusedObject          // payload tables, see reusedObject
	origins      map[*lua.LTable]any      // see keepOrigin
	ro           map[*lua.LTable]roInfo   // read-only proxy -> its target
	roMT         *lua.LTable
	roNewIndex   *lua.LFunction
	roLen        *lua.LFunction
	nextFn       *lua.LFunction
	ipairsAux    *lua.LFunction
	modules      map[string]lua.LValue // host modules and the libraries instantiated so far
	base         *lua.LTable           // what script and library environments fall back to
	libSetGlobal *lua.LFunction
	libStack     []string // the libraries being instantiated, outermost first
	strMeta      *lua.LTable
	scanMTs      []*lua.LTable      // the metatables of the scan module's values
	patOpts      luapattern.Options // the matcher's options, see installPatterns
	reLocal      map[string]*regexpEntry
	reLastPat    string       // the pattern of the last regexp lookup that compiled
	reLast       *regexpEntry // its entry
	polledOnly   bool         // tests: every regexp search polls (see direct)
	converted    int          // values converted by toLua, see pollConvert

	// retained memory, see retained.go
	fixed            map[any]struct{} // the sandbox's own tables
	envs             []*lua.LTable    // each script's environment
	sinceRetainCheck int
	walkEpoch        uint64 // the watchdog's walkEpoch at the last walk
}

type roInfo struct {
	target *lua.LTable
	name   string
}

func (v *vm) close() {
	v.pl.wd.remove(&v.ctx)
	v.L.Close()
}

// newVM builds a VM: the sandbox, the host modules, then every source in
// its own environment. With collect set it returns the registrations;
// otherwise it checks that the scripts registered the same hooks as the
// plan's.
func newVM(ctx context.Context, pl *plan, collect bool) (v *vm, hooks []Hook, err error) {
	v = &vm{pl: pl, ro: map[*lua.LTable]roInfo{}, reLocal: map[string]*regexpEntry{}}
	v.L = lua.NewState(lua.Options{
		SkipOpenLibs:     true,
		CallStackSize:    callStackSize,
		RegistrySize:     registrySize,
		RegistryMaxSize:  registryMaxSize,
		RegistryGrowStep: registryGrowStep,
	})
	L := v.L
	pl.wd.add(&v.ctx)
	built := v
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("luaapi: building a VM panicked: %v", r)
		}
		if err != nil {
			built.close()
			v, hooks = nil, nil
		}
	}()
	v.tramp = L.NewFunction(v.trampoline)
	v.ctx.L = L
	base, err := v.sandbox()
	if err != nil {
		return nil, nil, err
	}
	v.loading = true
	v.configRead = make([]bool, len(pl.srcs))
	for i, s := range pl.srcs {
		v.curSource = i
		if err := v.load(ctx, s, base); err != nil {
			return nil, nil, err
		}
	}
	v.loading = false
	if collect {
		pl.configRead = v.configRead
		return v, v.regs, nil
	}
	if err := sameRegistrations(v.regs, pl); err != nil {
		return nil, nil, err
	}
	v.regs = nil
	return v, nil, nil
}

// sameRegistrations checks that the hooks a VM's scripts registered are
// the plan's: those of the first load, or those of the sources' Records.
func sameRegistrations(regs []Hook, pl *plan) error {
	again, first := "when loaded again", "the first time"
	if pl.recorded {
		again, first = "when loaded", "in its Record (stale: make the Record again)"
	}
	if len(regs) != len(pl.hooks) {
		return fmt.Errorf("scripts registered %d hooks %s, %d %s (registrations must not depend on time or randomness)", len(regs), again, len(pl.hooks), first)
	}
	for i := range regs {
		h, w := &regs[i], &pl.hooks[i]
		if what := hookDiff(h, w); what != "" {
			return fmt.Errorf("hook %d (%s at %s:%d) differs in its %s %s from %s", i, h.Event, h.Script, h.Line, what, again, first)
		}
	}
	return nil
}

// load runs one script's chunk in a fresh environment, then seals the
// environment.
func (v *vm) load(ctx context.Context, s source, base *lua.LTable) error {
	L := v.L
	name := s.script.name
	env := L.CreateTable(0, 8)
	params, err := v.toLuaParams(s.params)
	if err != nil {
		return &ScriptError{Script: name, Msg: "params: " + err.Error()}
	}
	env.RawSetString("params", params)
	env.RawSetString("_G", env)
	envMT := L.CreateTable(0, 3)
	envMT.RawSetString("__index", base)
	envMT.RawSetString("__newindex", L.NewFunction(v.luaSetGlobal))
	envMT.RawSetString("__metatable", lua.LFalse)
	env.Metatable = envMT
	v.envs = append(v.envs, env)

	script, err := s.script.compiled()
	if err != nil {
		var se *ScriptError
		if errors.As(err, &se) {
			return se
		}
		return &ScriptError{Script: name, Msg: err.Error()}
	}
	fn := L.NewFunctionFromProto(script.proto)
	fn.Env = env
	v.loadErr = nil
	v.pl.work.loads.Add(1)
	v.ctx.begin(v.pl.wd, ctx, v.pl.opts.LoadTimeout, 0)
	L.SetContext(&v.ctx)
	_, err, panicked := v.pcall(fn, nil, 0)
	L.RemoveContext()
	v.forgetOrigins()
	var msg string
	if err != nil {
		msg, _ = v.errorMessage(err) // under the watchdog
	}
	stopErr := v.ctx.end()
	if v.loadErr != nil {
		return v.loadErr
	}
	if stopErr != nil {
		return &ScriptError{Script: name, Msg: fmt.Sprintf("loading: %v (load timeout %s)", stopErr, v.pl.opts.LoadTimeout)}
	}
	if err != nil {
		if panicked {
			msg = "go panic: " + msg
		}
		script, line, rest := splitPosition(msg)
		if script == name {
			return &ScriptError{Script: name, Line: line, Msg: rest}
		}
		return &ScriptError{Script: name, Msg: msg}
	}
	// Seal: move the globals the script defined into a hidden table and
	// leave env empty, so that every later write goes through __newindex
	// (which refuses it) while reads resolve env -> contents -> base.
	contents := L.CreateTable(0, 8)
	var keys []lua.LValue
	env.ForEach(func(k, val lua.LValue) {
		contents.RawSet(k, val)
		keys = append(keys, k)
	})
	for _, k := range keys {
		env.RawSet(k, lua.LNil)
	}
	contentsMT := L.CreateTable(0, 1)
	contentsMT.RawSetString("__index", base)
	contents.Metatable = contentsMT
	envMT.RawSetString("__index", contents)
	return nil
}

// luaSetGlobal is the __newindex of every script environment.
func (v *vm) luaSetGlobal(L *lua.LState) int {
	env := L.CheckTable(1)
	key := L.Get(2)
	if v.loading {
		if key == lua.LString(outputFuncName) || key == lua.LString(directFlagName) {
			L.RaiseError("cannot assign to global %q: the name is the host's", lua.LVAsString(key))
		}
		env.RawSet(key, L.Get(3))
		return 0
	}
	L.RaiseError("cannot assign to global '%s': globals are sealed after the script loads (use a local variable)", lua.LVAsString(L.ToStringMeta(key)))
	return 0
}

// pcall calls fn with at most one argument and returns its first result.
// The VM must have its vmCtx set as context: its Done installs raise as the
// error function, so that errors raised in Lua carry no traceback. pcall
// recovers Go panics that escape gopher-lua's own PCall (issue #282).
// panicked reports a Go panic (recovered by PCall or here): the VM must
// then be discarded.
func (v *vm) pcall(fn *lua.LFunction, arg lua.LValue, nret int) (ret lua.LValue, err error, panicked bool) {
	L := v.L
	top := L.GetTop()
	defer func() {
		if r := recover(); r != nil {
			ret, err, panicked = nil, fmt.Errorf("%v", r), true
		}
	}()
	L.Push(fn)
	nargs := 0
	if arg != nil {
		L.Push(arg)
		nargs = 1
	}
	if err := L.PCall(nargs, nret, nil); err != nil {
		L.SetTop(top)
		return nil, err, isGoPanic(err)
	}
	ret = lua.LNil
	if nret > 0 {
		ret = L.Get(top + 1)
	}
	L.SetTop(top)
	return ret, nil, false
}

func isGoPanic(err error) bool {
	var ae *lua.ApiError
	return errors.As(err, &ae) && ae.Type == lua.ApiErrorPanic
}

// tracebackOmitted marks the errors raised in Lua: gopher-lua's PCall builds
// a traceback for errors that have none, which after a long run of tail
// calls lists every one of them (seconds of work outside any timeout).
const tracebackOmitted = "(traceback omitted)"

// trampoline calls its first argument with the others, after installing
// raise as the VM's error function (gopher-lua's PCall installs its own on
// entry and restores the previous one on exit). pcall and xpcall use it.
func (v *vm) trampoline(L *lua.LState) int {
	L.Panic = raise
	L.Call(L.GetTop()-1, lua.MultRet)
	return L.GetTop()
}

func raise(L *lua.LState) {
	panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: L.Get(-1), StackTrace: tracebackOmitted})
}

// errObject returns the Lua value of a PCall error.
func errObject(err error) lua.LValue {
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.Object != nil {
		return ae.Object
	}
	return lua.LString(err.Error())
}

// luaPCall is pcall without tracebacks; a Go panic it catches taints the
// VM (it is discarded after the call).
func (v *vm) luaPCall(L *lua.LState) int {
	L.CheckAny(1)
	nargs := L.GetTop()
	L.Insert(v.tramp, 1)
	if err := L.PCall(nargs, lua.MultRet, nil); err != nil {
		if isGoPanic(err) {
			v.tainted = true
		}
		L.SetTop(0)
		L.Push(lua.LFalse)
		L.Push(errObject(err))
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// luaXPCall is xpcall(f, handler) without tracebacks. The handler runs
// after the stack is unwound (there is no debug library to tell).
func (v *vm) luaXPCall(L *lua.LState) int {
	fn := L.CheckAny(1)
	handler := L.CheckFunction(2)
	L.SetTop(0)
	L.Push(v.tramp)
	L.Push(fn)
	if err := L.PCall(1, lua.MultRet, nil); err != nil {
		if isGoPanic(err) {
			v.tainted = true
		}
		L.SetTop(0)
		L.Push(v.tramp)
		L.Push(handler)
		L.Push(errObject(err))
		if err := L.PCall(2, 1, nil); err != nil {
			if isGoPanic(err) {
				v.tainted = true
			}
			L.SetTop(0)
			L.Push(lua.LFalse)
			L.Push(lua.LString("error in error handling"))
			return 2
		}
		L.Insert(lua.LFalse, 1)
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// maxErrorMessage bounds the message of a hook failure; longer ones are
// cut.
const maxErrorMessage = 16 << 10

// clipMessage cuts s to maxErrorMessage bytes.
func clipMessage(s string) string {
	if len(s) <= maxErrorMessage {
		return s
	}
	return strings.ToValidUTF8(s[:maxErrorMessage], "") + "... (cut)"
}

// errorMessage renders a PCall error: the message of a string error, a
// description plus the converted value of a table error. The conversion is
// bounded (errorMaxNodes, errorMaxBytes, counting a table reachable twice
// twice) and polls the call's stop flag, so it must run before the call's
// vmCtx ends.
func (v *vm) errorMessage(err error) (string, any) {
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return clipMessage(err.Error()), nil
	}
	switch o := ae.Object.(type) {
	case lua.LString:
		return clipMessage(string(o)), nil
	case *lua.LNilType:
		return "error called with nil", nil
	case *lua.LTable:
		val, cerr := v.fromLua(o, 0, v.newBudgetOf(errorMaxNodes, errorMaxBytes))
		if cerr != nil {
			return "error called with a table (" + cerr.Error() + ")", nil
		}
		return "error called with a table: " + jsonString(val), val
	case nil:
		return clipMessage(err.Error()), nil
	default:
		if o == v.null {
			return "error called with json.null", nil
		}
		return clipMessage(fmt.Sprintf("error called with a %s: %s", o.Type(), o.String())), o.String()
	}
}

// splitPosition splits "script:12: message" into its parts; script is ""
// when msg has no position.
func splitPosition(msg string) (script string, line int, rest string) {
	// The script name may contain ':' (paths on Windows); the position is
	// the last ":<digits>:" before the message.
	for i := 0; i < len(msg); i++ {
		if msg[i] != ':' {
			continue
		}
		j := i + 1
		n := 0
		for j < len(msg) && msg[j] >= '0' && msg[j] <= '9' && n < 1e8 {
			n = n*10 + int(msg[j]-'0')
			j++
		}
		if j > i+1 && j < len(msg) && msg[j] == ':' {
			return msg[:i], n, strings.TrimSpace(msg[j+1:])
		}
	}
	return "", 0, msg
}

// callerLine returns the current line of the Lua function at stack level
// (1 = the caller of the running Go function).
func callerLine(L *lua.LState, level int) int {
	dbg, ok := L.GetStack(level)
	if !ok {
		return 0
	}
	if _, err := L.GetInfo("l", dbg, lua.LNil); err != nil {
		return 0
	}
	return dbg.CurrentLine
}

// hookKeyList lists the keys of hook{}, in the order the documentation
// gives them.
var hookKeyList = []string{"event", "name", "matcher", "kind", "prefilter", "handler", "onError", "timeoutMs"}

// MaxHookName bounds the name of hook{ name = ... }, in bytes.
const MaxHookName = 100

// luaHook implements hook{...}.
func (v *vm) luaHook(L *lua.LState) int {
	if !v.loading {
		L.RaiseError("hook{} can only be called while the script loads, not from a handler")
	}
	script := v.pl.srcs[v.curSource].script
	name := script.name
	line := v.scriptLine(L)
	// bad raises the registration error; at says where it points: "" the
	// call, "key" a key of the table, "key=" its value.
	bad := func(at string, format string, args ...any) {
		key, atValue := strings.CutSuffix(at, "=")
		l, c := script.hookErrorPos(line, key, atValue)
		v.loadErr = &ScriptError{Script: name, Line: l, Col: c, Kind: ScriptHook, Msg: "hook{}: " + fmt.Sprintf(format, args...)}
		L.RaiseError("%s", v.loadErr.Msg)
	}
	if n := len(v.libStack); n > 0 {
		bad("", "cannot be called while library %q loads (a library may register hooks from a function the script calls)", v.libStack[n-1])
	}
	spec, ok := L.Get(1).(*lua.LTable)
	if !ok || L.GetTop() != 1 {
		bad("", "want one table argument, got %s", argTypes(L))
	}
	var unknown []string
	spec.ForEach(func(k, _ lua.LValue) {
		ks, ok := k.(lua.LString)
		if !ok || !slices.Contains(hookKeyList, string(ks)) {
			unknown = append(unknown, lua.LVAsString(L.ToStringMeta(k)))
		}
	})
	if len(unknown) > 0 {
		sort.Strings(unknown)
		bad(unknown[0], "unknown key %q%s", unknown[0], suggest.Hint(unknown[0], hookKeyList, nil))
	}
	h := Hook{Script: name, Line: line, Source: v.curSource, Timeout: v.pl.opts.DefaultTimeout}
	str := func(key string, required bool) (string, bool) {
		switch val := spec.RawGetString(key).(type) {
		case lua.LString:
			return string(val), true
		case *lua.LNilType:
			if required {
				bad("", "missing %s", key)
			}
			return "", false
		default:
			bad(key+"=", "%s: want a string, got %s", key, val.Type())
		}
		return "", false
	}
	evName, _ := str("event", true)
	ev, err := events.ParseEvent(evName)
	if err != nil {
		hint := ""
		if evName != "" {
			hint = suggest.Hint(evName, events.Names(), v.pl.opts.EventAlias)
		}
		bad("event=", "event: %v%s", err, hint)
	}
	h.Event = ev
	if n, ok := str("name", false); ok {
		if msg := badHookName(n); msg != "" {
			bad("name=", "name %q: %s", n, msg)
		}
		for _, o := range v.regs {
			if o.Source == v.curSource && o.Name == n {
				bad("name=", "name %q is already the name of the hook at line %d: a name identifies one hook of its script", n, o.Line)
			}
		}
		h.Name = n
	}
	if m, ok := str("matcher", false); ok && m != "" {
		re, err := compileRegexp(m)
		if err != nil {
			bad("matcher=", "matcher: %v", err)
		}
		h.Matcher, h.re = m, re
	}
	h.Kinds = v.hookKinds(spec.RawGetString("kind"), ev, bad)
	h.prefilter = hookPrefilter(spec.RawGetString("prefilter"), h.Kinds, bad)
	if oe, ok := str("onError", false); ok {
		switch oe {
		case "deny", "skip":
			h.OnError = oe
		default:
			bad("onError=", "onError: want \"deny\" or \"skip\", got %q", oe)
		}
	}
	switch t := spec.RawGetString("timeoutMs").(type) {
	case *lua.LNilType:
	case lua.LNumber:
		f := float64(t)
		if f != float64(int64(f)) || f < 1 || time.Duration(f)*time.Millisecond > MaxTimeout {
			bad("timeoutMs=", "timeoutMs: want an integer from 1 to %d, got %v", MaxTimeout.Milliseconds(), t)
		}
		h.Timeout = time.Duration(f) * time.Millisecond
		h.timeoutSet = true
	default:
		bad("timeoutMs=", "timeoutMs: want a number, got %s", t.Type())
	}
	fn, ok := spec.RawGetString("handler").(*lua.LFunction)
	if !ok {
		if spec.RawGetString("handler") == lua.LNil {
			bad("", "missing handler")
		}
		bad("handler=", "handler: want a function, got %s", spec.RawGetString("handler").Type())
	}
	v.regs = append(v.regs, h)
	v.handlers = append(v.handlers, v.directHandler(fn))
	return 0
}

// badHookName says what is wrong with the name of hook{ name = ... }, or "".
func badHookName(n string) string {
	switch {
	case n == "":
		return "want a non-empty string"
	case len(n) > MaxHookName:
		return fmt.Sprintf("longer than %d bytes", MaxHookName)
	case !utf8.ValidString(n):
		return "not UTF-8 text"
	}
	for _, r := range n {
		if unicode.IsControl(r) {
			return "holds a control character"
		}
	}
	return ""
}

// hookKinds reads the kind key of hook{}: a tool kind or a list of them,
// valid at the tool-scoped events only.
func (v *vm) hookKinds(val lua.LValue, ev events.Event, bad func(string, string, ...any)) []events.ToolKind {
	var names []lua.LValue
	switch val := val.(type) {
	case *lua.LNilType:
		return nil
	case lua.LString:
		names = append(names, val)
	case *lua.LTable:
		for i := 1; i <= val.Len() && i <= 64; i++ {
			names = append(names, val.RawGetInt(i))
		}
		if len(names) == 0 {
			bad("kind=", "kind: want a tool kind or a non-empty list of them")
		}
	default:
		bad("kind=", "kind: want a string or a list of strings, got %s", val.Type())
	}
	if !ev.Spec().Matcher {
		bad("kind=", "kind: %s is not tool-scoped (kind applies at BeforeTool, ApprovalRequest and AfterTool)", ev)
	}
	out := make([]events.ToolKind, 0, len(names))
	for _, n := range names {
		s, ok := n.(lua.LString)
		if !ok {
			bad("kind=", "kind: want a string or a list of strings, got a list holding %s", n.Type())
		}
		k, err := events.ParseToolKind(string(s))
		if err != nil {
			bad("kind=", "kind: %v", err)
		}
		out = append(out, k)
	}
	return out
}

// hookPrefilter reads the prefilter key of hook{}: a scan.any test or a
// keyword set, for a hook of kind "shell" only.
func hookPrefilter(val lua.LValue, kinds []events.ToolKind, bad func(string, string, ...any)) *scanTest {
	var t *scanTest
	switch x := val.(type) {
	case *lua.LNilType:
		return nil
	case *lua.LUserData:
		switch y := x.Value.(type) {
		case *scanTest:
			t = y
		case *kwSet:
			t = &scanTest{items: []testItem{{set: y}}, depth: 1}
		}
	}
	if t == nil {
		bad("prefilter=", "prefilter: want a scan.any test or a scan.keywords set, got %s", val.Type())
	}
	if len(kinds) != 1 || kinds[0] != events.ToolShell {
		bad("prefilter=", "prefilter: needs kind = \"shell\" (it searches the command of a shell call)")
	}
	return t
}

func argTypes(L *lua.LState) string {
	n := L.GetTop()
	if n == 0 {
		return "nothing"
	}
	var parts []string
	for i := 1; i <= n; i++ {
		parts = append(parts, L.Get(i).Type().String())
	}
	return strings.Join(parts, ", ")
}

// call runs hook i's handler; with withLogs it also returns what the
// handler logged. healthy reports whether the VM may be reused.
func (v *vm) call(ctx context.Context, i int, timeout time.Duration, in *events.Input, withLogs bool) (out events.Output, logs []LogEntry, healthy bool, err error) {
	v.keepLogs, v.logs = withLogs, nil
	defer func() {
		// A Go panic outside the handler's pcall (the input's conversion,
		// predictReads, a ToolViewer): the call fails and the VM, in an
		// unknown state, is discarded, instead of the panic leaving the
		// library and the VM lost to the pool.
		if r := recover(); r != nil {
			v.ctx.end()
			h := &v.pl.hooks[i]
			out, logs, healthy, err = events.Output{}, nil, false, h.fail(FailPanic, fmt.Sprintf("go panic: %v", r), nil)
			v.logs, v.keepLogs = nil, false
		}
	}()
	out, healthy, err = v.run(ctx, i, timeout, in)
	logs, v.logs, v.keepLogs = v.logs, nil, false
	return out, logs, healthy, err
}

// run is call without the logs.
func (v *vm) run(ctx context.Context, i int, timeout time.Duration, in *events.Input) (out events.Output, healthy bool, err error) {
	h := &v.pl.hooks[i]
	v.uses++
	v.curHook = i
	v.tainted = false
	L := v.L
	// The input's conversion counts against the call's time too.
	v.ctx.begin(v.pl.wd, ctx, timeout, uint64(max(v.pl.opts.MaxCallAlloc, 0)))
	predicted := v.predicted(i)
	arg, cerr := v.inputTable(in, &predicted)
	defer v.releaseInput()
	defer v.forgetOrigins()
	if cerr == nil {
		cerr = v.predictReads(predicted)
		defer v.learnReads(i)
	}
	if cerr != nil {
		if stopErr := v.ctx.end(); stopErr != nil {
			return out, true, h.fail(kindOfCtxErr(stopErr), "converting the input: "+stopErr.Error(), stopErr)
		}
		return out, true, h.fail(FailInput, cerr.Error(), cerr)
	}
	L.SetContext(&v.ctx)
	v.inHandler = true
	ret, perr, panicked := v.pcall(v.handlers[i], arg, 1)
	v.inHandler = false
	L.RemoveContext()
	defer v.forgetOutput()
	// Convert what the handler returned or raised while the watchdog still
	// watches the call: the conversions poll its stop flag.
	var msg string
	var val any
	var oerr error
	switch {
	case perr != nil:
		msg, val = v.errorMessage(perr)
	case ret != lua.LNil:
		out, oerr = v.readOutput(ret)
	}
	stopErr, longCall := v.ctx.finish()
	if panicked {
		return events.Output{}, false, h.fail(FailPanic, "go panic: "+msg, perr)
	}
	if stopErr != nil {
		// Whatever the handler did after the stop (pcall catching it,
		// another error), the call ran out of time or budget.
		return events.Output{}, false, h.fail(kindOfCtxErr(stopErr), stopErr.Error(), stopErr)
	}
	healthy = !v.tainted && L.GetTop() == 0
	if healthy {
		if err := v.checkRetained(longCall); err != nil {
			return events.Output{}, false, h.fail(FailMemory, err.Error(), err)
		}
	}
	if perr != nil {
		he := h.fail(FailError, msg, nil)
		he.Value = val
		// A Lua error unwinds cleanly through gopher-lua's PCall; the
		// VM is kept unless the error says an internal limit was hit.
		if strings.Contains(msg, "stack overflow") || strings.Contains(msg, "registry overflow") {
			healthy = false
		}
		return out, healthy, he
	}
	if oerr != nil {
		return events.Output{}, healthy, h.fail(FailOutput, oerr.Error(), oerr)
	}
	return out, healthy, nil
}

// log records one entry for the current call and sends it to the logger.
func (v *vm) log(level slog.Level, msg string, fields map[string]any, line int) {
	script := ""
	if v.loading {
		script = v.pl.srcs[v.curSource].script.name
	} else if v.curHook >= 0 && v.curHook < len(v.pl.hooks) {
		script = v.pl.hooks[v.curHook].Script
	}
	if lg := v.pl.opts.Logger; lg.Enabled(context.Background(), level) {
		attrs := make([]slog.Attr, 0, 2+len(fields))
		attrs = append(attrs, slog.String("script", script), slog.Int("line", line))
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			attrs = append(attrs, slog.Any(k, fields[k]))
		}
		lg.LogAttrs(context.Background(), level, msg, attrs...)
	}
	if v.keepLogs && len(v.logs) < MaxLogEntries {
		v.logs = append(v.logs, LogEntry{Level: level, Msg: msg, Fields: fields, Script: script, Line: line})
	}
}
