package pwsh

// Steps runs the parser and returns the steps it took (the linearity
// tests count them).
func Steps(line string, opts Options, cmd bool) int {
	_, n, _ := run(line, opts, cmd)
	return n
}
