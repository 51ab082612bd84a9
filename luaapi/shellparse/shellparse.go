// Package shellparse splits shell command lines the way a guard needs to
// see them: into words (quote removal, escapes) and into the simple commands
// of a script, descending into everything that runs a command of its own —
// command substitutions $(...) and `...`, process substitutions <(...),
// subshells (...), groups { ...; }, control structures, here-documents fed
// to a shell, and the script strings of bash -c, sh -c, zsh -c, su -c and
// eval.
//
// It does not expand anything: parameters ($HOME), globs and arithmetic
// stay as written (a word "$(rm -rf /)" keeps its text, and the commands in
// it are listed too). It is a static approximation of POSIX/bash syntax
// meant to be conservative for guards: when in doubt it lists more
// commands, not fewer. It does not strip wrappers such as sudo from the
// commands it lists (see Unwrap), but it does look behind them for shells
// run with -c.
//
// Every function is safe for concurrent use, never panics, and is bounded:
// inputs longer than MaxInput are rejected, nesting deeper than MaxDepth is
// not descended into (and reported), and at most MaxCommands commands are
// returned.
package shellparse

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Bounds.
const (
	MaxInput    = 1 << 20 // bytes of one command line
	MaxDepth    = 16      // nested substitutions, subshells and -c scripts
	MaxCommands = 10000   // commands returned by Commands
)

// ErrTooLong is returned for an input longer than MaxInput.
var ErrTooLong = errors.New("shellparse: input longer than 1 MiB")

// A Redirect is one redirection of a command.
type Redirect struct {
	// Op is the operator: <, >, >>, >|, <>, <<, <<-, <<<, >&, <&, &>, &>>.
	Op string
	// FD is the file descriptor written before the operator ("2" in
	// 2>&1), "" when none.
	FD string
	// Target is the word after the operator (quote removal applied): a
	// file, a descriptor (1 in 2>&1), a here-document delimiter, or the
	// here-string.
	Target string
	// Body is a here-document's text.
	Body string
}

// A Command is one simple command.
type Command struct {
	// Words are the command name and arguments after quote removal,
	// wrappers such as sudo included (see Unwrap).
	Words []string
	// Op is the operator that ends the command: ";", "&&", "||", "|",
	// "|&", "&", or "" at the end of its list. A newline counts as ";".
	Op string
	// Redirects are the command's redirections, in order.
	Redirects []Redirect
	// Assigns are the variable assignments before the command name
	// (X=1 cmd), nil when none.
	Assigns map[string]string
}

// Split splits s into words like a POSIX shell: blanks separate words;
// single quotes, double quotes and backslash escapes are removed ("rm",
// 'rm' and r\m are all rm); $'...' escapes are decoded; a $(...) or `...`
// substitution stays one word. Operators and '#' are not special (in "a|b"
// the word is a|b) and nothing is expanded. An unterminated quote is an
// error; the words read are returned with it.
func Split(s string) ([]string, error) {
	if len(s) > MaxInput {
		return nil, ErrTooLong
	}
	p := &parser{src: s, split: true, out: &result{}}
	var words []string
	for {
		p.skipBlanks(true)
		if p.pos >= len(p.src) {
			break
		}
		start := p.pos
		w := p.word()
		if p.pos == start {
			p.pos++
			continue
		}
		words = append(words, w.value)
	}
	return words, p.out.err
}

// Commands parses s as a shell script and returns its simple commands in
// execution order as far as it can tell (a command substitution's commands
// come before the command that uses it, a -c script's after the shell
// command). On a syntax error it returns the commands found so far and the
// error.
func Commands(s string) ([]Command, error) {
	if len(s) > MaxInput {
		return nil, ErrTooLong
	}
	r := &result{}
	parseScript(s, 0, r)
	return r.cmds, r.err
}

type result struct {
	cmds []Command
	err  error
	full bool
}

func (r *result) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *result) add(c Command) int {
	if len(r.cmds) >= MaxCommands {
		if !r.full {
			r.full = true
			r.fail(fmt.Errorf("shellparse: more than %d commands", MaxCommands))
		}
		return -1
	}
	r.cmds = append(r.cmds, c)
	return len(r.cmds) - 1
}

func parseScript(s string, depth int, r *result) {
	if depth > MaxDepth {
		r.fail(fmt.Errorf("shellparse: nesting deeper than %d levels", MaxDepth))
		return
	}
	p := &parser{src: s, depth: depth, out: r}
	p.list(0)
	if len(p.heredocs) > 0 {
		p.readHeredocs()
	}
}

type parser struct {
	src   string
	pos   int
	depth int
	out   *result
	split bool // Split mode: no operators, no substitutions parsed

	heredocs []pendingHeredoc
	inCase   int // nesting of case ... esac
}

type pendingHeredoc struct {
	cmd   int // index in out.cmds, -1 if not added
	redir int
	delim string
	strip bool // <<-
}

func (p *parser) errorf(format string, args ...any) {
	p.out.fail(fmt.Errorf("shellparse: "+format, args...))
}

func (p *parser) peek(off int) byte {
	if p.pos+off < len(p.src) {
		return p.src[p.pos+off]
	}
	return 0
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// skipBlanks skips blanks, line continuations and (unless split) comments.
// With newlines set it skips newlines too.
func (p *parser) skipBlanks(newlines bool) {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case isBlank(c):
			p.pos++
		case c == '\\' && p.peek(1) == '\n':
			p.pos += 2
		case c == '\n' && newlines:
			p.pos++
		case c == '#' && !p.split:
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

func isOpChar(c byte) bool {
	return c == ';' || c == '&' || c == '|' || c == '\n' || c == '(' || c == ')' || c == '<' || c == '>'
}

// list parses commands until the end of input or, with closer ')', an
// unmatched ')' (consumed).
func (p *parser) list(closer byte) {
	for {
		if p.out.full {
			return
		}
		p.skipBlanks(false)
		if p.pos >= len(p.src) {
			if closer != 0 {
				p.errorf("missing '%c'", closer)
			}
			return
		}
		switch p.src[p.pos] {
		case ')':
			p.pos++
			if closer == ')' {
				return
			}
			p.errorf("unexpected ')'")
			continue
		case '\n':
			p.pos++
			p.readHeredocs()
			continue
		case ';', '&', '|':
			// An operator with no command before it (";;" in case,
			// a leading ";"): skip it.
			p.operator()
			continue
		}
		start := p.pos
		p.command()
		if p.pos == start { // no progress: skip one byte
			p.pos++
		}
	}
}

// operator reads the operator at pos ("" if none) and returns it with a
// newline (and case's ";;") reported as ";".
func (p *parser) operator() string {
	if p.pos >= len(p.src) {
		return ""
	}
	two := ""
	if p.pos+1 < len(p.src) {
		two = p.src[p.pos : p.pos+2]
	}
	switch two {
	case "&&", "||", "|&":
		p.pos += 2
		return two
	case ";;", ";&":
		p.pos += 2
		if p.src[p.pos-1] == ';' && p.peek(0) == '&' { // ;;&
			p.pos++
		}
		return ";"
	}
	switch c := p.src[p.pos]; c {
	case ';', '&', '|':
		p.pos++
		return string(c)
	case '\n':
		p.pos++
		p.readHeredocs()
		return ";"
	}
	return ""
}

var reserved = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true,
	"while": true, "until": true, "!": true, "{": true, "}": true, "esac": true,
}

// command parses one simple command and the operator after it.
func (p *parser) command() {
	var cmd Command
	var pendingHere []pendingHeredoc
	for {
		p.skipBlanks(false)
		if p.pos >= len(p.src) {
			break
		}
		c := p.src[p.pos]
		if c == ')' || c == '\n' || c == ';' || (c == '&' && p.peek(1) != '>') || c == '|' {
			break
		}
		if p.inCase > 0 && len(cmd.Words) == 0 && cmd.Assigns == nil && p.casePattern() {
			continue
		}
		if c == '(' {
			if p.peek(1) == '(' && len(cmd.Words) == 0 {
				// (( arithmetic )): one word.
				cmd.Words = append(cmd.Words, p.arith(2))
				continue
			}
			if len(cmd.Words) == 1 && p.functionParens() {
				// name() { body }: the definition is not a command.
				cmd.Words = nil
				continue
			}
			p.pos++
			p.nested(func() { p.list(')') })
			continue
		}
		if (c == '<' || c == '>') && p.peek(1) == '(' {
			// Process substitution: a word that runs a list.
			start := p.pos
			p.pos += 2
			p.nested(func() { p.list(')') })
			cmd.Words = append(cmd.Words, p.src[start:p.pos])
			continue
		}
		if r, ok := p.redirect(); ok {
			cmd.Redirects = append(cmd.Redirects, r)
			if r.Op == "<<" || r.Op == "<<-" {
				pendingHere = append(pendingHere, pendingHeredoc{redir: len(cmd.Redirects) - 1, delim: r.Target, strip: r.Op == "<<-"})
			}
			continue
		}
		start := p.pos
		w := p.word()
		if p.pos == start {
			p.pos++ // a stray character
			continue
		}
		if len(cmd.Words) == 0 {
			if name, ok := assignment(w.raw); ok {
				if cmd.Assigns == nil {
					cmd.Assigns = map[string]string{}
				}
				cmd.Assigns[name] = w.value[strings.IndexByte(w.value, '=')+1:]
				continue
			}
			if cmd.Assigns == nil && len(cmd.Redirects) == 0 && !w.quoted {
				switch w.value {
				case "for", "select":
					// for X in A B ...; do: listed as a command
					// without words binding X to its first value
					// (enough to see for d in /*; do rm -rf $d; done).
					if name, first, ok := p.forHeader(); ok {
						p.out.add(Command{Op: ";", Assigns: map[string]string{name: first}})
					}
					continue
				case "case":
					p.skipCaseHeader()
					continue
				case "function":
					p.skipFunctionName()
					continue
				case "esac":
					if p.inCase > 0 {
						p.inCase--
					}
					continue
				}
				if reserved[w.value] {
					continue
				}
			}
		}
		cmd.Words = append(cmd.Words, w.value)
	}
	idx := -1
	if len(cmd.Words) > 0 || len(cmd.Redirects) > 0 || cmd.Assigns != nil {
		idx = p.out.add(cmd)
	}
	for _, h := range pendingHere {
		h.cmd = idx
		p.heredocs = append(p.heredocs, h)
	}
	if idx >= 0 {
		p.descend(idx)
	}
	op := p.operator()
	if idx >= 0 {
		p.out.cmds[idx].Op = op
	}
}

// nested runs f one nesting level deeper, or skips to the matching ')'
// when too deep.
func (p *parser) nested(f func()) {
	if p.depth >= MaxDepth {
		p.errorf("nesting deeper than %d levels", MaxDepth)
		p.skipParens()
		return
	}
	p.depth++
	f()
	p.depth--
}

// skipParens skips to just after the ')' matching an already consumed '('.
func (p *parser) skipParens() {
	n := 1
	for p.pos < len(p.src) && n > 0 {
		switch p.src[p.pos] {
		case '\\':
			p.pos++
		case '\'':
			if i := strings.IndexByte(p.src[p.pos+1:], '\''); i >= 0 {
				p.pos += i + 1
			}
		case '(':
			n++
		case ')':
			n--
		}
		p.pos++
	}
	if p.pos > len(p.src) {
		p.pos = len(p.src)
	}
	if n > 0 {
		p.errorf("missing ')'")
	}
}

// descend parses the script a command runs: bash -c 'script', eval args.
func (p *parser) descend(idx int) {
	script, ok := innerScript(Unwrap(p.out.cmds[idx].Words))
	if !ok {
		return
	}
	if p.depth >= MaxDepth {
		p.errorf("nesting deeper than %d levels", MaxDepth)
		return
	}
	parseScript(script, p.depth+1, p.out)
}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "ash": true, "mksh": true, "fish": true}

// innerScript returns the script a command runs as a string: the argument
// of -c for a shell or su, the joined arguments of eval.
func innerScript(words []string) (string, bool) {
	if len(words) == 0 {
		return "", false
	}
	name := base(words[0])
	switch {
	case name == "eval":
		return strings.Join(words[1:], " "), len(words) > 1
	case shells[name] || name == "su":
		for i := 1; i < len(words); i++ {
			w := words[i]
			if w == "--" {
				return "", false
			}
			if w == "-c" || w == "--command" {
				if i+1 < len(words) {
					return words[i+1], true
				}
				return "", false
			}
			if strings.HasPrefix(w, "--command=") {
				return w[len("--command="):], true
			}
			if len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.IndexByte(w, 'c') > 0 && name != "su" {
				// combined flags: bash -lc 'script'
				if i+1 < len(words) {
					return words[i+1], true
				}
				return "", false
			}
			if !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "+") && name != "su" {
				return "", false // a script file: not visible
			}
		}
	}
	return "", false
}

// readHeredocs reads the bodies of the here-documents of the line just
// ended.
func (p *parser) readHeredocs() {
	hs := p.heredocs
	p.heredocs = nil
	for _, h := range hs {
		var body strings.Builder
		found := false
		for p.pos < len(p.src) {
			end := strings.IndexByte(p.src[p.pos:], '\n')
			var line string
			if end < 0 {
				line = p.src[p.pos:]
				p.pos = len(p.src)
			} else {
				line = p.src[p.pos : p.pos+end]
				p.pos += end + 1
			}
			cmp := line
			if h.strip {
				cmp = strings.TrimLeft(line, "\t")
			}
			if cmp == h.delim {
				found = true
				break
			}
			body.WriteString(cmp)
			body.WriteByte('\n')
		}
		if !found {
			p.errorf("here-document delimited by %q not closed", h.delim)
		}
		if h.cmd < 0 {
			continue
		}
		c := &p.out.cmds[h.cmd]
		c.Redirects[h.redir].Body = body.String()
		// A shell reading its script from a here-document.
		if w := Unwrap(c.Words); len(w) > 0 && shells[base(w[0])] {
			if _, ok := innerScript(w); !ok {
				if p.depth >= MaxDepth {
					p.errorf("nesting deeper than %d levels", MaxDepth)
					continue
				}
				parseScript(body.String(), p.depth+1, p.out)
			}
		}
	}
}

// functionParens consumes "()" after a function name.
func (p *parser) functionParens() bool {
	i := p.pos + 1
	for i < len(p.src) && isBlank(p.src[i]) {
		i++
	}
	if i < len(p.src) && p.src[i] == ')' {
		p.pos = i + 1
		return true
	}
	return false
}

// forHeader skips "NAME in WORDS" after for or select, up to the operator
// or "do", and returns NAME and the first of WORDS.
func (p *parser) forHeader() (name, first string, ok bool) {
	n := 0
	for {
		p.skipBlanks(false)
		if p.pos >= len(p.src) {
			return
		}
		c := p.src[p.pos]
		if c == ';' || c == '\n' || c == '&' || c == '|' || c == ')' {
			return
		}
		if c == '(' && p.peek(1) == '(' { // for (( ... ))
			p.arith(2)
			continue
		}
		start := p.pos
		w := p.word()
		if p.pos == start {
			p.pos++
			continue
		}
		if w.value == "do" && !w.quoted {
			return
		}
		switch n {
		case 0:
			if _, isName := assignment(w.value + "="); isName && !w.quoted {
				name = w.value
			}
		case 1:
			if w.value != "in" || w.quoted {
				name = ""
			}
		case 2:
			if name != "" {
				first, ok = w.value, true
			}
		}
		n++
	}
}

// skipCaseHeader skips "case WORD in".
func (p *parser) skipCaseHeader() {
	for {
		p.skipBlanks(true)
		if p.pos >= len(p.src) {
			return
		}
		start := p.pos
		w := p.word()
		if p.pos == start {
			p.pos++
			continue
		}
		if w.value == "in" && !w.quoted {
			p.inCase++
			return
		}
	}
}

// casePattern skips a case pattern "(a|b)" or "a|b)" at pos, if there is
// one, reporting whether it did.
func (p *parser) casePattern() bool {
	save := p.pos
	p.skipBlanks(true)
	if p.pos >= len(p.src) || strings.HasPrefix(p.src[p.pos:], "esac") {
		p.pos = save
		return false
	}
	if p.src[p.pos] == '(' {
		p.pos++
	}
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch c {
		case ')':
			p.pos++
			return true
		case '\n', ';':
			p.pos = save
			return false
		case '\\':
			p.pos += 2
			continue
		case '\'', '"':
			if i := strings.IndexByte(p.src[p.pos+1:], c); i >= 0 {
				p.pos += i + 2
				continue
			}
			p.pos = save
			return false
		}
		if isBlank(c) {
			// Patterns have no blanks unless quoted; a blank means
			// this is a command.
			rest := strings.TrimLeft(p.src[p.pos:], " \t")
			if !strings.HasPrefix(rest, "|") && !strings.HasPrefix(rest, ")") {
				p.pos = save
				return false
			}
		}
		p.pos++
	}
	p.pos = save
	return false
}

// skipFunctionName skips the name (and "()") after "function".
func (p *parser) skipFunctionName() {
	p.skipBlanks(false)
	start := p.pos
	p.word()
	if p.pos == start {
		return
	}
	p.skipBlanks(false)
	if p.peek(0) == '(' {
		p.functionParens()
	}
}

// arith reads "((...))" or "$((...))" (n is the length of the opening) as
// one literal word.
func (p *parser) arith(n int) string {
	start := p.pos
	p.pos += n
	depth := 2
	for p.pos < len(p.src) && depth > 0 {
		switch p.src[p.pos] {
		case '(':
			depth++
		case ')':
			depth--
		}
		p.pos++
	}
	if depth > 0 {
		p.errorf("missing '))'")
	}
	return p.src[start:p.pos]
}

// redirect reads a redirection at pos: [n]op target.
func (p *parser) redirect() (Redirect, bool) {
	i := p.pos
	for i < len(p.src) && i-p.pos < 10 && p.src[i] >= '0' && p.src[i] <= '9' {
		i++
	}
	fd := p.src[p.pos:i]
	if i >= len(p.src) {
		return Redirect{}, false
	}
	rest := p.src[i:]
	var op string
	for _, o := range []string{"&>>", "<<<", "<<-", "&>", ">>", ">|", ">&", "<&", "<>", "<<", ">", "<"} {
		if strings.HasPrefix(rest, o) {
			op = o
			break
		}
	}
	if op == "" || (fd != "" && op[0] == '&') {
		return Redirect{}, false
	}
	p.pos = i + len(op)
	p.skipBlanks(false)
	r := Redirect{Op: op, FD: fd}
	if p.pos < len(p.src) && !isOpChar(p.src[p.pos]) {
		r.Target = p.word().value
	} else if (op == ">&" || op == "<&") && p.peek(0) == '-' {
		p.pos++
		r.Target = "-"
	} else {
		p.errorf("missing target after '%s'", op)
	}
	return r, true
}

// assignment reports whether raw (a word as written) is NAME=value or
// NAME+=value with an unquoted NAME.
func assignment(raw string) (string, bool) {
	eq := strings.IndexByte(raw, '=')
	if eq <= 0 {
		return "", false
	}
	name := strings.TrimSuffix(raw[:eq], "+")
	if name == "" {
		return "", false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return "", false
		}
	}
	return name, true
}

type word struct {
	value  string // after quote removal
	raw    string // as written
	quoted bool   // any quoting or escaping in it
}

// word reads one word at pos.
func (p *parser) word() word {
	var b strings.Builder
	start := p.pos
	quoted := false
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if isBlank(c) || c == '\n' {
			break
		}
		if !p.split && (c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>') {
			break
		}
		switch c {
		case '\\':
			quoted = true
			if p.pos+1 >= len(p.src) {
				p.pos++
				continue
			}
			if p.src[p.pos+1] == '\n' {
				p.pos += 2
				continue
			}
			b.WriteByte(p.src[p.pos+1])
			p.pos += 2
		case '\'':
			quoted = true
			end := strings.IndexByte(p.src[p.pos+1:], '\'')
			if end < 0 {
				p.errorf("unterminated single quote")
				b.WriteString(p.src[p.pos+1:])
				p.pos = len(p.src)
				continue
			}
			b.WriteString(p.src[p.pos+1 : p.pos+1+end])
			p.pos += end + 2
		case '"':
			quoted = true
			p.pos++
			p.doubleQuoted(&b)
		case '$':
			p.dollar(&b, &quoted)
		case '`':
			p.backtick(&b)
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return word{value: b.String(), raw: p.src[start:p.pos], quoted: quoted}
}

// doubleQuoted reads the rest of a "..." string (the opening quote is
// consumed).
func (p *parser) doubleQuoted(b *strings.Builder) {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch c {
		case '"':
			p.pos++
			return
		case '\\':
			if p.pos+1 < len(p.src) {
				switch n := p.src[p.pos+1]; n {
				case '$', '`', '"', '\\':
					b.WriteByte(n)
					p.pos += 2
					continue
				case '\n':
					p.pos += 2
					continue
				}
			}
			b.WriteByte(c)
			p.pos++
		case '$':
			if p.peek(1) == '\'' || p.peek(1) == '"' { // no special meaning inside "..."
				b.WriteByte(c)
				p.pos++
				continue
			}
			q := true
			p.dollar(b, &q)
		case '`':
			p.backtick(b)
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	p.errorf("unterminated double quote")
}

// dollar reads a $ construct, keeping substitutions literally (and
// parsing the commands in them).
func (p *parser) dollar(b *strings.Builder, quoted *bool) {
	switch p.peek(1) {
	case '(':
		if p.peek(2) == '(' {
			b.WriteString(p.arith(3))
			return
		}
		start := p.pos
		p.pos += 2
		if p.split {
			p.skipParens()
		} else {
			p.nested(func() { p.list(')') })
		}
		b.WriteString(p.src[start:p.pos])
	case '{':
		start := p.pos
		p.pos += 2
		depth := 1
		for p.pos < len(p.src) && depth > 0 {
			switch p.src[p.pos] {
			case '{':
				depth++
			case '}':
				depth--
			case '\\':
				p.pos++
			case '$':
				if p.peek(1) == '(' && p.peek(2) != '(' && !p.split {
					p.pos += 2
					p.nested(func() { p.list(')') })
					continue
				}
			}
			p.pos++
		}
		if p.pos > len(p.src) {
			p.pos = len(p.src)
		}
		if depth > 0 {
			p.errorf("missing '}'")
		}
		b.WriteString(p.src[start:p.pos])
	case '\'':
		*quoted = true
		p.pos += 2
		p.ansiC(b)
	case '"':
		*quoted = true
		p.pos += 2
		p.doubleQuoted(b)
	default:
		b.WriteByte('$')
		p.pos++
	}
}

// ansiC decodes the rest of a $'...' string.
func (p *parser) ansiC(b *strings.Builder) {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '\'' {
			p.pos++
			return
		}
		if c != '\\' || p.pos+1 >= len(p.src) {
			b.WriteByte(c)
			p.pos++
			continue
		}
		n := p.src[p.pos+1]
		p.pos += 2
		switch n {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case 'x':
			j := p.pos
			for j < len(p.src) && j-p.pos < 2 && isHex(p.src[j]) {
				j++
			}
			if j == p.pos {
				b.WriteString(`\x`)
				continue
			}
			v, _ := strconv.ParseUint(p.src[p.pos:j], 16, 8)
			b.WriteByte(byte(v))
			p.pos = j
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := p.pos - 1
			for j < len(p.src) && j-(p.pos-1) < 3 && p.src[j] >= '0' && p.src[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(p.src[p.pos-1:j], 8, 16)
			b.WriteByte(byte(v))
			p.pos = j
		default:
			b.WriteByte(n) // \\ \' \" and unknown escapes
		}
	}
	p.errorf("unterminated $'...'")
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// backtick reads a `...` command substitution, keeping it literally and
// parsing its commands.
func (p *parser) backtick(b *strings.Builder) {
	start := p.pos
	p.pos++
	var inner strings.Builder
	closed := false
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '`' {
			p.pos++
			closed = true
			break
		}
		if c == '\\' && p.pos+1 < len(p.src) {
			if n := p.src[p.pos+1]; n == '`' || n == '\\' || n == '$' {
				inner.WriteByte(n)
				p.pos += 2
				continue
			}
		}
		inner.WriteByte(c)
		p.pos++
	}
	if !closed {
		p.errorf("unterminated backquote")
	}
	b.WriteString(p.src[start:p.pos])
	if p.split {
		return
	}
	if p.depth >= MaxDepth {
		p.errorf("nesting deeper than %d levels", MaxDepth)
		return
	}
	parseScript(inner.String(), p.depth+1, p.out)
}

// base returns the last element of a slash-separated path.
func base(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}
