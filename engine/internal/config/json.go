package config

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/monad-hooks/monad-hooks/internal/docpos"
)

// parseJSON parses a JSON document (RFC 8259) into a node tree with positions.
// It stops at the first syntax error, returned as an *Error without File.
// Duplicate keys are kept (the validator reports them); strings are decoded
// exactly as encoding/json decodes them; numbers keep their literal.
func parseJSON(data []byte, lines docpos.Lines) (*node, *Error) {
	p := &jsonParser{data: data, lines: lines}
	p.ws()
	if p.off == len(data) {
		p.fail(CodeSyntax, p.off, "empty document: want a JSON object")
		return nil, p.err
	}
	root := p.value()
	if p.err != nil {
		return nil, p.err
	}
	p.ws()
	if p.off < len(data) {
		p.fail(CodeSyntax, p.off, fmt.Sprintf("unexpected %s after the top-level value", p.describe()))
		return nil, p.err
	}
	return root, nil
}

type jsonParser struct {
	data  []byte
	off   int
	depth int
	lines docpos.Lines
	err   *Error
}

func (p *jsonParser) fail(code string, off int, msg string) {
	if p.err == nil {
		l, c := p.lines.Pos(off)
		p.err = &Error{Code: code, Line: l, Col: c, Msg: msg}
	}
}

// describe names the byte at p.off for a message.
func (p *jsonParser) describe() string {
	if p.off >= len(p.data) {
		return "end of file"
	}
	c := p.data[p.off]
	if c < 0x20 || c >= 0x7f {
		r, _ := utf8.DecodeRune(p.data[p.off:])
		return fmt.Sprintf("character %U", r)
	}
	return fmt.Sprintf("character %q", c)
}

func (p *jsonParser) ws() {
	for p.off < len(p.data) {
		switch p.data[p.off] {
		case ' ', '\t', '\n', '\r':
			p.off++
		default:
			return
		}
	}
}

func (p *jsonParser) newNode(k kind, start int) *node {
	l, c := p.lines.Pos(start)
	return &node{kind: k, line: l, col: c}
}

// value parses one value at p.off (whitespace already skipped).
func (p *jsonParser) value() *node {
	if p.off >= len(p.data) {
		p.fail(CodeSyntax, p.off, "unexpected end of file: want a value")
		return nil
	}
	start := p.off
	switch c := p.data[p.off]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, ok := p.string()
		if !ok {
			return nil
		}
		n := p.newNode(kindString, start)
		n.str = s
		return n
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true", kindBool, true)
	case c == 'f':
		return p.literal("false", kindBool, false)
	case c == 'n':
		return p.literal("null", kindNull, false)
	}
	p.fail(CodeSyntax, p.off, fmt.Sprintf("unexpected %s: want a value", p.describe()))
	return nil
}

func (p *jsonParser) literal(word string, k kind, b bool) *node {
	start := p.off
	if len(p.data)-p.off < len(word) || string(p.data[p.off:p.off+len(word)]) != word {
		p.fail(CodeSyntax, p.off, fmt.Sprintf("invalid literal: want %s", word))
		return nil
	}
	p.off += len(word)
	n := p.newNode(k, start)
	n.b = b
	return n
}

func (p *jsonParser) enter() bool {
	p.depth++
	if p.depth > MaxDepth {
		p.fail(CodeTooDeep, p.off, fmt.Sprintf("arrays and objects nest deeper than %d levels", MaxDepth))
		return false
	}
	return true
}

func (p *jsonParser) object() *node {
	if !p.enter() {
		return nil
	}
	n := p.newNode(kindObject, p.off)
	p.off++ // {
	p.ws()
	if p.off < len(p.data) && p.data[p.off] == '}' {
		p.off++
		p.depth--
		return n
	}
	for {
		p.ws()
		if p.off >= len(p.data) || p.data[p.off] != '"' {
			p.fail(CodeSyntax, p.off, fmt.Sprintf("unexpected %s: want a string key", p.describe()))
			return nil
		}
		kstart := p.off
		key, ok := p.string()
		if !ok {
			return nil
		}
		m := member{key: key}
		m.line, m.col = p.lines.Pos(kstart)
		p.ws()
		if p.off >= len(p.data) || p.data[p.off] != ':' {
			p.fail(CodeSyntax, p.off, fmt.Sprintf("unexpected %s after object key: want ':'", p.describe()))
			return nil
		}
		p.off++
		p.ws()
		m.val = p.value()
		if p.err != nil {
			return nil
		}
		n.mems = append(n.mems, m)
		p.ws()
		if p.off < len(p.data) && p.data[p.off] == ',' {
			p.off++
			continue
		}
		if p.off < len(p.data) && p.data[p.off] == '}' {
			p.off++
			p.depth--
			return n
		}
		p.fail(CodeSyntax, p.off, fmt.Sprintf("unexpected %s in object: want ',' or '}'", p.describe()))
		return nil
	}
}

func (p *jsonParser) array() *node {
	if !p.enter() {
		return nil
	}
	n := p.newNode(kindArray, p.off)
	p.off++ // [
	p.ws()
	if p.off < len(p.data) && p.data[p.off] == ']' {
		p.off++
		p.depth--
		return n
	}
	for {
		p.ws()
		e := p.value()
		if p.err != nil {
			return nil
		}
		n.elems = append(n.elems, e)
		p.ws()
		if p.off < len(p.data) && p.data[p.off] == ',' {
			p.off++
			continue
		}
		if p.off < len(p.data) && p.data[p.off] == ']' {
			p.off++
			p.depth--
			return n
		}
		p.fail(CodeSyntax, p.off, fmt.Sprintf("unexpected %s in array: want ',' or ']'", p.describe()))
		return nil
	}
}

// string scans the string starting at p.off (a '"') and decodes it.
func (p *jsonParser) string() (string, bool) {
	start := p.off
	i := p.off + 1
	escaped := false
	for {
		if i >= len(p.data) {
			p.fail(CodeSyntax, start, "unterminated string")
			return "", false
		}
		c := p.data[i]
		switch {
		case c == '"':
			p.off = i + 1
			if !escaped {
				return string(p.data[start+1 : i]), true
			}
			var s string
			if err := json.Unmarshal(p.data[start:p.off], &s); err != nil {
				// Unreachable: the scan accepts only what encoding/json accepts.
				p.fail(CodeSyntax, start, "invalid string: "+err.Error())
				return "", false
			}
			return s, true
		case c == '\\':
			escaped = true
			if i+1 >= len(p.data) {
				p.fail(CodeSyntax, start, "unterminated string")
				return "", false
			}
			switch p.data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(p.data) || !isHex(p.data[k]) {
						p.fail(CodeSyntax, i, `invalid \u escape: want four hex digits`)
						return "", false
					}
				}
				i += 6
			default:
				p.fail(CodeSyntax, i, fmt.Sprintf("invalid escape %q in string", p.data[i:i+2]))
				return "", false
			}
		case c < 0x20:
			p.fail(CodeSyntax, i, fmt.Sprintf("control character %U in string: escape it", rune(c)))
			return "", false
		default:
			i++
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number scans a number at p.off, keeping its literal.
func (p *jsonParser) number() *node {
	start := p.off
	i := p.off
	d := p.data
	bad := func() *node {
		p.fail(CodeSyntax, start, fmt.Sprintf("invalid number %q", d[start:min(i+1, len(d))]))
		return nil
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	default:
		return bad()
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return bad()
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return bad()
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	p.off = i
	n := p.newNode(kindNumber, start)
	n.str = string(d[start:i])
	return n
}
