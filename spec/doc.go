// Package spec runs the lifecycle-hooks contract as data: TOML spec cases
// (see spec/README.md) that name hooks, inputs and the expected results and
// audit. `go test ./spec` runs every case under spec/cases; `monad-hooks
// test` runs the same cases, and users' own, through the same [Runner].
//
// The package also carries the JSON Schema documents of HookInput and
// HookOutput ([InputSchema], [OutputSchema]).
//
// A Runner is safe for concurrent use; each case gets its own engine and
// sandbox directory, and results are reported in file and case order.
package spec
