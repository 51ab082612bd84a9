package luaapi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/monad-hooks/monad-hooks/internal/lazy"
)

// Compiled scripts as bytes.
//
// Compiling is most of the start of a process that loads large scripts
// (the embedded stdlib packs: about 30 ms for 175 KB of Lua, against well
// under a millisecond to decode them; BenchmarkCLIRun). A host can compile
// its scripts at build time, keep [Script.MarshalBinary]'s bytes, and
// [DecodeScript] them at start.
//
// The encoding is gopher-lua's FunctionProto tree, field by field, with
// every string once in a table, and a CRC-32 of the whole. It holds byte
// code: DecodeScript checks its integrity and its shape, not the code, and
// trusts it as much as the program that made it. So decode only what this
// package encoded, from the same gopher-lua version (EncodedWith says
// which), never bytes from outside the program.

// codecMagic starts every encoded script; its last byte is the version of
// the encoding.
const codecMagic = "MHLC\x01"

// maxDecodedItems bounds the counts an encoded script declares (strings,
// instructions, constants, nested functions, ...), so that a corrupt count
// cannot make DecodeScript allocate without bound.
const maxDecodedItems = 1 << 24

// MarshalBinary encodes the compiled script for [DecodeScript]. It
// implements encoding.BinaryMarshaler and never fails for a script made by
// [Compile]. Encoding the same script twice gives the same bytes.
func (s *Script) MarshalBinary() ([]byte, error) {
	s, err := s.compiled()
	if err != nil {
		return nil, err
	}
	e := encoder{index: map[string]int{}}
	e.str(s.name)
	if err := e.proto(s.proto); err != nil {
		return nil, err
	}
	out := append([]byte(codecMagic), binary.AppendUvarint(nil, uint64(len(e.strs)))...)
	for _, str := range e.strs {
		out = binary.AppendUvarint(out, uint64(len(str)))
		out = append(out, str...)
	}
	for _, n := range e.totals {
		out = binary.AppendUvarint(out, uint64(n))
	}
	out = append(out, e.body...)
	return binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(out)), nil
}

// DecodeScript decodes a script encoded by [Script.MarshalBinary]. data is
// a string so that a script embedded in the program (go:embed into a
// string) is decoded without a copy: the decoded script's strings refer to
// data. It returns an error for bytes that are corrupt or were not made by
// MarshalBinary, and when this build of gopher-lua cannot take decoded
// scripts; the caller then compiles the source (see the note above on what
// is checked). It is safe for concurrent use.
func DecodeScript(data string) (*Script, error) {
	if len(data) < len(codecMagic)+4 || data[:len(codecMagic)] != codecMagic {
		return nil, errors.New("luaapi: not an encoded script (or another encoding version)")
	}
	body, sum := data[:len(data)-4], uint32(le64(data[len(data)-4:]))
	if crcString(body) != sum {
		return nil, errors.New("luaapi: encoded script is corrupt (checksum)")
	}
	if err := stringConstantsErr(); err != nil {
		return nil, err
	}
	d := decoder{data: body, pos: len(codecMagic)}
	n := d.count()
	d.strs = make([]string, 0, min(n, maxDecodedItems))
	for range n {
		l := d.uint()
		if d.err == nil && uint64(len(d.data)-d.pos) < l {
			d.fail("string")
		}
		if d.err != nil {
			break
		}
		d.strs = append(d.strs, d.data[d.pos:d.pos+int(l)])
		d.pos += int(l)
	}
	var totals [totalCount]int
	for i := range totals {
		totals[i] = d.count()
	}
	if d.err != nil {
		return nil, d.err
	}
	d.boxed = make([]lua.LValue, len(d.strs))
	d.protos = make([]lua.FunctionProto, totals[totalProtos])
	d.children = make([]*lua.FunctionProto, max(totals[totalProtos]-1, 0))
	d.code = make([]uint32, totals[totalCode])
	d.constants = make([]lua.LValue, totals[totalConstants])
	d.strConsts = make([]string, totals[totalConstants])
	d.positions = make([]int, totals[totalPositions])
	d.locals = make([]lua.DbgLocalInfo, totals[totalLocals])
	d.localPtrs = make([]*lua.DbgLocalInfo, totals[totalLocals])
	d.calls = make([]lua.DbgCall, totals[totalCalls])
	d.upvalues = make([]string, totals[totalUpvalues])
	name := d.str()
	proto := d.proto(0)
	if d.err == nil && d.pos != len(d.data) {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return nil, d.err
	}
	return &Script{name: name, proto: proto}, nil
}

// crcString is crc32.ChecksumIEEE of s, without copying s whole: the
// copy of every encoded script was a thirtieth of `monad-hooks run`
// (BenchmarkCLIRun).
func crcString(s string) uint32 {
	var buf [4 << 10]byte
	var sum uint32
	for len(s) > 0 {
		n := copy(buf[:], s)
		sum = crc32.Update(sum, crc32.IEEETable, buf[:n])
		s = s[n:]
	}
	return sum
}

// le64 reads a little-endian number of up to 8 bytes.
func le64(b string) uint64 {
	var x uint64
	for i := len(b) - 1; i >= 0; i-- {
		x = x<<8 | uint64(b[i])
	}
	return x
}

// The totals of an encoded script, which let DecodeScript allocate one
// backing array of each kind for all its functions.
const (
	totalProtos = iota
	totalCode
	totalConstants
	totalPositions
	totalLocals
	totalCalls
	totalUpvalues
	totalCount
)

type encoder struct {
	strs   []string
	index  map[string]int
	totals [totalCount]int
	body   []byte
}

func (e *encoder) uint(x uint64) { e.body = binary.AppendUvarint(e.body, x) }
func (e *encoder) int(x int)     { e.body = binary.AppendVarint(e.body, int64(x)) }

func (e *encoder) str(s string) {
	i, ok := e.index[s]
	if !ok {
		i = len(e.strs)
		e.index[s] = i
		e.strs = append(e.strs, s)
	}
	e.uint(uint64(i))
}

// Constant kinds.
const (
	constNumber = iota
	constString
)

func (e *encoder) proto(p *lua.FunctionProto) error {
	e.totals[totalProtos]++
	e.totals[totalCode] += len(p.Code)
	e.totals[totalConstants] += len(p.Constants)
	e.totals[totalPositions] += len(p.DbgSourcePositions)
	e.totals[totalLocals] += len(p.DbgLocals)
	e.totals[totalCalls] += len(p.DbgCalls)
	e.totals[totalUpvalues] += len(p.DbgUpvalues)
	e.str(p.SourceName)
	e.int(p.LineDefined)
	e.int(p.LastLineDefined)
	e.body = append(e.body, p.NumUpvalues, p.NumParameters, p.IsVarArg, p.NumUsedRegisters)
	e.uint(uint64(len(p.Code)))
	for _, c := range p.Code {
		e.body = binary.LittleEndian.AppendUint32(e.body, c)
	}
	e.uint(uint64(len(p.Constants)))
	for _, c := range p.Constants {
		switch c := c.(type) {
		case lua.LNumber:
			e.body = append(e.body, constNumber)
			e.body = binary.LittleEndian.AppendUint64(e.body, math.Float64bits(float64(c)))
		case lua.LString:
			e.body = append(e.body, constString)
			e.str(string(c))
		default:
			return fmt.Errorf("luaapi: cannot encode a %s constant", c.Type())
		}
	}
	e.uint(uint64(len(p.FunctionPrototypes)))
	for _, f := range p.FunctionPrototypes {
		if err := e.proto(f); err != nil {
			return err
		}
	}
	e.uint(uint64(len(p.DbgSourcePositions)))
	prev := 0
	for _, pos := range p.DbgSourcePositions { // lines: small deltas
		e.int(pos - prev)
		prev = pos
	}
	e.uint(uint64(len(p.DbgLocals)))
	for _, l := range p.DbgLocals {
		e.str(l.Name)
		e.int(l.StartPc)
		e.int(l.EndPc)
	}
	e.uint(uint64(len(p.DbgCalls)))
	for _, c := range p.DbgCalls {
		e.str(c.Name)
		e.int(c.Pc)
	}
	e.uint(uint64(len(p.DbgUpvalues)))
	for _, u := range p.DbgUpvalues {
		e.str(u)
	}
	return nil
}

type decoder struct {
	data  string
	pos   int
	strs  []string
	boxed []lua.LValue // strs[i] as a Lua value, made on first use
	err   error

	// The backing arrays of all functions, handed out by take.
	protos    []lua.FunctionProto
	children  []*lua.FunctionProto
	code      []uint32
	constants []lua.LValue
	strConsts []string
	positions []int
	locals    []lua.DbgLocalInfo
	localPtrs []*lua.DbgLocalInfo
	calls     []lua.DbgCall
	upvalues  []string
}

// take returns the next n elements of *arr (capacity n, so that an append
// to one function's slice never reaches the next), or fails when the
// totals promised fewer.
func take[T any](d *decoder, arr *[]T, n int) []T {
	if n > len(*arr) {
		d.fail("totals")
		return make([]T, 0)
	}
	s := (*arr)[:n:n]
	*arr = (*arr)[n:]
	return s
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("luaapi: encoded script is malformed (%s at byte %d)", what, d.pos)
	}
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	var x uint64
	for shift := uint(0); ; shift += 7 {
		if d.pos >= len(d.data) || shift > 63 {
			d.fail("number")
			return 0
		}
		b := d.data[d.pos]
		d.pos++
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x
		}
	}
}

func (d *decoder) int() int {
	u := d.uint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return int(x)
}

// count reads a length, bounded by maxDecodedItems.
func (d *decoder) count() int {
	n := d.uint()
	if n > maxDecodedItems {
		d.fail("count")
		return 0
	}
	return int(n)
}

func (d *decoder) byte() byte {
	if d.err != nil || d.pos >= len(d.data) {
		d.fail("byte")
		return 0
	}
	b := d.data[d.pos]
	d.pos++
	return b
}

func (d *decoder) str() string {
	i := d.strIndex()
	if d.err != nil {
		return ""
	}
	return d.strs[i]
}

func (d *decoder) strIndex() int {
	i := d.uint()
	if d.err != nil || i >= uint64(len(d.strs)) {
		d.fail("string index")
		return 0
	}
	return int(i)
}

func (d *decoder) proto(depth int) *lua.FunctionProto {
	if depth > MaxNesting {
		d.fail("nesting")
		return nil
	}
	ps := take(d, &d.protos, 1)
	if d.err != nil {
		return nil
	}
	p := &ps[0]
	p.SourceName, p.LineDefined, p.LastLineDefined = d.str(), d.int(), d.int()
	p.NumUpvalues, p.NumParameters, p.IsVarArg, p.NumUsedRegisters = d.byte(), d.byte(), d.byte(), d.byte()
	// Slices are never nil, as the compiler's are not.
	p.Code = take(d, &d.code, d.count())
	if d.err == nil && len(d.data)-d.pos < 4*len(p.Code) {
		d.fail("code")
	}
	if d.err != nil {
		return nil
	}
	for i := range p.Code {
		p.Code[i] = uint32(le64(d.data[d.pos : d.pos+4]))
		d.pos += 4
	}
	p.Constants = take(d, &d.constants, d.count())
	strConsts := take(d, &d.strConsts, len(p.Constants))
	for i := range p.Constants {
		switch d.byte() {
		case constNumber:
			if d.err == nil && d.pos+8 > len(d.data) {
				d.fail("number constant")
			}
			if d.err != nil {
				return nil
			}
			p.Constants[i] = lua.LNumber(math.Float64frombits(le64(d.data[d.pos : d.pos+8])))
			d.pos += 8
		case constString:
			j := d.strIndex()
			if d.err != nil {
				return nil
			}
			if d.boxed[j] == nil {
				d.boxed[j] = lua.LString(d.strs[j])
			}
			p.Constants[i], strConsts[i] = d.boxed[j], d.strs[j]
		default:
			d.fail("constant kind")
		}
		if d.err != nil {
			return nil
		}
	}
	setStringConstants(p, strConsts)
	p.FunctionPrototypes = take(d, &d.children, d.count())
	for i := range p.FunctionPrototypes {
		if p.FunctionPrototypes[i] = d.proto(depth + 1); d.err != nil {
			return nil
		}
	}
	p.DbgSourcePositions = take(d, &d.positions, d.count())
	line := 0
	for i := range p.DbgSourcePositions {
		line += d.int()
		p.DbgSourcePositions[i] = line
	}
	locals := take(d, &d.locals, d.count())
	p.DbgLocals = take(d, &d.localPtrs, len(locals))
	for i := range locals {
		locals[i] = lua.DbgLocalInfo{Name: d.str(), StartPc: d.int(), EndPc: d.int()}
		p.DbgLocals[i] = &locals[i]
	}
	p.DbgCalls = take(d, &d.calls, d.count())
	for i := range p.DbgCalls {
		p.DbgCalls[i] = lua.DbgCall{Name: d.str(), Pc: d.int()}
	}
	p.DbgUpvalues = take(d, &d.upvalues, d.count())
	for i := range p.DbgUpvalues {
		p.DbgUpvalues[i] = d.str()
	}
	if d.err != nil {
		return nil
	}
	return p
}

// stringConstants is where gopher-lua keeps a FunctionProto's string
// constants as Go strings (the unexported field stringConstants, which its
// compiler derives from Constants and its VM reads for global names and
// string operands). A decoded proto must have it too, and gopher-lua has
// no API to set it: setStringConstants writes it through its offset, the
// one unsafe write of this package. The field's name and type are checked
// once; if gopher-lua changes them, DecodeScript fails (hosts compile) and
// TestDecodedScriptsEqualCompiled, which compares decoded and compiled
// protos field by field, unexported ones included, fails.
var stringConstants = lazy.Values[uintptr]{F: func() (uintptr, error) {
	f, ok := reflect.TypeFor[lua.FunctionProto]().FieldByName("stringConstants")
	if !ok || f.Type != reflect.TypeFor[[]string]() {
		return 0, errors.New("luaapi: this gopher-lua keeps no stringConstants []string in FunctionProto: decoded scripts are not supported")
	}
	return f.Offset, nil
}}

func stringConstantsErr() error {
	_, err := stringConstants.Get()
	return err
}

func setStringConstants(p *lua.FunctionProto, s []string) {
	off, _ := stringConstants.Get() // checked by DecodeScript
	*(*[]string)(unsafe.Add(unsafe.Pointer(p), off)) = s
}
