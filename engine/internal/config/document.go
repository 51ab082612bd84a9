package config

import (
	"path/filepath"
	"strings"
)

// A Document is a JSON or TOML file read as plain values, with the position
// of every key: what another format built on these files (the rule files of
// package stdlib) needs to report its own problems at their place.
type Document struct {
	// Values is the top-level table: map[string]any, []any, string, bool,
	// nil and json.Number values, the shapes of an atom's With.
	Values map[string]any
	// Pos maps the field path of every key (the notation of [Error.Field]:
	// "rule[3].program", `programs["a b"]`) and of every array element
	// ("rule[3]", "rule[3].match[0]") to its position; "" is the document.
	Pos map[string]Pos
}

// At returns the position of the field path, or of its nearest ancestor
// that has one (at worst the file itself).
func (d *Document) At(field string) Pos {
	for {
		if p, ok := d.Pos[field]; ok {
			return p
		}
		i := strings.LastIndexAny(field, ".[")
		if i < 0 {
			return d.Pos[""]
		}
		field = field[:i]
	}
}

// ParseDocument reads a JSON or TOML document (the extension of path
// chooses) with the checks of [Parse] (size, encoding, syntax, depth, empty
// TOML keys, duplicate JSON keys) and returns its values and positions. A
// document that is not a table, and values JSON cannot hold (TOML
// datetimes, NaN and infinities), are errors. It returns a nil *Document and
// the problems as [Errors], or the Document and nil; it is safe for
// concurrent use and never panics.
func ParseDocument(path string, data []byte) (*Document, error) {
	root, isTOML, err := parseTree(path, data)
	if err != nil {
		return nil, err
	}
	v := &validator{file: path, toml: isTOML, dir: filepath.Dir(path)}
	if root.kind != kindObject {
		v.errAt(root, CodeWrongType, "", "the document must be %s, got %s", map[bool]string{false: "an object", true: "a table"}[v.toml], v.kindName(root))
		return nil, v.result()
	}
	d := &Document{Pos: map[string]Pos{"": {File: path, Line: root.line, Col: root.col}}}
	d.Values, _ = v.plain(root, "").(map[string]any)
	locate(root, "", path, d.Pos)
	if errs := v.result(); errs != nil {
		return nil, errs
	}
	return d, nil
}

// locate records the position of every key and array element below n.
func locate(n *node, field, file string, out map[string]Pos) {
	switch n.kind {
	case kindObject:
		for _, m := range n.mems {
			f := fieldKey(field, m.key)
			if _, seen := out[f]; !seen { // a repeated JSON key keeps its first place
				out[f] = Pos{File: file, Line: m.line, Col: m.col}
			}
			locate(m.val, f, file, out)
		}
	case kindArray:
		for i, e := range n.elems {
			f := fieldIndex(field, i)
			out[f] = Pos{File: file, Line: e.line, Col: e.col}
			locate(e, f, file, out)
		}
	}
}
