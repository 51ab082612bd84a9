package config

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/monad-hooks/monad-hooks/internal/docpos"
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
func parseTOML(data []byte, lines docpos.Lines) (*node, *Error) {
	if off := tomlTooDeep(data); off >= 0 {
		l, c := lines.Pos(off)
		return nil, &Error{Code: CodeTooDeep, Line: l, Col: c,
			Msg: fmt.Sprintf("tables, arrays and dotted keys nest deeper than %d levels", MaxDepth)}
	}
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		e := &Error{Code: CodeSyntax, Line: 1, Col: 1, Msg: err.Error()}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			e.Line, e.Col = lines.Clamp(pe.Position.Line, pe.Position.Col)
			e.Msg = pe.Message
		}
		return nil, e
	}
	locs, emptyKey := docpos.Locate(data, lines)
	if emptyKey >= 0 {
		// github.com/BurntSushi/toml v1.6.0 mistypes the table or array around
		// an empty key and can silently drop values next to it (upstream
		// PR #492). A guard must not be disarmed silently: refuse the file.
		l, c := lines.Pos(emptyKey)
		return nil, &Error{Code: CodeEmptyKey, Line: l, Col: c,
			Msg: `empty key "" is not supported in TOML files: the TOML decoder can lose values next to it`}
	}
	return tomlNode(m, "", locs, 1, 1), nil
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
			i = docpos.SkipTOMLString(s, i) - 1
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

// tomlNode converts a decoded TOML value to a node, placing it with locs.
// (line, col) is the position to use when the locator has none.
func tomlNode(v any, path string, locs map[string]*docpos.Loc, line, col int) *node {
	n := &node{line: line, col: col}
	switch v := v.(type) {
	case map[string]any:
		n.kind = kindObject
		for k, val := range v {
			cp := fieldKey(path, k)
			m := member{key: k, line: line, col: col}
			vl, vc := line, col
			if lc := locs[cp]; lc != nil {
				if lc.KeyLine > 0 {
					m.line, m.col = lc.KeyLine, lc.KeyCol
					vl, vc = lc.KeyLine, lc.KeyCol
				}
				if lc.ValLine > 0 {
					vl, vc = lc.ValLine, lc.ValCol
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

func tomlElem(v any, path string, locs map[string]*docpos.Loc, line, col int) *node {
	if lc := locs[path]; lc != nil && lc.ValLine > 0 {
		line, col = lc.ValLine, lc.ValCol
	}
	return tomlNode(v, path, locs, line, col)
}
