package stdlib_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"
)

// TestPacksCompileAndLoad compiles every pack and loads it with its defaults.
func TestPacksCompileAndLoad(t *testing.T) {
	for _, info := range stdlib.Packs() {
		src, err := fs.ReadFile(stdlib.FS(), info.Script)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := luaapi.Compile(info.Script, src); err != nil {
			t.Errorf("compile %s: %v", info.Name, err)
			continue
		}
		p, err := loadPack(t, info.Name, nil)
		if errors.Is(err, errMissingModule) {
			t.Logf("%s: not loaded: %v", info.Name, err)
			continue
		}
		if err != nil {
			t.Errorf("load %s: %v", info.Name, err)
			continue
		}
		var got []string
		for _, h := range p.hooks {
			got = append(got, h.Event.String())
		}
		for _, e := range got {
			found := false
			for _, w := range info.Events {
				found = found || w == e
			}
			if !found {
				t.Errorf("%s registers a hook at %s, which its header does not list (%v)", info.Name, e, info.Events)
			}
		}
	}
}
