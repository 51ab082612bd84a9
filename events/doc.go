// Package events defines the lifecycle-hook contract: the thirteen events an
// agent runtime fires, the [Input] a hook receives, the [Output] it may
// return, and what each event lets a hook do (its [Spec], the capability
// table).
//
// The package imports nothing of this module. Everything in it is a plain
// value: safe for concurrent use as long as callers do not mutate shared
// values.
//
// # Validation
//
// [DecodeInput] and [DecodeOutput] decode JSON exactly as the contract
// spells it: keys are case-sensitive, unknown keys are ignored, a value of
// the wrong type or an unknown decision is an error, and JSON null is the
// same as an absent field. The JSON Schema documents in spec/ state the same
// rules, and a test keeps the two in agreement.
//
// # Capabilities
//
// [Event.Spec] returns the row of the capability table: whether the event's
// hooks run serially (chaining rewrites) or in parallel, which decisions and
// which Output fields it honours, and whether a hook's matcher applies.
// [Spec.Filter] drops what an event does not honour.
//
// # Bounds
//
// [MaxReasonSize], [MaxContextSize] and [MaxModelSize] bound the texts an
// Output hands to the host; [CutText] cuts a text to its bound with a
// marker. The engine applies them to every hook's output.
package events
