package events

// Names returns the names of the thirteen events in firing order. The caller
// owns the returned slice.
func Names() []string {
	out := make([]string, 0, Count-1)
	for _, e := range All() {
		out = append(out, e.String())
	}
	return out
}
