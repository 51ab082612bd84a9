package pwsh

import (
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"unicode/utf16"
)

// Defaults of Options.
const (
	DefaultMaxDepth    = 8
	DefaultMaxCommands = 10000
	DefaultMaxBytes    = 1 << 20

	// maxDepthCap bounds Options.MaxDepth, so that no option makes the
	// parser's recursion unbounded.
	maxDepthCap = 64
	// stopEvery is how many steps pass between two polls of Options.Stop.
	stopEvery = 1024
)

// Errors of Commands and CmdCommands, each returned (test with errors.Is)
// with the commands found: they mean that part of the line was not read.
var (
	// ErrTooDeep: a block, subexpression or command string lies deeper
	// than Options.MaxDepth; its commands were not listed.
	ErrTooDeep = errors.New("pwsh: nesting deeper than the depth limit")
	// ErrTooMany: the line has more than Options.MaxCommands commands; the
	// parse stopped at the limit.
	ErrTooMany = errors.New("pwsh: more commands than the limit")
	// ErrTooLong: the line is longer than Options.MaxBytes (only its first
	// MaxBytes bytes were read), or the command strings read again (cmd
	// /c, powershell -Command, Invoke-Expression) add up to more.
	ErrTooLong = errors.New("pwsh: input longer than the size limit")
	// ErrStopped: Options.Stop reported true; the parse ended early.
	ErrStopped = errors.New("pwsh: stopped by the caller")
)

// Options bounds the work of Commands and CmdCommands. The zero value
// means the defaults.
type Options struct {
	// MaxDepth is the deepest nesting read: a command inside a script
	// block, parentheses, $(...), @(...), @{...} or a command string (cmd
	// /c, powershell -Command, Invoke-Expression) is one deeper than the
	// command that holds it. 0 means DefaultMaxDepth; values above 64
	// mean 64.
	MaxDepth int
	// MaxCommands bounds the number of commands returned. 0 means
	// DefaultMaxCommands.
	MaxCommands int
	// MaxBytes bounds the length of the line read, and separately the
	// total length of the command strings read again. 0 means
	// DefaultMaxBytes.
	MaxBytes int
	// Stop, when set, is polled about every thousand steps (a step reads
	// at least one byte); once it returns true the parse ends and
	// ErrStopped is returned with the commands found.
	Stop func() bool
}

func (o Options) withDefaults() Options {
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	o.MaxDepth = min(o.MaxDepth, maxDepthCap)
	if o.MaxCommands <= 0 {
		o.MaxCommands = DefaultMaxCommands
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}

// Redirect is one redirection of a command.
type Redirect struct {
	// Op is ">" (write), ">>" (append), ">&" (merge a stream into
	// another: 2>&1 is Op ">&", Fd "2", Target "1") or "<" (input; an
	// error in PowerShell, read by cmd.exe).
	Op string
	// Fd is the stream written before the operator ("2" in 2>$null, "*"
	// in *>), or "" when there is none.
	Fd string
	// Target is the word after the operator, quotes resolved.
	Target string
}

// Command is one command (or one expression) of a line.
type Command struct {
	// Words are the command's words with quotes and escapes resolved; the
	// arguments of a list (a,b) are separate words. Words[0] is the
	// normalised name: for a cmdlet, its canonical name (an alias or a
	// cmd.exe built-in is the cmdlet it runs: rd is Remove-Item, type is
	// Get-Content); for a program, the lower-case base name of what is
	// written without .exe or .com (C:\Tools\Git.EXE is git). Variables,
	// parameters (-Recurse, -Path:x) and blocks ({...}, (...), $(...))
	// are kept as written (the commands inside blocks are listed
	// separately).
	Words []string
	// Written is the name as written, quotes resolved ("rd",
	// "C:\Windows\System32\cmd.exe"); "" for an expression.
	Written string
	// Cmdlet is set when Words[0] is a PowerShell cmdlet (a Verb-Noun
	// name with an approved verb, an alias of one or a cmd.exe built-in
	// given its name), not a program.
	Cmdlet bool
	// Invoke is "&" (the call operator) or "." (dot-sourcing) when the
	// command is run through one, else "".
	Invoke string
	// Expr is set when the statement is an expression rather than a
	// command ('text', $x, 42, (...), [Type]::Method(...)): Words are its
	// tokens, Words[0] not normalised.
	Expr bool
	// Op is the operator after the command: ";" (also a newline), "|",
	// "&&", "||", "&" (run in the background), or "" for the last command
	// of its list.
	Op string
	// Redirects are the command's redirections, in order.
	Redirects []Redirect
	// Depth is 0 at the top level and one more inside each block or
	// command string.
	Depth int
	// Via tells what holds a command of Depth > 0: "{", "(", "$(", "@(",
	// "@{", or the command whose argument it was read from: "cmd",
	// "powershell", "Invoke-Expression". It is "" at depth 0.
	Via string
	// Dialect is "powershell" or "cmd": how the command was read.
	Dialect string
	// Malformed is set when the command's text was not well formed (an
	// unclosed quote, block or comment, a stray closer, an escape at the
	// end).
	Malformed bool
}

// Commands lists the commands of a PowerShell line in the order they
// end (the commands of a block before the command that holds it). The error is nil
// or one of ErrTooDeep, ErrTooMany, ErrTooLong and ErrStopped, returned
// with the commands found.
func Commands(line string, opts Options) ([]Command, error) {
	cmds, _, err := run(line, opts, false)
	return cmds, err
}

// CmdCommands lists the commands of a cmd.exe line (the text of cmd /c),
// like Commands.
func CmdCommands(line string, opts Options) ([]Command, error) {
	cmds, _, err := run(line, opts, true)
	return cmds, err
}

// run parses line and also returns the steps it took (tests prove the
// work linear by counting them).
func run(line string, opts Options, cmd bool) ([]Command, int, error) {
	o := opts.withDefaults()
	st := &state{opts: o, budget: o.MaxBytes}
	if len(line) > o.MaxBytes {
		line = line[:o.MaxBytes]
		st.fail(ErrTooLong)
	}
	p := &parser{st: st, s: line, cmd: cmd}
	p.list(0)
	return st.out, st.steps, st.err
}

// state is what the parsers of one call share.
type state struct {
	opts   Options
	out    []Command
	err    error
	steps  int
	budget int // bytes of command strings that may still be read again
	done   bool
	// aliases defined on the line (Set-Alias NAME VALUE), lower-case
	aliases map[string]string
	// variables assigned one value on the line ($p = 'C:\x'), lower-case
	vars map[string]string
}

func (st *state) fail(err error) {
	if st.err == nil || errors.Is(err, ErrStopped) {
		st.err = err
	}
	if errors.Is(err, ErrTooMany) || errors.Is(err, ErrStopped) {
		st.done = true
	}
}

// tick counts a step and polls Stop; it reports whether the parse must end.
func (st *state) tick() bool {
	st.steps++
	if st.opts.Stop != nil && st.steps%stopEvery == 0 && !st.done && st.opts.Stop() {
		st.fail(ErrStopped)
	}
	return st.done
}

// parser reads one text (the line, or a command string read again) at one
// nesting level and its blocks.
type parser struct {
	st    *state
	s     string
	i     int
	depth int
	via   string
	cmd   bool // cmd.exe syntax
}

// pending is the statement being read.
type pending struct {
	words     []string
	quoted    bool // the first word began with a quote or an expression
	second    bool // so did the second
	invoke    string
	redirects []Redirect
	bad       bool
	piped     bool   // the statement follows a |
	assign    string // the variable a $x = VALUE statement assigns, lower-case
}

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
}

// list reads statements up to closer (0: the end of the text).
func (p *parser) list(closer byte) {
	if p.cmd {
		p.cmdList(closer)
		return
	}
	var cur pending
	for p.i < len(p.s) && !p.st.tick() {
		c := p.s[p.i]
		next := byte(0)
		if p.i+1 < len(p.s) {
			next = p.s[p.i+1]
		}
		switch {
		case isBlank(c) || c == ',':
			p.i++
		case c == '`' && next == '\r' && p.i+2 < len(p.s) && p.s[p.i+2] == '\n':
			p.i += 3
		case c == '`' && (next == '\n' || next == '\r'):
			p.i += 2
		case c == '\n' || c == ';':
			p.flush(&cur, ";")
			p.i++
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '<' && next == '#':
			if k := strings.Index(p.s[p.i+2:], "#>"); k >= 0 {
				p.i += k + 4
			} else {
				cur.bad = true
				p.i = len(p.s)
			}
		case c == '|' && next == '|':
			p.flush(&cur, "||")
			p.i += 2
		case c == '|':
			p.flush(&cur, "|")
			p.i++
		case c == '&' && next == '&':
			p.flush(&cur, "&&")
			p.i += 2
		case c == '&' && len(cur.words) == 0 && cur.invoke == "":
			cur.invoke = "&"
			p.i++
		case c == '&':
			p.flush(&cur, "&")
			p.i++
		case closer != 0 && c == closer:
			p.flush(&cur, "")
			p.i++
			return
		case c == ')' || c == '}':
			cur.bad = true
			p.i++
		case c == '.' && len(cur.words) == 0 && cur.invoke == "" && (isBlank(next) || next == '\'' || next == '"'):
			cur.invoke = "."
			p.i++
		case len(cur.words) == 1 && cur.invoke == "" && strings.HasPrefix(cur.words[0], "$") && assignOp(p.s[p.i:]) > 0:
			// $x = command: the command is what runs
			if strings.HasPrefix(p.s[p.i:], "=") {
				cur.assign = strings.ToLower(strings.Trim(cur.words[0], "${}"))
			}
			p.i += assignOp(p.s[p.i:])
			cur.words, cur.quoted = cur.words[:0], false
		case c == '>' || c == '<' || (('1' <= c && c <= '6' || c == '*') && next == '>'):
			p.redirect(&cur)
		default:
			w, quoted, bad := p.word(len(cur.words) == 0)
			switch len(cur.words) {
			case 0:
				cur.quoted = quoted
			case 1:
				cur.second = quoted
			}
			cur.bad = cur.bad || bad
			cur.words = append(cur.words, w)
		}
	}
	if closer != 0 {
		cur.bad = true
	}
	p.flush(&cur, "")
}

// assignOp returns the length of the assignment operator at the start of
// s (=, +=, -=, *=, /=, %=, ??=), or 0.
func assignOp(s string) int {
	switch {
	case strings.HasPrefix(s, "??="):
		return 3
	case strings.HasPrefix(s, "=="):
		return 0
	case strings.HasPrefix(s, "="):
		return 1
	case len(s) > 1 && s[1] == '=' && strings.IndexByte("+-*/%", s[0]) >= 0:
		return 2
	}
	return 0
}

// quoteAt returns the length of a quote character at s[i] and whether it
// is a single quote: ' or a typographic single quote (U+2018 to U+201B),
// " or a typographic double quote (U+201C to U+201E), as PowerShell reads
// them; 0 when there is none.
func quoteAt(s string, i int) (n int, single bool) {
	switch {
	case i >= len(s):
		return 0, false
	case s[i] == '\'':
		return 1, true
	case s[i] == '"':
		return 1, false
	case s[i] == 0xE2 && i+2 < len(s) && s[i+1] == 0x80:
		switch c := s[i+2]; {
		case 0x98 <= c && c <= 0x9B:
			return 3, true
		case 0x9C <= c && c <= 0x9E:
			return 3, false
		}
	}
	return 0, false
}

// dashAt returns the length of an en dash, em dash or horizontal bar
// (U+2013 to U+2015) at s[i], which PowerShell reads as -, or 0.
func dashAt(s string, i int) int {
	if s[i] == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && 0x93 <= s[i+2] && s[i+2] <= 0x95 {
		return 3
	}
	return 0
}

// word reads one word at p.i; quoted is set when it begins with a quote or
// an expression's first character ($, (, @, [, a digit).
func (p *parser) word(first bool) (w string, quoted, bad bool) {
	var b strings.Builder
	start := p.i
	assign := first && p.s[p.i] == '$'
	if n, _ := quoteAt(p.s, p.i); n > 0 || strings.IndexByte("$(@[{0123456789", p.s[p.i]) >= 0 {
		quoted = true
	}
	for p.i < len(p.s) && !p.st.tick() {
		c := p.s[p.i]
		next := byte(0)
		if p.i+1 < len(p.s) {
			next = p.s[p.i+1]
		}
		if n, single := quoteAt(p.s, p.i); n > 0 {
			if !p.quoted(&b, n, single) {
				bad = true
			}
			continue
		}
		if c == '@' && (next == '\'' || next == '"') && p.i == start {
			// a here-string: @' or @" at the end of a line, up to '@ or "@
			// at the start of a line
			if k := strings.IndexByte(p.s[p.i+2:], '\n'); k >= 0 && strings.TrimSpace(p.s[p.i+2:p.i+2+k]) == "" {
				body := p.i + 3 + k
				end := strings.Index(p.s[body:], "\n"+string(next)+"@")
				if strings.HasPrefix(p.s[body:], string(next)+"@") {
					end = -1
				}
				if end < 0 {
					b.WriteString(p.s[body:])
					p.i = len(p.s)
					return b.String(), true, true
				}
				b.WriteString(p.s[body : body+end])
				p.i = body + end + 3
				quoted = true
				continue
			}
		}
		switch {
		case isBlank(c) || strings.IndexByte("\n;|&)},><", c) >= 0:
			return b.String(), quoted, bad
		case c == '{' && p.i > start:
			return b.String(), quoted, bad
		case c == '{':
			b.WriteString(p.group(1, '}', "{"))
		case c == '(' && first && !quoted && p.i > start:
			// IEX(...): a command's name ends where its argument begins
			return b.String(), quoted, bad
		case c == '(':
			b.WriteString(p.group(1, ')', "("))
		case (c == '$' || c == '@') && next == '(':
			b.WriteString(p.group(2, ')', string(c)+"("))
		case c == '@' && next == '{':
			b.WriteString(p.group(2, '}', "@{"))
		case c == '$' && next == '{':
			k := strings.IndexByte(p.s[p.i:], '}')
			if k < 0 {
				k, bad = len(p.s)-p.i-1, true
			}
			b.WriteString(p.s[p.i : p.i+k+1])
			p.i += k + 1
		case c == '`':
			switch {
			case next == 0:
				bad = true
				p.i++
			case next == '\n' || next == '\r':
				return b.String(), quoted, bad
			default:
				p.i++
				p.rune(&b)
			}
		case c == '[' && p.i == start:
			p.bracket(&b)
		case assign && (c == '=' || next == '=' && strings.IndexByte("+-*/%?", c) >= 0) && p.i > start:
			return b.String(), quoted, bad
		case p.i == start && dashAt(p.s, p.i) > 0:
			b.WriteByte('-')
			p.i += 3
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return b.String(), quoted, bad
}

// rune copies the (UTF-8) character at p.i.
func (p *parser) rune(b *strings.Builder) {
	n := 1
	for p.i+n < len(p.s) && n < 4 && p.s[p.i+n]&0xC0 == 0x80 {
		n++
	}
	b.WriteString(p.s[p.i : p.i+n])
	p.i += n
}

// bracket copies a type literal [...] (nested brackets included).
func (p *parser) bracket(b *strings.Builder) {
	open := 0
	for p.i < len(p.s) && !p.st.tick() {
		c := p.s[p.i]
		b.WriteByte(c)
		p.i++
		if c == '[' {
			open++
		} else if c == ']' {
			if open--; open == 0 {
				return
			}
		} else if c == '\n' {
			return
		}
	}
}

// quoted reads a string whose opening quote (n bytes) is at p.i into b,
// and reports whether it was closed. A single-quoted string is literal (a
// doubled quote is one); a double-quoted string has backtick escapes,
// doubled quotes and subexpressions $(...) (whose commands are listed).
func (p *parser) quoted(b *strings.Builder, n int, single bool) bool {
	p.i += n
	for p.i < len(p.s) && !p.st.tick() {
		if m, s := quoteAt(p.s, p.i); m > 0 && s == single {
			if k, s2 := quoteAt(p.s, p.i+m); p.i+m < len(p.s) && k > 0 && s2 == single {
				b.WriteString(p.s[p.i : p.i+m])
				p.i += m + k
				continue
			}
			p.i += m
			return true
		}
		c := p.s[p.i]
		switch {
		case single:
			b.WriteByte(c)
			p.i++
		case c == '`' && p.i+1 < len(p.s):
			p.i++
			if e := strings.IndexByte("0abefnrtv", p.s[p.i]); e >= 0 {
				b.WriteByte("\x00\a\b\x1b\f\n\r\t\v"[e])
				p.i++
			} else {
				p.rune(b)
			}
		case c == '$' && p.i+1 < len(p.s) && p.s[p.i+1] == '(':
			b.WriteString(p.group(2, ')', "$("))
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return false
}

// group reads a block whose opener (n bytes) is at p.i, up to its closer,
// listing its commands one level deeper (via says what holds them), and
// returns its text as written.
func (p *parser) group(n int, closer byte, via string) string {
	start := p.i
	p.i += n
	if p.depth >= p.st.opts.MaxDepth {
		p.st.fail(ErrTooDeep)
		p.skip(closer)
		return p.s[start:p.i]
	}
	sub := &parser{st: p.st, s: p.s, i: p.i, depth: p.depth + 1, via: via, cmd: p.cmd}
	sub.list(closer)
	p.i = sub.i
	return p.s[start:p.i]
}

// skip passes over text up to the closer of a block, without recursion:
// brackets are counted and quotes skipped.
func (p *parser) skip(closer byte) {
	open := 0
	for p.i < len(p.s) && !p.st.tick() {
		c := p.s[p.i]
		if n, single := quoteAt(p.s, p.i); n > 0 {
			var b strings.Builder
			p.quoted(&b, n, single)
			continue
		}
		p.i++
		switch c {
		case '(', '{':
			open++
		case ')', '}':
			if open == 0 {
				return
			}
			open--
		case '`':
			p.i++
		}
	}
	_ = closer
}

// redirect reads a redirection at p.i: [fd]> target, [fd]>> target,
// [fd]>&N, < target.
func (p *parser) redirect(cur *pending) {
	r := Redirect{Op: ">"}
	if c := p.s[p.i]; c != '>' && c != '<' {
		r.Fd = string(c)
		p.i++
	}
	switch {
	case p.s[p.i] == '<':
		r.Op = "<"
		p.i++
	case strings.HasPrefix(p.s[p.i:], ">>"):
		r.Op = ">>"
		p.i += 2
	default:
		p.i++
	}
	if r.Op != "<" && p.i+1 < len(p.s) && p.s[p.i] == '&' && '0' <= p.s[p.i+1] && p.s[p.i+1] <= '9' {
		r.Op, r.Target = ">&", p.s[p.i+1:p.i+2]
		p.i += 2
		cur.redirects = append(cur.redirects, r)
		return
	}
	for p.i < len(p.s) && isBlank(p.s[p.i]) {
		p.i++
	}
	if p.i >= len(p.s) || strings.IndexByte("\n;|&)}<>", p.s[p.i]) >= 0 {
		cur.bad = true
	} else {
		var bad bool
		if p.cmd {
			r.Target, bad = p.cmdWord(0)
		} else {
			r.Target, _, bad = p.word(false)
		}
		cur.bad = cur.bad || bad
	}
	cur.redirects = append(cur.redirects, r)
}

// keywords begin statements that are not commands: their blocks and
// conditions are read as blocks.
var keywords = map[string]bool{
	"if": true, "elseif": true, "else": true, "while": true, "do": true, "until": true, "for": true,
	"foreach": true, "switch": true, "try": true, "catch": true, "finally": true, "trap": true,
	"function": true, "filter": true, "workflow": true, "class": true, "enum": true, "begin": true,
	"process": true, "end": true, "dynamicparam": true, "clean": true, "param": true, "data": true,
	"using": true, "break": true, "continue": true, "exit": true,
}

// flush ends the pending statement with the operator op and lists it.
func (p *parser) flush(cur *pending, op string) {
	piped := op == "|"
	defer func() { *cur = pending{piped: piped} }()
	words := cur.words
	if !cur.quoted && cur.invoke == "" && len(words) > 0 {
		low := strings.ToLower(words[0])
		if low == "return" || low == "throw" {
			// return PIPELINE: the pipeline runs
			words = words[1:]
			cur.quoted = cur.second
		} else if keywords[low] && !(cur.piped && low == "foreach") {
			return
		}
	}
	if len(words) == 0 && len(cur.redirects) == 0 {
		if cur.bad {
			p.emit(Command{Op: op, Malformed: true})
		}
		return
	}
	p.substitute(words)
	if cur.assign != "" && cur.quoted && cur.invoke == "" && len(words) == 1 && op != "|" {
		// $x = 'text' (or $env:Y, a number): later $x are its value
		if p.st.vars == nil {
			p.st.vars = map[string]string{}
		}
		if len(p.st.vars) < 64 && len(words[0]) <= 4096 {
			p.st.vars[cur.assign] = words[0]
		}
	}
	c := Command{Words: words, Invoke: cur.invoke, Op: op, Redirects: cur.redirects, Malformed: cur.bad}
	if len(words) > 0 {
		if cur.quoted && cur.invoke == "" {
			c.Expr = true
		} else {
			c.Written = words[0]
			name := words[0]
			if a, ok := p.st.aliases[strings.ToLower(name)]; ok && !p.cmd {
				name = a
			}
			words[0], c.Cmdlet = normalize(name, p.cmd)
		}
	}
	p.emit(c)
	if len(words) > 0 && !c.Expr {
		p.descend(c)
	}
}

// substitute puts the values of the variables assigned on the line in
// the words that are one of them ($p, ${p}) or begin with one before a
// path separator ($p\x).
func (p *parser) substitute(words []string) {
	if len(p.st.vars) == 0 {
		return
	}
	for i, w := range words {
		if len(w) < 2 || w[0] != '$' {
			continue
		}
		name, rest := w[1:], ""
		if k := strings.IndexAny(name, `\/`); k >= 0 {
			name, rest = name[:k], name[k:]
		}
		if v, ok := p.st.vars[strings.ToLower(strings.Trim(name, "{}"))]; ok {
			words[i] = v + rest
		}
	}
}

// emit lists c at the parser's depth.
func (p *parser) emit(c Command) {
	if p.st.done {
		return
	}
	if len(p.st.out) >= p.st.opts.MaxCommands {
		p.st.fail(ErrTooMany)
		return
	}
	c.Depth, c.Via = p.depth, p.via
	c.Dialect = "powershell"
	if p.cmd {
		c.Dialect = "cmd"
	}
	p.st.out = append(p.st.out, c)
}

// psTakes are the options of powershell and pwsh that take a value.
var psTakes = map[string]bool{}

func init() {
	for _, o := range strings.Fields("executionpolicy ep ex exec windowstyle w win version v outputformat of o " +
		"inputformat if inp configurationname config workingdirectory wd psconsolefile settingsfile " +
		"custompipename commandwithargs cwa") {
		psTakes[o] = true
	}
}

// descend lists the commands of the command string c runs: cmd /c TEXT,
// powershell or pwsh -Command TEXT (see Script), Invoke-Expression TEXT.
func (p *parser) descend(c Command) {
	w := c.Words
	if c.Cmdlet && (w[0] == "Set-Alias" || w[0] == "New-Alias") {
		p.alias(c)
		return
	}
	if c.Cmdlet && w[0] == "Start-Process" {
		p.startProcess(c)
		return
	}
	if c.Cmdlet {
		if w[0] != "Invoke-Expression" {
			return
		}
		var args []string
		for _, a := range w[1:] {
			if !strings.HasPrefix(a, "-") {
				args = append(args, a)
			}
		}
		if len(args) > 0 {
			p.again(strings.Join(args, " "), false, "Invoke-Expression")
		}
		return
	}
	text, dialect, err := script(w)
	switch {
	case err != nil:
		p.emit(Command{Words: []string{text}, Expr: true, Malformed: true})
	case dialect == "cmd":
		p.again(text, true, "cmd")
	case dialect == "powershell":
		p.again(text, false, "powershell")
	}
}

// operands returns the words of c after its name that are not
// parameters, and the values of the parameters named (by lower-case
// prefix of at least two letters, -Name value or -Name:value); params
// lists every parameter of the cmdlet that takes a value. The value of a
// list parameter (-ArgumentList a, '-b') is every word up to the next
// parameter of params or switches.
func operands(c Command, named, params, switches []string) (ops []string, vals map[string][]string) {
	vals = map[string][]string{}
	w := c.Words
	match := func(a string, list []string) (string, string, bool, bool) {
		if !strings.HasPrefix(a, "-") || len(a) < 3 {
			return "", "", false, false
		}
		n, v, colon := strings.Cut(strings.ToLower(a[1:]), ":")
		for _, full := range list {
			if strings.HasPrefix(full, n) {
				return full, v, colon, true
			}
		}
		return "", "", false, false
	}
	for k := 1; k < len(w); k++ {
		a := w[k]
		full, v, colon, ok := match(a, params)
		if !ok {
			if _, _, _, sw := match(a, switches); !sw {
				ops = append(ops, a)
			}
			continue
		}
		switch {
		case colon:
			vals[full] = append(vals[full], v)
		case slices.Contains(named, full) && full == named[len(named)-1]:
			for k+1 < len(w) {
				_, _, _, p1 := match(w[k+1], params)
				_, _, _, s1 := match(w[k+1], switches)
				if p1 || s1 {
					break
				}
				k++
				vals[full] = append(vals[full], w[k])
			}
		case k+1 < len(w):
			k++
			vals[full] = append(vals[full], w[k])
		}
	}
	return ops, vals
}

// alias records Set-Alias NAME VALUE (or -Name, -Value): the commands
// after it that use NAME run VALUE.
func (p *parser) alias(c Command) {
	ops, vals := operands(c, []string{"name", "value"}, []string{"name", "value", "description", "option", "scope"}, []string{"force", "passthru", "whatif", "confirm"})
	name, value := append(vals["name"], ops...), append(vals["value"], ops...)
	if len(vals["name"]) == 0 && len(ops) > 1 {
		value = ops[1:]
	}
	if len(name) == 0 || len(value) == 0 || len(p.st.aliases) >= 64 {
		return
	}
	if p.st.aliases == nil {
		p.st.aliases = map[string]string{}
	}
	p.st.aliases[strings.ToLower(name[0])] = value[0]
}

// startProcess lists the commands of Start-Process SHELL -ArgumentList
// ARGS when SHELL is cmd, powershell or pwsh (see Script).
func (p *parser) startProcess(c Command) {
	ops, vals := operands(c, []string{"filepath", "argumentlist"},
		[]string{"filepath", "argumentlist", "args", "verb", "workingdirectory", "windowstyle", "credential",
			"redirectstandardoutput", "redirectstandardinput", "redirectstandarderror", "environment"},
		[]string{"wait", "nonewwindow", "passthru", "loaduserprofile", "usenewenvironment", "whatif", "confirm"})
	vals["argumentlist"] = append(vals["argumentlist"], vals["args"]...)
	file := append(vals["filepath"], ops...)
	if len(file) == 0 {
		return
	}
	argv := []string{baseName(file[0])}
	if len(vals["filepath"]) == 0 {
		ops = ops[1:]
	}
	argv = append(argv, append(vals["argumentlist"], ops...)...)
	if len(argv) == 2 && strings.ContainsAny(argv[1], " \t") {
		// one string of arguments: the words it holds
		argv = append(argv[:1], strings.Fields(argv[1])...)
	}
	text, dialect, err := script(argv)
	switch {
	case err != nil:
		p.emit(Command{Words: []string{text}, Expr: true, Malformed: true})
	case dialect != "":
		p.again(text, dialect == "cmd", dialect)
	}
}

// Script returns the command string an argv runs when argv[0] is a
// Windows shell, and its dialect ("powershell" or "cmd"): for cmd (and
// cmd.exe, any case, any directory), the words after /c, /k or /r joined
// with blanks; for powershell, pwsh and powershell_ise, the words after
// -Command (any abbreviation: -c, -com; also /Command), the text of
// -EncodedCommand (-e, -ec, -enc: base64 of UTF-16LE, decoded), or the
// words after the options when the first of them is not an option (as
// powershell reads them). Dialect is "" when argv runs no command string
// (another program, -File, options only); an -EncodedCommand that does
// not decode is an error, with the text as given.
func Script(argv []string) (text, dialect string, err error) {
	if len(argv) == 0 {
		return "", "", nil
	}
	w := append([]string{baseName(argv[0])}, argv[1:]...)
	return script(w)
}

// ErrEncoding is Script's error for an -EncodedCommand that is not base64
// of UTF-16LE text.
var ErrEncoding = errors.New("pwsh: -EncodedCommand is not base64 of UTF-16LE text")

func script(w []string) (string, string, error) {
	switch w[0] {
	case "cmd":
		for k := 1; k < len(w); k++ {
			a := strings.ToLower(w[k])
			if a == "/c" || a == "/k" || a == "/r" {
				return strings.Join(w[k+1:], " "), "cmd", nil
			}
			if len(a) > 2 && (strings.HasPrefix(a, "/c") || strings.HasPrefix(a, "/k")) && !strings.HasPrefix(a, "/c:") {
				// cmd /c"rd /s /q x"
				return strings.TrimSpace(w[k][2:] + " " + strings.Join(w[k+1:], " ")), "cmd", nil
			}
		}
	case "powershell", "pwsh", "powershell_ise":
		for k := 1; k < len(w); k++ {
			a := strings.ToLower(w[k])
			if a == "" || a[0] != '-' && a[0] != '/' {
				return strings.Join(w[k:], " "), "powershell", nil
			}
			o := a[1:]
			switch {
			case o == "" || o == "-":
			case strings.HasPrefix("command", o):
				return strings.Join(w[k+1:], " "), "powershell", nil
			case o == "e" || o == "ec" || len(o) > 1 && strings.HasPrefix("encodedcommand", o):
				if k+1 >= len(w) {
					return "", "", nil
				}
				text, ok := decodeCommand(w[k+1])
				if !ok {
					return w[k+1], "", ErrEncoding
				}
				return text, "powershell", nil
			case strings.HasPrefix("file", o):
				return "", "", nil
			case psTakes[o]:
				k++
			}
		}
	}
	return "", "", nil
}

// decodeCommand decodes the text of -EncodedCommand: base64 of UTF-16LE.
func decodeCommand(s string) (string, bool) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(raw)%2 != 0 {
		return "", false
	}
	u := make([]uint16, len(raw)/2)
	for i := range u {
		u[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}

// again reads a command string one level deeper, within the budget of
// bytes read again and the depth.
func (p *parser) again(text string, cmd bool, via string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	if p.depth >= p.st.opts.MaxDepth {
		p.st.fail(ErrTooDeep)
		return
	}
	if len(text) > p.st.budget {
		p.st.fail(ErrTooLong)
		return
	}
	p.st.budget -= len(text)
	sub := &parser{st: p.st, s: text, depth: p.depth + 1, via: via, cmd: cmd}
	sub.list(0)
}
