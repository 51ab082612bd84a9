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

// MCPTable returns the specs of the MCP table, in its order, and the
// unless fields of each.
func MCPTable() ([]Spec, [][]string) {
	specs := make([]Spec, len(mcpTable))
	unless := make([][]string, len(mcpTable))
	for i, e := range mcpTable {
		specs[i], unless[i] = e.spec.clone(), e.unless
	}
	return specs, unless
}

// MaxSeen is maxSeen.
const MaxSeen = maxSeen

// SeenNames returns how many names t remembers.
func SeenNames(t *Table) int { return len(*t.seen.Load()) }
