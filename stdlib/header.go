package stdlib

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/monad-hooks/monad-hooks/internal/lazy"
)

// eventNames are the thirteen lifecycle events; the package imports nothing
// of this module, and a test keeps the list equal to events.All.
var eventNames = []string{"SessionStart", "BeforeTurn", "BeforeModel", "BeforeTool",
	"ApprovalRequest", "AfterTool", "AfterModel", "BeforeCompact", "AfterCompact",
	"BeforeSubagent", "AfterSubagent", "AfterTurn", "SessionEnd"}

// toolKindNames are the tool kinds of events.ToolKinds (a test keeps the
// two equal).
var toolKindNames = []string{"shell", "read", "write", "edit", "patch", "delete", "fetch", "query", "other"}

// A headerList is a header key that holds a list, with what it may list.
type headerList struct {
	key, what string
	allowed   []string
}

// headerLists are the header keys that hold a list, with what they may
// list: a table the compiler lays out, where a map was built as every
// process started (BenchmarkCLIRunNoStdlib).
var headerLists = [...]headerList{
	{"events", "event", eventNames},
	{"needs", "need", []string{NeedHome, NeedRoot}},
	{"kinds", "tool kind", toolKindNames},
}

// The patterns of a pack's header, compiled on first use: package
// initialisation is part of every start of the CLI
// (BenchmarkCLIRunNoStdlib).
var (
	paramLine = lazy.Regexp{Expr: `^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*\{\s*"([^"]+)"\s*,\s*(.*)\}\s*,\s*$`}
	packName  = lazy.Regexp{Expr: `^[a-z][a-z0-9-]*$`}
)

// parsePack reads the header and the parameter table of one pack file.
func parsePack(file, src string) (PackInfo, error) {
	p := PackInfo{Script: file}
	lines := strings.Split(headerPart(src), "\n")
	fail := func(line int, format string, args ...any) (PackInfo, error) {
		return PackInfo{}, fmt.Errorf("%s:%d: %s", file, line+1, fmt.Sprintf(format, args...))
	}
	i := 0
	var doc []string
	inDoc := false
	for ; i < len(lines) && strings.HasPrefix(lines[i], "---"); i++ {
		text := strings.TrimPrefix(strings.TrimPrefix(lines[i], "---"), " ")
		if inDoc {
			doc = append(doc, text)
			continue
		}
		if strings.TrimSpace(text) == "" {
			inDoc = true
			continue
		}
		key, val, ok := strings.Cut(text, ":")
		if !ok {
			return fail(i, "header line %q is not key: value", text)
		}
		val = strings.TrimSpace(val)
		switch key {
		case "pack":
			p.Name = val
		case "summary":
			p.Summary = val
		case "rules":
			if val != "embedded" {
				return fail(i, "rules: want \"embedded\", got %q", val)
			}
			p.Rules = true
		case "events", "needs", "kinds":
			list := headerLists[slices.IndexFunc(headerLists[:], func(l headerList) bool { return l.key == key })]
			for _, v := range strings.Split(val, ",") {
				v = strings.TrimSpace(v)
				if !slices.Contains(list.allowed, v) {
					return fail(i, "%s: unknown %s %q (want one of %s)", key, list.what, v, strings.Join(list.allowed, ", "))
				}
				switch key {
				case "events":
					p.Events = append(p.Events, v)
				case "needs":
					p.Needs = append(p.Needs, v)
				default:
					p.Kinds = append(p.Kinds, v)
				}
			}
		default:
			return fail(i, "unknown header key %q", key)
		}
	}
	if p.Name == "" || !packName.Get().MatchString(p.Name) {
		return fail(0, "missing or invalid pack name %q", p.Name)
	}
	if p.Name+".lua" != file {
		return fail(0, "pack %q must be in %s.lua", p.Name, p.Name)
	}
	if p.Summary == "" || len(p.Events) == 0 {
		return fail(0, "header needs summary and events")
	}
	p.Doc = strings.TrimSpace(strings.Join(doc, "\n"))

	// The parameter table.
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != "local SPEC = {"; i++ {
	}
	if i == len(lines) {
		return fail(0, "no parameter table (a line \"local SPEC = {\")")
	}
	var pdoc []string
	for i++; ; i++ {
		if i == len(lines) {
			return fail(i-1, "unterminated parameter table")
		}
		line := strings.TrimSpace(lines[i])
		switch {
		case line == "}":
			return p, nil
		case line == "":
			pdoc = nil
		case strings.HasPrefix(line, "--"):
			pdoc = append(pdoc, strings.TrimSpace(strings.TrimPrefix(line, "--")))
		default:
			m := paramLine.Get().FindStringSubmatch(lines[i])
			if m == nil {
				return fail(i, "parameter entry %q is not `name = { \"type\", default },`", line)
			}
			v, err := parseLuaLiteral(strings.TrimSpace(m[3]))
			if err != nil {
				return fail(i, "parameter %s: default: %v", m[1], err)
			}
			if msg := checkValue(m[2], v); msg != "" {
				return fail(i, "parameter %s: default does not have type %s: %s", m[1], m[2], msg)
			}
			def, err := jsonText(v)
			if err != nil {
				return fail(i, "parameter %s: default: %v", m[1], err)
			}
			if len(pdoc) == 0 {
				return fail(i, "parameter %s has no documentation comment", m[1])
			}
			p.Params = append(p.Params, Param{Name: m[1], Type: m[2], Default: def, Doc: strings.Join(pdoc, " ")})
			pdoc = nil
		}
	}
}

// headerPart returns the start of src that holds its header and its
// parameter table, when it can tell: most of a pack is code, and the
// catalog is read at every start (BenchmarkCLIRun). Otherwise it returns
// src.
func headerPart(src string) string {
	start := strings.Index(src, specStart)
	if start < 0 {
		return src
	}
	end := strings.Index(src[start:], specEnd)
	if end < 0 {
		return src
	}
	return src[:start+end+len(specEnd)]
}

// The lines that open and close a pack's parameter table.
const (
	specStart = "\nlocal SPEC = {\n"
	specEnd   = "\n}\n"
)

// parseLuaLiteral parses the small subset of Lua literals that parameter
// defaults use: strings, numbers, booleans and lists of strings.
func parseLuaLiteral(s string) (any, error) {
	switch {
	case s == "true":
		return true, nil
	case s == "false":
		return false, nil
	case strings.HasPrefix(s, "{"):
		if !strings.HasSuffix(s, "}") {
			return nil, fmt.Errorf("unterminated list %q", s)
		}
		body := strings.TrimSpace(s[1 : len(s)-1])
		list := []any{}
		for body != "" {
			str, rest, err := luaString(body)
			if err != nil {
				return nil, err
			}
			list = append(list, str)
			rest = strings.TrimSpace(rest)
			if rest != "" {
				if rest[0] != ',' {
					return nil, fmt.Errorf("want , between list items in %q", s)
				}
				rest = strings.TrimSpace(rest[1:])
			}
			body = rest
		}
		return list, nil
	case strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "'") || strings.HasPrefix(s, "[["):
		str, rest, err := luaString(s)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(rest) != "" {
			return nil, fmt.Errorf("trailing text after string: %q", rest)
		}
		return str, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("unsupported literal %q", s)
	}
	return f, nil
}

// luaString parses one Lua string literal at the start of s and returns it
// and the rest of s.
func luaString(s string) (string, string, error) {
	if strings.HasPrefix(s, "[[") {
		end := strings.Index(s, "]]")
		if end < 0 {
			return "", "", fmt.Errorf("unterminated long string %q", s)
		}
		return s[2:end], s[end+2:], nil
	}
	if s == "" || (s[0] != '"' && s[0] != '\'') {
		return "", "", fmt.Errorf("want a string literal at %q", s)
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q:
			return b.String(), s[i+1:], nil
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '\\', '"', '\'':
				b.WriteByte(s[i])
			default:
				return "", "", fmt.Errorf("unsupported escape \\%c in %q", s[i], s)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("unterminated string %q", s)
}

// jsonText encodes v as compact JSON without HTML escaping.
func jsonText(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
