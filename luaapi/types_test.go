package luaapi

import (
	"context"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	lua "github.com/yuin/gopher-lua"
)

// classFields returns the ---@field names of a ---@class block.
func classFields(t *testing.T, class string) map[string]bool {
	t.Helper()
	re := regexp.MustCompile(`(?m)^---@class (?:\(exact\) )?` + regexp.QuoteMeta(class) + `\n((?:---@field .*\n)*)`)
	m := re.FindStringSubmatch(TypeDefinitions)
	if m == nil {
		t.Fatalf("no class %s in the type definitions", class)
	}
	out := map[string]bool{}
	for _, f := range regexp.MustCompile(`---@field (\w+)`).FindAllStringSubmatch(m[1], -1) {
		out[f[1]] = true
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestTypeDefinitionsInStep(t *testing.T) {
	if _, err := Compile("monad-hooks.d.lua", []byte(TypeDefinitions)); err != nil {
		t.Fatalf("the definitions are not valid Lua: %v", err)
	}
	// Every module function registered in Go is declared, and vice versa.
	p := newTestPool(t, Options{}, "t.lua", "hook{event='BeforeTool', handler=function() end}")
	v, _, err := p.get(context.Background(), DefaultTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer p.put(v, true)
	declared := map[string]map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^function (\w+)\.(\w+)\(`).FindAllStringSubmatch(TypeDefinitions, -1) {
		if declared[m[1]] == nil {
			declared[m[1]] = map[string]bool{}
		}
		declared[m[1]][m[2]] = true
	}
	for _, name := range ModuleNames() {
		real := map[string]bool{}
		v.unwrap(v.modules[name].(*lua.LTable)).ForEach(func(k, val lua.LValue) {
			if val.Type() == lua.LTFunction {
				real[k.String()] = true
			}
		})
		if !reflect.DeepEqual(real, declared[name]) {
			t.Errorf("module %s: Go has %v, the definitions %v", name, sortedKeys(real), sortedKeys(declared[name]))
		}
		if !strings.Contains(TypeDefinitions, `---@overload fun(name: "`+name+`"): `+name) {
			t.Errorf("require overload for %s missing", name)
		}
		delete(declared, name)
	}
	if len(declared) > 0 {
		t.Errorf("declared modules Go does not have: %v", declared)
	}
	if !classFields(t, "json")["null"] {
		t.Error("json.null not declared")
	}
	// The input and output tables have the contract's field names.
	in := classFields(t, "HookInput")
	if want := map[string]bool{}; true {
		for _, f := range InputFields() {
			want[f] = true
		}
		if !reflect.DeepEqual(in, want) {
			t.Errorf("HookInput fields %v, want %v", sortedKeys(in), sortedKeys(want))
		}
	}
	for _, typ := range []struct {
		class string
		v     any
	}{{"HookInput", events.Input{}}, {"HookOutput", events.Output{}}, {"HookCaller", events.Caller{}}, {"HookCompaction", events.Compaction{}}, {"HookContinueWork", events.ContinueWork{}}} {
		fields := classFields(t, typ.class)
		want := map[string]bool{}
		rt := reflect.TypeOf(typ.v)
		for i := 0; i < rt.NumField(); i++ {
			want[strings.Split(rt.Field(i).Tag.Get("json"), ",")[0]] = true
		}
		if !reflect.DeepEqual(fields, want) {
			t.Errorf("%s fields %v, want %v", typ.class, sortedKeys(fields), sortedKeys(want))
		}
	}
	out := classFields(t, "HookOutput")
	for _, k := range outputKeys {
		if !out[k] {
			t.Errorf("HookOutput lacks %s", k)
		}
	}
	// hook{} keys and event names.
	spec := classFields(t, "HookSpec")
	hookKeys := map[string]bool{}
	for _, k := range hookKeyList {
		hookKeys[k] = true
	}
	if !reflect.DeepEqual(spec, hookKeys) {
		t.Errorf("HookSpec fields %v, want %v", sortedKeys(spec), sortedKeys(hookKeys))
	}
	for _, e := range events.All() {
		if !strings.Contains(TypeDefinitions, `"`+e.String()+`"`) {
			t.Errorf("event %s not in HookEvent", e)
		}
	}
}
