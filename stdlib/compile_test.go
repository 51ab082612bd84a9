package stdlib_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/stdlib"
)

// TestPacksCompileAndLoad loads every pack with its defaults through the
// engine, and checks that it registers hooks only at the events its header
// lists.
func TestPacksCompileAndLoad(t *testing.T) {
	for _, info := range stdlib.Packs() {
		p, err := loadPack(t, info.Name, nil)
		require.NoError(t, err, "load %s", info.Name)
		hooks := p.hooks()
		assert.NotEmpty(t, hooks, "%s registers no hook", info.Name)
		for _, h := range hooks {
			assert.True(t, slices.Contains(info.Events, h.Event.String()),
				"%s registers a hook at %s, which its header does not list (%v)", info.Name, h.Event, info.Events)
		}
	}
}
