package stdlib

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// RulesLibraryName is the library that holds the embedded rule files for
// the pack ask-irreversible: a host that loads that pack gives its Lua
// runtime, beside [Libraries], this name with the source
// [RulesLibrary] renders from the files of [RuleSources].
const RulesLibraryName = "monad.rules.stdlib"

// RulesLibrary renders checked rule files as the source of a Lua library
// (see [RulesLibraryName]) whose load() returns them as the evaluator
// (monad.rules) reads them. The files are rendered in the order given.
func RulesLibrary(files []*RuleFile) []byte {
	var b luaWriter
	b.WriteString("-- Generated from rule files by package stdlib (RulesLibrary).\nreturn { load = function() return ")
	b.families(files)
	b.WriteString(" end }\n")
	return []byte(b.String())
}

// RulesScript renders a user's rule file as a Lua atom script: it takes the
// parameters of the pack ask-irreversible (matcher, commandFields, deny,
// ask, off, exempt) under the file's family name, and registers one
// BeforeTool hook that evaluates the file's rules as that pack evaluates
// the stdlib's. Reasons start with the family name.
func RulesScript(f *RuleFile) []byte {
	var b luaWriter
	b.WriteString("-- Generated from the rule file " + strings.ReplaceAll(f.Path, "\n", " ") + " by package stdlib (RulesScript).\nlocal SPEC = {\n")
	info, _ := Lookup(ruleEvaluator)
	for _, q := range info.Params {
		b.WriteString("  " + q.Name + " = { ")
		b.quote(q.Type)
		b.WriteString(", ")
		b.jsonLiteral(q.Default)
		b.WriteString(" },\n")
	}
	b.WriteString("}\nlocal P = require(\"monad.params\").check(")
	b.quote(f.Family)
	b.WriteString(", SPEC, params)\nrequire(\"monad.rules\").register(")
	b.quote(f.Family)
	b.WriteString(", P, function() return ")
	b.families([]*RuleFile{f})
	b.WriteString(" end)\n")
	return []byte(b.String())
}

type luaWriter struct{ strings.Builder }

// quote writes s as a Lua string literal that every Lua reads the same:
// printable ASCII as is, the rest as decimal escapes.
func (b *luaWriter) quote(s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			b.WriteByte('\\')
			d := strconv.Itoa(int(c))
			b.WriteString(strings.Repeat("0", 3-len(d)) + d)
		}
	}
	b.WriteByte('"')
}

func (b *luaWriter) strs(list []string) {
	b.WriteByte('{')
	for i, s := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		b.quote(s)
	}
	b.WriteByte('}')
}

// set writes a table with the strings as keys, each true.
func (b *luaWriter) set(list []string) {
	b.WriteByte('{')
	for i, s := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		b.quote(s)
		b.WriteString("]=true")
	}
	b.WriteByte('}')
}

// jsonLiteral writes a parameter default (JSON: a string, a boolean, a
// number or a list of strings) as Lua.
func (b *luaWriter) jsonLiteral(def string) {
	v, err := parseJSONDefault(def)
	if err != nil {
		b.WriteString("nil")
		return
	}
	switch x := v.(type) {
	case string:
		b.quote(x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case []string:
		b.strs(x)
	}
}

func (b *luaWriter) field(name string) {
	b.WriteByte(',')
	b.WriteString(name)
	b.WriteByte('=')
}

func (b *luaWriter) families(files []*RuleFile) {
	b.WriteString("{\n")
	for _, f := range files {
		b.WriteString("{family=")
		b.quote(f.Family)
		b.field("group")
		b.quote(f.Group)
		b.WriteString(",programs={")
		names := make([]string, 0, len(f.programs))
		for n := range f.programs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			s := f.programs[n]
			b.WriteByte('[')
			b.quote(n)
			b.WriteString("]={sd=" + strconv.FormatBool(s.singleDash) + ",v=")
			b.set(s.values)
			b.WriteString("},")
		}
		b.WriteString("},rules={\n")
		for _, r := range f.Rules {
			b.rule(r)
		}
		b.WriteString("}},\n")
	}
	b.WriteString("}")
}

func (b *luaWriter) rule(r Rule) {
	m := r.m
	b.WriteString("{id=")
	b.quote(r.ID)
	b.field("d")
	b.quote(r.Decision)
	b.field("prog")
	b.WriteByte('{')
	for _, p := range m.programs {
		b.strs(p)
		b.WriteByte(',')
	}
	b.WriteByte('}')
	if len(m.subcommand) > 0 {
		b.field("sub")
		b.paths(m.subcommand)
	}
	if len(m.notSub) > 0 {
		b.field("nsub")
		b.paths(m.notSub)
	}
	if len(m.keywords) > 0 {
		b.field("kw")
		b.strs(m.keywords)
	}
	if m.fallback {
		b.WriteString(",fb=true")
	}
	for _, fl := range []struct {
		name string
		list []string
	}{{"fl", m.flags}, {"af", m.allFlags}, {"nf", m.notFlags}} {
		if len(fl.list) > 0 {
			b.field(fl.name)
			b.strs(fl.list)
		}
	}
	if len(m.values) > 0 {
		b.field("vals")
		b.WriteByte('{')
		for _, v := range m.values {
			b.WriteString("{f=")
			b.strs(v.flags)
			b.WriteString(",m=")
			b.quote(v.match)
			b.WriteString("},")
		}
		b.WriteByte('}')
	}
	for _, rx := range []struct{ name, v string }{{"args", m.args}, {"nargs", m.notArgs}, {"last", m.lastArg}, {"text", m.text},
		{"ntext", m.notText}, {"asg", m.assigns}, {"input", m.input}, {"writes", m.writes}} {
		if rx.v != "" {
			b.field(rx.name)
			b.quote(rx.v)
		}
	}
	if m.minArgs > 0 {
		b.field("min")
		b.WriteString(strconv.Itoa(m.minArgs))
	}
	if m.skipLocal {
		b.WriteString(",loc=true")
	}
	if m.http != nil {
		b.WriteString(",http={m=")
		b.set(m.http.methods)
		if m.http.url != "" {
			b.WriteString(",url=")
			b.quote(m.http.url)
		}
		b.WriteByte('}')
	}
	b.field("why")
	b.quote(r.Reason)
	b.field("inst")
	b.quote(r.Instead)
	b.WriteString("},\n")
}

func (b *luaWriter) paths(paths [][]wordPattern) {
	b.WriteByte('{')
	for _, path := range paths {
		b.WriteByte('{')
		for _, w := range path {
			b.WriteString("{e=")
			b.set(w.exact)
			if len(w.pats) > 0 {
				b.WriteString(",p=")
				b.strs(w.pats)
			}
			b.WriteString("},")
		}
		b.WriteString("},")
	}
	b.WriteByte('}')
}

// parseJSONDefault decodes a parameter default (see [Param.Default]).
func parseJSONDefault(def string) (any, error) {
	var v any
	if err := json.Unmarshal([]byte(def), &v); err != nil {
		return nil, err
	}
	if list, ok := v.([]any); ok {
		out := make([]string, 0, len(list))
		for _, e := range list {
			s, _ := e.(string)
			out = append(out, s)
		}
		return slices.Clip(out), nil
	}
	return v, nil
}
