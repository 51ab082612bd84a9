package tools

// Compiles returns how many specs have been compiled in the process.
func Compiles() int64 { return compiles.Load() }

// TableAgents returns the agents of the built-in table in its own order.
func TableAgents() []string {
	out := make([]string, len(agentTable))
	for i, a := range agentTable {
		out[i] = a.agent
	}
	return out
}
