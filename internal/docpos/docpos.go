// Package docpos finds positions in configuration documents: a line index
// of a document (byte offsets to 1-based lines and columns) and a
// locator that finds where every key and value of a valid TOML document
// starts, since github.com/BurntSushi/toml's MetaData gives no positions.
// engine/internal/config (agents.toml) and spec (test case files) use it,
// so that both report file:line:col. It imports nothing of this module but
// internal/fieldpath; its functions are pure and safe for concurrent use.
package docpos

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/monad-hooks/monad-hooks/internal/fieldpath"
)

// Locate scans a valid TOML document (data, indexed by lines) and returns
// where each key and value starts, by field path (see internal/fieldpath; the
// n-th [[array.table]] element is path[n]), and the offset of the first
// empty key (a quoted key with nothing between its quotes), or -1. On input it does not understand it moves on:
// it never fails, and a path it cannot place is absent.
func Locate(data []byte, lines Lines) (locs map[string]*Loc, emptyKey int) {
	l := &locator{s: data, lines: lines, locs: map[string]*Loc{}, aot: map[string]int{}, emptyKey: -1}
	l.run()
	return l.locs, l.emptyKey
}

// Lines maps byte offsets of a document to 1-based lines and columns
// (columns in bytes). It is immutable and safe for concurrent use.
type Lines struct {
	starts []int // offset of the first byte of each line
	size   int
}

// NewLines indexes the lines of data.
func NewLines(data []byte) Lines {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return Lines{starts: starts, size: len(data)}
}

// Pos returns the line and column of offset off, clamped to the document.
func (li Lines) Pos(off int) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > li.size {
		off = li.size
	}
	i := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > off }) - 1
	return i + 1, off - li.starts[i] + 1
}

// Len returns the number of lines (a document without a newline has one).
func (li Lines) Len() int { return len(li.starts) }

// LineLen returns the length in bytes of line n (1-based), without its
// newline; 0 for a line outside the document.
func (li Lines) LineLen(n int) int {
	if n < 1 || n > len(li.starts) {
		return 0
	}
	end := li.size
	if n < len(li.starts) {
		end = li.starts[n] - 1
	}
	return end - li.starts[n-1]
}

// Offset returns the byte offset of line n, column col (both 1-based),
// clamped to the document.
func (li Lines) Offset(n, col int) int {
	n = min(max(n, 1), len(li.starts))
	return min(max(li.starts[n-1]+col-1, 0), li.size)
}

// Clamp keeps a reported position inside the document.
func (lines Lines) Clamp(line, col int) (int, int) {
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

// SkipTOMLString returns the offset after the string starting at s[i] (a quote
// character). An unterminated string ends at the end of its line (or file).
func SkipTOMLString(s []byte, i int) int {
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

// A Loc is where a key and its value start, 1-based (0 = unknown).
type Loc struct{ KeyLine, KeyCol, ValLine, ValCol int }

// locator scans a valid TOML document and records a loc for every path
// (in the field-path notation of fieldKey and fieldIndex). It never fails:
// on input it does not understand it moves on, always making progress.
type locator struct {
	s     []byte
	i     int
	lines Lines
	locs  map[string]*Loc
	aot   map[string]int // element count of each array of tables
	// emptyKey is the offset of the first empty key ("" or ''), or -1.
	emptyKey int
}

type seg struct {
	name string
	off  int
}

func (l *locator) at(path string) *Loc {
	x := l.locs[path]
	if x == nil {
		x = &Loc{}
		l.locs[path] = x
	}
	return x
}

func (l *locator) setKey(path string, off int) {
	if x := l.at(path); x.KeyLine == 0 {
		x.KeyLine, x.KeyCol = l.lines.Pos(off)
	}
}

func (l *locator) setVal(path string, off int, force bool) {
	if x := l.at(path); x.ValLine == 0 || force {
		x.ValLine, x.ValCol = l.lines.Pos(off)
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
		p = fieldpath.Key(p, sg.name)
		l.setKey(p, sg.off)
		l.setVal(p, start, false)
		if j < len(segs)-1 {
			if n, ok := l.aot[p]; ok && n > 0 {
				p = fieldpath.Index(p, n-1)
			}
		}
	}
	if arr {
		n := l.aot[p]
		l.aot[p] = n + 1
		p = fieldpath.Index(p, n)
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
		p = fieldpath.Key(p, sg.name)
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
		l.i = SkipTOMLString(l.s, l.i)
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
			l.value(fieldpath.Index(p, idx))
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
			end := SkipTOMLString(l.s, l.i)
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
