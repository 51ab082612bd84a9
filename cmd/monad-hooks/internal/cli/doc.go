// Package cli implements the monad-hooks command line: [Run] parses the
// arguments, runs one command and returns the exit code. The manual is the
// package comment of cmd/monad-hooks.
//
// Run reads and writes only the streams and [Env] it is given, so tests call
// it with buffers, in parallel; main only wires the process to it.
package cli
