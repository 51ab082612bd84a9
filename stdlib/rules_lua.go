package stdlib

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/monad-hooks/monad-hooks/internal/lazy"
)

// RulesLibraryName is the library that holds the embedded rule files for
// the pack ask-irreversible: a host that loads that pack gives its Lua
// runtime, beside [Libraries], the libraries [RulesLibraries] renders from
// the files of [RuleSources] (this one and one per file).
const RulesLibraryName = "monad.rules.stdlib"

// RulesLibraries renders checked rule files as the sources of Lua
// libraries, by require name: [RulesLibraryName], whose load() returns
// them as the evaluator (monad.rules) reads them, and one library per file
// (the i-th under [RulesFamilyLibrary](i)) that the first returns that
// file's family from, the first time a command names one of its programs.
// A host gives them all to its Lua runtime; one that loads each library
// on first require (the engine) then loads only the families the commands
// it sees reach (BenchmarkCLIRun). The files are rendered in the order
// given.
func RulesLibraries(files []*RuleFile) map[string][]byte {
	var b luaWriter
	b.WriteString("-- Generated from rule files by package stdlib (RulesLibraries).\nreturn { load = function() return ")
	b.ruleSet(files, true)
	b.WriteString(" end }\n")
	out := map[string][]byte{RulesLibraryName: []byte(b.String())}
	for i, f := range files {
		var fb luaWriter
		fb.WriteString("-- Generated from the rule file " + strings.ReplaceAll(f.Path, "\n", " ") + " by package stdlib (RulesLibraries).\nreturn { load = ")
		fb.family(f)
		fb.WriteString(" }\n")
		out[RulesFamilyLibrary(i)] = []byte(fb.String())
	}
	return out
}

// RulesFamilyLibrary is the require name of the library that holds the
// i-th (0-based) rule file of [RulesLibraries].
func RulesFamilyLibrary(i int) string {
	return RulesLibraryName + ".family" + strconv.Itoa(i+1)
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
	b.ruleSet([]*RuleFile{f}, false)
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

// ruleSet writes the rule set of files as monad.rules reads it: what the
// prefilter and the index need at once as one function (lookup, see
// [luaWriter.lookup]), the tokens that have a trigger (for the prefilter's
// keyword set, built once per pool by luaapi's scan), and each family behind a function that builds its
// rules when a command names one of its programs. A VM keeps only what it
// built: the rules of the programs its calls named. (What a VM's scripts
// keep is walked between calls, see luaapi's Options.MaxRetained; the
// code of a function is not, so tables of a few thousand entries would
// cost every call and a function costs none.)
func (b *luaWriter) ruleSet(files []*RuleFile, familyLibraries bool) {
	keys, triggers, programs := ruleIndex(files)
	b.WriteString("{\nnames = function() return {\n")
	for _, f := range files {
		b.WriteByte('{')
		b.quote(f.Family)
		b.WriteByte(',')
		b.quote(f.Group)
		for _, r := range f.Rules {
			b.WriteByte(',')
			b.quote(r.ID)
			b.WriteByte(',')
			b.quote(r.Decision)
		}
		b.WriteString("},\n")
	}
	// on: the rules on by default, which is what settings_of counts when
	// the pack's parameters name none (BenchmarkCLIRun: names() and the
	// set of every name cost a tenth of the start of monad-hooks run).
	on := 0
	for _, f := range files {
		for _, r := range f.Rules {
			if r.Decision != "off" {
				on++
			}
		}
	}
	b.WriteString("} end,\non = " + strconv.Itoa(on) + ",\ntriggers = function() return {")
	trig := make([]string, 0, len(triggers))
	for t := range triggers {
		trig = append(trig, t)
	}
	sort.Strings(trig)
	for i, t := range trig {
		if i > 0 {
			b.WriteByte(',')
		}
		b.quote(t)
	}
	b.WriteString("} end,\nlookup = ")
	b.lookup(keys, triggers, programs)
	b.WriteString(",\nfamilies = {\n")
	for i, f := range files {
		if familyLibraries {
			b.WriteString("function() return require(")
			b.quote(RulesFamilyLibrary(i))
			b.WriteString(").load() end")
		} else {
			b.family(f)
		}
		b.WriteString(",\n")
	}
	b.WriteString("}}")
}

// lookup writes a function of a token that returns what ruleIndex says of
// it: whether it is a key, its trigger (true, a string of the tokens one of
// which it needs, or nil) and its families (a string, or nil). It is a
// binary search over the sorted tokens written as nested ifs: some ten
// string comparisons per token.
func (b *luaWriter) lookup(keys []string, triggers map[string][]string, programs map[string]string) {
	set := map[string]bool{}
	for _, k := range keys {
		set[k] = true
	}
	for k := range triggers {
		set[k] = true
	}
	for k := range programs {
		set[k] = true
	}
	tokens := make([]string, 0, len(set))
	for k := range set {
		tokens = append(tokens, k)
	}
	sort.Strings(tokens)
	isKey := map[string]bool{}
	for _, k := range keys {
		isKey[k] = true
	}
	leaf := func(t string) {
		b.WriteString("if t == ")
		b.quote(t)
		b.WriteString(" then return " + strconv.FormatBool(isKey[t]) + ", ")
		if need, ok := triggers[t]; !ok {
			b.WriteString("nil")
		} else if need == nil {
			b.WriteString("true")
		} else {
			b.quote(strings.Join(need, " "))
		}
		b.WriteString(", ")
		if f, ok := programs[t]; ok {
			b.quote(f)
		} else {
			b.WriteString("nil")
		}
		b.WriteString(" end\n")
	}
	var tree func(list []string)
	tree = func(list []string) {
		if len(list) <= 4 {
			for _, t := range list {
				leaf(t)
			}
			return
		}
		mid := len(list) / 2
		b.WriteString("if t < ")
		b.quote(list[mid])
		b.WriteString(" then\n")
		tree(list[:mid])
		b.WriteString("else\n")
		tree(list[mid:])
		b.WriteString("end\n")
	}
	b.WriteString("function(t)\n")
	tree(tokens)
	b.WriteString("return false, nil, nil\nend")
}

// family writes a function that returns one family: its name, group,
// program specs and rules.
func (b *luaWriter) family(f *RuleFile) {
	b.WriteString("function() return {family=")
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
		b.WriteString("]={sd=" + strconv.FormatBool(s.singleDash) + ",g=" + strconv.FormatBool(s.global) + ",v=")
		b.set(s.values)
		if len(s.manual) > 0 {
			b.WriteString(",m=")
			b.set(s.manual)
		}
		b.WriteString("},")
	}
	b.WriteString("},rules={\n")
	for _, r := range f.Rules {
		b.rule(r)
	}
	b.WriteString("}} end")
}

// plainToken is a word the prefilter's tokens can equal.
var plainToken = lazy.Regexp{Expr: `^[a-z0-9_.:+@-]+$`}

// ruleIndex computes what monad.rules needs before it builds any rule:
// keys, the words that make a command worth a look (the last word of each
// program, the keywords); triggers, the tokens that start the evaluation
// of a line, each always (nil) or when one of the listed tokens is in the
// line too; programs, for the first word of each program ("*" for the
// rules of any program), the families (1-based, in order, space
// separated) that have rules for it or say how it reads its options.
func ruleIndex(files []*RuleFile) (keys []string, triggers map[string][]string, programs map[string]string) {
	keySet := map[string]bool{}
	triggers = map[string][]string{}
	always := map[string]bool{}
	add := func(token string, need []string) {
		if always[token] {
			return
		}
		var others []string
		for _, n := range need {
			if n != token {
				others = append(others, n)
			}
		}
		if need == nil || len(others) == 0 {
			always[token] = true
			triggers[token] = nil
			return
		}
		for _, n := range others {
			if !slices.Contains(triggers[token], n) {
				triggers[token] = append(triggers[token], n)
			}
		}
	}
	fams := map[string][]int{}
	addFamily := func(prog string, i int) {
		if l := fams[prog]; len(l) == 0 || l[len(l)-1] != i {
			fams[prog] = append(l, i)
		}
	}
	for i, f := range files {
		for _, r := range f.Rules {
			m := r.m
			need := m.keywords
			if len(need) == 0 {
				need = firstWords(m.subcommand)
			}
			for _, pw := range m.programs {
				addFamily(pw[0], i+1)
				if pw[0] != "*" {
					last := pw[len(pw)-1]
					keySet[last] = true
					add(last, need)
				}
			}
			for _, k := range m.keywords {
				keySet[k] = true
				if m.programs[0][0] == "*" {
					add(k, nil)
				}
			}
		}
	}
	for i, f := range files {
		for n := range f.programs {
			if _, ok := fams[n]; ok {
				addFamily(n, i+1)
			}
		}
	}
	programs = map[string]string{}
	for n, l := range fams {
		slices.Sort(l)
		l = slices.Compact(l)
		parts := make([]string, len(l))
		for k, i := range l {
			parts[k] = strconv.Itoa(i)
		}
		programs[n] = strings.Join(parts, " ")
	}
	for k := range keySet {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, need := range triggers {
		sort.Strings(need)
	}
	return keys, triggers, programs
}

// firstWords returns the words one of which a command must hold for one
// of the subcommand paths to match (their first words), or nil when a
// first word is a glob or not a plain token.
func firstWords(paths [][]wordPattern) []string {
	var out []string
	for _, path := range paths {
		if len(path[0].pats) > 0 {
			return nil
		}
		for _, w := range path[0].exact {
			if !plainToken.Get().MatchString(w) {
				return nil
			}
			out = append(out, w)
		}
	}
	return out
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
