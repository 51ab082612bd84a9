package tools

// Compiles returns how many specs have been compiled in the process.
func Compiles() int64 { return compiles.Load() }
