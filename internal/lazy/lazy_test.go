package lazy_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/monad-hooks/monad-hooks/internal/lazy"
)

var (
	calls  int
	answer = lazy.Value[int]{F: func() int { calls++; return 42 }}
	failed = lazy.Values[string]{F: func() (string, error) { return "x", errors.New("no") }}
	word   = lazy.Regexp{Expr: `^[a-z]+$`}
)

// TestLazy: a value is computed once, on its first Get, by concurrent
// callers alike.
func TestLazy(t *testing.T) {
	assert.Zero(t, calls, "nothing computed before the first Get")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.Equal(t, 42, answer.Get())
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, calls)
	v, err := failed.Get()
	assert.Equal(t, "x", v)
	assert.EqualError(t, err, "no")
	assert.True(t, word.Get().MatchString("abc"))
	assert.Same(t, word.Get(), word.Get())
	bad := lazy.Regexp{Expr: `(`}
	assert.Panics(t, func() { bad.Get() })
}
