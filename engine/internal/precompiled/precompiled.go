// Package precompiled holds the stdlib's packs and libraries compiled at
// build time (go generate), so that a process decodes them instead of
// compiling them: compiling the default set was most of the start of
// `monad-hooks run` (BenchmarkCLIRun).
//
// stdlib.luac is written by `go generate ./engine/...` (the engine's
// TestPrecompiledUpToDate with -update-precompiled) from the scripts the
// engine loads from the stdlib: its packs, its libraries and the rules
// library it renders. A script is served only when its entry was compiled
// from the very source the caller has (length and CRC-32) by the
// gopher-lua version the program is built with (when the program carries
// its module versions; test binaries do not): after a pack changes and
// before the file is generated again, the engine compiles the pack as
// before, and TestUpToDate fails.
//
// Beside each pack's compiled form, the file holds the pack's
// luaapi.Record: the hooks it registers when it loads with its default
// parameters and no configuration paths, made by loading it at go
// generate time (served for the same source only, see Record), so that an
// engine plans the pack's hooks without running it (BenchmarkCLIRun).
package precompiled

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime/debug"
	"sort"

	"github.com/monad-hooks/monad-hooks/luaapi"

	"github.com/monad-hooks/monad-hooks/internal/lazy"
)

//go:embed stdlib.luac
var file string

// File returns the content of stdlib.luac.
func File() string { return file }

// fileMagic starts the file; its last byte is the version of the layout.
const fileMagic = "MHPC\x02"

// LuaModule is the module whose version the file records.
const LuaModule = "github.com/yuin/gopher-lua"

// An entry is one compiled script of the file.
type entry struct {
	srcLen int
	srcSum uint32
	data   string // luaapi's encoding
	record string // the encoded luaapi.Record, "" for none
}

type index struct {
	luaVersion string
	entries    map[string]entry
}

// parsed is the file's index, read once.
var parsed = lazy.Values[*index]{F: func() (*index, error) { return parse(file) }}

// Script returns the compiled script called name when the file has it for
// exactly src (or key, see Build), decoded; nil otherwise (the caller
// compiles src). The
// returned Script is the caller's (each call decodes anew). It is safe for
// concurrent use.
func Script(name string, src []byte) *luaapi.Script {
	return ScriptSum(name, len(src), crc32.ChecksumIEEE(src))
}

// ScriptSum is Script for a source (or key) of length n and IEEE CRC-32
// sum, for a caller that computes them without holding it all at once.
func ScriptSum(name string, n int, sum uint32) *luaapi.Script {
	idx, err := parsed.Get()
	if err != nil {
		return nil
	}
	return lookupSum(idx, name, n, sum)
}

// lookup is Script in idx.
func lookup(idx *index, name string, src []byte) *luaapi.Script {
	return lookupSum(idx, name, len(src), crc32.ChecksumIEEE(src))
}

// RecordSum returns the luaapi.Record of the script called name when the
// file has one for exactly a source (or key) of length n and IEEE CRC-32
// sum (see ScriptSum); nil otherwise. It is decoded anew at each call.
// It is safe for concurrent use.
func RecordSum(name string, n int, sum uint32) *luaapi.Record {
	idx, err := parsed.Get()
	if err != nil {
		return nil
	}
	return recordIn(idx, name, n, sum)
}

// recordIn is RecordSum in idx.
func recordIn(idx *index, name string, n int, sum uint32) *luaapi.Record {
	e, ok := entryOf(idx, name, n, sum)
	if !ok || e.record == "" {
		return nil
	}
	r, err := luaapi.UnmarshalRecord([]byte(e.record))
	if err != nil || r.Script() != name {
		return nil
	}
	return r
}

// entryOf returns the entry of name made from a source of length n and
// sum by the gopher-lua version the program runs.
func entryOf(idx *index, name string, n int, sum uint32) (entry, bool) {
	e, ok := idx.entries[name]
	if !ok || e.srcLen != n || sum != e.srcSum || !sameLua(idx.luaVersion) {
		return entry{}, false
	}
	return e, true
}

func lookupSum(idx *index, name string, n int, sum uint32) *luaapi.Script {
	e, ok := entryOf(idx, name, n, sum)
	if !ok {
		return nil
	}
	s, err := luaapi.DecodeScript(e.data)
	if err != nil || s.Name() != name {
		return nil
	}
	return s
}

// sameLua reports whether the program runs the gopher-lua version v, as
// far as it knows its module versions.
func sameLua(v string) bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return true
	}
	for _, m := range bi.Deps {
		if m.Path == LuaModule {
			if m.Replace != nil {
				return m.Replace.Version == v
			}
			return m.Version == v
		}
	}
	return true // a test binary: its deps are not recorded
}

func parse(f string) (*index, error) {
	if len(f) < len(fileMagic) || f[:len(fileMagic)] != fileMagic {
		return nil, errors.New("precompiled: not a file of this layout")
	}
	r := reader{s: f, pos: len(fileMagic)}
	idx := &index{luaVersion: r.str(), entries: map[string]entry{}}
	for n := r.uint(); n > 0 && r.err == nil; n-- {
		name := r.str()
		e := entry{srcLen: int(r.uint()), srcSum: uint32(r.uint()), data: r.str(), record: r.str()}
		idx.entries[name] = e
	}
	if r.err == nil && r.pos != len(f) {
		r.err = errors.New("precompiled: trailing bytes")
	}
	return idx, r.err
}

type reader struct {
	s   string
	pos int
	err error
}

func (r *reader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint([]byte(r.s[r.pos:min(len(r.s), r.pos+binary.MaxVarintLen64)]))
	if n <= 0 {
		r.err = errors.New("precompiled: malformed number")
		return 0
	}
	r.pos += n
	return x
}

func (r *reader) str() string {
	n := r.uint()
	if r.err == nil && uint64(len(r.s)-r.pos) < n {
		r.err = errors.New("precompiled: malformed string")
	}
	if r.err != nil {
		return ""
	}
	s := r.s[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return s
}

// Build compiles srcs (by name) and returns the file's content, recording
// luaVersion as the gopher-lua version they were compiled with. An entry
// is served for its source, or for keys[name] when keys has the name: what
// the source is made from (the rules library, rendered from the rule
// files, is checked against them, so that a start need not render it).
// records[name], when present, is the encoded luaapi.Record kept beside
// the script.
func Build(luaVersion string, srcs, keys, records map[string][]byte) ([]byte, error) {
	names := make([]string, 0, len(srcs))
	for n := range srcs {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteString(fileMagic)
	putStr(&b, luaVersion)
	putUint(&b, uint64(len(names)))
	for _, n := range names {
		s, err := luaapi.Compile(n, srcs[n])
		if err != nil {
			return nil, fmt.Errorf("precompiled: %w", err)
		}
		data, err := s.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("precompiled: %s: %w", n, err)
		}
		key, ok := keys[n]
		if !ok {
			key = srcs[n]
		}
		putStr(&b, n)
		putUint(&b, uint64(len(key)))
		putUint(&b, uint64(crc32.ChecksumIEEE(key)))
		putStr(&b, string(data))
		putStr(&b, string(records[n]))
	}
	return b.Bytes(), nil
}

func putUint(b *bytes.Buffer, x uint64) { b.Write(binary.AppendUvarint(nil, x)) }

func putStr(b *bytes.Buffer, s string) {
	putUint(b, uint64(len(s)))
	b.WriteString(s)
}
