package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/monad-hooks/monad-hooks/engine/internal/config"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"

	"github.com/monad-hooks/monad-hooks/internal/lazy"
)

// Rule files (see stdlib/rules/README.md): guards written as data. The
// engine decodes them, with the position of every key, and hands them to
// package stdlib, which checks them and renders them for the Lua evaluator
// (monad.rules). The stdlib's own families are the embedded files of
// stdlib.RuleSources, evaluated by the pack ask-irreversible; a user's rule
// file is an atoms path (or a Files.Lua path) that ends in ".toml".

// isRuleFile reports whether an atom path names a rule file.
func isRuleFile(path string) bool {
	return strings.EqualFold(filepath.Ext(path), ".toml")
}

// parseRuleFile decodes and checks a rule file: every problem is a
// ConfigError at the line and column of the key it concerns.
func parseRuleFile(path string, data []byte) (*stdlib.RuleFile, ConfigErrors) {
	doc, err := config.ParseDocument(path, data)
	if err != nil {
		var ce ConfigErrors
		if errors.As(err, &ce) {
			return nil, ce
		}
		return nil, ConfigErrors{{Code: CodeBadRules, File: path, Msg: err.Error()}}
	}
	f, err := stdlib.ParseRules(path, doc.Values)
	if err == nil {
		// a user's file becomes one script (RulesScript), whose source is
		// bounded like any script's
		if n := len(stdlib.RulesScript(f)); n > luaapi.MaxScriptSize {
			return nil, ConfigErrors{{Code: CodeBadRules, File: path, Msg: fmt.Sprintf("its %d rules make a script of %d bytes, more than the limit of %d: split the file", len(f.Rules), n, luaapi.MaxScriptSize)}}
		}
		return f, nil
	}
	var list stdlib.RuleErrors
	if !errors.As(err, &list) {
		return nil, ConfigErrors{{Code: CodeBadRules, File: path, Msg: err.Error()}}
	}
	out := make(ConfigErrors, 0, len(list))
	for _, e := range list {
		msg := e.Msg
		if e.Field != "" {
			msg = e.Field + ": " + msg
		}
		pos := doc.At(e.Field)
		out = append(out, &ConfigError{Code: CodeBadRules, File: pos.File, Line: pos.Line, Col: pos.Col, Field: e.Field, Msg: msg})
	}
	return nil, out
}

// stdlibRules decodes and checks the embedded rule files once per process.
// They are embedded and a test decodes them all, so an error here is a
// build defect; it is reported, never hidden.
var stdlibRules = lazy.Values[[]*stdlib.RuleFile]{F: func() ([]*stdlib.RuleFile, error) {
	src := stdlib.RuleSources()
	entries, err := fs.ReadDir(src, ".")
	if err != nil {
		return nil, err
	}
	var out []*stdlib.RuleFile
	for _, e := range entries { // fs.ReadDir sorts by name
		if e.IsDir() || !isRuleFile(e.Name()) {
			continue
		}
		data, err := fs.ReadFile(src, e.Name())
		if err != nil {
			return nil, err
		}
		f, errs := parseRuleFile(e.Name(), data)
		if errs != nil {
			return nil, fmt.Errorf("stdlib rule file %w", errs)
		}
		out = append(out, f)
	}
	return out, nil
}}

// stdlibRuleFiles returns the embedded rule files (nil if they do not
// decode: a broken build, reported where they are loaded).
func stdlibRuleFiles() []*stdlib.RuleFile {
	files, _ := stdlibRules.Get()
	return files
}

// StdlibRules returns the families of the stdlib pack ask-irreversible, one
// per embedded rule file, in family order: decoded and checked once per
// process. The files are shared: the caller must not modify them. It is
// safe for concurrent use; an error means a broken build.
func StdlibRules() ([]*stdlib.RuleFile, error) {
	return stdlibRules.Get()
}

// LoadRuleFile reads, decodes and checks a user's rule file through fsys
// (nil: the operating system's). It returns the file, or ConfigErrors that
// place every problem at its line and column: what `monad-hooks test` and
// `check` report. It is safe for concurrent use.
func LoadRuleFile(fsys FileSystem, path string) (*stdlib.RuleFile, error) {
	if fsys == nil {
		fsys = osFS{}
	}
	fi, err := fsys.Stat(path)
	if err != nil {
		return nil, ConfigErrors{{Code: CodeRead, File: path, Msg: err.Error()}}
	}
	if fi.Size() > maxFileSize {
		return nil, ConfigErrors{{Code: CodeTooLarge, File: path, Msg: fmt.Sprintf("file is %d bytes, larger than the limit of %d", fi.Size(), maxFileSize)}}
	}
	data, err := fsys.ReadFile(path)
	if err != nil {
		return nil, ConfigErrors{{Code: CodeRead, File: path, Msg: err.Error()}}
	}
	f, errs := parseRuleFile(path, data)
	if errs != nil {
		return nil, errs
	}
	return f, nil
}

// readRuleFile reads a user's rule file (an atom path ending in .toml),
// recording its stamp, and returns the script that evaluates it, after
// checking the parameters of its atoms entry against its rules. Its error
// is a transientError, ConfigErrors or a *ConfigError.
func (s *fileSource) readRuleFile(v *fileVersion, a luaAtom) ([]luaScript, error) {
	data, err := s.read(v, a.path)
	var te *transientError
	if errors.As(err, &te) {
		return nil, te
	}
	if err != nil {
		return nil, readError(a.path, err)
	}
	f, errs := parseRuleFile(a.path, data)
	if errs != nil {
		return nil, errs
	}
	files := []*stdlib.RuleFile{f}
	if err := stdlib.ValidateRuleParams(f.Family, files, a.with); err != nil {
		return nil, paramErrors(err, a.pos, a.withPos)
	}
	return []luaScript{{name: a.path, shown: shownPath(a.path, a.pos, s.f.Root), src: stdlib.RulesScript(f), params: a.with, pos: a.pos, rules: func() []*stdlib.RuleFile { return files }}}, nil
}

// ruleID returns the rule id a reason names, or "": the stdlib's reasons
// start "<pack> [<rule>]: ..." where rule is "<family>:<name>" (the rule
// files) or a bare name (the packs written in Lua, whose id is then
// "<pack>:<name>").
func ruleID(reason string) string {
	sp := strings.IndexByte(reason, ' ')
	if sp <= 0 || sp+1 >= len(reason) || reason[sp+1] != '[' {
		return ""
	}
	end := strings.IndexByte(reason[sp+2:], ']')
	if end <= 0 {
		return ""
	}
	pack, id := reason[:sp], reason[sp+2:sp+2+end]
	if !ruleName(pack) {
		return ""
	}
	fam, name, ok := strings.Cut(id, ":")
	if !ok {
		if !ruleName(id) {
			return ""
		}
		return pack + ":" + id
	}
	if !ruleName(fam) || !ruleName(name) {
		return ""
	}
	return id
}

// ruleName reports whether s is a rule or pack name: [a-z0-9][a-z0-9.-]*.
func ruleName(s string) bool {
	if s == "" || len(s) > 80 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || i > 0 && (c == '-' || c == '.' || c == '_')) {
			return false
		}
	}
	return true
}

// A RuleMatch is the decision of a hook that evaluates rule files, and the
// rule that decided.
type RuleMatch struct {
	// Hook is the hook's identity ("lua:stdlib/ask-irreversible:...").
	Hook string `json:"hook"`
	// Decision and Reason are what the hook returned.
	Decision events.Decision `json:"decision"`
	Reason   string          `json:"reason"`
	// File is the rule file of the rule, and Rule the rule with its cases;
	// both are empty when the hook decided without one (a bound it hit).
	File string       `json:"file,omitempty"`
	Rule *stdlib.Rule `json:"rule,omitempty"`
}

// ExplainRules runs, for in, the hooks of the current plan that evaluate
// rule files (the Lua hooks of ask-irreversible and of users' rule files,
// which run sandboxed and change nothing; never a command hook or a Go
// hook), each on the input as given, and returns the ones that decided,
// in plan order, with the rule each one names. A hook that fails is left
// out. It reloads first if the configuration changed.
func (e *Engine) ExplainRules(ctx context.Context, in events.Input) []RuleMatch {
	e.sync(ctx)
	g := e.gen.Load()
	if !in.Event.Valid() {
		return nil
	}
	spec := in.Event.Spec()
	var out []RuleMatch
	for _, h := range g.byEvent[in.Event] {
		if h.rules == nil || !h.matches(spec, in.ToolName) {
			continue
		}
		c := &call{in: in}
		c.tools, c.in.Tool, c.links = g.tools, nil, e.links // the engine's view, as Dispatch gives it
		c.setView()
		var rec Record
		res := e.runHook(ctx, h, c, &rec)
		if rec.Outcome != OutcomeOK || res.Decision == "" {
			continue
		}
		m := RuleMatch{Hook: h.id, Decision: res.Decision, Reason: res.Reason}
		if id := ruleID(res.Reason); id != "" {
			for _, f := range h.rules() {
				for i := range f.Rules {
					if f.Rules[i].ID == id {
						r := f.Rules[i]
						m.File, m.Rule = f.Path, &r
						break
					}
				}
				if m.Rule != nil {
					break
				}
			}
		}
		out = append(out, m)
	}
	return out
}
