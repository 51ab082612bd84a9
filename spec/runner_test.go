package spec_test

import (
	"testing"

	"github.com/monad-hooks/monad-hooks/spec"
)

func newRunner(t *testing.T) *spec.Runner {
	return &spec.Runner{TempDir: func() (string, error) { return t.TempDir(), nil }, Extra: extraOptions}
}
