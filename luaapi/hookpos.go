package luaapi

import (
	"bytes"

	"github.com/yuin/gopher-lua/ast"
)

// A hookCall is where a hook{ ... } call of a script is: the column of
// "hook" on its line, and where each key of its table constructor and its
// value start. Positions are 1-based; a column is 0 when the key could not
// be found on its line (a key written ["event"] = ...).
type hookCall struct {
	col  int
	keys map[string]keyPos
}

type keyPos struct{ line, keyCol, valCol int }

// hookPositions finds the positions of the hook{ ... } calls in src, by the
// line of the call (the line Lua reports for it). gopher-lua's syntax tree
// gives lines only: the columns are found on those lines.
func hookPositions(src []byte, calls []*ast.FuncCallExpr) map[int]hookCall {
	if len(calls) == 0 {
		return nil
	}
	lines := bytes.Split(src, []byte("\n"))
	lineOf := func(n int) []byte {
		if n < 1 || n > len(lines) {
			return nil
		}
		return lines[n-1]
	}
	out := make(map[int]hookCall, len(calls))
	for _, call := range calls {
		hc := hookCall{col: findWord(lineOf(call.Line()), "hook", false), keys: map[string]keyPos{}}
		for _, f := range call.Args[0].(*ast.TableExpr).Fields {
			k, ok := f.Key.(*ast.StringExpr)
			if !ok || f.Value == nil {
				continue
			}
			// The key is on the line of its value, or (key =\n value) on
			// one of the lines before it.
			kp := keyPos{line: f.Value.Line()}
			for l := f.Value.Line(); l >= call.Line() && l > f.Value.Line()-3; l-- {
				if c := findWord(lineOf(l), k.Value, true); c > 0 {
					kp.line, kp.keyCol = l, c
					kp.valCol = valueCol(lineOf(l), c+len(k.Value))
					break
				}
			}
			if _, dup := hc.keys[k.Value]; !dup {
				hc.keys[k.Value] = kp
			}
		}
		out[call.Line()] = hc
	}
	return out
}

// findWord returns the 1-based column of the first occurrence of word in
// line as a whole identifier (followed by "=" but not "==" when assign is
// set), or 0.
func findWord(line []byte, word string, assign bool) int {
	for from := 0; from < len(line); {
		i := bytes.Index(line[from:], []byte(word))
		if i < 0 {
			return 0
		}
		i += from
		end := i + len(word)
		ok := (i == 0 || !identByte(line[i-1])) && (end == len(line) || !identByte(line[end]))
		if ok && assign {
			j := end
			for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
				j++
			}
			ok = j < len(line) && line[j] == '=' && (j+1 == len(line) || line[j+1] != '=')
		}
		if ok {
			return i + 1
		}
		from = i + 1
	}
	return 0
}

// valueCol returns the 1-based column of the value after the key that ends
// at byte offset end of line ("key = value"), or 0 when it is on another
// line.
func valueCol(line []byte, end int) int {
	j := end
	for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == '=') {
		j++
	}
	if j >= len(line) {
		return 0
	}
	return j + 1
}

func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// hookErrorPos returns the position to report for a problem with key of the
// hook{} call at line (the value's when atValue; the call's when key is ""
// or not found).
func (s *Script) hookErrorPos(line int, key string, atValue bool) (int, int) {
	c, err := s.compiled()
	if err != nil {
		return line, 0
	}
	hc, ok := c.hooks[line]
	if !ok {
		return line, 0
	}
	if kp, ok := hc.keys[key]; ok && key != "" {
		if atValue && kp.valCol > 0 {
			return kp.line, kp.valCol
		}
		return kp.line, kp.keyCol
	}
	return line, hc.col
}
