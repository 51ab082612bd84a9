package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/stretchr/testify/require"
)

// TestRedactorsFailClosed: every hook of the stdlib redactors has onError:
// deny, so that a redactor that fails withholds the payload (or denies at
// BeforeModel) instead of letting it through.
func TestRedactorsFailClosed(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.New(ctx, testLuaPool, engine.WithFiles(engine.Files{Stdlib: []engine.Pack{{Name: "redact-secrets"}, {Name: "redact-pii"}}}))
	require.NoError(t, err)
	defer eng.Close()
	n := 0
	for _, h := range eng.Plan(ctx) {
		if strings.Contains(h.ID, "stdlib:redact-") {
			require.Equal(t, "deny", h.OnError, "%s at %s", h.ID, h.Event)
			n++
		}
	}
	require.GreaterOrEqual(t, n, 8)
}
