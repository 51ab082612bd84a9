package spec_test

import (
	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/spec"
)

// extraOptions wires files, Lua, stdlib and command hooks into a case's
// engine: the same wiring `monad-hooks test` uses.
var extraOptions func(c *spec.Case, root string, gen spec.Generated) ([]engine.Option, error) = spec.FileOptions
