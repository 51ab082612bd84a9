package syntax

import "strings"

// parser reads one text: the line, or a text derived from it (the content
// of backticks, a command string, a here-document body). Command and
// process substitutions are parsed by the same parser, with out and
// pending saved and restored around them.
type parser struct {
	st    *state
	src   string
	pos   int
	depth int    // Depth of the commands listed at this level
	via   string // Via of the commands listed at this level

	out     []Command // commands of this level, in order
	pending []Command // commands found in words, listed after the pipeline
	pipes   int       // pipelines being parsed at this level

	docs   []*hereDoc // here-documents whose bodies start at the next newline
	parens int        // ( and $( open in this text
	braces int        // { open in this text
	flatP  int        // ( read as absent (past the depth bound): their ) are skipped
	flatB  int        // { read as absent: their } are skipped
	bad    bool       // malformed text not yet blamed on a command
}

type hereDoc struct {
	delim  string
	strip  bool // <<-
	quoted bool // the delimiter was quoted: the body is not expanded
	body   string
	depth  int    // the Depth of the command the document belongs to
	via    string // and its Via: the body's substitutions are one deeper
}

// Stop conditions of a list: the tokens that end it at a command position.
const (
	stopParen uint16 = 1 << iota // )
	stopBrace                    // }
	stopThen                     // then
	stopFi                       // elif else fi
	stopDo                       // do
	stopDone                     // done
	stopCase                     // ;; ;& ;;& esac
)

func (p *parser) done() bool { return p.pos >= len(p.src) || p.st.stopped() }

// emit lists a command and returns its index in p.out, or -1 when the
// command limit is reached (or in Split).
func (p *parser) emit(c Command) int {
	if p.st.split || p.st.full {
		return -1
	}
	if p.st.ncmd >= p.st.opts.MaxCommands {
		p.st.full = true
		p.st.fail(ErrTooMany)
		return -1
	}
	p.st.ncmd++
	p.st.steps++
	if p.bad {
		c.Malformed = true
		p.bad = false
	}
	p.out = append(p.out, c)
	return len(p.out) - 1
}

// flush moves the pending commands after the commands of the level.
func (p *parser) flush() {
	if len(p.pending) > 0 {
		p.st.steps += len(p.pending)
		p.out = append(p.out, p.pending...)
		p.pending = p.pending[:0]
	}
}

// finish ends the parse of a text: documents never closed, pending commands
// and an unblamed malformation.
func (p *parser) finish() {
	if len(p.docs) > 0 {
		for _, d := range p.docs {
			d.body = ""
		}
		p.docs = nil
		p.bad = true
	}
	p.flush()
	if p.bad && len(p.out) > 0 {
		p.out[len(p.out)-1].Malformed = true
		p.bad = false
	}
}

// blank reports whether c separates words without being an operator.
func blank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// meta reports whether c ends an unquoted word.
func meta(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ';', '&', '|', '(', ')', '<', '>':
		return true
	}
	return false
}

// skipBlanks skips blanks, line continuations and a comment (up to, not
// including, its newline).
func (p *parser) skipBlanks() {
	start := p.pos
loop:
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case blank(c):
			p.pos++
		case c == '\\' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '\n':
			p.pos += 2
		case c == '#':
			if i := strings.IndexByte(p.src[p.pos:], '\n'); i >= 0 {
				p.pos += i
			} else {
				p.pos = len(p.src)
			}
			break loop
		default:
			break loop
		}
	}
	p.st.steps += 1 + p.pos - start
}

// skipNewlines skips blanks, comments and newlines (reading the bodies of
// pending here-documents at each newline).
func (p *parser) skipNewlines() {
	for {
		p.skipBlanks()
		if p.pos < len(p.src) && p.src[p.pos] == '\n' {
			p.newline()
			continue
		}
		return
	}
}

// newline consumes a newline token and reads the here-documents it starts.
func (p *parser) newline() {
	p.pos++
	if len(p.docs) > 0 {
		p.readDocs()
	}
}

// reserved returns the reserved word at p.pos (a keyword that is a whole
// unquoted word), or "".
func (p *parser) reserved() string {
	s := p.src[p.pos:]
	n := 0
	for n < len(s) && n < 9 && !meta(s[n]) {
		n++
	}
	if n == 0 || n == 9 {
		return ""
	}
	switch w := s[:n]; w {
	case "if", "then", "else", "elif", "fi", "do", "done", "case", "esac",
		"while", "until", "for", "select", "function", "time", "coproc",
		"{", "}", "!", "[[", "]]":
		return w
	}
	return ""
}

// atStop reports whether the list being parsed ends at p.pos.
func (p *parser) atStop(stop uint16) bool {
	c := p.src[p.pos]
	if c == ')' {
		return p.flatP == 0 && (stop&stopParen != 0 || p.parens > 0)
	}
	if c == ';' {
		return stop&stopCase != 0 && p.pos+1 < len(p.src) && (p.src[p.pos+1] == ';' || p.src[p.pos+1] == '&')
	}
	switch p.reserved() {
	case "}":
		return p.flatB == 0 && (stop&stopBrace != 0 || p.braces > 0)
	case "then":
		return stop&stopThen != 0
	case "elif", "else", "fi":
		return stop&stopFi != 0
	case "do":
		return stop&stopDo != 0
	case "done":
		return stop&stopDone != 0
	case "esac":
		return stop&stopCase != 0
	}
	return false
}

func dangling(op string) bool { return op == "|" || op == "|&" || op == "&&" || op == "||" }

// parseList parses and-or lists up to the end of the text or a stop token,
// and returns the index of its last command in p.out (or -1).
func (p *parser) parseList(stop uint16) int {
	last := -1
	for !p.done() {
		p.st.steps++
		p.skipBlanks()
		if p.pos >= len(p.src) {
			break
		}
		c := p.src[p.pos]
		if c == '\n' {
			p.newline()
			continue
		}
		if p.atStop(stop) {
			break
		}
		// Tokens that cannot start a command here.
		switch c {
		case ')':
			if p.flatP > 0 {
				p.flatP--
			} else {
				p.bad = true
			}
			p.pos++
			continue
		case ';', '|':
			p.bad = true
			p.pos++
			continue
		case '&':
			if p.pos+1 >= len(p.src) || p.src[p.pos+1] != '>' {
				p.bad = true
				p.pos++
				continue
			}
		}
		switch p.reserved() {
		case "}":
			if p.flatB > 0 {
				p.flatB--
			} else {
				p.bad = true
			}
			p.pos++
			continue
		case "then", "else", "elif", "fi", "do", "done", "esac", "]]":
			p.bad = true
			p.pos += len(p.reserved())
			continue
		}
		start := p.pos
		idx := p.parsePipeline()
		if idx >= 0 {
			last = idx
		}
		p.skipBlanks()
		if op, ok := p.listOp(stop); ok {
			if idx >= 0 {
				p.out[idx].Op = op
				p.out[idx].bg = p.out[idx].bg || op == "&"
			}
			if op == "&&" || op == "||" {
				p.skipNewlines()
			}
		} else {
			if idx >= 0 && !dangling(p.out[idx].Op) {
				p.out[idx].Op = "" // a compound's last command: the end of the list
			}
			if p.pos == start && !p.done() {
				p.bad = true
				p.pos++
			}
		}
	}
	if last >= 0 && dangling(p.out[last].Op) {
		p.out[last].Op = ""
		p.out[last].Malformed = true
	}
	if p.pipes == 0 {
		p.flush()
	}
	return last
}

// listOp consumes the operator that ends an and-or list element: && || ;
// & or a newline (returned as ";").
func (p *parser) listOp(stop uint16) (string, bool) {
	if p.pos >= len(p.src) {
		return "", false
	}
	next := byte(0)
	if p.pos+1 < len(p.src) {
		next = p.src[p.pos+1]
	}
	switch p.src[p.pos] {
	case '&':
		if next == '&' {
			p.pos += 2
			return "&&", true
		}
		if next == '>' {
			return "", false
		}
		p.pos++
		return "&", true
	case '|':
		if next == '|' {
			p.pos += 2
			return "||", true
		}
	case ';':
		if next == ';' || next == '&' {
			if stop&stopCase != 0 {
				return "", false
			}
			// ;; ;& ;;& outside a case: read as ;
			p.bad = true
			p.pos += 2
			if next == ';' && p.pos < len(p.src) && p.src[p.pos] == '&' {
				p.pos++
			}
			return ";", true
		}
		p.pos++
		return ";", true
	case '\n':
		p.newline()
		return ";", true
	}
	return "", false
}

// parsePipeline parses [!] [time [-p]] command [| command]... and returns
// the index of its last command. The commands found in the words of the
// outermost pipeline of a level are listed after it.
func (p *parser) parsePipeline() int {
	p.pipes++
	p.prefixes()
	idx := p.parseCommand()
	for !p.done() {
		p.st.steps++
		p.skipBlanks()
		if p.pos >= len(p.src) || p.src[p.pos] != '|' || (p.pos+1 < len(p.src) && p.src[p.pos+1] == '|') {
			break
		}
		op := "|"
		if p.pos+1 < len(p.src) && p.src[p.pos+1] == '&' {
			op = "|&"
		}
		p.pos += len(op)
		if idx >= 0 {
			p.out[idx].Op = op
		}
		p.skipNewlines()
		p.prefixes()
		j := p.parseCommand()
		if j < 0 {
			break
		}
		idx = j
	}
	p.pipes--
	if p.pipes == 0 {
		p.flush()
	}
	return idx
}

// prefixes skips the pipeline prefixes ! and time [-p].
func (p *parser) prefixes() {
	for !p.done() {
		p.st.steps++
		p.skipBlanks()
		if p.pos >= len(p.src) {
			return
		}
		switch p.reserved() {
		case "!":
			p.pos++
		case "time":
			p.pos += 4
			p.skipBlanks()
			if strings.HasPrefix(p.src[p.pos:], "-p") && (p.pos+2 == len(p.src) || meta(p.src[p.pos+2])) {
				p.pos += 2
			}
		default:
			return
		}
	}
}

// nestIn enters a grammatical nesting level; it reports false (and enters
// nothing) past the bound.
func (p *parser) nestIn() bool {
	if p.st.nest >= maxNest {
		return false
	}
	p.st.nest++
	return true
}

func (p *parser) nestOut() { p.st.nest-- }

// parseCommand parses one command at a command position: a compound
// command or a simple command. It returns the index of the last command it
// listed, or -1.
func (p *parser) parseCommand() int {
	for !p.done() {
		p.st.steps++
		p.skipBlanks()
		if p.pos >= len(p.src) {
			return -1
		}
		c := p.src[p.pos]
		if c == '(' {
			if p.pos+1 < len(p.src) && p.src[p.pos+1] == '(' && p.arithCloses(p.pos+2) {
				start := len(p.out)
				p.pos += 2
				p.skipExpansion(frameParen, frameParen)
				return p.compoundTail(start)
			}
			return p.group('(')
		}
		switch p.reserved() {
		case "{":
			return p.group('{')
		case "if":
			return p.compound(p.parseIf, 2)
		case "while":
			return p.compound(func() { p.parseWhile(false) }, 5)
		case "until":
			return p.compound(func() { p.parseWhile(true) }, 5)
		case "for", "select":
			return p.compound(p.parseFor, len(p.reserved()))
		case "case":
			return p.compound(p.parseCase, 4)
		case "function":
			return p.compound(p.parseFunction, 8)
		case "[[":
			return p.compound(p.parseCond, 0)
		case "coproc":
			p.pos += 6
			continue
		case "!", "time":
			p.prefixes()
			continue
		case "}", "then", "else", "elif", "fi", "do", "done", "esac", "]]":
			return -1 // the enclosing list decides
		}
		return p.parseSimple()
	}
	return -1
}

// compound parses a compound command with fn (after skipping its keyword of
// length kw) and its redirections. Past the nesting bound the keyword is
// skipped and what follows is read as ordinary commands.
func (p *parser) compound(fn func(), kw int) int {
	if !p.nestIn() {
		p.st.fail(ErrTooDeep)
		p.pos += max(kw, 1)
		return -1
	}
	start := len(p.out)
	p.pos += kw
	fn()
	p.nestOut()
	return p.compoundTail(start)
}

// group parses ( list ) or { list; }.
func (p *parser) group(open byte) int {
	kind := "("
	if open == '{' {
		kind = "{"
	}
	if p.depth+1 > p.st.opts.MaxDepth || !p.nestIn() {
		// Too deep: read the group's commands as if it were absent.
		p.st.fail(ErrTooDeep)
		p.pos++
		if open == '(' {
			p.flatP++
		} else {
			p.flatB++
		}
		return -1
	}
	start := len(p.out)
	depth, via := p.depth, p.via
	p.depth, p.via = depth+1, kind
	p.pos++
	if open == '(' {
		p.parens++
		p.parseList(stopParen)
		p.parens--
		if p.pos < len(p.src) && p.src[p.pos] == ')' {
			p.pos++
		} else {
			p.bad = true
		}
	} else {
		p.braces++
		p.parseList(stopBrace)
		p.braces--
		if p.pos < len(p.src) && p.reserved() == "}" {
			p.pos++
		} else {
			p.bad = true
		}
	}
	p.depth, p.via = depth, via
	p.nestOut()
	return p.compoundTail(start)
}

// expect consumes the reserved word w, or marks the text malformed.
func (p *parser) expect(w string) bool {
	p.skipNewlines()
	if p.pos < len(p.src) && p.reserved() == w {
		p.pos += len(w)
		return true
	}
	p.bad = true
	return false
}

func (p *parser) parseIf() {
	p.parseList(stopThen)
	p.expect("then")
	for !p.done() {
		p.st.steps++
		p.parseList(stopFi)
		if p.pos >= len(p.src) {
			p.bad = true
			return
		}
		switch p.reserved() {
		case "elif":
			p.pos += 4
			p.parseList(stopThen)
			p.expect("then")
			continue
		case "else":
			p.pos += 4
			p.parseList(stopFi)
			p.expect("fi")
			return
		}
		p.expect("fi")
		return
	}
}

// parseWhile parses while (or until) list; do list done. When the
// condition is a constant that never ends the loop (while true, while :,
// until false), the commands of the body run in the background are marked
// ForkLoop.
func (p *parser) parseWhile(until bool) {
	cond := len(p.out)
	p.parseList(stopDo)
	endless := constantCond(p.out[cond:], until)
	body := len(p.out)
	p.parseDo()
	if endless {
		p.markForkLoop(body)
	}
}

// constantCond reports whether cmds, the condition of a while (or an until)
// loop, is one command that always succeeds (fails): true, :, [ 1 ] (false).
func constantCond(cmds []Command, until bool) bool {
	if len(cmds) != 1 || len(cmds[0].Redirects) > 0 || len(cmds[0].Assigns) > 0 {
		return false
	}
	w := cmds[0].Words
	if len(w) == 0 {
		return false
	}
	name := w[0][strings.LastIndexByte(w[0], '/')+1:]
	if until {
		return len(w) == 1 && name == "false"
	}
	switch {
	case len(w) == 1:
		return name == "true" || name == ":"
	case len(w) == 3 && (name == "[" && w[2] == "]" || name == "[[" && w[2] == "]]"):
		return w[1] == "1" || w[1] == "true"
	}
	return false
}

// markForkLoop marks the commands listed from index start on that run in
// the background as started by an endless loop.
func (p *parser) markForkLoop(start int) {
	for k := start; k < len(p.out); k++ {
		if p.out[k].bg {
			p.out[k].ForkLoop = true
		}
	}
}

// markFunc marks the commands listed from index start on, and the pending
// ones from index pending on, that no inner definition claimed, as the
// body of the function name.
func (p *parser) markFunc(start, pending int, name string) {
	if name == "" {
		return
	}
	for k := start; k < len(p.out); k++ {
		if p.out[k].Func == "" {
			p.out[k].Func = name
		}
	}
	for k := min(pending, len(p.pending)); k < len(p.pending); k++ {
		if p.pending[k].Func == "" {
			p.pending[k].Func = name
		}
	}
}

// parseDo parses do list done (or a brace group, as bash allows after for).
func (p *parser) parseDo() {
	p.skipNewlines()
	if p.pos < len(p.src) && p.reserved() == "{" {
		p.group('{')
		return
	}
	if !p.expect("do") {
		return
	}
	p.parseList(stopDone)
	p.expect("done")
}

// parseFor parses for NAME [in WORDS]; do list done, and for ((...)). The
// loop is listed as a command that binds NAME to the first word.
func (p *parser) parseFor() {
	p.skipBlanks()
	endless := false
	if strings.HasPrefix(p.src[p.pos:], "((") {
		p.pos += 2
		from := p.pos
		p.skipExpansion(frameParen, frameParen)
		// for ((init; cond; step)) with an empty or constant condition
		if parts := strings.Split(strings.TrimSuffix(p.src[from:p.pos], "))"), ";"); len(parts) == 3 {
			c := strings.TrimSpace(parts[1])
			endless = c == "" || c == "1"
		}
	} else {
		name := p.readWord(wordPlain)
		p.skipNewlines()
		var first string
		n := 0
		if p.pos < len(p.src) && strings.HasPrefix(p.src[p.pos:], "in") && (p.pos+2 == len(p.src) || meta(p.src[p.pos+2])) {
			p.pos += 2
			for !p.done() {
				p.st.steps++
				p.skipBlanks()
				if p.pos >= len(p.src) || (meta(p.src[p.pos]) && !p.procSubstAt()) {
					break
				}
				w := p.readWord(wordPlain)
				if w.end == w.start {
					break
				}
				if n == 0 {
					first = w.text
				}
				n++
			}
		}
		if n > 0 && validName(name.text) && name.lit {
			p.emit(Command{Assigns: map[string]string{name.text: first}, Op: ";", Depth: p.depth, Via: p.via})
		}
	}
	p.skipBlanks()
	if p.pos < len(p.src) && p.src[p.pos] == ';' && !strings.HasPrefix(p.src[p.pos:], ";;") {
		p.pos++
	}
	body := len(p.out)
	p.parseDo()
	if endless {
		p.markForkLoop(body)
	}
}

// parseCase parses case WORD in [(]PATTERN[|PATTERN]...) list ;; ... esac.
func (p *parser) parseCase() {
	p.skipBlanks()
	p.readWord(wordPlain)
	p.skipNewlines()
	if !strings.HasPrefix(p.src[p.pos:], "in") || !(p.pos+2 == len(p.src) || meta(p.src[p.pos+2])) {
		p.bad = true
		return
	}
	p.pos += 2
	for !p.done() {
		p.st.steps++
		p.skipNewlines()
		if p.pos >= len(p.src) {
			p.bad = true
			return
		}
		if p.reserved() == "esac" {
			p.pos += 4
			return
		}
		if p.src[p.pos] == '(' {
			p.pos++
		}
		// Patterns up to ")".
		for !p.done() {
			p.st.steps++
			p.skipBlanks()
			if p.pos >= len(p.src) {
				break
			}
			c := p.src[p.pos]
			if c == ')' {
				p.pos++
				break
			}
			if c == '|' {
				p.pos++
				continue
			}
			if c == '\n' || c == ';' || c == '&' || c == '(' || c == '<' || c == '>' {
				p.bad = true
				break
			}
			p.readWord(wordPlain)
		}
		start := p.pos
		last := p.parseList(stopCase)
		if p.pos < len(p.src) && p.src[p.pos] == ';' {
			if last >= 0 {
				p.out[last].Op = ";"
			}
			switch {
			case strings.HasPrefix(p.src[p.pos:], ";;&"):
				p.pos += 3
			default:
				p.pos += 2
			}
		} else if p.pos == start && !p.done() && p.reserved() != "esac" {
			p.bad = true
			p.pos++
		}
	}
}

// parseFunction parses function NAME [()] BODY.
func (p *parser) parseFunction() {
	p.skipBlanks()
	name := p.readWord(wordPlain)
	p.skipBlanks()
	if strings.HasPrefix(p.src[p.pos:], "(") {
		p.pos++
		p.skipBlanks()
		if p.pos < len(p.src) && p.src[p.pos] == ')' {
			p.pos++
		} else {
			p.bad = true
		}
	}
	p.skipNewlines()
	start, pending := len(p.out), len(p.pending)
	p.parseCommand()
	if name.lit {
		p.markFunc(start, pending, name.text)
	}
}

// parseCond parses [[ ... ]], listed as a command with the words [[ ... ]].
func (p *parser) parseCond() {
	words := []string{"[["}
	p.pos += 2
	closed := false
	for !p.done() {
		p.st.steps++
		p.skipNewlines()
		if p.pos >= len(p.src) {
			p.bad = true
			break
		}
		if p.reserved() == "]]" {
			p.pos += 2
			words = append(words, "]]")
			closed = true
			break
		}
		c := p.src[p.pos]
		if c == ';' {
			p.bad = true
			break
		}
		if c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>' {
			n := 1
			if (c == '&' || c == '|') && p.pos+1 < len(p.src) && p.src[p.pos+1] == c {
				n = 2
			}
			words = append(words, p.src[p.pos:p.pos+n])
			p.pos += n
			continue
		}
		w := p.readWord(wordCond)
		if w.end == w.start {
			p.bad = true
			p.pos++
			continue
		}
		words = append(words, w.text)
	}
	if !closed {
		p.bad = true
	}
	p.emit(Command{Words: p.st.keepWords(words), Depth: p.depth, Via: p.via})
}

// compoundTail reads the redirections after a compound command and adds
// them to the commands listed inside it (from start); a compound that
// listed nothing is listed as a command of redirections only. It returns
// the index of the compound's last command.
func (p *parser) compoundTail(start int) int {
	var reds []Redirect
	for !p.done() {
		p.st.steps++
		p.skipBlanks()
		if p.pos >= len(p.src) {
			break
		}
		c := p.src[p.pos]
		if (c == '<' || c == '>') && !(p.pos+1 < len(p.src) && p.src[p.pos+1] == '(') ||
			c == '&' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '>' {
			reds = append(reds, p.parseRedirect(""))
			continue
		}
		if n := p.fdAt(); n > 0 {
			fd := p.src[p.pos : p.pos+n]
			p.pos += n
			reds = append(reds, p.parseRedirect(fd))
			continue
		}
		break
	}
	if start > len(p.out) {
		start = len(p.out)
	}
	if len(reds) > 0 {
		if start == len(p.out) {
			return p.emit(Command{Redirects: reds, Depth: p.depth, Via: p.via})
		}
		for i := start; i < len(p.out); i++ {
			p.st.steps += 1 + len(reds)
			p.out[i].Redirects = append(p.out[i].Redirects, reds...)
		}
	}
	if len(p.out) > start {
		return len(p.out) - 1
	}
	return -1
}

// parseSimple parses a simple command: assignments, words and
// redirections, or a function definition NAME () BODY.
func (p *parser) parseSimple() int {
	var cmd Command
	var buf [8]string
	words := buf[:0]
	for !p.done() {
		p.st.steps++
		p.skipBlanks()
		if p.pos >= len(p.src) {
			break
		}
		c := p.src[p.pos]
		var next byte
		if p.pos+1 < len(p.src) {
			next = p.src[p.pos+1]
		}
		switch c {
		case ';', '|', '\n', ')':
			goto end
		case '&':
			if next != '>' {
				goto end
			}
			cmd.Redirects = append(cmd.Redirects, p.parseRedirect(""))
			continue
		case '<', '>':
			if next != '(' {
				cmd.Redirects = append(cmd.Redirects, p.parseRedirect(""))
				continue
			}
		case '(':
			if len(words) == 1 && len(cmd.Assigns) == 0 && len(cmd.Redirects) == 0 {
				// NAME () BODY: a function definition; its body's commands
				// are listed.
				j := p.pos + 1
				for j < len(p.src) && blank(p.src[j]) {
					j++
				}
				p.st.steps += j - p.pos
				if j < len(p.src) && p.src[j] == ')' {
					p.pos = j + 1
					p.skipNewlines()
					if !p.nestIn() {
						p.st.fail(ErrTooDeep)
						return -1
					}
					start, pending := len(p.out), len(p.pending)
					idx := p.parseCommand()
					p.nestOut()
					if idx < 0 && len(p.out) == start {
						p.bad = true // a function without a body
					}
					p.markFunc(start, pending, words[0])
					return idx
				}
			}
			p.bad = true
			goto end
		}
		w := p.readWord(wordPlain)
		if w.fd {
			cmd.Redirects = append(cmd.Redirects, p.parseRedirect(w.text))
			continue
		}
		if w.end == w.start {
			// Nothing read (cannot happen at a non-meta byte; be safe).
			p.pos++
			p.bad = true
			continue
		}
		if len(words) == 0 && w.eq > 0 {
			if cmd.Assigns == nil {
				cmd.Assigns = make(map[string]string, 2)
			}
			name := w.text[:w.eq]
			if w.plus {
				name = name[:len(name)-1]
			}
			cmd.Assigns[name] = w.text[w.eq+1:]
			continue
		}
		words = append(words, w.text)
	}
end:
	if len(words) == 0 && len(cmd.Assigns) == 0 && len(cmd.Redirects) == 0 {
		return -1
	}
	cmd.Words = p.st.keepWords(words)
	cmd.Depth, cmd.Via = p.depth, p.via
	idx := p.emit(cmd)
	if idx >= 0 && len(cmd.Words) > 0 {
		p.runners(cmd.Words, cmd.Depth)
	}
	return idx
}

// parseRedirect reads a redirection operator at p.pos and its target word.
func (p *parser) parseRedirect(fd string) Redirect {
	op := redirOpAt(p.src[p.pos:])
	if op == "" { // cannot happen: called at < > or &>
		op = p.src[p.pos : p.pos+1]
	}
	p.pos += len(op)
	p.skipBlanks()
	r := Redirect{Op: op, Fd: fd}
	if p.pos >= len(p.src) || (meta(p.src[p.pos]) && !p.procSubstAt()) {
		p.bad = true
		return r
	}
	w := p.readWord(wordPlain)
	r.Target = w.text
	if op == "<<" || op == "<<-" {
		raw := p.src[w.start:w.end]
		d := &hereDoc{delim: w.text, strip: op == "<<-", quoted: strings.ContainsAny(raw, `'"\`), depth: p.depth, via: p.via}
		p.docs = append(p.docs, d)
		r.doc = d
		p.st.docs = true
	}
	return r
}

func (p *parser) procSubstAt() bool {
	return p.pos+1 < len(p.src) && (p.src[p.pos] == '<' || p.src[p.pos] == '>') && p.src[p.pos+1] == '('
}

// readDocs reads the bodies of the pending here-documents, which start at
// p.pos (after a newline).
func (p *parser) readDocs() {
	docs := p.docs
	p.docs = nil
	for _, d := range docs {
		start := p.pos
		end := -1
		var b strings.Builder
		for p.pos < len(p.src) {
			nl := strings.IndexByte(p.src[p.pos:], '\n')
			lineEnd, next := len(p.src), len(p.src)
			if nl >= 0 {
				lineEnd, next = p.pos+nl, p.pos+nl+1
			}
			line := p.src[p.pos:lineEnd]
			check := line
			if d.strip {
				check = strings.TrimLeft(check, "\t")
			}
			if strings.TrimSuffix(check, "\r") == d.delim {
				end = p.pos
				p.pos = next
				break
			}
			if d.strip {
				b.WriteString(strings.TrimLeft(line, "\t"))
				if nl >= 0 {
					b.WriteByte('\n')
				}
			}
			p.pos = next
		}
		if end < 0 {
			end = len(p.src)
			p.bad = true
		}
		p.st.steps += 1 + p.pos - start // each byte scanned once (and copied once with <<-)
		if d.strip {
			d.body = b.String()
		} else {
			d.body = p.src[start:end]
		}
		if !d.quoted && strings.ContainsAny(d.body, "$`") {
			// An unquoted document is expanded: its substitutions run,
			// nested in the command it belongs to (its body may be read
			// inside a group opened later on the same line).
			c := p.child(d.body, d.depth, d.via)
			c.scanExpansions()
			c.finish()
			p.adopt(c)
		}
	}
	if p.pipes == 0 {
		p.flush()
	}
}

// child returns a parser of a text derived from this one, sharing the
// call's state.
func (p *parser) child(src string, depth int, via string) *parser {
	return &parser{st: p.st, src: src, depth: depth, via: via}
}

// adopt lists the commands of a finished child parser after the current
// pipeline, and blames its unblamed malformation on the holder.
func (p *parser) adopt(c *parser) {
	p.st.steps += len(c.out)
	p.pending = append(p.pending, c.out...)
	if c.bad {
		p.bad = true
	}
}

// subText parses text (the content of backticks, a command string) as a
// list of commands at depth, listed after the current pipeline. counted
// texts are charged to the byte budget.
func (p *parser) subText(text string, depth int, via string, counted bool) {
	if p.st.split || p.st.full {
		return
	}
	if depth > p.st.opts.MaxDepth || p.st.nest >= maxNest {
		p.st.fail(ErrTooDeep)
		return
	}
	if counted {
		if len(text) > p.st.budget {
			p.st.fail(ErrTooLong)
			return
		}
		p.st.budget -= len(text)
	}
	c := p.child(text, depth, via)
	p.st.nest++
	c.parseList(0)
	p.st.nest--
	c.finish()
	p.adopt(c)
}

// subArgv lists words as a command run by another (find -exec) at depth.
func (p *parser) subArgv(words []string, depth int, via string) {
	if p.st.split || p.st.full || len(words) == 0 {
		return
	}
	if depth > p.st.opts.MaxDepth || p.st.nest >= maxNest {
		p.st.fail(ErrTooDeep)
		return
	}
	c := p.child("", depth, via)
	if c.emit(Command{Words: words, Depth: depth, Via: via}) >= 0 {
		p.st.nest++
		c.runners(words, depth)
		p.st.nest--
	}
	c.finish()
	p.adopt(c)
}
