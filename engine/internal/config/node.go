package config

import (
	"sort"

	"github.com/monad-hooks/monad-hooks/internal/fieldpath"
)

// The parsers of both formats produce the same tree of nodes, with positions;
// the validator works on that tree only.

type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindDatetime // TOML only
	kindArray
	kindObject
)

// A node is one value of the document.
type node struct {
	kind      kind
	line, col int    // position of the value
	str       string // string value; number literal; datetime text
	float     bool   // number: a TOML float (str is then its 'g' form or nan/inf)
	b         bool
	elems     []*node
	mems      []member
}

// A member is one key of an object (a TOML table).
type member struct {
	key       string
	line, col int // position of the key
	val       *node
}

// lineIndex maps byte offsets to 1-based line and column.
type lineIndex struct {
	starts []int // offset of the first byte of each line
	size   int
}

func newLineIndex(data []byte) lineIndex {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return lineIndex{starts: starts, size: len(data)}
}

// pos returns the line and column of offset off, clamped to the document.
func (li lineIndex) pos(off int) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > li.size {
		off = li.size
	}
	i := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > off }) - 1
	return i + 1, off - li.starts[i] + 1
}

// fieldKey appends key to the field path prefix, JSON style.
func fieldKey(prefix, key string) string { return fieldpath.Key(prefix, key) }

// fieldIndex appends an array index to the field path prefix.
func fieldIndex(prefix string, i int) string { return fieldpath.Index(prefix, i) }
