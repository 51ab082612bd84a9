package syntax

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	sh "mvdan.cc/sh/v3/syntax"
)

// A differential test against mvdan.cc/sh/v3 (a test-only dependency), the
// reference Go parser of shell, on well-formed lines: those it parses in
// bash mode without error.
//
// What is compared, per line: the simple commands each parser finds, each
// rendered as its assignments (NAME=value) and its words, where
//   - a word (or an assignment's value) is compared only when it is
//     literal in mvdan's tree: made of unquoted text, '...' and "..." with
//     no expansion inside; any other word (with $VAR, ${...}, $(...),
//     `...`, $((...)), <(...), $'...', an extended glob) only counts, its
//     text is not compared, since this package keeps expansions as
//     written and mvdan parses them;
//   - commands are those of the line and of what its words run: command
//     and process substitutions, ( ) and { } groups, here-document bodies
//     with an unquoted delimiter, if/while/until/for/case bodies and
//     function bodies. The commands this package finds by parsing the
//     argument of sh -c, eval, ssh and the like are left out: mvdan does
//     not parse strings. A for or select loop counts as a command of one
//     assignment, the loop variable bound to its first value (see
//     Command.Assigns); a declaration (export, declare, local, readonly,
//     typeset) as a command whose words are the keyword and its arguments;
//     a statement of redirections only as a command without words;
//   - the commands at depth 0 must come in the same order; all commands,
//     those of substitutions and groups included, must be the same
//     multiset (this package lists the commands inside a command's words
//     after its pipeline, mvdan where they are written).
//
// Lines with a construct this package does not list as commands ([[ ]],
// (( )), let, coproc, C-style for) are not compared; each is counted. A
// line that mvdan accepts and this package flags as malformed, or whose
// commands differ, is a failure, unless it is in oracleDifferences below.

// oracleDifferences are the well-formed lines on which the two parsers
// deliberately differ, with the reason.
var oracleDifferences = map[string]string{
	"cat <<EOF\n$(cat <<EOF\ny\nEOF\n)\nEOF\n": "mvdan reads the inner here-document inside the $( ) of the outer one's body; " +
		"bash (5.2) ends the outer body at the first EOF line and rejects the line, and this package flags it malformed",
	// NAME[INDEX]=value: an array element's assignment is listed as a
	// command word (Assigns hold plain names); deny-destructive reads such
	// a word as the element's assignment
	"xs=(a b); xs[1]='/'; rm -rf \"${xs[1]}\"":   "an array element's assignment is a word here",
	"xs=(a); xs[7]=/etc; rm -rf \"${xs[7]}\"":    "an array element's assignment is a word here",
	"xs=(a b); xs[1]=./tmp; rm -rf \"${xs[1]}\"": "an array element's assignment is a word here",
}

// oracleEdgeCases are lines written for the comparison: corners of the
// grammar, and the lines of past disagreements.
var oracleEdgeCases = []string{
	"cat <<EOF\n$(cat <<EOF\ny\nEOF\n)\nEOF\n",
	// A here-document's body read inside a group opened later on its line.
	"cat <<E | f() { sudo\nline \"$(rm y)\"\nE\nls; }",
	"cat <<E | { a\n$(rm y) `id`\nE\nb; }",
	// A for list with process substitutions.
	"for v in <(ls) a >(wc); do :; done",
	"case x in (a) ls;; (b|c) rm -rf /;; esac",
	"echo a#b # c",
	"time -p ls && ! grep x f",
	"ls 2>&1 >/dev/null; exec 3>&- 4<&0",
	"exec {fd}>log",
	"echo $'a\\tb' $\"x y\" a\"b\"'c'",
	"x+=1 y=2 cmd a=b",
	"export A=1 B; declare -x C=2; local D; readonly E=3; typeset F",
	"f() ( rm x ); function g { ls; }; function h() { ls; }",
	"while read -r l; do echo \"$l\"; done < <(ls) | sort",
	"a=$(b=$(c)) d",
	"echo \"$(echo \"$(id)\")\" `date`",
	"cat <<'Q' <<-R\n$(no)\nQ\n\t$(yes)\n\tR\n",
	"if a; then b; elif c; then d; else e; fi > out",
	"until false; do :; done &",
	"select x in a b; do break; done",
	"{ a; } 2>/dev/null | ( b )",
	"echo {a,b}c ~/x *.go ?.c [ab]",
	"sudo -u root sh -c 'rm -rf /' && bash -c \"echo \\\"$(id)\\\"\"",
}

// oracleCommand is one command as compared.
type oracleCommand struct {
	depth   int
	assigns []string // NAME=value or NAME=? sorted
	words   []string // "?" for a word that is not compared
}

func (c oracleCommand) String() string {
	s := strings.Join(c.words, " ")
	if len(c.assigns) > 0 {
		s = "[" + strings.Join(c.assigns, " ") + "] " + s
	}
	if c.depth > 0 {
		s = fmt.Sprintf("^%d:%s", c.depth, s)
	}
	return "(" + s + ")"
}

// oracleWalker collects mvdan's commands.
type oracleWalker struct {
	out         []oracleCommand
	unsupported string
}

func (w *oracleWalker) stmts(list []*sh.Stmt, depth int) {
	for _, s := range list {
		w.stmt(s, depth)
	}
}

func (w *oracleWalker) stmt(s *sh.Stmt, depth int) {
	if s == nil {
		return
	}
	if s.Cmd == nil && len(s.Redirs) > 0 {
		w.out = append(w.out, oracleCommand{depth: depth})
	}
	w.command(s.Cmd, depth)
	for _, r := range s.Redirs {
		w.redirect(r, depth)
	}
}

func (w *oracleWalker) command(cmd sh.Command, depth int) {
	switch c := cmd.(type) {
	case nil:
	case *sh.CallExpr:
		oc := oracleCommand{depth: depth}
		last := map[string]string{} // Command.Assigns is a map: the last one wins
		for _, a := range c.Assigns {
			name, _, _ := strings.Cut(assignText(a), "=")
			last[name] = assignText(a)
			w.substs(a, depth)
		}
		for _, a := range last {
			oc.assigns = append(oc.assigns, a)
		}
		sort.Strings(oc.assigns)
		for _, a := range c.Args {
			oc.words = append(oc.words, wordText(a))
			w.substs(a, depth)
		}
		w.out = append(w.out, oc)
	case *sh.DeclClause:
		oc := oracleCommand{depth: depth, words: []string{c.Variant.Value}}
		for _, a := range c.Args {
			switch {
			case a.Naked && a.Name != nil:
				oc.words = append(oc.words, a.Name.Value)
			case a.Naked:
				oc.words = append(oc.words, wordText(a.Value))
			default:
				oc.words = append(oc.words, assignText(a))
			}
			w.substs(a, depth)
		}
		w.out = append(w.out, oc)
	case *sh.BinaryCmd:
		w.stmt(c.X, depth)
		w.stmt(c.Y, depth)
	case *sh.Subshell:
		w.stmts(c.Stmts, depth+1)
	case *sh.Block:
		w.stmts(c.Stmts, depth+1)
	case *sh.IfClause:
		for ; c != nil; c = c.Else {
			w.stmts(c.Cond, depth)
			w.stmts(c.Then, depth)
		}
	case *sh.WhileClause:
		w.stmts(c.Cond, depth)
		w.stmts(c.Do, depth)
	case *sh.ForClause:
		// A loop over a list of words binds its variable to the first;
		// for x; and for ((...)) bind nothing.
		if it, ok := c.Loop.(*sh.WordIter); ok && len(it.Items) > 0 {
			w.out = append(w.out, oracleCommand{depth: depth, assigns: []string{it.Name.Value + "=" + wordText(it.Items[0])}})
			for _, item := range it.Items {
				w.substs(item, depth)
			}
		} else if ok {
			// no list
		} else {
			w.substs(c.Loop, depth)
		}
		if c.Braces {
			depth++ // for x in a; { ...; } has a group for its body
		}
		w.stmts(c.Do, depth)
	case *sh.CaseClause:
		w.substs(c.Word, depth)
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				w.substs(p, depth)
			}
			w.stmts(item.Stmts, depth)
		}
	case *sh.FuncDecl:
		// A function's body is a compound command: a { } or ( ) group.
		w.stmt(c.Body, depth)
	case *sh.TimeClause:
		w.stmt(c.Stmt, depth)
	case *sh.TestClause:
		w.unsupported = "[[ ]]"
	case *sh.ArithmCmd:
		w.unsupported = "(( ))"
	case *sh.LetClause:
		w.unsupported = "let"
	case *sh.CoprocClause:
		w.unsupported = "coproc"
	default:
		w.unsupported = fmt.Sprintf("%T", cmd)
	}
}

func (w *oracleWalker) redirect(r *sh.Redirect, depth int) {
	if r.Word != nil {
		w.substs(r.Word, depth)
	}
	if r.Hdoc != nil {
		w.substs(r.Hdoc, depth)
	}
}

// substs walks the commands of the substitutions inside node (a word, an
// assignment; not nil), one level deeper.
func (w *oracleWalker) substs(node sh.Node, depth int) {
	sh.Walk(node, func(n sh.Node) bool {
		switch n := n.(type) {
		case *sh.CmdSubst:
			w.stmts(n.Stmts, depth+1)
			return false
		case *sh.ProcSubst:
			w.stmts(n.Stmts, depth+1)
			return false
		}
		return true
	})
}

// wordText is a word's text when it is literal, "?" otherwise.
func wordText(word *sh.Word) string {
	if word == nil {
		return ""
	}
	var b strings.Builder
	for _, part := range word.Parts {
		switch p := part.(type) {
		case *sh.Lit:
			b.WriteString(unescape(p.Value, false))
		case *sh.SglQuoted:
			if p.Dollar {
				return "?"
			}
			b.WriteString(p.Value)
		case *sh.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*sh.Lit)
				if !ok {
					return "?"
				}
				b.WriteString(unescape(lit.Value, true))
			}
		default:
			return "?"
		}
	}
	return b.String()
}

// unescape removes the backslashes the shell removes: before any
// character outside double quotes, before $ ` " \ and newline inside; a
// backslash-newline disappears.
func unescape(s string, dq bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		c := s[i+1]
		if dq && !strings.ContainsRune("$`\"\\\n", rune(c)) {
			b.WriteByte('\\')
			continue
		}
		i++
		if c != '\n' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func assignText(a *sh.Assign) string {
	name := ""
	if a.Name != nil {
		name = a.Name.Value
	}
	if a.Index != nil || a.Array != nil {
		return name + "=?"
	}
	return name + "=" + wordText(a.Value)
}

// ourCommands renders this package's commands as compared, leaving out
// those parsed from command strings (Via a command name) and everything
// nested in them.
func ourCommands(cmds []Command) []oracleCommand {
	var out []oracleCommand
	skipBelow := -1 // while >= 0: skip commands deeper than this
	for _, c := range cmds {
		if skipBelow >= 0 && c.Depth > skipBelow {
			continue
		}
		skipBelow = -1
		switch c.Via {
		case "", "$(", "`", "<(", ">(", "(", "{":
		default:
			skipBelow = c.Depth - 1
			continue
		}
		oc := oracleCommand{depth: c.Depth, words: slices.Clone(c.Words)}
		for k, v := range c.Assigns {
			oc.assigns = append(oc.assigns, k+"="+v)
		}
		sort.Strings(oc.assigns)
		out = append(out, oc)
	}
	return out
}

// sameCommand compares, "?" matching any word or value.
func sameCommand(ours, theirs oracleCommand) bool {
	match := func(a, b []string) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			x, y := a[i], b[i]
			if name, val, ok := strings.Cut(y, "="); ok && val == "?" {
				if xn, _, _ := strings.Cut(x, "="); xn == name {
					continue
				}
			}
			if y != "?" && x != y {
				return false
			}
		}
		return true
	}
	return ours.depth == theirs.depth && match(ours.words, theirs.words) && match(ours.assigns, theirs.assigns)
}

// compareWithOracle returns "" when the parsers agree on line, a reason
// for leaving it out (skip), or a description of the disagreement.
func compareWithOracle(line string) (skip, diff string) {
	f, err := sh.NewParser(sh.Variant(sh.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return "mvdan rejects", ""
	}
	var w oracleWalker
	w.stmts(f.Stmts, 0)
	if w.unsupported != "" {
		return w.unsupported, ""
	}
	cmds, err := Commands(line, Options{})
	if err != nil {
		return "over a limit", ""
	}
	for _, c := range cmds {
		if c.Malformed {
			return "", fmt.Sprintf("flagged malformed: %q", render(c))
		}
	}
	ours, theirs := ourCommands(cmds), w.out
	var top0, top1 []oracleCommand
	for _, c := range ours {
		if c.depth == 0 {
			top0 = append(top0, c)
		}
	}
	for _, c := range theirs {
		if c.depth == 0 {
			top1 = append(top1, c)
		}
	}
	if !slices.EqualFunc(top0, top1, sameCommand) {
		return "", fmt.Sprintf("depth 0:\n  ours   %v\n  mvdan  %v", top0, top1)
	}
	// Multiset: each of mvdan's commands matches a distinct one of ours.
	if len(ours) != len(theirs) {
		return "", fmt.Sprintf("%d commands, mvdan %d:\n  ours   %v\n  mvdan  %v", len(ours), len(theirs), ours, theirs)
	}
	if t, ok := matchAll(ours, theirs); !ok {
		return "", fmt.Sprintf("mvdan's %v has no match:\n  ours   %v\n  mvdan  %v", t, ours, theirs)
	}
	return "", ""
}

// matchAll pairs each of theirs with a distinct one of ours (a maximum
// bipartite matching, since "?" makes a command match several); it returns
// one left unpaired when there is no complete pairing.
func matchAll(ours, theirs []oracleCommand) (oracleCommand, bool) {
	owner := make([]int, len(ours)) // index in theirs + 1, 0 when free
	var try func(t int, seen []bool) bool
	try = func(t int, seen []bool) bool {
		for i, o := range ours {
			if seen[i] || !sameCommand(o, theirs[t]) {
				continue
			}
			seen[i] = true
			if owner[i] == 0 || try(owner[i]-1, seen) {
				owner[i] = t + 1
				return true
			}
		}
		return false
	}
	for t := range theirs {
		if !try(t, make([]bool, len(ours))) {
			return theirs[t], false
		}
	}
	return oracleCommand{}, true
}

// oracleCorpus is every line the comparison runs on: the stdlib corpora,
// the inputs of the Commands table and of the fuzz seeds, and generated
// lines.
func oracleCorpus(t *testing.T) []string {
	var lines []string
	for _, file := range []string{"commands-dangerous.txt", "commands-holdout-dangerous.txt", "commands-safe.txt", "commands-holdout-safe.txt"} {
		l, _ := readCorpus(t, file)
		lines = append(lines, l...)
	}
	for _, c := range commandCases {
		lines = append(lines, c.in)
	}
	lines = append(lines, fuzzSeeds...)
	lines = append(lines, oracleEdgeCases...)
	return append(lines, generateLines(3000)...)
}

func TestAgainstMvdanSh(t *testing.T) {
	skipped := map[string]int{}
	compared := 0
	used := map[string]bool{}
	for _, line := range oracleCorpus(t) {
		skip, diff := compareWithOracle(line)
		if why, ok := oracleDifferences[line]; ok {
			used[line] = true
			if diff == "" && skip == "" {
				t.Errorf("%q is listed as a difference (%s) but the parsers agree: remove it", line, why)
			}
			continue
		}
		switch {
		case skip != "":
			skipped[skip]++
		case diff != "":
			t.Errorf("%q: %s", line, diff)
		default:
			compared++
		}
	}
	for line := range oracleDifferences {
		if !used[line] {
			t.Errorf("oracleDifferences: %q is in no corpus", line)
		}
	}
	t.Logf("compared %d lines; left out: %v", compared, skipped)
	if total := compared + sum(skipped); compared < total*3/4 {
		t.Errorf("only %d of %d lines compared", compared, total)
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// generateLines returns n well-formed command lines built at random (with
// a fixed seed) from a small grammar: pipelines and lists, groups,
// substitutions, control structures, assignments, redirections,
// here-documents and every kind of quoting.
func generateLines(n int) []string {
	g := &lineGen{r: rand.New(rand.NewPCG(1, 2))}
	out := make([]string, n)
	for i := range out {
		out[i] = g.list(0) + g.flushDocs()
	}
	return out
}

type lineGen struct {
	r    *rand.Rand
	docs []string // here-document bodies to write after the line
}

// flushDocs returns a newline and the pending here-document bodies, or ""
// when there are none.
func (g *lineGen) flushDocs() string {
	if len(g.docs) == 0 {
		return ""
	}
	s := "\n" + strings.Join(g.docs, "")
	g.docs = g.docs[:0]
	return s
}

func (g *lineGen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

func (g *lineGen) list(depth int) string {
	var b strings.Builder
	b.WriteString(g.pipeline(depth))
	for g.r.IntN(3) == 0 {
		switch {
		case depth == 0 && len(g.docs) > 0:
			b.WriteString(g.flushDocs()) // the bodies end the line
		case len(g.docs) > 0:
			// No newline inside a compound command while bodies are
			// pending (mvdan reads them only at the top level).
			b.WriteString(g.pick(" ; ", " && ", " || ", " & "))
		default:
			b.WriteString(g.pick(" ; ", " && ", " || ", " & ", "\n"))
		}
		b.WriteString(g.pipeline(depth))
	}
	return b.String()
}

func (g *lineGen) pipeline(depth int) string {
	s := g.command(depth)
	for g.r.IntN(4) == 0 {
		s += g.pick(" | ", " |& ") + g.command(depth)
	}
	return s
}

func (g *lineGen) command(depth int) string {
	if depth < 2 {
		switch g.r.IntN(12) {
		case 0:
			return "( " + g.list(depth+1) + " )"
		case 1:
			return "{ " + g.list(depth+1) + "; }"
		case 2:
			return "if " + g.list(depth+1) + "; then " + g.list(depth+1) + "; else " + g.simple(depth+1) + "; fi"
		case 3:
			return "while " + g.simple(depth+1) + "; do " + g.list(depth+1) + "; done"
		case 4:
			return "for v in " + g.word(depth+1) + " " + g.word(depth+1) + "; do " + g.list(depth+1) + "; done"
		case 5:
			return "case " + g.word(depth+1) + " in a|b) " + g.list(depth+1) + " ;; *) " + g.simple(depth+1) + " ;; esac"
		case 6:
			return "f() { " + g.list(depth+1) + "; }"
		}
	}
	return g.simple(depth)
}

func (g *lineGen) simple(depth int) string {
	var parts []string
	for g.r.IntN(4) == 0 {
		parts = append(parts, g.pick("X", "PATH", "A_1")+"="+g.word(depth))
	}
	if len(parts) == 0 || g.r.IntN(3) > 0 {
		parts = append(parts, g.pick("rm", "ls", "echo", "git", "cat", "grep", "sudo", "env", "/bin/sh", "./run.sh", "r\\m", "'ls'", "\"cat\""))
		for k := g.r.IntN(4); k > 0; k-- {
			parts = append(parts, g.word(depth))
		}
	}
	for g.r.IntN(5) == 0 {
		parts = append(parts, g.pick("> out", "2>&1", "< in", ">> log", "2> /dev/null", "&> all", ">|f"))
	}
	s := strings.Join(parts, " ")
	if depth == 0 && g.r.IntN(10) == 0 {
		// A here-document; its body follows the line (flushDocs).
		delim := fmt.Sprintf("E%d", len(g.docs))
		if g.r.IntN(3) == 0 {
			s += " <<'" + delim + "'"
		} else {
			s += " <<" + delim
		}
		g.docs = append(g.docs, "line "+g.word(1)+"\n"+delim+"\n")
	}
	return s
}

func (g *lineGen) word(depth int) string {
	n := 12
	if depth >= 2 {
		n = 8 // no substitutions that deep
	}
	switch g.r.IntN(n) {
	case 0:
		return "'" + g.pick("a b", "$HOME", "it\"s", "", "x;y") + "'"
	case 1:
		return "\"" + g.pick("a b", "$HOME/x", "\\$x", "say \\\"hi\\\"", "", "${X:-d}") + "\""
	case 2:
		return g.pick("a\\ b", "\\$x", "a\\;b", "\\'q")
	case 3:
		return g.pick("$HOME", "${X:-a b}", "$1", "$@", "$((1+2))", "~/x", "*.go", "{a,b}", "a=b", "--", "-rf", "/", "@(a|b)")
	case 8:
		return "$( " + g.list(depth+1) + " )" // "$( (" is not "$(("
	case 9:
		return "\"$(" + g.simple(depth+1) + ")\""
	case 10:
		return "<(" + g.simple(depth+1) + ")"
	case 11:
		return "`" + g.pick("id", "date +%s", "echo x") + "`"
	}
	return g.pick("a", "-la", "/tmp/x", "file.txt", "HEAD~1", "x=1", "1", "%", "a,b", "+x")
}
