package syntax

import (
	"sort"
	"strconv"
	"strings"
)

// render shows a command compactly: "^DEPTH:VIA " when nested,
// "[NAME=value ...] " for assignments, the words (quoted when they hold a
// blank or are empty), each redirection as FDOPtarget (a here-document's
// body in braces), the operator, and "!" when malformed.
func render(c Command) string {
	var parts []string
	if c.Depth > 0 || c.Via != "" {
		parts = append(parts, "^"+strconv.Itoa(c.Depth)+":"+c.Via)
	}
	if len(c.Assigns) > 0 {
		var as []string
		for k, v := range c.Assigns {
			as = append(as, k+"="+quoteIf(v))
		}
		sort.Strings(as)
		parts = append(parts, "["+strings.Join(as, " ")+"]")
	}
	for _, w := range c.Words {
		parts = append(parts, quoteIf(w))
	}
	for _, r := range c.Redirects {
		s := r.Fd + r.Op + quoteIf(r.Target)
		if r.Op == "<<" || r.Op == "<<-" {
			s += "{" + strconv.Quote(r.Body) + "}"
		}
		parts = append(parts, s)
	}
	if c.Op != "" {
		parts = append(parts, c.Op)
	}
	if c.Malformed {
		parts = append(parts, "!")
	}
	return strings.Join(parts, " ")
}

func renderAll(cmds []Command) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = render(c)
	}
	return out
}

func quoteIf(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\"") {
		return strconv.Quote(s)
	}
	return s
}
