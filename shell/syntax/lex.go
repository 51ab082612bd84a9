package syntax

import (
	"strings"
	"unicode/utf8"
)

// Word-reading modes.
const (
	wordPlain = iota // a shell word: ends at a blank, newline or operator
	wordElem         // an array element: a plain word that starts no array
	wordCond         // inside [[ ]]: operators inside a word are literal
	wordArgs         // env -S: only blanks separate words
)

// word is a word read by readWord.
type word struct {
	text       string
	start, end int  // source span
	lit        bool // no quoting, escapes or expansions: text is the source
	fd         bool // digits or {name} right before < or >: a redirection's descriptor
	eq         int  // index of the '=' of NAME=value (or NAME+=value) in text, or 0
	plus       bool // NAME+=value
}

// special marks the bytes that need attention inside an unquoted word
// (a literal: BenchmarkCLIRunNoStdlib).
var special = [256]bool{' ': true, '\t': true, '\r': true, '\n': true, ';': true, '&': true, '|': true, '(': true, ')': true, '<': true, '>': true, '\\': true, '\'': true, '"': true, '$': true, '`': true, '=': true}

// readWord reads the word at p.pos. Quotes, backslashes and $'...' are
// resolved; expansions are kept as written, and the commands of the
// substitutions in it are parsed (and listed after the current pipeline).
func (p *parser) readWord(mode int) word {
	src := p.src
	w := word{start: p.pos, lit: true}
	var b []byte // nil until the text differs from the source
	seg := p.pos // start of the source run not yet copied into b
	copyTo := func(i int) {
		if b == nil {
			b = make([]byte, 0, i-w.start+16)
			b = append(b, src[w.start:i]...)
		} else {
			b = append(b, src[seg:i]...)
		}
	}
	for p.pos < len(src) {
		c := src[p.pos]
		if !special[c] {
			p.pos++
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			goto end
		case ';', '&', '|', '(', ')', '<', '>':
			if mode == wordArgs {
				p.pos++
				continue
			}
			if (c == '<' || c == '>') && p.pos+1 < len(src) && src[p.pos+1] == '(' {
				// process substitution, part of the word
				w.lit = false
				via := "<("
				if c == '>' {
					via = ">("
				}
				p.pos += 2
				p.commandSubst(via)
				continue
			}
			if c == '(' && p.pos > w.start && strings.IndexByte("?*+@!", src[p.pos-1]) >= 0 {
				// an extended glob: @(a|b)
				w.lit = false
				p.pos++
				p.skipExpansion(frameParen)
				continue
			}
			if mode == wordCond && p.pos > w.start && c != ';' {
				p.pos++
				continue
			}
			if (c == '<' || c == '>') && p.pos > w.start && w.lit && b == nil && isFd(src[w.start:p.pos]) {
				w.fd = true
			}
			goto end
		case '=':
			if w.eq == 0 && w.lit && b == nil && p.pos > w.start {
				name := src[w.start:p.pos]
				plus := false
				if name[len(name)-1] == '+' {
					name, plus = name[:len(name)-1], true
				}
				if validName(name) {
					w.eq, w.plus = p.pos-w.start, plus
					if p.pos+1 < len(src) && src[p.pos+1] == '(' && mode == wordPlain {
						// NAME=(array elements): kept as written
						p.pos += 2
						p.readArray()
						w.lit = false
						goto end
					}
				}
			}
			p.pos++
		case '\\':
			w.lit = false
			copyTo(p.pos)
			if p.pos+1 >= len(src) {
				// a trailing backslash is kept
				b = append(b, '\\')
				p.pos++
			} else if src[p.pos+1] == '\n' {
				p.pos += 2 // line continuation
			} else {
				b = append(b, src[p.pos+1])
				p.pos += 2
			}
			seg = p.pos
		case '\'':
			w.lit = false
			copyTo(p.pos)
			end := strings.IndexByte(src[p.pos+1:], '\'')
			if end < 0 {
				b = append(b, src[p.pos+1:]...)
				p.pos = len(src)
				p.bad = true
			} else {
				b = append(b, src[p.pos+1:p.pos+1+end]...)
				p.pos += end + 2
			}
			seg = p.pos
		case '"':
			w.lit = false
			copyTo(p.pos)
			p.pos++
			b = p.doubleQuoted(b)
			seg = p.pos
		case '$':
			w.lit = false
			if p.pos+1 < len(src) && (src[p.pos+1] == '\'' || src[p.pos+1] == '"') {
				copyTo(p.pos)
				if src[p.pos+1] == '\'' {
					p.pos += 2
					b = p.ansiC(b)
				} else {
					p.pos += 2
					b = p.doubleQuoted(b)
				}
				seg = p.pos
				continue
			}
			p.dollar()
		case '`':
			w.lit = false
			p.backtick(false)
		}
	}
end:
	w.end = p.pos
	p.st.steps += 1 + w.end - w.start
	if b == nil {
		w.text = src[w.start:p.pos]
	} else {
		b = append(b, src[seg:p.pos]...)
		w.text = string(b)
	}
	return w
}

// isFd reports whether s, written right before < or >, is a file
// descriptor: digits, or {name}.
func isFd(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '{' && s[len(s)-1] == '}' && len(s) > 2 {
		return validName(s[1 : len(s)-1])
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// fdAt returns the length of a file descriptor written at p.pos right
// before < or > (not a process substitution), or 0.
func (p *parser) fdAt() int {
	s := p.src[p.pos:]
	n := 0
	if strings.HasPrefix(s, "{") {
		if i := strings.IndexByte(s[:min(len(s), 128)], '}'); i > 1 && validName(s[1:i]) {
			n = i + 1
		}
	} else {
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
	}
	p.st.steps += 1 + n
	if n == 0 || n >= len(s) || (s[n] != '<' && s[n] != '>') || (n+1 < len(s) && s[n+1] == '(') {
		return 0
	}
	return n
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// readArray reads the elements of NAME=( ... ) up to the closing ).
func (p *parser) readArray() {
	for !p.done() {
		p.st.steps++
		p.skipNewlines()
		if p.pos >= len(p.src) {
			break
		}
		if p.src[p.pos] == ')' {
			p.pos++
			return
		}
		if meta(p.src[p.pos]) && !p.procSubstAt() {
			p.pos++ // not valid in an array; skip it
			p.bad = true
			continue
		}
		p.readWord(wordElem)
	}
	p.bad = true
}

// doubleQuoted reads the rest of a "..." string (p.pos after the opening
// quote), appending its text to b.
func (p *parser) doubleQuoted(b []byte) []byte {
	src := p.src
	seg := p.pos
	for p.pos < len(src) {
		switch src[p.pos] {
		case '"':
			b = append(b, src[seg:p.pos]...)
			p.pos++
			return b
		case '\\':
			if p.pos+1 < len(src) {
				switch e := src[p.pos+1]; e {
				case '\n':
					b = append(b, src[seg:p.pos]...)
					p.pos += 2
					seg = p.pos
					continue
				case '"', '\\', '$', '`':
					b = append(b, src[seg:p.pos]...)
					b = append(b, e)
					p.pos += 2
					seg = p.pos
					continue
				}
			}
			p.pos++
		case '$':
			p.dollar()
		case '`':
			p.backtick(true)
		default:
			p.pos++
		}
	}
	b = append(b, src[seg:]...)
	p.bad = true
	return b
}

// ansiC decodes the rest of a $'...' string (p.pos after the quote),
// appending its text to b.
func (p *parser) ansiC(b []byte) []byte {
	src := p.src
	for p.pos < len(src) {
		c := src[p.pos]
		if c == '\'' {
			p.pos++
			return b
		}
		if c != '\\' || p.pos+1 >= len(src) {
			b = append(b, c)
			p.pos++
			continue
		}
		e := src[p.pos+1]
		p.pos += 2
		switch e {
		case 'a':
			b = append(b, 7)
		case 'b':
			b = append(b, 8)
		case 'e', 'E':
			b = append(b, 27)
		case 'f':
			b = append(b, 12)
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'v':
			b = append(b, 11)
		case '\\', '\'', '"', '?':
			b = append(b, e)
		case 'c':
			if p.pos < len(src) {
				b = append(b, src[p.pos]&0x1f)
				p.pos++
			}
		case 'x', 'u', 'U':
			limit := 2
			if e == 'u' {
				limit = 4
			} else if e == 'U' {
				limit = 8
			}
			v, n := 0, 0
			for n < limit && p.pos < len(src) && hexVal(src[p.pos]) >= 0 {
				v = v*16 + hexVal(src[p.pos])
				p.pos++
				n++
			}
			switch {
			case n == 0:
				b = append(b, '\\', e)
			case e == 'x':
				b = append(b, byte(v))
			default:
				if v > utf8.MaxRune {
					v = utf8.RuneError
				}
				b = utf8.AppendRune(b, rune(v))
			}
		default:
			if e >= '0' && e <= '7' {
				v, n := int(e-'0'), 1
				for n < 3 && p.pos < len(src) && src[p.pos] >= '0' && src[p.pos] <= '7' {
					v = v*8 + int(src[p.pos]-'0')
					p.pos++
					n++
				}
				b = append(b, byte(v))
			} else {
				b = append(b, '\\', e)
			}
		}
	}
	p.bad = true
	return b
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// dollar reads an expansion starting with $ at p.pos, kept as written:
// $(...) and $((...)), ${...}, $[...], or a plain $ (of $NAME, $1, $?...).
// The commands of substitutions are parsed.
func (p *parser) dollar() {
	src := p.src
	if p.pos+1 >= len(src) {
		p.pos++
		return
	}
	switch src[p.pos+1] {
	case '(':
		if p.pos+2 < len(src) && src[p.pos+2] == '(' && p.arithCloses(p.pos+3) {
			p.pos += 3
			p.skipExpansion(frameParen, frameParen)
			return
		}
		p.pos += 2
		p.commandSubst("$(")
	case '{':
		p.pos += 2
		p.skipExpansion(frameBrace)
	case '[':
		p.pos += 2
		p.skipExpansion(frameBracket)
	default:
		p.pos++
	}
}

// commandSubst parses the commands of $(...), <(...) or >(...), with p.pos
// after the opening parenthesis, up to and past the closing one. They are
// listed after the current pipeline.
func (p *parser) commandSubst(via string) {
	if p.depth+1 > p.st.opts.MaxDepth || p.st.nest >= maxNest {
		p.st.fail(ErrTooDeep)
		p.skipExpansion(frameParen)
		return
	}
	out, pending, pipes, depth, pvia, flatP, flatB, braces := p.out, p.pending, p.pipes, p.depth, p.via, p.flatP, p.flatB, p.braces
	p.out, p.pending, p.pipes, p.depth, p.via, p.flatP, p.flatB, p.braces = nil, nil, 0, depth+1, via, 0, 0, 0
	p.parens++
	p.st.nest++
	p.parseList(stopParen)
	p.st.nest--
	p.parens--
	closed := p.pos < len(p.src) && p.src[p.pos] == ')'
	if closed {
		p.pos++
	}
	p.flush()
	block := p.out
	p.st.steps += len(block)
	p.out, p.pending, p.pipes, p.depth, p.via, p.flatP, p.flatB, p.braces = out, append(pending, block...), pipes, depth, pvia, flatP, flatB, braces
	if !closed {
		p.bad = true
	}
}

// backtick parses `...` at p.pos: its text (with \\, \` and \$, and \"
// inside double quotes, unescaped) is a list of commands, listed after the
// current pipeline.
func (p *parser) backtick(inDQ bool) {
	src := p.src
	start := p.pos + 1
	i, esc := start, false
	for i < len(src) && src[i] != '`' {
		if src[i] == '\\' && i+1 < len(src) {
			esc = true
			i += 2
			continue
		}
		i++
	}
	end := min(i, len(src))
	p.st.steps += 1 + end - start
	if i < len(src) {
		p.pos = i + 1
	} else {
		p.pos = len(src)
		p.bad = true
	}
	text := src[start:end]
	if p.st.split {
		return
	}
	if esc {
		p.st.steps += len(text)
		var b strings.Builder
		for j := 0; j < len(text); j++ {
			if text[j] == '\\' && j+1 < len(text) {
				switch e := text[j+1]; {
				case e == '\\' || e == '`' || e == '$' || (inDQ && e == '"'):
					b.WriteByte(e)
					j++
					continue
				}
			}
			b.WriteByte(text[j])
		}
		text = b.String()
	}
	p.subText(text, p.depth+1, "`", false)
}

// Frames of skipExpansion.
const (
	frameParen   byte = '(' // ( ... ), $(( ... )) counts two
	frameBrace   byte = '{' // ${ ... }
	frameBracket byte = '[' // $[ ... ]
	frameDQ      byte = '"' // " ... " inside one of the above
)

// skipExpansion skips the rest of an expansion that holds no commands of
// its own (${...}, $((...)), $[...], an extended glob; or, past the depth
// bound, a command substitution), given the frames open at p.pos. The
// command substitutions inside are parsed. Nesting is tracked on an
// explicit stack, so that no input can make it recurse without bound.
func (p *parser) skipExpansion(open ...byte) {
	src := p.src
	start := p.pos
	stack := append(make([]byte, 0, 8), open...)
	for len(stack) > 0 && p.pos < len(src) && !p.st.full {
		top := stack[len(stack)-1]
		c := src[p.pos]
		if top == frameDQ {
			switch c {
			case '"':
				stack = stack[:len(stack)-1]
				p.pos++
			case '\\':
				p.pos += 2
			case '$':
				stack = p.skipDollar(stack)
			case '`':
				p.backtick(true)
			default:
				p.pos++
			}
			continue
		}
		switch c {
		case '\\':
			p.pos += 2
		case '\'':
			if end := strings.IndexByte(src[p.pos+1:], '\''); end >= 0 {
				p.pos += end + 2
			} else {
				p.pos = len(src)
			}
		case '"':
			stack = append(stack, frameDQ)
			p.pos++
		case '$':
			stack = p.skipDollar(stack)
		case '`':
			p.backtick(false)
		case '(':
			if top == frameParen {
				stack = append(stack, frameParen)
			}
			p.pos++
		case ')':
			if top == frameParen {
				stack = stack[:len(stack)-1]
			}
			p.pos++
		case '}':
			if top == frameBrace {
				stack = stack[:len(stack)-1]
			}
			p.pos++
		case ']':
			if top == frameBracket {
				stack = stack[:len(stack)-1]
			}
			p.pos++
		default:
			p.pos++
		}
	}
	if p.pos > len(src) {
		p.pos = len(src)
	}
	// Every round advances p.pos.
	p.st.steps += 1 + p.pos - start
	if len(stack) > 0 {
		p.bad = true
	}
}

// skipDollar handles a $ inside skipExpansion: nested ${, $(( and $[
// push frames; $( is a command substitution.
func (p *parser) skipDollar(stack []byte) []byte {
	src := p.src
	if p.pos+1 >= len(src) {
		p.pos++
		return stack
	}
	switch src[p.pos+1] {
	case '{':
		p.pos += 2
		return append(stack, frameBrace)
	case '[':
		p.pos += 2
		return append(stack, frameBracket)
	case '(':
		if p.pos+2 < len(src) && src[p.pos+2] == '(' && p.arithCloses(p.pos+3) {
			p.pos += 3
			return append(stack, frameParen, frameParen)
		}
		p.pos += 2
		if p.depth+1 > p.st.opts.MaxDepth || p.st.nest >= maxNest {
			p.st.fail(ErrTooDeep)
			return append(stack, frameParen)
		}
		p.commandSubst("$(")
		return stack
	}
	p.pos++
	return stack
}

// arithCloses reports whether the (( whose content starts at i is an
// arithmetic expression: as in bash, the parenthesis matching the second (
// must be followed at once by ). Otherwise (( opens two subshells, and
// $(( a command substitution holding a subshell.
func (p *parser) arithCloses(i int) bool {
	src := p.src
	if p.st.scan <= 0 {
		// The look-ahead budget is spent (input made of unclosed "(("):
		// read as parentheses, which lists more commands, never fewer.
		return false
	}
	start := i
	defer func() {
		p.st.scan -= i - start + 1
		p.st.steps += i - start + 1
	}()
	depth := 1
	for i < len(src) {
		switch src[i] {
		case '\\':
			i++
		case '\'':
			end := strings.IndexByte(src[i+1:], '\'')
			if end < 0 {
				return false
			}
			i += end + 1
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i+1 < len(src) && src[i+1] == ')'
			}
		}
		i++
	}
	return false
}

// scanExpansions parses the substitutions of an unquoted here-document
// body: only \, $ and ` are special there.
func (p *parser) scanExpansions() {
	for !p.done() {
		i := strings.IndexAny(p.src[p.pos:], "\\$`")
		if i < 0 {
			p.st.steps += 1 + len(p.src) - p.pos
			p.pos = len(p.src)
			return
		}
		p.st.steps += 1 + i
		p.pos += i
		switch p.src[p.pos] {
		case '\\':
			p.pos += 2
		case '$':
			p.dollar()
		case '`':
			p.backtick(false)
		}
	}
	if p.pos > len(p.src) {
		p.pos = len(p.src)
	}
}

// splitWords reads the whole text as words; with ops, operators are words
// of their own (see Split), else only blanks separate words (env -S).
func (p *parser) splitWords(ops bool) []string {
	var words []string
	if len(p.src) > 0 {
		words = make([]string, 0, min(len(p.src)/4+1, 64))
	}
	mode := wordPlain
	if !ops {
		mode = wordArgs
	}
	for p.pos < len(p.src) && !p.st.stopped() {
		p.st.steps++
		p.skipBlanks()
		if p.pos >= len(p.src) {
			break
		}
		c := p.src[p.pos]
		if c == '\n' {
			p.pos++
			if ops {
				words = append(words, ";")
			}
			continue
		}
		if ops {
			if op := p.opAt(); op != "" {
				words = append(words, op)
				p.pos += len(op)
				continue
			}
			if n := p.fdAt(); n > 0 {
				fd := p.src[p.pos : p.pos+n]
				p.pos += n
				op := p.opAt()
				words = append(words, fd+op)
				p.pos += len(op)
				continue
			}
		}
		w := p.readWord(mode)
		if w.end == w.start {
			p.pos++
			continue
		}
		words = append(words, w.text)
	}
	return words
}

// opAt returns the operator at p.pos (see Split), or "" (a process
// substitution is a word, not an operator).
func (p *parser) opAt() string {
	s := p.src[p.pos:]
	switch s[0] {
	case '<', '>':
		if p.procSubstAt() {
			return ""
		}
		return redirOpAt(s)
	case '&':
		if len(s) > 1 && s[1] == '>' {
			return redirOpAt(s)
		}
		if len(s) > 1 && s[1] == '&' {
			return "&&"
		}
		return "&"
	case '|':
		if len(s) > 1 && (s[1] == '|' || s[1] == '&') {
			return s[:2]
		}
		return "|"
	case ';':
		if strings.HasPrefix(s, ";;&") {
			return ";;&"
		}
		if len(s) > 1 && (s[1] == ';' || s[1] == '&') {
			return s[:2]
		}
		return ";"
	case '(':
		return "("
	case ')':
		return ")"
	}
	return ""
}

// redirOpAt returns the redirection operator at the start of s (which
// starts with <, > or &>), or "".
func redirOpAt(s string) string {
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	switch s[0] {
	case '&':
		if at(1) != '>' {
			return ""
		}
		if at(2) == '>' {
			return "&>>"
		}
		return "&>"
	case '>':
		switch at(1) {
		case '>', '|', '&':
			return s[:2]
		}
		return ">"
	case '<':
		switch at(1) {
		case '<':
			switch at(2) {
			case '<', '-':
				return s[:3]
			}
			return "<<"
		case '>', '&':
			return s[:2]
		}
		return "<"
	}
	return ""
}
