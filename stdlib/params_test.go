package stdlib_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

// TestParamChecksAgree: the Go check (ValidateParams, at configuration
// load) and the Lua one (monad.params, as the pack loads) read the same
// declaration, and accept and refuse the same values.
func TestParamChecksAgree(t *testing.T) {
	libs := libraries(t)
	files := embeddedRules(t)
	samples := []any{
		"x", "^(a|b)$", "(", "", true, json.Number("2.5"), int64(3),
		[]any{}, []any{"a", "b"}, []any{"a", 1}, []any{"("}, []string{"x"},
		map[string]any{}, map[string]any{"a": "b"}, nil,
	}
	for _, info := range stdlib.Packs() {
		script := compilePack(t, info)
		params := []string{"notAParam"}
		for _, q := range info.Params {
			params = append(params, q.Name)
			// every choice of an enumeration, and a list of all of them
			if typ := strings.TrimPrefix(q.Type, "[]"); strings.Contains(typ, "|") {
				var all []any
				for _, c := range strings.Split(typ, "|") {
					samples = append(samples, c)
					all = append(all, c)
				}
				samples = append(samples, all)
			}
		}
		for _, name := range params {
			for _, v := range samples {
				with := map[string]any{name: v}
				goErr := stdlib.ValidateParams(info.Name, with)
				if info.Rules {
					goErr = stdlib.ValidateRuleParams(info.Name, files, with)
				}
				p, luaErr := luaapi.NewPool(context.Background(), []luaapi.Source{{Script: script, Params: with}}, luaapi.Options{Home: testHome, Libraries: libs, PoolSize: 1, DefaultTimeout: testLuaTimeout})
				if luaErr == nil {
					p.Close()
				}
				if (goErr == nil) != (luaErr == nil) {
					t.Errorf("%s %s = %s: Go says %v, Lua says %v", info.Name, name, show(v), goErr, luaErr)
				}
			}
		}
	}
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return fmt.Sprintf("%s (%T)", b, v)
}
