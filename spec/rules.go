package spec

import (
	"path/filepath"

	"github.com/monad-hooks/monad-hooks/stdlib"
)

// RuleCases turns the cases a rule file carries into a spec File that the
// Runner runs like any other: one case per rule, loading only the rule file
// (data, named name in the case's root), with one step per command: each
// match command must get the rule's decision with a reason that names the
// rule, each pass command no decision at all. The File's Path is path.
func RuleCases(path, name string, data []byte, f *stdlib.RuleFile) *File {
	out := &File{Path: path, Description: "the cases of the rules of family " + f.Family}
	base := filepath.Base(name)
	for _, r := range f.Rules {
		c := Case{
			Name:  r.ID,
			Files: map[string]string{base: string(data)},
			Lua:   []string{base},
		}
		for _, cmd := range r.Match {
			decision := r.Decision
			c.Steps = append(c.Steps, Step{
				Name:  "match " + cmd,
				Event: "BeforeTool",
				Input: map[string]any{"toolName": "bash", "toolInput": map[string]any{"command": cmd}},
				Want:  Want{Decision: &decision, ReasonContains: "[" + r.ID + "]"},
			})
		}
		for _, cmd := range r.Pass {
			none := ""
			c.Steps = append(c.Steps, Step{
				Name:  "pass " + cmd,
				Event: "BeforeTool",
				Input: map[string]any{"toolName": "bash", "toolInput": map[string]any{"command": cmd}},
				Want:  Want{Decision: &none},
			})
		}
		out.Cases = append(out.Cases, c)
	}
	return out
}
