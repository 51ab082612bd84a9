package stdlib

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/monad-hooks/monad-hooks/internal/fieldpath"
	"github.com/monad-hooks/monad-hooks/internal/suggest"

	"github.com/monad-hooks/monad-hooks/internal/lazy"
)

// Rule files: guards written as data. A rule file is a TOML document (JSON
// holds the same) that describes one family of commands, say "iac" or
// "secrets", and its rules: which program, subcommand, flags, arguments or
// HTTP call make a shell command irreversible, whether to ask or deny, why,
// and what to do instead, each rule with its own cases. The stdlib ships
// its families in rules/*.toml (the pack ask-irreversible evaluates them);
// users load their own files beside agents.json. See rules/README.md for
// the format.
//
// This package reads no TOML: it imports only the standard library. A host
// decodes a file into plain values (the engine does it with the positions
// of every key) and [ParseRules] checks and models them, reporting each
// problem at its field path.

// Bounds of a rule file.
const (
	// MaxRules is the most rules one file may hold.
	MaxRules = 2000
	// maxText bounds the reason and the instead of a rule.
	maxReason  = 160
	maxInstead = 140
	maxCases   = 200
	maxWords   = 8
)

// The decisions a rule may take.
const (
	DecisionAsk  = "ask"
	DecisionDeny = "deny"
)

// A RuleFile is one family of rules, as a rule file declares it. It is a
// plain value, safe for concurrent reads once built.
type RuleFile struct {
	// Path is the name the file was parsed as.
	Path string
	// Family names the family; it is the first half of every rule id.
	Family string
	// Group is the wider set the family belongs to ("cloud", "data"): a
	// pack parameter may turn a whole group off, to ask or to deny.
	Group string
	// Summary says in one line what the family guards.
	Summary string
	// Rules are the file's rules, in file order.
	Rules []Rule

	programs map[string]programSpec
}

// A Rule is one rule of a [RuleFile]. Its predicates (program, subcommand,
// flags, ...) are kept for the Lua evaluator; the fields are what a reader
// of a decision needs.
type Rule struct {
	// ID is "family:name", the name every reason and audit record gives.
	ID string `json:"id"`
	// Field is the rule's field path in its file ("rule[3]").
	Field string `json:"field"`
	// Decision is DecisionAsk or DecisionDeny.
	Decision string `json:"decision"`
	// Programs are the programs the rule applies to, as written ("kubectl",
	// "python manage.py"); for an HTTP rule without one, the HTTP clients.
	Programs []string `json:"programs"`
	// Reason says what the command destroys; Instead the safer way.
	Reason  string `json:"reason"`
	Instead string `json:"instead"`
	// Match are commands the rule must catch; Pass are look-alikes it must
	// leave alone.
	Match []string `json:"match"`
	Pass  []string `json:"pass"`

	m ruleMatch
}

// ruleMatch holds the predicates of a rule, checked and normalized.
type ruleMatch struct {
	programs   [][]string // words; the first lowercased base name
	subcommand [][]wordPattern
	flags      []string
	allFlags   []string
	notFlags   []string
	values     []valuePredicate
	args       string
	notArgs    string
	lastArg    string
	minArgs    int
	text       string
	notText    string
	assigns    string
	input      string
	writes     string
	notSub     [][]wordPattern
	http       *httpPredicate
	skipLocal  bool
	fallback   bool
	keywords   []string
}

// A wordPattern matches one lowercased word: one of exact, or one of the Lua
// patterns pats (compiled from globs with *).
type wordPattern struct {
	exact []string
	pats  []string
}

type valuePredicate struct {
	flags []string
	match string
}

type httpPredicate struct {
	methods []string
	url     string
}

// programSpec is what a file says about how a program reads its options.
type programSpec struct {
	global     bool     // options before the subcommand are the program's own (git -C DIR)
	singleDash bool     // options are -long words, not clusters of letters
	values     []string // options whose value is the next word
	manual     []string // last words that make a command print its manual (aws ... help)
}

// A RuleError is one problem of a rule file: the file, the field path of
// the offending value in the notation of configuration errors
// ("rule[2].program", `programs["a b"]`) and what is wrong.
type RuleError struct {
	File  string
	Field string
	Msg   string
}

func (e *RuleError) Error() string {
	if e.Field == "" {
		return e.File + ": " + e.Msg
	}
	return e.File + ": " + e.Field + ": " + e.Msg
}

// RuleErrors lists every problem of a rule file, in document order.
type RuleErrors []*RuleError

// Error lists the problems one per line.
func (es RuleErrors) Error() string { return errors.Join(es.Unwrap()...).Error() }

// Unwrap returns the problems, for errors.As.
func (es RuleErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// The patterns of the rule files, compiled on first use: package
// initialisation is part of every start of the CLI
// (BenchmarkCLIRunNoStdlib).
var (
	familyName = lazy.Regexp{Expr: `^[a-z][a-z0-9-]{0,39}$`}
	ruleName   = lazy.Regexp{Expr: `^[a-z0-9][a-z0-9-]{0,63}$`}
	progWord   = lazy.Regexp{Expr: `^[A-Za-z0-9_.+:@-]+$`}
	globWord   = lazy.Regexp{Expr: `^[A-Za-z0-9_.+:@/=*-]+(\|[A-Za-z0-9_.+:@/=*-]+)*$`}
	flagGlob   = lazy.Regexp{Expr: `^(--?[A-Za-z0-9][A-Za-z0-9_.-]*\*?|-[A-Za-z0-9?])(\|(--?[A-Za-z0-9][A-Za-z0-9_.-]*\*?|-[A-Za-z0-9?]))*$`}
	httpMethod = lazy.Regexp{Expr: `^[A-Z]{3,10}$`}
	keyword    = lazy.Regexp{Expr: `^[a-z0-9_.:+@-]+$`}
)

// HTTPClients are the programs an HTTP rule without a program applies to.
var httpClients = []string{"curl", "curlie", "wget", "wget2", "http", "https", "xh", "xhs", "invoke-restmethod", "irm", "invoke-webrequest", "iwr"}

var fileKeys = []string{"family", "group", "summary", "decision", "programs", "rule"}

var ruleKeys = []string{"id", "program", "keywords", "subcommand", "notSubcommand", "flags", "allFlags",
	"notFlags", "values", "args", "notArgs", "lastArg", "minArgs", "text", "notText", "assigns", "input", "writes",
	"http", "skipLocal", "fallback", "decision", "reason", "instead", "match", "pass"}

// ruleParser collects the problems of one file.
type ruleParser struct {
	file string
	errs RuleErrors
}

func (p *ruleParser) fail(field, format string, args ...any) {
	p.errs = append(p.errs, &RuleError{File: p.file, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// unknown reports a key that is not one of known, suggesting the closest.
func (p *ruleParser) unknown(field, key string, known []string) {
	msg := fmt.Sprintf("unknown key %q (want one of %s)", key, strings.Join(known, ", "))
	if s := suggest.Closest(key, known); s != "" {
		msg = fmt.Sprintf("unknown key %q (did you mean %q?)", key, s)
	}
	p.fail(field, "%s", msg)
}

// ParseRules checks a decoded rule file and returns its family. doc holds
// plain decoded values: map[string]any tables, []any or []map[string]any
// arrays, strings, booleans, numbers (any Go number or json.Number). name
// names the file in errors. Every problem is reported as a [*RuleError] in
// a [RuleErrors], in document order (keys in sorted order within a table),
// with a suggestion for a misspelt key; the *RuleFile is nil then.
// ParseRules is safe for concurrent use.
func ParseRules(name string, doc map[string]any) (*RuleFile, error) {
	p := &ruleParser{file: name}
	f := &RuleFile{Path: name, programs: map[string]programSpec{}}
	decision := DecisionAsk
	for _, k := range sortedKeys(doc) {
		v := doc[k]
		switch k {
		case "family":
			f.Family = p.name(k, v, familyName.Get(), "a family name (lowercase letters, digits and -)")
		case "group":
			f.Group = p.name(k, v, familyName.Get(), "a group name (lowercase letters, digits and -)")
		case "summary":
			f.Summary = p.line(k, v, 200)
		case "decision":
			decision = p.decision(k, v)
		case "programs":
			p.programs(k, v, f)
		case "rule":
		default:
			p.unknown(k, k, fileKeys)
		}
	}
	if f.Family == "" && doc["family"] == nil {
		p.fail("family", "missing: every rule file names its family")
	}
	if f.Summary == "" && doc["summary"] == nil {
		p.fail("summary", "missing: one line that says what the family guards")
	}
	if f.Group == "" {
		f.Group = f.Family
	}
	rules, ok := tables(doc["rule"])
	switch {
	case doc["rule"] == nil:
		p.fail("rule", "missing: a rule file holds [[rule]] tables")
	case !ok:
		p.fail("rule", "want an array of tables ([[rule]]), got %s", kind(doc["rule"]))
	case len(rules) > MaxRules:
		p.fail("rule", "%d rules, more than the limit of %d", len(rules), MaxRules)
	default:
		seen := map[string]string{}
		for i, t := range rules {
			field := "rule[" + strconv.Itoa(i) + "]"
			r, ok := p.rule(field, t, f, decision)
			if r.ID != "" {
				if first, dup := seen[r.ID]; dup {
					p.fail(field+".id", "duplicate rule id %q (first at %s)", r.ID, first)
					continue
				}
				seen[r.ID] = field
			}
			if ok {
				f.Rules = append(f.Rules, r)
			}
		}
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return f, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// tables returns an array of tables as a list.
func tables(v any) ([]map[string]any, bool) {
	switch x := v.(type) {
	case []map[string]any:
		return x, true
	case []any:
		out := make([]map[string]any, 0, len(x))
		for _, e := range x {
			t, ok := e.(map[string]any)
			if !ok {
				return nil, false
			}
			out = append(out, t)
		}
		return out, true
	}
	return nil, false
}

func (p *ruleParser) str(field string, v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		p.fail(field, "want a string, got %s", kind(v))
	}
	return s, ok
}

func (p *ruleParser) name(field string, v any, rx *regexp.Regexp, what string) string {
	s, ok := p.str(field, v)
	if ok && !rx.MatchString(s) {
		p.fail(field, "%q is not %s", s, what)
		return ""
	}
	return s
}

// line checks a one-line text of at most max bytes.
func (p *ruleParser) line(field string, v any, max int) string {
	s, ok := p.str(field, v)
	switch {
	case !ok:
		return ""
	case strings.TrimSpace(s) == "":
		p.fail(field, "is empty")
	case strings.ContainsAny(s, "\r\n"):
		p.fail(field, "must be one line")
	case len(s) > max:
		p.fail(field, "is %d bytes long, more than %d: say it in one short sentence", len(s), max)
	}
	return strings.TrimSpace(s)
}

func (p *ruleParser) decision(field string, v any) string {
	s, ok := p.str(field, v)
	if ok && s != DecisionAsk && s != DecisionDeny {
		p.fail(field, "want %q or %q, got %q", DecisionAsk, DecisionDeny, s)
		return DecisionAsk
	}
	return s
}

// strs reads a string or a list of strings.
func (p *ruleParser) strs(field string, v any) ([]string, bool) {
	switch x := v.(type) {
	case string:
		return []string{x}, true
	case []string:
		return x, true
	case []any:
		out := make([]string, 0, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				p.fail(field+"["+strconv.Itoa(i)+"]", "want a string, got %s", kind(e))
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	p.fail(field, "want a string or a list of strings, got %s", kind(v))
	return nil, false
}

func (p *ruleParser) regex(field string, v any) string {
	s, ok := p.str(field, v)
	if !ok {
		return ""
	}
	if len(s) > 4096 {
		p.fail(field, "regular expression longer than 4096 bytes")
		return ""
	}
	if _, err := regexp.Compile(s); err != nil {
		p.fail(field, "invalid regular expression: %v", err)
		return ""
	}
	return s
}

func (p *ruleParser) programs(field string, v any, f *RuleFile) {
	t, ok := v.(map[string]any)
	if !ok {
		p.fail(field, "want a table of programs, got %s", kind(v))
		return
	}
	for _, name := range sortedKeys(t) {
		pf := fieldpath.Key(field, name)
		if !progWord.Get().MatchString(name) || strings.Contains(name, "/") {
			p.fail(pf, "%q is not a program name", name)
			continue
		}
		spec := programSpec{}
		pt, ok := t[name].(map[string]any)
		if !ok {
			p.fail(pf, "want a table, got %s", kind(t[name]))
			continue
		}
		for _, k := range sortedKeys(pt) {
			kf := fieldpath.Key(pf, k)
			switch k {
			case "singleDash":
				b, ok := pt[k].(bool)
				if !ok {
					p.fail(kf, "want true or false, got %s", kind(pt[k]))
				}
				spec.singleDash = b
			case "globalOptions":
				b, ok := pt[k].(bool)
				if !ok {
					p.fail(kf, "want true or false, got %s", kind(pt[k]))
				}
				spec.global = b
			case "values":
				list, ok := p.strs(kf, pt[k])
				if !ok {
					continue
				}
				for i, s := range list {
					if !strings.HasPrefix(s, "-") || strings.ContainsAny(s, " =*") {
						p.fail(kf+"["+strconv.Itoa(i)+"]", "%q is not an option (-x or --name)", s)
					}
				}
				spec.values = list
			case "manual":
				list, ok := p.strs(kf, pt[k])
				if !ok {
					continue
				}
				for i, s := range list {
					if !plainToken.Get().MatchString(s) || strings.HasPrefix(s, "-") {
						p.fail(kf+"["+strconv.Itoa(i)+"]", "%q is not a plain word (options such as --help are manuals already)", s)
					}
				}
				spec.manual = list
			default:
				p.unknown(kf, k, []string{"globalOptions", "manual", "singleDash", "values"})
			}
		}
		f.programs[strings.ToLower(name)] = spec
	}
}

func (p *ruleParser) rule(field string, t map[string]any, f *RuleFile, decision string) (Rule, bool) {
	n := len(p.errs)
	r := Rule{Field: field, Decision: decision}
	for _, k := range sortedKeys(t) {
		v := t[k]
		kf := field + "." + k
		switch k {
		case "id":
			if s := p.name(kf, v, ruleName.Get(), "a rule name (lowercase letters, digits and -)"); s != "" {
				r.ID = f.Family + ":" + s
			}
		case "program":
			list, ok := p.strs(kf, v)
			if ok && len(list) == 0 {
				p.fail(kf, "is empty")
			}
			for i, s := range list {
				if s == "*" {
					r.m.programs = append(r.m.programs, []string{"*"})
					r.Programs = append(r.Programs, "*")
					continue
				}
				words := strings.Fields(s)
				ok := len(words) > 0 && len(words) <= maxWords
				for _, w := range words {
					ok = ok && progWord.Get().MatchString(w)
				}
				if !ok {
					p.fail(kf+"["+strconv.Itoa(i)+"]", "%q is not a program name, optionally followed by fixed words (\"python manage.py\")", s)
					continue
				}
				words[0] = strings.ToLower(words[0])
				r.m.programs = append(r.m.programs, words)
				r.Programs = append(r.Programs, strings.Join(words, " "))
			}
		case "subcommand", "notSubcommand":
			list, ok := p.strs(kf, v)
			if ok && len(list) == 0 {
				p.fail(kf, "is empty")
			}
			for i, s := range list {
				path, ok := p.subcommand(kf+"["+strconv.Itoa(i)+"]", s)
				switch {
				case !ok:
				case k == "subcommand":
					r.m.subcommand = append(r.m.subcommand, path)
				default:
					r.m.notSub = append(r.m.notSub, path)
				}
			}
		case "keywords":
			list, ok := p.strs(kf, v)
			for i, s := range list {
				if !keyword.Get().MatchString(s) {
					p.fail(kf+"["+strconv.Itoa(i)+"]", "%q is not a keyword (lowercase letters, digits and _ . : + @ -)", s)
					ok = false
				}
			}
			if ok {
				r.m.keywords = list
			}
		case "flags", "allFlags", "notFlags":
			list, ok := p.strs(kf, v)
			if !ok {
				continue
			}
			for i, s := range list {
				if !flagGlob.Get().MatchString(s) {
					p.fail(kf+"["+strconv.Itoa(i)+"]", "%q is not an option (-x, --name or --prefix*; a|b for either)", s)
				}
			}
			switch k {
			case "flags":
				r.m.flags = list
			case "allFlags":
				r.m.allFlags = list
			default:
				r.m.notFlags = list
			}
		case "values":
			p.values(kf, v, &r)
		case "args", "notArgs", "lastArg", "text", "notText", "assigns", "input", "writes":
			*map[string]*string{"args": &r.m.args, "notArgs": &r.m.notArgs, "lastArg": &r.m.lastArg,
				"text": &r.m.text, "notText": &r.m.notText, "assigns": &r.m.assigns, "input": &r.m.input,
				"writes": &r.m.writes}[k] = p.regex(kf, v)
		case "minArgs":
			n, ok := integer(v)
			if !ok || n < 0 || n > 100 {
				p.fail(kf, "want an integer from 0 to 100, got %s", kind(v))
			}
			r.m.minArgs = n
		case "skipLocal", "fallback":
			b, ok := v.(bool)
			if !ok {
				p.fail(kf, "want true or false, got %s", kind(v))
			}
			if k == "skipLocal" {
				r.m.skipLocal = b
			} else {
				r.m.fallback = b
			}
		case "http":
			p.http(kf, v, &r)
		case "decision":
			r.Decision = p.decision(kf, v)
		case "reason":
			r.Reason = p.line(kf, v, maxReason)
		case "instead":
			r.Instead = p.line(kf, v, maxInstead)
		case "match", "pass":
			list, ok := p.strs(kf, v)
			if !ok {
				continue
			}
			if len(list) > maxCases {
				p.fail(kf, "%d cases, more than %d", len(list), maxCases)
			}
			for i, s := range list {
				if strings.TrimSpace(s) == "" {
					p.fail(kf+"["+strconv.Itoa(i)+"]", "is empty")
				}
			}
			if k == "match" {
				r.Match = list
			} else {
				r.Pass = list
			}
		default:
			p.unknown(kf, k, ruleKeys)
		}
	}
	for _, req := range []struct{ key, msg string }{
		{"id", "every rule has an id"},
		{"reason", "say in one sentence what the command destroys"},
		{"instead", "say in one sentence what to do instead"},
		{"match", "list commands the rule must catch"},
		{"pass", "list look-alikes the rule must leave alone (the same tool used read-only)"},
	} {
		if t[req.key] == nil {
			p.fail(field+"."+req.key, "missing: %s", req.msg)
		}
	}
	if slices.Contains(r.Programs, "*") && len(r.m.keywords) == 0 {
		p.fail(field+".keywords", "missing: a rule for every program (\"*\") names the keywords the prefilter looks for")
	}
	if t["program"] == nil {
		if r.m.http == nil {
			p.fail(field+".program", "missing: name the program (or give http for an HTTP call)")
		} else {
			for _, c := range httpClients {
				r.m.programs = append(r.m.programs, []string{c})
			}
			r.Programs = slices.Clone(httpClients)
		}
	}
	return r, len(p.errs) == n
}

func integer(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), x == int64(int(x))
	case float64:
		return int(x), x == math.Trunc(x) && math.Abs(x) < 1e9
	case json.Number:
		n, err := strconv.Atoi(string(x))
		return n, err == nil
	}
	return 0, false
}

// subcommand reads a path of word globs: "kv destroy", "delete-*",
// "rm|remove".
func (p *ruleParser) subcommand(field, s string) ([]wordPattern, bool) {
	words := strings.Fields(s)
	if len(words) == 0 || len(words) > maxWords {
		p.fail(field, "want 1 to %d words, got %q", maxWords, s)
		return nil, false
	}
	var out []wordPattern
	for _, w := range words {
		if !globWord.Get().MatchString(w) {
			p.fail(field, "%q is not a word pattern (letters, digits, . _ + : @ / = -, * for any text, | between alternatives)", w)
			return nil, false
		}
		var wp wordPattern
		for _, alt := range strings.Split(strings.ToLower(w), "|") {
			if !strings.Contains(alt, "*") {
				wp.exact = append(wp.exact, alt)
				continue
			}
			wp.pats = append(wp.pats, globToLua(alt))
		}
		out = append(out, wp)
	}
	return out, true
}

// globToLua turns a glob with * into an anchored Lua pattern.
func globToLua(g string) string {
	var b strings.Builder
	b.WriteByte('^')
	for _, c := range []byte(g) {
		switch {
		case c == '*':
			b.WriteString(".*")
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(c)
		}
	}
	b.WriteByte('$')
	return b.String()
}

func (p *ruleParser) values(field string, v any, r *Rule) {
	var list []map[string]any
	switch x := v.(type) {
	case map[string]any:
		list = []map[string]any{x}
	default:
		var ok bool
		if list, ok = tables(v); !ok {
			p.fail(field, "want a table { flags = [...], match = \"regex\" } or a list of them, got %s", kind(v))
			return
		}
	}
	for i, t := range list {
		tf := field
		if _, one := v.(map[string]any); !one {
			tf = field + "[" + strconv.Itoa(i) + "]"
		}
		var vp valuePredicate
		for _, k := range sortedKeys(t) {
			kf := tf + "." + k
			switch k {
			case "flags":
				flags, ok := p.strs(kf, t[k])
				for j, s := range flags {
					if !strings.HasPrefix(s, "-") || strings.ContainsAny(s, " =*") {
						p.fail(kf+"["+strconv.Itoa(j)+"]", "%q is not an option (-x or --name)", s)
						ok = false
					}
				}
				if ok {
					vp.flags = flags
				}
			case "match":
				vp.match = p.regex(kf, t[k])
			default:
				p.unknown(kf, k, []string{"flags", "match"})
			}
		}
		if len(vp.flags) == 0 || t["match"] == nil {
			p.fail(tf, "want both flags and match")
			continue
		}
		r.m.values = append(r.m.values, vp)
	}
}

func (p *ruleParser) http(field string, v any, r *Rule) {
	t, ok := v.(map[string]any)
	if !ok {
		p.fail(field, "want a table { method = \"DELETE\", url = \"regex\" }, got %s", kind(v))
		return
	}
	h := &httpPredicate{}
	for _, k := range sortedKeys(t) {
		kf := field + "." + k
		switch k {
		case "method":
			list, ok := p.strs(kf, t[k])
			for _, m := range list {
				if !httpMethod.Get().MatchString(m) {
					p.fail(kf, "%q is not an HTTP method in capitals (DELETE, PUT, POST, PATCH)", m)
					ok = false
				}
			}
			if ok {
				h.methods = list
			}
		case "url":
			h.url = p.regex(kf, t[k])
		default:
			p.unknown(kf, k, []string{"method", "url"})
		}
	}
	if len(h.methods) == 0 {
		p.fail(field+".method", "missing: the HTTP methods the rule catches")
	}
	r.m.http = h
}

// ruleFilesDir is where the embedded rule files live.
const ruleFilesDir = "rules"

// RuleSources returns the embedded rule files, the families of the pack
// ask-irreversible: a read-only file system with one TOML file per family,
// "<family>.toml", at its root. A host decodes them (the engine does, with
// positions) and checks them with [ParseRules].
func RuleSources() fs.FS {
	sub, err := fs.Sub(embedded, ruleFilesDir)
	if err != nil {
		panic(err) // a valid constant path
	}
	return sub
}

// ruleNames lists the names a pack parameter may use for files: "all",
// the groups, the families and the rule ids, sorted.
func ruleNames(files []*RuleFile) []string {
	seen := map[string]bool{"all": true}
	for _, f := range files {
		seen[f.Group] = true
		seen[f.Family] = true
		for _, r := range f.Rules {
			seen[r.ID] = true
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ruleParams are the parameters that name families, groups and rules.
var ruleParams = []string{"deny", "ask", "off"}

// ValidateRuleParams checks the parameters of a pack that evaluates rule
// files (ask-irreversible, or a user's rule file) against those files: the
// parameters of [ValidateParams] for the pack named pack, and every name
// that deny, ask or off lists must be "all", a group, a family or a rule
// id of files, else a *[ParamError] that suggests the closest name. A name
// may appear in one of the three lists only. Problems are joined like
// ValidateParams'.
func ValidateRuleParams(pack string, files []*RuleFile, with map[string]any) error {
	if err := ValidateParams(ruleEvaluator, with); err != nil {
		return retag(err, pack)
	}
	names := ruleNames(files)
	user := pack != ruleEvaluator
	var errs []error
	where := map[string]string{}
	for _, param := range ruleParams {
		list, _ := stringList(with[param])
		for i, n := range list {
			if _, ok := slices.BinarySearch(names, n); !ok {
				msg := fmt.Sprintf("item %d: unknown family, group or rule %q", i+1, n)
				if s := suggest.Closest(n, names); s != "" {
					msg += fmt.Sprintf("; did you mean %s?", s)
				}
				errs = append(errs, &ParamError{Pack: pack, Param: param, Msg: msg, ruleFile: user})
				continue
			}
			if other, dup := where[n]; dup && other != param {
				errs = append(errs, &ParamError{Pack: pack, Param: param, Msg: fmt.Sprintf("item %d: %q is in %s too: name it in one list", i+1, n, other), ruleFile: user})
			}
			where[n] = param
		}
	}
	if len(errs) == 1 {
		return errs[0]
	}
	if len(errs) == 0 {
		return nil
	}
	return errors.Join(errs...)
}

// ruleEvaluator is the pack whose parameters every rule file takes.
const ruleEvaluator = "ask-irreversible"

// retag renames the pack of the ParamErrors of err (a user's rule file
// takes the parameters of ruleEvaluator under its own name).
func retag(err error, pack string) error {
	if pack == ruleEvaluator {
		return err
	}
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	for _, e := range list {
		if pe, ok := e.(*ParamError); ok {
			pe.Pack, pe.ruleFile = pack, true
		}
	}
	return err
}
