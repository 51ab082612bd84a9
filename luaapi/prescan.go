package luaapi

import "fmt"

// MaxNesting bounds how deeply a script's syntax nests, measured by
// prescan before gopher-lua sees the source (see the package doc, "Time and
// memory").
const MaxNesting = 100

// Why a pre-scan.
//
// gopher-lua's parser is an iterative LALR parser, but its compiler (and
// checkChunk) recurse over the syntax tree: a million '#' in a row, deeply
// nested parentheses, tables, functions or blocks, or one expression
// chaining a million operators overflow the Go stack (a fatal error that no
// recover catches), and moderately deep nesting already costs seconds of
// compile time (quadratic in the depth: 10,000 nested functions took 7.6 s,
// 10,000 elseif 1 s). prescan tokenizes the source once, in linear time and
// constant stack, and bounds the depth of the tree the parser would build
// by MaxNesting before the parser runs.
//
// The depth it measures is an upper bound of the syntax tree's depth: the
// sum, over the enclosing brackets and blocks, of one per bracket or block
// (one more per elseif of an if), plus the length of the operator chain in
// progress at each level: every binary or unary operator, field access
// (. and :), index, and call counts one, and a chain restarts at = , ; and
// keywords that begin or separate statements, and at a name that follows a
// complete expression (a new statement). Sibling expressions therefore do
// not add up: {a+b, c+d} is 2 deep, a long list of statements 1.
//
// prescan does not validate the syntax: it stops quietly at anything it
// does not understand (an unclosed string, a stray bracket) and leaves the
// error to the parser, which then sees a source whose prefix is bounded.

type scanCtx struct {
	kind   byte // '(', '[', '{' or one of the block kinds below
	weight int  // 1, plus one per elseif of an if block
	chain  int  // operators chained so far at this level
}

// Block kinds of scanCtx.
const (
	blockFunction = 'f'
	blockIf       = 'i'
	blockDo       = 'd'
	blockRepeat   = 'r'
)

type prescanner struct {
	src     []byte
	pos     int
	line    int
	stack   []scanCtx // stack[0] is the chunk
	depth   int       // sum of weight+chain over stack
	operand bool      // the last token ends an operand
	maxSeen int
}

// prescan returns a *ScriptError when src nests deeper than MaxNesting,
// nil otherwise (including for sources with syntax errors, which the parser
// reports).
func prescan(name string, src []byte) *ScriptError {
	s := prescanner{src: src, line: 1, stack: make([]scanCtx, 1, 16)}
	if line, what := s.run(); line > 0 {
		return &ScriptError{Script: name, Line: line, Kind: ScriptLimit, Msg: fmt.Sprintf(
			"%s nest deeper than %d levels (brackets, blocks, elseif chains and chained operators all count): split the expression or the function", what, MaxNesting)}
	}
	return nil
}

// run scans the source; on a nesting beyond MaxNesting it returns the line
// and what nested.
func (s *prescanner) run() (int, string) {
	for {
		tok, ok := s.next()
		if !ok {
			return 0, ""
		}
		what := s.token(tok)
		if s.depth > s.maxSeen {
			s.maxSeen = s.depth
		}
		if s.depth > MaxNesting {
			return s.line, what
		}
	}
}

func (s *prescanner) top() *scanCtx { return &s.stack[len(s.stack)-1] }

func (s *prescanner) push(kind byte) {
	s.stack = append(s.stack, scanCtx{kind: kind, weight: 1})
	s.depth++
}

// pop leaves the innermost bracket or block; it reports false (stop
// scanning) when there is none.
func (s *prescanner) pop() (scanCtx, bool) {
	if len(s.stack) <= 1 {
		return scanCtx{}, false
	}
	c := *s.top()
	s.stack = s.stack[:len(s.stack)-1]
	s.depth -= c.weight + c.chain
	return c, true
}

func (s *prescanner) chain() {
	s.top().chain++
	s.depth++
}

func (s *prescanner) restart() {
	c := s.top()
	s.depth -= c.chain
	c.chain = 0
}

// Token classes returned by next.
const (
	tokOperand = iota // a name other than a keyword, a number, a string, ...
	tokString         // a string literal (an operand, or a call's argument)
	tokKeyword        // a keyword other than the operand ones
	tokOp             // a binary or unary operator, . or :
	tokOpen           // ( [ {
	tokClose          // ) ] }
	tokSep            // = , ;
	tokStop           // something prescan does not understand
)

type scanTok struct {
	class int
	text  string // keyword or bracket
}

// token updates the nesting for one token and names what nests.
func (s *prescanner) token(t scanTok) string {
	switch t.class {
	case tokOperand:
		if s.operand {
			s.restart() // a name after a complete expression: a new statement
		}
		s.operand = true
		return "expressions"
	case tokString:
		if s.operand {
			s.chain() // f "str": a call
		}
		s.operand = true
		return "calls"
	case tokOp:
		s.chain()
		s.operand = false
		return "operator chains"
	case tokSep:
		s.restart()
		s.operand = false
		return "expressions"
	case tokOpen:
		if s.operand {
			s.chain() // a call or an index
		}
		s.push(t.text[0])
		s.operand = false
		return "brackets"
	case tokClose:
		if c, ok := s.pop(); !ok || !isBracket(c.kind) {
			s.stopScan()
		}
		s.operand = true
		return "brackets"
	case tokKeyword:
		return s.keyword(t.text)
	}
	s.stopScan()
	return ""
}

func isBracket(k byte) bool { return k == '(' || k == '[' || k == '{' }

// stopScan makes run end: the parser will report what is wrong.
func (s *prescanner) stopScan() { s.pos = len(s.src) }

func (s *prescanner) keyword(kw string) string {
	operand := false
	switch kw {
	case "and", "or", "not":
		s.chain()
		s.operand = false
		return "operator chains"
	case "true", "false", "nil":
		if s.operand {
			s.restart()
		}
		s.operand = true
		return "expressions"
	case "function":
		s.push(blockFunction)
	case "if":
		s.restart()
		s.push(blockIf)
	case "elseif":
		s.restart()
		if c := s.top(); c.kind == blockIf {
			c.weight++
			s.depth++
		}
		s.operand = false
		return "elseif chains"
	case "do":
		s.restart()
		s.push(blockDo)
	case "repeat":
		s.restart()
		s.push(blockRepeat)
	case "end", "until":
		s.restart()
		c, ok := s.pop()
		if !ok || isBracket(c.kind) {
			s.stopScan()
		}
		operand = kw == "end" && c.kind == blockFunction
	default: // then else while for in local return break
		s.restart()
	}
	s.operand = operand
	return "blocks"
}

// next returns the next token, or false at the end of the source (or of
// what prescan understands).
func (s *prescanner) next() (scanTok, bool) {
	src := s.src
	for s.pos < len(src) {
		c := src[s.pos]
		switch {
		case c == '\n':
			s.line++
			s.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			s.pos++
		case c == '-' && s.pos+1 < len(src) && src[s.pos+1] == '-':
			s.pos += 2
			if level, ok := s.longBracket(); ok {
				if !s.skipLong(level) {
					return scanTok{}, false
				}
				continue
			}
			for s.pos < len(src) && src[s.pos] != '\n' {
				s.pos++
			}
		case c == '[':
			if level, ok := s.longBracket(); ok {
				if !s.skipLong(level) {
					return scanTok{}, false
				}
				return scanTok{class: tokString}, true
			}
			s.pos++
			return scanTok{class: tokOpen, text: "["}, true
		case c == '"' || c == '\'':
			if !s.skipQuoted(c) {
				return scanTok{}, false
			}
			return scanTok{class: tokString}, true
		case isDigit(c) || (c == '.' && s.pos+1 < len(src) && isDigit(src[s.pos+1])):
			s.skipNumber()
			return scanTok{class: tokOperand}, true
		case isNameStart(c):
			start := s.pos
			for s.pos < len(src) && (isNameStart(src[s.pos]) || isDigit(src[s.pos])) {
				s.pos++
			}
			w := string(src[start:s.pos])
			if isKeyword(w) {
				return scanTok{class: tokKeyword, text: w}, true
			}
			return scanTok{class: tokOperand}, true
		default:
			return s.punct(), true
		}
	}
	return scanTok{}, false
}

// isKeyword reports whether w is a Lua keyword (a switch, not a map built as
// every process started: BenchmarkCLIRunNoStdlib).
func isKeyword(w string) bool {
	switch w {
	case "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while":
		return true
	}
	return false
}

func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isNameStart(c byte) bool { return c == '_' || (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// punct reads an operator or punctuation at s.pos.
func (s *prescanner) punct() scanTok {
	src := s.src
	c := src[s.pos]
	s.pos++
	switch c {
	case '(', '{':
		return scanTok{class: tokOpen, text: string(c)}
	case ')', ']', '}':
		return scanTok{class: tokClose, text: string(c)}
	case ',', ';':
		return scanTok{class: tokSep}
	case '.':
		if s.pos+1 < len(src) && src[s.pos] == '.' && src[s.pos+1] == '.' {
			s.pos += 2
			return scanTok{class: tokOperand} // ...
		}
		if s.pos < len(src) && src[s.pos] == '.' {
			s.pos++
		}
		return scanTok{class: tokOp}
	case '=', '<', '>', '~':
		if s.pos < len(src) && src[s.pos] == '=' {
			s.pos++
			return scanTok{class: tokOp}
		}
		if c == '=' {
			return scanTok{class: tokSep}
		}
		if c == '~' {
			return scanTok{class: tokStop}
		}
		return scanTok{class: tokOp}
	case '+', '-', '*', '/', '%', '^', '#', ':':
		return scanTok{class: tokOp}
	}
	return scanTok{class: tokStop}
}

// longBracket reports whether a long bracket [[ or [==[ opens at s.pos and
// consumes it, returning its level.
func (s *prescanner) longBracket() (int, bool) {
	src := s.src
	i := s.pos
	if i >= len(src) || src[i] != '[' {
		return 0, false
	}
	i++
	level := 0
	for i < len(src) && src[i] == '=' {
		level++
		i++
	}
	if i >= len(src) || src[i] != '[' {
		return 0, false
	}
	s.pos = i + 1
	return level, true
}

// skipLong skips to the end of a long string or comment of the level.
func (s *prescanner) skipLong(level int) bool {
	src := s.src
	for s.pos < len(src) {
		c := src[s.pos]
		s.pos++
		switch c {
		case '\n':
			s.line++
		case ']':
			i := s.pos
			for i < len(src) && src[i] == '=' {
				i++
			}
			if i-s.pos == level && i < len(src) && src[i] == ']' {
				s.pos = i + 1
				return true
			}
		}
	}
	return false
}

// skipQuoted skips a quoted string (s.pos at its opening quote).
func (s *prescanner) skipQuoted(q byte) bool {
	src := s.src
	s.pos++
	for s.pos < len(src) {
		c := src[s.pos]
		s.pos++
		switch c {
		case q:
			return true
		case '\n':
			return false // unfinished string: the parser reports it
		case '\\':
			if s.pos < len(src) {
				if src[s.pos] == '\n' {
					s.line++
				}
				s.pos++
			}
		}
	}
	return false
}

// skipNumber skips a number as Lua 5.1's lexer reads it: digits, letters,
// dots and underscores, and a sign after an exponent mark.
func (s *prescanner) skipNumber() {
	src := s.src
	for s.pos < len(src) {
		c := src[s.pos]
		switch {
		case isDigit(c) || isNameStart(c) || c == '.':
			s.pos++
			if (c == 'e' || c == 'E') && s.pos < len(src) && (src[s.pos] == '+' || src[s.pos] == '-') {
				s.pos++
			}
		default:
			return
		}
	}
}
