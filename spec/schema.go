package spec

import (
	"bytes"
	_ "embed"
)

//go:embed schema/input.schema.json
var inputSchema []byte

//go:embed schema/output.schema.json
var outputSchema []byte

// InputSchema returns the JSON Schema (draft 2020-12) of a HookInput. It
// states the rules events.DecodeInput applies; a test keeps the two in
// agreement. The caller owns the returned bytes.
func InputSchema() []byte { return bytes.Clone(inputSchema) }

// OutputSchema returns the JSON Schema (draft 2020-12) of a HookOutput. It
// states the rules events.DecodeOutput applies; a test keeps the two in
// agreement. The caller owns the returned bytes.
func OutputSchema() []byte { return bytes.Clone(outputSchema) }
