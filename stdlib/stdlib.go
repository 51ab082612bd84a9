package stdlib

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/monad-hooks/monad-hooks/internal/suggest"

	"github.com/monad-hooks/monad-hooks/internal/lazy"
)

//go:embed packs/*.lua lib/*.lua rules/*.toml rules/README.md
var embedded embed.FS

// FS returns the embedded packs: a read-only file system with one file per
// pack, "<name>.lua", at its root. [PackInfo.Script] is the path of a pack's
// file in it.
func FS() fs.FS {
	sub, err := fs.Sub(embedded, "packs")
	if err != nil {
		panic(err) // "packs" is a valid constant path
	}
	return sub
}

// libraryPrefix begins the name of every library of [Libraries].
const libraryPrefix = "monad."

// Libraries returns the Lua libraries the packs share, by the name a script
// requires them by: "monad.params" (a pack's parameters checked against its
// SPEC table), "monad.commands" (the command lines of a tool input and the
// words of a command through wrappers and flags), "monad.paths" (the paths
// that hold credentials), "monad.redact" (the rule engine of the redacting
// packs) and "monad.rules" (the evaluator of rule files), each the source
// of lib/<name>.lua and returning a table. A host that loads packs gives
// these to its Lua runtime (the engine compiles them once per process and
// passes them as luaapi.Options.Libraries), with the rule library of
// [RulesLibraryName]; user scripts may require them too, and each file
// documents what it exports. The caller owns the returned map.
func Libraries() map[string][]byte {
	out := map[string][]byte{}
	for _, name := range LibraryNames() {
		out[name], _ = Library(name)
	}
	return out
}

// LibraryNames returns the names of the libraries of [Libraries], sorted,
// without reading them: a host that compiles a library only when a script
// requires it (the engine) reads only those (BenchmarkCLIRun).
func LibraryNames() []string {
	entries, err := fs.ReadDir(embedded, "lib")
	if err != nil {
		panic(err) // "lib" is an embedded directory
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, libraryPrefix+strings.TrimSuffix(e.Name(), ".lua"))
	}
	return out
}

// Library returns the source of the library called name (one of
// [LibraryNames]), as [Libraries] has it; false for another name. The
// caller owns the returned slice.
func Library(name string) ([]byte, bool) {
	file, ok := strings.CutPrefix(name, libraryPrefix)
	if !ok || strings.ContainsAny(file, "/.") {
		return nil, false
	}
	src, err := fs.ReadFile(embedded, "lib/"+file+".lua")
	return src, err == nil
}

// PackInfo describes one pack, as its header and parameter table declare it.
type PackInfo struct {
	// Name is what a configuration loads the pack by ("deny-destructive").
	Name string
	// Summary is one sentence.
	Summary string
	// Doc is Markdown: what the pack catches and what it leaves alone.
	Doc string
	// Events are the events the pack registers hooks for, in firing order.
	Events []string
	// Kinds are the tool kinds whose calls the pack checks (its hooks'
	// kind), from its header; none means the pack has no tool hook or
	// applies to every tool.
	Kinds []string
	// Needs are what the pack needs from the host to guard fully: NeedHome
	// (the home directory, for ~ rules), NeedRoot (the project root). A
	// host must refuse to load the pack without them rather than run it
	// weakened (the engine does).
	Needs []string
	// Params are the pack's parameters in declaration order.
	Params []Param
	// Script is the path of the pack's Lua file in [FS].
	Script string
	// Rules is true for a pack that evaluates the embedded rule files
	// ([RuleSources]): its parameters deny, ask and off name their
	// families, groups and rules (type "[]rule"; see [ValidateRuleParams]).
	Rules bool
}

// Param describes one parameter of a pack.
type Param struct {
	Name string
	// Type is "string", "regex" (an RE2 expression), "bool", "number",
	// "[]string", "[]regex", "[]rule" (names of rule families, groups or
	// rules), an enumeration "a|b|c", or a list of one "[]a|b|c".
	Type string
	// Default is the value used when the parameter is absent, as JSON.
	Default string
	// Doc says what the parameter does.
	Doc string
}

// What a pack may need from its host (PackInfo.Needs).
const (
	// NeedHome: the home directory, which "~" and $HOME expand to.
	NeedHome = "home"
	// NeedRoot: the project root, for the paths of calls that carry no cwd.
	NeedRoot = "root"
)

// Default returns the names of the packs a host loads when it is not told
// otherwise. The caller owns the returned slice.
func Default() []string {
	return []string{"deny-destructive", "protect-paths", "redact-secrets", "ask-irreversible"}
}

// Packs returns every embedded pack, sorted by name. The caller owns the
// returned slice and everything it references.
func Packs() []PackInfo {
	all := catalog()
	out := make([]PackInfo, len(all))
	for i := range all {
		out[i] = all[i].clone()
	}
	return out
}

// Lookup returns the pack called name, and false when there is none.
func Lookup(name string) (PackInfo, bool) {
	p, ok := pack(name)
	if !ok {
		return PackInfo{}, false
	}
	return p.clone(), true
}

// Names returns the names of every embedded pack, sorted.
func Names() []string {
	return slices.Clone(packFiles.Get().names)
}

func (p PackInfo) clone() PackInfo {
	p.Events = slices.Clone(p.Events)
	p.Kinds = slices.Clone(p.Kinds)
	p.Needs = slices.Clone(p.Needs)
	p.Params = slices.Clone(p.Params)
	return p
}

// ErrUnknownPack is returned (wrapped) by [ValidateParams] for a name that is
// not an embedded pack.
var ErrUnknownPack = errors.New("unknown stdlib pack")

// A ParamError says which parameter of which pack is wrong, and why. For a
// user's rule file ([ValidateRuleParams]) Pack is the file's family.
type ParamError struct {
	Pack  string
	Param string
	Msg   string

	ruleFile bool // Pack names a user's rule file, not an embedded pack
}

func (e *ParamError) Error() string {
	what := "stdlib pack"
	if e.ruleFile {
		what = "rule file of family"
	}
	return fmt.Sprintf("%s %s: parameter %s: %s", what, e.Pack, e.Param, e.Msg)
}

// ValidateParams checks a pack's parameters before it is loaded, against
// the pack's declaration (its SPEC table, as [PackInfo.Params]): name must
// be an embedded pack (else an error wrapping [ErrUnknownPack]), every key
// of with must be one of its parameters (else an error that suggests the
// parameter a misspelt key was probably meant to be) and every value must
// have the parameter's type. Each problem is a *[ParamError]; with several,
// the error joins them in parameter-name order (errors.As finds the first;
// errors.Join's Unwrap() []error lists them all). Values are the shapes
// decoded JSON or TOML give: string, bool, any Go number or json.Number,
// and []any or []string for lists. A nil or empty with is valid.
func ValidateParams(name string, with map[string]any) error {
	p, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("%w %q (have %s)", ErrUnknownPack, name, strings.Join(Names(), ", "))
	}
	keys := make([]string, 0, len(with))
	for k := range with {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var names []string
	for _, q := range p.Params {
		names = append(names, q.Name)
	}
	var errs []error
	for _, k := range keys {
		i := slices.IndexFunc(p.Params, func(q Param) bool { return q.Name == k })
		if i < 0 {
			msg := "unknown parameter (have " + strings.Join(names, ", ") + ")"
			if s := suggest.Closest(k, names); s != "" {
				msg = fmt.Sprintf("unknown parameter; did you mean %s? (have %s)", s, strings.Join(names, ", "))
			}
			errs = append(errs, &ParamError{Pack: name, Param: k, Msg: msg})
			continue
		}
		if msg := checkValue(p.Params[i].Type, with[k]); msg != "" {
			errs = append(errs, &ParamError{Pack: name, Param: k, Msg: msg})
		}
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// maxListItems bounds the items of a list parameter, as monad.params does
// (MAX_ITEMS): a longer list is refused, never cut short.
const maxListItems = 100000

// checkValue returns why v is not a value of type typ, or "".
func checkValue(typ string, v any) string {
	switch typ {
	case "string":
		if _, ok := v.(string); !ok {
			return "want a string, got " + kind(v)
		}
	case "regex":
		s, ok := v.(string)
		if !ok {
			return "want a regular expression string, got " + kind(v)
		}
		if _, err := regexp.Compile(s); err != nil {
			return "invalid regular expression: " + err.Error()
		}
	case "bool":
		if _, ok := v.(bool); !ok {
			return "want true or false, got " + kind(v)
		}
	case "number":
		if !isNumber(v) {
			return "want a number, got " + kind(v)
		}
	case "[]string", "[]regex", "[]rule":
		list, ok := stringList(v)
		if !ok {
			return "want a list of strings, got " + kind(v)
		}
		if len(list) > maxListItems {
			return fmt.Sprintf("more than %d items", maxListItems)
		}
		if typ == "[]regex" {
			for i, s := range list {
				if _, err := regexp.Compile(s); err != nil {
					return fmt.Sprintf("item %d: invalid regular expression: %v", i+1, err)
				}
			}
		}
	default:
		if elem, ok := strings.CutPrefix(typ, "[]"); ok { // a list of an enumeration "[]a|b|c"
			list, ok := stringList(v)
			if !ok {
				return "want a list of strings, got " + kind(v)
			}
			if len(list) > maxListItems {
				return fmt.Sprintf("more than %d items", maxListItems)
			}
			for i, s := range list {
				if msg := checkValue(elem, s); msg != "" {
					return fmt.Sprintf("item %d: %s", i+1, msg)
				}
			}
			return ""
		}
		// an enumeration "a|b|c"
		choices := strings.Split(typ, "|")
		s, ok := v.(string)
		if !ok || !slices.Contains(choices, s) {
			got := kind(v)
			if ok {
				got = strconv.Quote(s)
			}
			return "want one of " + strings.Join(choices, ", ") + ", got " + got
		}
	}
	return ""
}

func isNumber(v any) bool {
	switch x := v.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	case float32:
		return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case json.Number:
		_, err := x.Float64()
		return err == nil
	}
	return false
}

func stringList(v any) ([]string, bool) {
	switch x := v.(type) {
	case []string:
		return x, true
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case []string:
		return "a list"
	case map[string]any:
		return "a table"
	}
	if isNumber(v) {
		return "a number"
	}
	return fmt.Sprintf("a %T", v)
}

// A packFile is one embedded pack, its header parsed on first use.
type packFile struct {
	once sync.Once
	info PackInfo
}

// packList is the embedded packs: their names, sorted, and their files.
type packList struct {
	names []string
	files map[string]*packFile
}

// packFiles lists the embedded packs once, by name ("<name>.lua"; a test
// checks that every header names its file's pack). Their headers are
// parsed one by one as they are looked up: a host that loads three packs
// reads three headers at start (BenchmarkCLIRun).
var packFiles = lazy.Value[packList]{F: func() (out packList) {
	entries, err := fs.ReadDir(embedded, "packs")
	if err != nil {
		panic(err) // "packs" is an embedded directory
	}
	out.files = map[string]*packFile{}
	for _, e := range entries { // sorted by name
		if name, ok := strings.CutSuffix(e.Name(), ".lua"); ok && !e.IsDir() {
			out.names = append(out.names, name)
			out.files[name] = &packFile{}
		}
	}
	return out
}}

// pack returns the pack called name, its header parsed. The packs are
// embedded and a test parses all of them, so a parse error here is a
// build defect: it panics.
func pack(name string) (PackInfo, bool) {
	f, ok := packFiles.Get().files[name]
	if !ok {
		return PackInfo{}, false
	}
	f.once.Do(func() {
		src, err := readHeader("packs/" + name + ".lua")
		if err == nil {
			f.info, err = packInfo(name, headerPart(src))
		}
		if err != nil {
			panic("stdlib: " + err.Error())
		}
	})
	return f.info, true
}

// readHeader reads the start of the embedded pack file name that holds
// its header (see headerPart), block by block: the whole file only when it
// has no parameter table. Copying the packs to read their headers
// (deny-destructive is 120 KB, its header 7 KB) was a twentieth of the
// start of monad-hooks run (BenchmarkCLIRun).
func readHeader(name string) (string, error) {
	f, err := embedded.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b []byte
	buf := make([]byte, 8<<10)
	for {
		n, err := f.Read(buf)
		b = append(b, buf[:n]...)
		if start := bytes.Index(b, []byte(specStart)); start >= 0 && bytes.Contains(b[start:], []byte(specEnd)) {
			return string(b), nil
		}
		if err == io.EOF {
			return string(b), nil
		}
		if err != nil {
			return "", err
		}
	}
}

// catalog returns every pack, sorted by name.
func catalog() []PackInfo {
	names := packFiles.Get().names
	out := make([]PackInfo, len(names))
	for i, n := range names {
		out[i], _ = pack(n)
	}
	return out
}

func parseAll(fsys fs.FS, dir string) ([]PackInfo, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []PackInfo
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".lua" {
			continue
		}
		src, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		p, err := parsePack(e.Name(), string(src))
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
