package config

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// TOML files are decoded by github.com/BurntSushi/toml, whose MetaData does
// not expose positions. A small locator then scans the (already valid)
// document to find where every key and value starts, so TOML problems carry
// exact line:col positions too: a key's position is its first byte (the
// segment of a dotted key), a value's is its first byte, and an
// [[array.table]] element's is its header's opening bracket. A value the
// locator cannot place (it should not happen) takes its parent's position.

// parseTOML decodes a TOML document into a node tree with positions. A syntax
// error is returned as an *Error without File.
func parseTOML(data []byte, lines lineIndex) (*node, *Error) {
	if off := tomlTooDeep(data); off >= 0 {
		l, c := lines.pos(off)
		return nil, &Error{Code: CodeTooDeep, Line: l, Col: c,
			Msg: fmt.Sprintf("tables, arrays and dotted keys nest deeper than %d levels", MaxDepth)}
	}
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		e := &Error{Code: CodeSyntax, Line: 1, Col: 1, Msg: err.Error()}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			e.Line, e.Col = clampPos(lines, pe.Position.Line, pe.Position.Col)
			e.Msg = pe.Message
		}
		return nil, e
	}
	loc := &locator{s: data, lines: lines, locs: map[string]*loc{}, aot: map[string]int{}, emptyKey: -1}
	loc.run()
	if loc.emptyKey >= 0 {
		// github.com/BurntSushi/toml v1.6.0 mistypes the table or array around
		// an empty key and can silently drop values next to it (upstream
		// PR #492). A guard must not be disarmed silently: refuse the file.
		l, c := lines.pos(loc.emptyKey)
		return nil, &Error{Code: CodeEmptyKey, Line: l, Col: c,
			Msg: `empty key "" is not supported in TOML files: the TOML decoder can lose values next to it`}
	}
	return tomlNode(m, "", loc.locs, 1, 1), nil
}

// clampPos keeps a reported position inside the document.
func clampPos(lines lineIndex, line, col int) (int, int) {
	if line < 1 {
		line, col = 1, 1
	}
	if line > len(lines.starts) {
		line = len(lines.starts)
		col = lines.size - lines.starts[line-1] + 1
	}
	end := lines.size
	if line < len(lines.starts) {
		end = lines.starts[line] - 1
	}
	if max := end - lines.starts[line-1] + 1; col > max {
		col = max
	}
	if col < 1 {
		col = 1
	}
	return line, col
}

// tomlTooDeep returns the offset where the document nests deeper than
// MaxDepth, or -1. It runs before decoding, to bound the decoder's work on
// hostile input (the decoder is quadratic or worse in the nesting depth).
// Brackets nest, and so do the segments of dotted keys and of [table]
// headers ([[array.tables]] count one more, for the element). It is a lexical
// approximation: strings and comments are skipped, and invalid input merely
// gives a rough answer (the decoder then reports the syntax error).
func tomlTooDeep(s []byte) int {
	type frame struct {
		brace bool // an inline table, whose keys nest further
		level int  // depth of the array or inline table itself
	}
	var stack []frame
	table := 0      // depth of the current [table]
	atKey := true   // reading a key, not a value
	header := false // reading a [table] header
	segs := 1       // segments of the key read so far
	value := 0      // depth of the value after the last '='
	keyBase := func() int {
		switch {
		case header:
			return 0
		case len(stack) > 0:
			return stack[len(stack)-1].level
		}
		return table
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '#':
			for i+1 < len(s) && s[i+1] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			i = skipTOMLString(s, i) - 1
		case c == '\n' && len(stack) == 0:
			atKey, header, segs = true, false, 1
		case header:
			switch c {
			case '.':
				if segs++; segs > MaxDepth {
					return i
				}
			case ']':
				table, header, atKey = segs, false, false
			}
		case atKey && c == '[' && len(stack) == 0:
			header, segs = true, 1
			if i+1 < len(s) && s[i+1] == '[' {
				segs, i = 2, i+1
			}
		case atKey && c == '.':
			if segs++; keyBase()+segs > MaxDepth {
				return i
			}
		case atKey && c == '=':
			atKey, value = false, keyBase()+segs
		case atKey && c == '}' && len(stack) > 0: // {} or a trailing comma
			stack, atKey = stack[:len(stack)-1], false
		case !atKey && (c == '[' || c == '{'):
			level := value
			if n := len(stack); n > 0 && !stack[n-1].brace {
				level = stack[n-1].level + 1
			}
			if level > MaxDepth {
				return i
			}
			stack = append(stack, frame{brace: c == '{', level: level})
			if c == '{' {
				atKey, segs = true, 1
			}
		case !atKey && (c == ']' || c == '}') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		case !atKey && c == ',' && len(stack) > 0 && stack[len(stack)-1].brace:
			atKey, segs = true, 1
		}
	}
	return -1
}

// skipTOMLString returns the offset after the string starting at s[i] (a quote
// character). An unterminated string ends at the end of its line (or file).
func skipTOMLString(s []byte, i int) int {
	q := s[i]
	escapes := q == '"'
	if i+2 < len(s) && s[i+1] == q && s[i+2] == q { // multi-line
		i += 3
		for i < len(s) {
			switch {
			case escapes && s[i] == '\\':
				i += 2
			case s[i] == q && i+2 < len(s) && s[i+1] == q && s[i+2] == q:
				i += 3
				for extra := 0; extra < 2 && i < len(s) && s[i] == q; extra++ {
					i++
				}
				return i
			default:
				i++
			}
		}
		return len(s)
	}
	i++
	for i < len(s) {
		switch {
		case escapes && s[i] == '\\':
			i += 2
		case s[i] == q:
			return i + 1
		case s[i] == '\n':
			return i
		default:
			i++
		}
	}
	return len(s)
}

// A loc is where a key and its value start (0 = unknown).
type loc struct{ kl, kc, vl, vc int }

// locator scans a valid TOML document and records a loc for every path
// (in the field-path notation of fieldKey and fieldIndex). It never fails:
// on input it does not understand it moves on, always making progress.
type locator struct {
	s     []byte
	i     int
	lines lineIndex
	locs  map[string]*loc
	aot   map[string]int // element count of each array of tables
	// emptyKey is the offset of the first empty key ("" or ''), or -1.
	emptyKey int
}

type seg struct {
	name string
	off  int
}

func (l *locator) at(path string) *loc {
	x := l.locs[path]
	if x == nil {
		x = &loc{}
		l.locs[path] = x
	}
	return x
}

func (l *locator) setKey(path string, off int) {
	if x := l.at(path); x.kl == 0 {
		x.kl, x.kc = l.lines.pos(off)
	}
}

func (l *locator) setVal(path string, off int, force bool) {
	if x := l.at(path); x.vl == 0 || force {
		x.vl, x.vc = l.lines.pos(off)
	}
}

func (l *locator) run() {
	table := ""
	for l.i < len(l.s) {
		l.skipSpace()
		if l.i >= len(l.s) {
			return
		}
		start := l.i
		if l.s[l.i] == '[' {
			arr := l.i+1 < len(l.s) && l.s[l.i+1] == '['
			l.i++
			if arr {
				l.i++
			}
			table = l.header(l.key(), start, arr)
			for l.i < len(l.s) && l.s[l.i] != '\n' {
				l.i++
			}
		} else {
			l.keyval(table)
		}
		if l.i == start {
			l.i++
		}
	}
}

// header records a [table] or [[array.table]] header and returns the path of
// the table it opens.
func (l *locator) header(segs []seg, start int, arr bool) string {
	p := ""
	for j, sg := range segs {
		p = fieldKey(p, sg.name)
		l.setKey(p, sg.off)
		l.setVal(p, start, false)
		if j < len(segs)-1 {
			if n, ok := l.aot[p]; ok && n > 0 {
				p = fieldIndex(p, n-1)
			}
		}
	}
	if arr {
		n := l.aot[p]
		l.aot[p] = n + 1
		p = fieldIndex(p, n)
		l.setVal(p, start, true)
	}
	return p
}

func (l *locator) keyval(base string) {
	segs := l.key()
	if len(segs) == 0 {
		return
	}
	p := base
	for j, sg := range segs {
		p = fieldKey(p, sg.name)
		l.setKey(p, sg.off)
		if j < len(segs)-1 {
			l.setVal(p, sg.off, false)
		}
	}
	l.skipBlank()
	if l.i >= len(l.s) || l.s[l.i] != '=' {
		return
	}
	l.i++
	l.skipBlank()
	l.value(p)
}

func (l *locator) value(p string) {
	if l.i >= len(l.s) {
		return
	}
	l.setVal(p, l.i, true)
	switch l.s[l.i] {
	case '"', '\'':
		l.i = skipTOMLString(l.s, l.i)
	case '[':
		l.i++
		for idx := 0; ; {
			l.skipSpace()
			if l.i >= len(l.s) {
				return
			}
			switch l.s[l.i] {
			case ']':
				l.i++
				return
			case ',':
				l.i++
				continue
			}
			before := l.i
			l.value(fieldIndex(p, idx))
			idx++
			if l.i == before {
				l.i++
			}
		}
	case '{':
		l.i++
		for {
			l.skipSpace()
			if l.i >= len(l.s) {
				return
			}
			switch l.s[l.i] {
			case '}':
				l.i++
				return
			case ',':
				l.i++
				continue
			}
			before := l.i
			l.keyval(p)
			if l.i == before {
				l.i++
			}
		}
	default:
		for l.i < len(l.s) && strings.IndexByte(",]}#\r\n", l.s[l.i]) < 0 {
			l.i++
		}
	}
}

// key reads a possibly dotted key.
func (l *locator) key() []seg {
	var segs []seg
	for {
		l.skipBlank()
		if l.i >= len(l.s) {
			return segs
		}
		off := l.i
		var name string
		switch l.s[l.i] {
		case '"':
			name = l.basicKey()
		case '\'':
			end := skipTOMLString(l.s, l.i)
			name = strings.TrimSuffix(string(l.s[l.i+1:end]), "'")
			l.i = end
		default:
			j := l.i
			for j < len(l.s) && isBareKeyByte(l.s[j]) {
				j++
			}
			if j == l.i {
				return segs
			}
			name = string(l.s[l.i:j])
			l.i = j
		}
		if name == "" && l.emptyKey < 0 {
			l.emptyKey = off
		}
		segs = append(segs, seg{name: name, off: off})
		l.skipBlank()
		if l.i < len(l.s) && l.s[l.i] == '.' {
			l.i++
			continue
		}
		return segs
	}
}

func isBareKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// basicKey decodes a "quoted" key at l.i.
func (l *locator) basicKey() string {
	var b strings.Builder
	l.i++
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == '"':
			l.i++
			return b.String()
		case c == '\n':
			return b.String()
		case c == '\\' && l.i+1 < len(l.s):
			e := l.s[l.i+1]
			l.i += 2
			switch e {
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case 'e':
				b.WriteByte(0x1b)
			case '"', '\\':
				b.WriteByte(e)
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if l.i+n <= len(l.s) {
					if v, err := strconv.ParseUint(string(l.s[l.i:l.i+n]), 16, 32); err == nil && utf8.ValidRune(rune(v)) {
						b.WriteRune(rune(v))
						l.i += n
						continue
					}
				}
				b.WriteByte('\\')
				b.WriteByte(e)
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			l.i++
		}
	}
	return b.String()
}

// skipBlank skips spaces and tabs.
func (l *locator) skipBlank() {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t') {
		l.i++
	}
}

// skipSpace skips whitespace, newlines and comments.
func (l *locator) skipSpace() {
	for l.i < len(l.s) {
		switch l.s[l.i] {
		case ' ', '\t', '\r', '\n':
			l.i++
		case '#':
			for l.i < len(l.s) && l.s[l.i] != '\n' {
				l.i++
			}
		default:
			return
		}
	}
}

// tomlNode converts a decoded TOML value to a node, placing it with locs.
// (line, col) is the position to use when the locator has none.
func tomlNode(v any, path string, locs map[string]*loc, line, col int) *node {
	n := &node{line: line, col: col}
	switch v := v.(type) {
	case map[string]any:
		n.kind = kindObject
		for k, val := range v {
			cp := fieldKey(path, k)
			m := member{key: k, line: line, col: col}
			vl, vc := line, col
			if lc := locs[cp]; lc != nil {
				if lc.kl > 0 {
					m.line, m.col = lc.kl, lc.kc
					vl, vc = lc.kl, lc.kc
				}
				if lc.vl > 0 {
					vl, vc = lc.vl, lc.vc
				}
			}
			m.val = tomlNode(val, cp, locs, vl, vc)
			n.mems = append(n.mems, m)
		}
		sort.Slice(n.mems, func(i, j int) bool {
			a, b := n.mems[i], n.mems[j]
			if a.line != b.line {
				return a.line < b.line
			}
			if a.col != b.col {
				return a.col < b.col
			}
			return a.key < b.key
		})
	case []map[string]any:
		n.kind = kindArray
		for i, e := range v {
			n.elems = append(n.elems, tomlElem(e, fieldIndex(path, i), locs, line, col))
		}
	case []any:
		n.kind = kindArray
		for i, e := range v {
			n.elems = append(n.elems, tomlElem(e, fieldIndex(path, i), locs, line, col))
		}
	case string:
		n.kind, n.str = kindString, v
	case bool:
		n.kind, n.b = kindBool, v
	case int64:
		n.kind, n.str = kindNumber, strconv.FormatInt(v, 10)
	case float64:
		n.kind, n.float = kindNumber, true
		switch {
		case math.IsNaN(v):
			n.str = "nan"
		case math.IsInf(v, 0):
			n.str = strconv.FormatFloat(v, 'g', -1, 64) // +Inf, -Inf
		default:
			n.str = strconv.FormatFloat(v, 'g', -1, 64)
		}
	case time.Time:
		layout := time.RFC3339Nano
		switch v.Location().String() { // the decoder's zones for local values
		case "date-local":
			layout = time.DateOnly
		case "time-local":
			layout = "15:04:05.999999999"
		case "datetime-local":
			layout = "2006-01-02T15:04:05.999999999"
		}
		n.kind, n.str = kindDatetime, v.Format(layout)
	default:
		n.kind, n.str = kindDatetime, fmt.Sprint(v)
	}
	return n
}

func tomlElem(v any, path string, locs map[string]*loc, line, col int) *node {
	if lc := locs[path]; lc != nil && lc.vl > 0 {
		line, col = lc.vl, lc.vc
	}
	return tomlNode(v, path, locs, line, col)
}
