package luaapi

import (
	"slices"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestBoxedInts: the literal boxedInts holds the integers 0 to 255.
func TestBoxedInts(t *testing.T) {
	for i, v := range boxedInts {
		if v != lua.LNumber(i) {
			t.Errorf("boxedInts[%d] = %v", i, v)
		}
	}
}

// TestModuleBuildersSorted: ModuleNames is sorted because the table is.
func TestModuleBuildersSorted(t *testing.T) {
	names := ModuleNames()
	if !slices.IsSorted(names) || len(names) != len(moduleBuilders) {
		t.Errorf("ModuleNames() = %v", names)
	}
	for _, n := range names {
		if !isModuleName(n) {
			t.Errorf("isModuleName(%q) is false", n)
		}
	}
	if isModuleName("os") || isModuleName("") {
		t.Error("isModuleName accepts what is no host module")
	}
}
