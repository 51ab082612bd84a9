package engine

import (
	"fmt"
	"strings"

	"github.com/monad-hooks/monad-hooks/events"
)

// Stable configuration error codes of the engine itself. Errors from
// configuration files carry the codes of package config.
const (
	CodeUnknownEvent   = "unknown_event"
	CodeMissingHandler = "missing_handler"
	CodeBadMatcher     = "bad_matcher"
	CodeBadAtom        = "bad_atom"
	CodeLuaLoad        = "lua_load"
	CodeRead           = "read_error"
)

// ConfigError is one problem in a configuration. Code is stable and machine
// readable; Source says where (file:line:col when known).
type ConfigError struct {
	Code   string
	Source string
	Msg    string
}

func (e *ConfigError) Error() string {
	if e.Source == "" {
		return e.Code + ": " + e.Msg
	}
	return e.Source + ": " + e.Code + ": " + e.Msg
}

// ConfigErrors lists every problem found in a configuration, in the order
// found. It is returned by [New] and [Engine.Reload] as an error.
type ConfigErrors []*ConfigError

func (es ConfigErrors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// compile orders the hooks by tier (stable within a tier), drops command hooks
// whose identity already runs at the event (the first occurrence keeps its
// place), compiles matchers, and indexes the result by event.
func compile(specs []hookSpec) (*generation, ConfigErrors) {
	g := &generation{}
	var errs ConfigErrors
	type key struct {
		ev    events.Event
		dedup string
	}
	seen := map[key]bool{}
	for _, tier := range []Tier{TierAtom, TierPolicy, TierUser} {
		for i := range specs {
			s := &specs[i]
			if s.tier != tier {
				continue
			}
			if !s.event.Valid() {
				errs = append(errs, &ConfigError{Code: CodeUnknownEvent, Source: s.source, Msg: fmt.Sprintf("hook %s: invalid event %v", s.id, s.event)})
				continue
			}
			re, err := compileMatcher(s.matcher)
			if err != nil {
				errs = append(errs, &ConfigError{Code: CodeBadMatcher, Source: s.source, Msg: fmt.Sprintf("hook %s: %v", s.id, err)})
				continue
			}
			if s.dedup != "" {
				k := key{s.event, s.dedup}
				if seen[k] {
					continue
				}
				seen[k] = true
			}
			g.byEvent[s.event] = append(g.byEvent[s.event], &hook{hookSpec: *s, re: re})
		}
	}
	return g, errs
}
