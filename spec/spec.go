package spec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/internal/docpos"
	"github.com/monad-hooks/monad-hooks/internal/fieldpath"
	"github.com/monad-hooks/monad-hooks/internal/suggest"
	"github.com/monad-hooks/monad-hooks/tools"

	"github.com/monad-hooks/monad-hooks/internal/lazy"
)

// File is one spec file: a list of cases, usually about one rule.
type File struct {
	// Path is where the file was loaded from (set by the loader).
	Path string `toml:"-"`
	// Seed quotes the sentence of the lifecycle-hooks contract the file
	// proves, when one sentence covers all its cases.
	Seed        string `toml:"seed"`
	Description string `toml:"description"`
	Cases       []Case `toml:"case"`
}

// Case is one spec case: the hooks to configure, then one or more dispatches
// and what each must return.
type Case struct {
	Name string `toml:"name"`
	// Seed quotes the sentence of the contract this case proves.
	Seed string `toml:"seed"`
	// Skip, when set, says why the case is not run.
	Skip string `toml:"skip"`

	// Hooks are configured in this order; their tier decides where they
	// run. Without hooks (and files) the runner's base configuration is
	// used: that is how `monad-hooks test` runs users' cases against
	// their own configuration.
	Hooks []HookDef `toml:"hook"`
	// Files are written into the case's sandbox root (relative paths)
	// before the engine is built; a file ending in .sh is executable.
	Files map[string]string `toml:"files"`
	// Config and Policy name user and policy configuration files (relative
	// to the root), in addition to those generated from Hooks.
	Config []string `toml:"config"`
	Policy []string `toml:"policy"`
	// Lua names Lua scripts or folders (relative to the root).
	Lua []string `toml:"lua"`
	// Stdlib names embedded stdlib packs to load (none when empty); Packs
	// loads packs with parameters.
	Stdlib []string  `toml:"stdlib"`
	Packs  []PackDef `toml:"pack"`

	Options Options `toml:"options"`

	// LoadError, when set, lists the configuration error codes the engine
	// must refuse to start with (in any order); no dispatch runs.
	LoadError []string `toml:"loadError"`

	// A single dispatch can be written inline (Event, Input, Want); several
	// as Steps, which share the engine and its session state.
	Event     string         `toml:"event"`
	Input     map[string]any `toml:"input"`
	InputJSON string         `toml:"inputJSON"`
	Want      *Want          `toml:"want"`
	Steps     []Step         `toml:"step"`
}

// PackDef loads an embedded stdlib pack with parameters.
type PackDef struct {
	Name string         `toml:"name"`
	With map[string]any `toml:"with"`
}

// Options are the engine options a case sets.
type Options struct {
	MaxStopContinues *int     `toml:"maxStopContinues"`
	Vouch            []string `toml:"vouch"`
	MaxParallel      int      `toml:"maxParallel"`
	// Env is the environment command hooks start from (before
	// sanitization); nil means a small fixed environment.
	Env map[string]string `toml:"env"`
	// Tools declares tools (engine.WithTools): name, kind, command, paths,
	// contents, urls.
	Tools []tools.Spec `toml:"tools"`
	// UnguardedTools is the decision for a tool no table knows
	// (engine.WithUnguardedTools): "", "ask" or "deny".
	UnguardedTools string `toml:"unguardedTools"`
}

// HookDef configures one hook of a case.
type HookDef struct {
	// Tier is "atom" (the default for go and lua hooks), "policy" or "user"
	// (the default for command hooks).
	Tier string `toml:"tier"`
	// Event defaults to the case's event (or its first step's).
	Event     string `toml:"event"`
	Matcher   string `toml:"matcher"`
	OnError   string `toml:"onError"`
	TimeoutMs int    `toml:"timeoutMs"`
	// Kind restricts a Go or command hook to tools of these kinds
	// (GoHook.Kinds, a group's "kind"); Lua hooks say it in hook{}.
	Kind []string `toml:"kind"`

	// Exactly one of the following says what the hook is.

	// Go names a Go test handler (see [Handlers]), configured by Args.
	Go   string         `toml:"go"`
	Args map[string]any `toml:"args"`
	// Lua is an inline atom-pack script; its hook{} calls register the
	// hooks (Event, Matcher, OnError and TimeoutMs do not apply).
	Lua string `toml:"lua"`
	// Command is a shell command hook line.
	Command string `toml:"command"`
	// Persistent runs Command as a resident hook ("persistent": true).
	Persistent bool `toml:"persistent"`
}

// Step is one dispatch of a case.
type Step struct {
	Name string `toml:"name"`
	// Write and Remove change files in the root before the dispatch (hot
	// reload).
	Write  map[string]string `toml:"write"`
	Remove []string          `toml:"remove"`

	Event     string         `toml:"event"`
	Input     map[string]any `toml:"input"`
	InputJSON string         `toml:"inputJSON"`
	Want      Want           `toml:"want"`
}

// Want is what a dispatch must return. Unset fields are not checked; a field
// set to its empty value ("" or an empty list) must be absent from the
// Result.
type Want struct {
	// Error, when set, is a substring of the dispatch error that must occur.
	Error string `toml:"error"`

	Decision          *string `toml:"decision"`
	Reason            *string `toml:"reason"`
	ReasonContains    string  `toml:"reasonContains"`
	AdditionalContext *string `toml:"additionalContext"`
	ContextContains   string  `toml:"contextContains"`
	MutatedPrompt     *string `toml:"mutatedPrompt"`
	ModelOverride     *string `toml:"modelOverride"`
	MutatedToolInput  any     `toml:"mutatedToolInput"`
	UpdatedToolOutput any     `toml:"updatedToolOutput"`
	MutatedRequest    any     `toml:"mutatedRequest"`
	MutatedText       *string `toml:"mutatedText"`
	// ContinueWork is the reason of the expected continueWork; "" means
	// none.
	ContinueWork *string `toml:"continueWork"`
	// ConfigError is a substring of Result.ConfigError; "" means none.
	ConfigError *string `toml:"configError"`
	// Absent lists Result fields (JSON names) that must not be set.
	Absent []string `toml:"absent"`
	// JSON maps Result fields (JSON names) to the JSON text they must equal,
	// for what TOML cannot say (null).
	JSON map[string]string `toml:"json"`

	// Audit, when set, must match the audit record by record (same
	// length); each record checks only the fields it sets.
	Audit []WantRecord `toml:"audit"`
	// WithinMs bounds how long the dispatch may take, in wall time. Use it
	// as a hang guard, far above what the dispatch needs (a loaded machine
	// is slow), against a hook that would run far longer still: returning
	// within it proves that the timeout, not the hook, ended the call.
	WithinMs int `toml:"withinMs"`
}

// WantRecord is the expected audit record of one executed hook.
type WantRecord struct {
	Tier         string   `toml:"tier"`
	Kind         string   `toml:"kind"`
	Hook         string   `toml:"hook"`
	HookContains string   `toml:"hookContains"`
	Rule         *string  `toml:"rule"`
	Outcome      string   `toml:"outcome"`
	Decision     *string  `toml:"decision"`
	FailedClosed *bool    `toml:"failedClosed"`
	Capped       *bool    `toml:"capped"`
	Unvouched    *bool    `toml:"unvouched"`
	Ignored      []string `toml:"ignored"`
	Fields       []string `toml:"fields"`
	// Truncated are the fields the engine cut to their bounds
	// (Record.Truncated); [] means none.
	Truncated     []string `toml:"truncated"`
	ErrorContains string   `toml:"errorContains"`
	// RegisteredBy must occur in the record's RegisteredBy (paths there
	// are absolute: give the end, "agents.json:1:11").
	RegisteredBy string `toml:"registeredBy"`
	ToolCallID   string `toml:"toolCallId"`
}

// Decode parses one spec file strictly: an unknown or misspelt key is an
// error naming it, at its file:line:col, with a did-you-mean; so is a case
// without a name, and a TOML syntax error.
func Decode(name string, data []byte) (*File, error) {
	var f File
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d:%d: %s", name, pe.Position.Line, pe.Position.Col, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	lines := docpos.NewLines(data)
	locs, _ := docpos.Locate(data, lines)
	if errs := unknownKeys(name, md, locs); errs != nil {
		return nil, errs
	}
	f.Path = name
	for i := range f.Cases {
		if f.Cases[i].Name == "" {
			at := name
			if l := locs[fieldpath.Index("case", i)]; l != nil {
				at = fmt.Sprintf("%s:%d:%d", name, l.ValLine, l.ValCol)
			}
			return nil, fmt.Errorf("%s: case #%d has no name", at, i+1)
		}
	}
	return &f, nil
}

// unknownKeys returns an error listing the keys of a spec file that no field
// decodes (outside free-form values), each at its position with a
// did-you-mean, in document order; nil when there are none.
func unknownKeys(name string, md toml.MetaData, locs map[string]*docpos.Loc) error {
	unknown := map[string][]string{} // key path without indexes -> its segments
	for _, k := range md.Undecoded() {
		if underFreeForm(k) {
			continue
		}
		p := ""
		for _, seg := range k {
			p = fieldpath.Key(p, seg)
		}
		unknown[p] = k
	}
	if len(unknown) == 0 {
		return nil
	}
	type problem struct {
		line, col int
		msg       string
	}
	var ps []problem
	placed := map[string]bool{}
	for path, l := range locs {
		p := arrayIndex.Get().ReplaceAllString(path, "")
		if k, ok := unknown[p]; ok && l.KeyLine > 0 {
			placed[p] = true
			ps = append(ps, problem{l.KeyLine, l.KeyCol, keyProblem(k)})
		}
	}
	for p, k := range unknown {
		if !placed[p] { // the locator could not place it
			ps = append(ps, problem{0, 0, keyProblem(k)})
		}
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].line != ps[j].line {
			return ps[i].line < ps[j].line
		}
		return ps[i].col < ps[j].col
	})
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString("\n")
		}
		if p.line > 0 {
			fmt.Fprintf(&b, "%s:%d:%d: %s", name, p.line, p.col, p.msg)
		} else {
			fmt.Fprintf(&b, "%s: %s", name, p.msg)
		}
	}
	return errors.New(b.String())
}

// arrayIndex matches the array indexes of a field path ("case[2]"). It is
// compiled on first use: package initialisation is part of every start of
// the CLI (BenchmarkCLIRunNoStdlib).
var arrayIndex = lazy.Regexp{Expr: `\[[0-9]+\]`}

// keyProblem says that the key k is unknown where it is, and what it was
// probably meant to be.
func keyProblem(k toml.Key) string {
	key, parent := k[len(k)-1], k[:len(k)-1]
	where := "at the top level"
	if len(parent) > 0 {
		where = "in [" + parent.String() + "]"
	}
	known := specKeys(parent)
	hint := suggest.DidYouMean(key, known, nil)
	if hint == "" && len(known) > 0 {
		hint = suggest.Hint(key, known, nil)
	}
	return fmt.Sprintf("unknown key %q %s%s", key, where, hint)
}

// specKeys lists the keys the spec format defines under the table at path
// (the toml tags of the struct that decodes it), nil when it is not a
// table of the format.
func specKeys(path []string) []string {
	t := reflect.TypeOf(File{})
	for _, seg := range path {
		t = tableType(t)
		if t == nil {
			return nil
		}
		var next reflect.Type
		for i := range t.NumField() {
			if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); tag == seg {
				next = t.Field(i).Type
			}
		}
		if next == nil {
			return nil
		}
		t = next
	}
	if t = tableType(t); t == nil {
		return nil
	}
	var keys []string
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); tag != "" && tag != "-" {
			keys = append(keys, tag)
		}
	}
	return keys
}

// tableType returns the struct type a value of type t decodes a table into
// (through pointers and slices), or nil.
func tableType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

// underFreeForm reports whether an undecoded key lies inside a free-form value
// (input, args, files, expected payloads), where any key is allowed.
func underFreeForm(k toml.Key) bool {
	for _, p := range k {
		switch p {
		case "input", "args", "files", "write", "env", "with", "json", "mutatedToolInput", "updatedToolOutput", "mutatedRequest":
			return true
		}
	}
	return false
}

// Load reads every *.toml file under root in fsys, in lexical order.
func Load(fsys fs.FS, root string) ([]*File, error) {
	var files []*File
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || path.Ext(p) != ".toml" {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		f, err := Decode(p, data)
		if err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, err
}

// steps returns the dispatches of a case, the inline one first.
func (c *Case) steps() []Step {
	var out []Step
	if c.Want != nil || c.Event != "" || c.Input != nil || c.InputJSON != "" {
		s := Step{Event: c.Event, Input: c.Input, InputJSON: c.InputJSON}
		if c.Want != nil {
			s.Want = *c.Want
		}
		out = append(out, s)
	}
	return append(out, c.Steps...)
}

// defaultEvent is the event hooks of the case default to.
func (c *Case) defaultEvent() string {
	for _, s := range c.steps() {
		if s.Event != "" {
			return s.Event
		}
		if e, ok := s.Input["event"].(string); ok {
			return e
		}
	}
	return ""
}

// decodeInput builds the HookInput of a step.
func (s *Step) decodeInput() (events.Input, error) {
	var raw []byte
	if s.InputJSON != "" {
		raw = []byte(s.InputJSON)
	} else {
		m := map[string]any{}
		for k, v := range s.Input {
			m[k] = v
		}
		var err error
		if raw, err = json.Marshal(m); err != nil {
			return events.Input{}, err
		}
	}
	if s.Event != "" {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return events.Input{}, err
		}
		if _, ok := m["event"]; !ok {
			m["event"], _ = json.Marshal(s.Event)
			raw, _ = json.Marshal(m)
		}
	}
	return events.DecodeInput(raw)
}

// Mismatch is one way a dispatch differed from what the case wants.
type Mismatch struct {
	Step int
	// StepName is the step's name, when it has one.
	StepName string
	Field    string
	Want     string
	Got      string
}

func (m Mismatch) String() string {
	if m.StepName != "" {
		return fmt.Sprintf("step %d (%s): %s: want %s, got %s", m.Step+1, m.StepName, m.Field, m.Want, m.Got)
	}
	return fmt.Sprintf("step %d: %s: want %s, got %s", m.Step+1, m.Field, m.Want, m.Got)
}

// check compares a dispatch's outcome with what the step wants.
func check(step int, w *Want, res engine.Result, err error, elapsed time.Duration) []Mismatch {
	var ms []Mismatch
	add := func(field, want, got string) {
		ms = append(ms, Mismatch{Step: step, Field: field, Want: want, Got: got})
	}
	if w.Error != "" || err != nil {
		switch {
		case err == nil:
			add("error", fmt.Sprintf("an error containing %q", w.Error), "no error")
		case w.Error == "":
			add("error", "no error", err.Error())
		case !strings.Contains(err.Error(), w.Error):
			add("error", fmt.Sprintf("an error containing %q", w.Error), err.Error())
		}
		return ms
	}
	str := func(field string, want *string, got string) {
		if want != nil && *want != got {
			add(field, fmt.Sprintf("%q", *want), fmt.Sprintf("%q", got))
		}
	}
	if w.Decision != nil && *w.Decision != string(res.Decision) {
		// A person reads the absent decision as proceed, not "".
		add("decision", events.Decision(*w.Decision).String(), res.Decision.String())
	}
	str("reason", w.Reason, res.Reason)
	if w.ReasonContains != "" && !strings.Contains(res.Reason, w.ReasonContains) {
		add("reason", fmt.Sprintf("containing %q", w.ReasonContains), fmt.Sprintf("%q", res.Reason))
	}
	str("additionalContext", w.AdditionalContext, res.AdditionalContext)
	if w.ContextContains != "" && !strings.Contains(res.AdditionalContext, w.ContextContains) {
		add("additionalContext", fmt.Sprintf("containing %q", w.ContextContains), fmt.Sprintf("%q", res.AdditionalContext))
	}
	str("mutatedPrompt", w.MutatedPrompt, deref(res.MutatedPrompt))
	str("modelOverride", w.ModelOverride, res.ModelOverride)
	str("mutatedText", w.MutatedText, deref(res.MutatedText))
	cw := ""
	if res.ContinueWork != nil {
		cw = res.ContinueWork.Reason
		if cw == "" {
			cw = "(empty reason)"
		}
	}
	str("continueWork", w.ContinueWork, cw)
	if w.ConfigError != nil {
		if *w.ConfigError == "" && res.ConfigError != "" {
			add("configError", "none", fmt.Sprintf("%q", res.ConfigError))
		} else if *w.ConfigError != "" && !strings.Contains(res.ConfigError, *w.ConfigError) {
			add("configError", fmt.Sprintf("containing %q", *w.ConfigError), fmt.Sprintf("%q", res.ConfigError))
		}
	}
	for _, p := range []struct {
		name      string
		want, got any
	}{{"mutatedToolInput", w.MutatedToolInput, res.MutatedToolInput}, {"updatedToolOutput", w.UpdatedToolOutput, res.UpdatedToolOutput}, {"mutatedRequest", w.MutatedRequest, res.MutatedRequest}} {
		if p.want != nil && !jsonEqual(p.want, p.got) {
			add(p.name, jsonString(p.want), jsonString(p.got))
		}
	}
	if len(w.Absent) > 0 || len(w.JSON) > 0 {
		var m map[string]any
		b, _ := json.Marshal(res)
		_ = json.Unmarshal(b, &m)
		for _, f := range w.Absent {
			if v, ok := m[f]; ok {
				add(f, "absent", jsonString(v))
			}
		}
		for _, f := range slices.Sorted(maps.Keys(w.JSON)) {
			var want any
			if err := json.Unmarshal([]byte(w.JSON[f]), &want); err != nil {
				add(f, "valid JSON in want.json", err.Error())
				continue
			}
			if got, ok := m[f]; !ok || !jsonEqual(want, got) {
				add(f, jsonString(want), jsonString(m[f]))
			}
		}
	}
	if w.Audit != nil {
		ms = append(ms, checkAudit(step, w.Audit, res.Audit)...)
	}
	if w.WithinMs > 0 && elapsed > time.Duration(w.WithinMs)*time.Millisecond {
		add("elapsed", fmt.Sprintf("at most %dms", w.WithinMs), elapsed.Round(time.Millisecond).String())
	}
	return ms
}

func checkAudit(step int, want []WantRecord, got []engine.Record) []Mismatch {
	var ms []Mismatch
	add := func(field, w, g string) { ms = append(ms, Mismatch{Step: step, Field: field, Want: w, Got: g}) }
	if len(want) != len(got) {
		var hooks []string
		for _, r := range got {
			hooks = append(hooks, fmt.Sprintf("%s:%s:%s", r.Tier, r.Hook, r.Outcome))
		}
		add("audit", fmt.Sprintf("%d records", len(want)), fmt.Sprintf("%d records %v", len(got), hooks))
		return ms
	}
	for i, w := range want {
		g := got[i]
		f := func(name string) string { return fmt.Sprintf("audit[%d].%s", i, name) }
		cmp := func(name, want, got string) {
			if want != "" && want != got {
				add(f(name), fmt.Sprintf("%q", want), fmt.Sprintf("%q", got))
			}
		}
		cmp("tier", w.Tier, g.Tier.String())
		cmp("kind", w.Kind, g.Kind)
		cmp("hook", w.Hook, g.Hook)
		cmp("outcome", w.Outcome, string(g.Outcome))
		cmp("toolCallId", w.ToolCallID, g.ToolCallID)
		if w.HookContains != "" && !strings.Contains(g.Hook, w.HookContains) {
			add(f("hook"), fmt.Sprintf("containing %q", w.HookContains), fmt.Sprintf("%q", g.Hook))
		}
		if w.Decision != nil && *w.Decision != string(g.Decision) {
			add(f("decision"), events.Decision(*w.Decision).String(), g.Decision.String())
		}
		if w.Rule != nil && *w.Rule != g.Rule {
			add(f("rule"), fmt.Sprintf("%q", *w.Rule), fmt.Sprintf("%q", g.Rule))
		}
		for _, b := range []struct {
			name string
			want *bool
			got  bool
		}{{"failedClosed", w.FailedClosed, g.FailedClosed}, {"capped", w.Capped, g.Capped}, {"unvouched", w.Unvouched, g.Unvouched}} {
			if b.want != nil && *b.want != b.got {
				add(f(b.name), fmt.Sprint(*b.want), fmt.Sprint(b.got))
			}
		}
		if w.Ignored != nil && !sameSet(w.Ignored, g.Ignored) {
			add(f("ignored"), fmt.Sprint(w.Ignored), fmt.Sprint(g.Ignored))
		}
		if w.Fields != nil && !sameSet(w.Fields, g.Fields) {
			add(f("fields"), fmt.Sprint(w.Fields), fmt.Sprint(g.Fields))
		}
		if w.Truncated != nil && !sameSet(w.Truncated, g.Truncated) {
			add(f("truncated"), fmt.Sprint(w.Truncated), fmt.Sprint(g.Truncated))
		}
		if w.ErrorContains != "" && !strings.Contains(g.Error, w.ErrorContains) {
			add(f("error"), fmt.Sprintf("containing %q", w.ErrorContains), fmt.Sprintf("%q", g.Error))
		}
		if w.RegisteredBy != "" && !strings.Contains(g.RegisteredBy, w.RegisteredBy) {
			add(f("registeredBy"), fmt.Sprintf("containing %q", w.RegisteredBy), fmt.Sprintf("%q", g.RegisteredBy))
		}
	}
	return ms
}

func sameSet(a, b []string) bool {
	x, y := append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(x)
	sort.Strings(y)
	return len(x) == len(y) && (len(x) == 0 || reflect.DeepEqual(x, y))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// jsonEqual compares two free-form values as JSON documents.
func jsonEqual(a, b any) bool {
	return bytes.Equal(canonical(a), canonical(b))
}

func canonical(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprintf("!%v", err))
	}
	var x any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		return b
	}
	out, _ := json.Marshal(normalizeNumbers(x))
	return out
}

func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	}
	return v
}

func jsonString(v any) string {
	if v == nil {
		return "absent"
	}
	return string(canonical(v))
}

// errCaseSetup marks a problem with the case itself rather than a mismatch.
var errCaseSetup = errors.New("case setup")

var _ = context.Background
