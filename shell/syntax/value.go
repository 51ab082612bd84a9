package syntax

// Values returns commands in the shape the Lua module shell hands to
// scripts: a list of Command.Value maps. It is the one definition of that
// shape (see "Wiring" in the package documentation); the maps hold only
// strings, ints, bools, []any and map[string]any, so a converter of
// free-form values turns them into Lua tables.
func Values(cmds []Command) []any {
	out := make([]any, len(cmds))
	for i, c := range cmds {
		out[i] = c.Value()
	}
	return out
}

// Value returns the command as a free-form map with the keys words (a
// list of strings), op, redirects (a list of Redirect.Value maps), assigns
// (NAME -> value, empty when there are none), depth, via and malformed.
// Every key is always present.
func (c Command) Value() map[string]any {
	reds := make([]any, len(c.Redirects))
	for i, r := range c.Redirects {
		reds[i] = r.Value()
	}
	assigns := make(map[string]any, len(c.Assigns))
	for k, v := range c.Assigns {
		assigns[k] = v
	}
	return map[string]any{
		"words":     WordsValue(c.Words),
		"op":        c.Op,
		"redirects": reds,
		"assigns":   assigns,
		"depth":     c.Depth,
		"via":       c.Via,
		"malformed": c.Malformed,
	}
}

// Value returns the redirection as a free-form map with the keys op, fd
// and target, and body for a here-document (op "<<" or "<<-") only.
func (r Redirect) Value() map[string]any {
	m := map[string]any{"op": r.Op, "fd": r.Fd, "target": r.Target}
	if r.Op == "<<" || r.Op == "<<-" {
		m["body"] = r.Body
	}
	return m
}

// WordsValue returns words as a free-form list (the shape of shell.split
// and shell.unwrap results, and of a command's words).
func WordsValue(words []string) []any {
	out := make([]any, len(words))
	for i, w := range words {
		out[i] = w
	}
	return out
}
