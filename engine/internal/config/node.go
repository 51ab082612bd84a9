package config

import "github.com/monad-hooks/monad-hooks/internal/fieldpath"

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

// fieldKey appends key to the field path prefix, JSON style.
func fieldKey(prefix, key string) string { return fieldpath.Key(prefix, key) }

// fieldIndex appends an array index to the field path prefix.
func fieldIndex(prefix string, i int) string { return fieldpath.Index(prefix, i) }
