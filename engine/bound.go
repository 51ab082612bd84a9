package engine

import "github.com/monad-hooks/monad-hooks/events"

// The bounds of what a hook hands to the host live here, in one place for
// every kind of hook (Go, Lua, command, a command read through a host
// adapter): fold bounds each hook's output with boundOutput, and every
// join of contexts (the hooks' of one dispatch, the SessionStart stash)
// goes through joinContext. The bounds are events.MaxReasonSize,
// events.MaxContextSize and events.MaxModelSize.

// boundOutput cuts the reasons and the context of o, one hook's output as
// its event honours it, to their bounds (events.CutText) and returns the
// names of the fields it cut. The decision is left alone: a deny with a cut
// reason is a deny. o.ContinueWork is replaced, never modified (the hook
// may share it).
func boundOutput(o *events.Output) (cut []string) {
	if len(o.Reason) > events.MaxReasonSize {
		o.Reason = events.CutText(o.Reason, events.MaxReasonSize)
		cut = append(cut, "reason")
	}
	if len(o.AdditionalContext) > events.MaxContextSize {
		o.AdditionalContext = events.CutText(o.AdditionalContext, events.MaxContextSize)
		cut = append(cut, "additionalContext")
	}
	if cw := o.ContinueWork; cw != nil && len(cw.Reason) > events.MaxReasonSize {
		o.ContinueWork = &events.ContinueWork{Reason: events.CutText(cw.Reason, events.MaxReasonSize)}
		cut = append(cut, "continueWork")
	}
	return cut
}

// joinContext joins two contexts with a blank line, bounded: a join over
// events.MaxContextSize keeps its first events.MaxContextSize bytes, ending
// in CutText's marker, and reports cut.
func joinContext(a, b string) (joined string, cut bool) {
	switch {
	case a == "":
		joined = b
	case b == "":
		joined = a
	default:
		joined = a + "\n\n" + b
	}
	if len(joined) <= events.MaxContextSize {
		return joined, false
	}
	return events.CutText(joined, events.MaxContextSize), true
}
