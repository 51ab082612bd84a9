// Package fieldpath writes the paths of values inside a JSON or TOML
// document in the one notation every configuration error uses:
// "hooks.BeforeTool[0].hooks[1].timeoutMs", with keys other than
// [A-Za-z0-9_-]+ quoted ("programs[\"a b\"]"). The configuration loader and
// the stdlib's rule files both report problems by such paths, and the
// engine places them with the loader's positions, so they must agree. It
// imports nothing of this module; its functions are pure and safe for
// concurrent use.
package fieldpath

import "strconv"

// Key appends key to the path prefix: prefix.key, or prefix["key"] for a
// key that is not a plain name; a plain key of the document is just key.
func Key(prefix, key string) string {
	simple := key != ""
	for i := 0; i < len(key) && simple; i++ {
		c := key[i]
		simple = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	if !simple {
		return prefix + "[" + strconv.Quote(key) + "]"
	}
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// Index appends an array index (0-based) to the path prefix: prefix[i].
func Index(prefix string, i int) string {
	return prefix + "[" + strconv.Itoa(i) + "]"
}
