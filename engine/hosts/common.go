package hosts

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/shell"
)

// Helpers the hosts share: how a decision a host cannot express degrades,
// how a rewrite is fitted to what a host applies, and how a host's answer
// reads back.

// askBlocked is the reason of an ask on a host (who) that cannot ask a
// person: the call is blocked, saying approval is needed.
func askBlocked(who, reason string) string {
	why := "monad-hooks asks for a person's approval, which " + who + " cannot ask for, so the call is blocked"
	if reason != "" {
		why += ": " + reason
	}
	return why
}

// promptBlocked is the reason of a prompt rewrite on a host whose prompt
// hook cannot replace the prompt: the prompt is blocked and the rewrite
// shown, so that the person can submit it.
func promptBlocked(prompt string) string {
	return "monad-hooks rewrote this prompt, which this agent's hooks cannot do, so it is blocked; submit the rewritten prompt instead: " + prompt
}

// inputBlocked is the reason of a tool-input rewrite at a host event that
// cannot apply one: the call is blocked and the rewrite shown, so that the
// agent can make the call again as rewritten.
func inputBlocked(rewrite any) string {
	return "monad-hooks rewrote this call, which this hook event cannot apply, so it is blocked; call the tool again with this input: " + text(rewrite)
}

// deniedReason is a deny's reason, never empty (some hosts ignore a deny
// without one).
func deniedReason(out events.Output) string {
	if strings.TrimSpace(out.Reason) == "" {
		return "denied by monad-hooks"
	}
	return out.Reason
}

// continueReason is the reason of a continuation, never empty.
func continueReason(cw *events.ContinueWork) string {
	if strings.TrimSpace(cw.Reason) == "" {
		return "a monad-hooks hook asks to keep working"
	}
	return cw.Reason
}

// mergePatch turns a rewrite of the tool input into a patch for a host that
// merges its patch over the input: every key of the rewrite, and the keys
// the rewrite dropped set to null. ok is false when there is no rewrite.
func mergePatch(orig, rewrite any) (map[string]any, bool) {
	m, ok := rewrite.(map[string]any)
	if !ok {
		return nil, false
	}
	patch := make(map[string]any, len(m))
	for k, v := range m {
		patch[k] = v
	}
	if old, ok := orig.(map[string]any); ok {
		for k := range old {
			if _, kept := m[k]; !kept {
				patch[k] = nil
			}
		}
	}
	return patch, true
}

// mergeOver applies a host's merge patch to the tool input: a shallow
// merge, a null deleting the key. A patch that is not an object replaces
// the input.
func mergeOver(orig, patch any) any {
	p, ok := patch.(map[string]any)
	o, isObj := orig.(map[string]any)
	if !ok || !isObj {
		return patch
	}
	out := make(map[string]any, len(o)+len(p))
	for k, v := range o {
		out[k] = v
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// fitShape fits a rewrite of a tool's output to the output's shape, for a
// host that ignores a replacement of another shape (Claude Code's built-in
// tools): a text in place of an object or array (the engine's withheld
// marker, or a hook that returned text) replaces every string inside the
// original. Anything else is the rewrite itself.
func fitShape(orig, rewrite any) any {
	s, isText := rewrite.(string)
	if !isText {
		return rewrite
	}
	switch orig.(type) {
	case map[string]any, []any:
		return replaceStrings(orig, s)
	}
	return rewrite
}

func replaceStrings(v any, s string) any {
	switch x := v.(type) {
	case string:
		return s
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = replaceStrings(e, s)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = replaceStrings(e, s)
		}
		return out
	}
	return v
}

// text is a value as the model reads it: a string itself, anything else
// as JSON.
func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// outputText is a rewritten tool output as text, for the hosts whose only
// way to replace a result is a message: the llmContent of a Gemini tool
// response, the output of a Cursor shell result, else the value as text.
func outputText(v any) string {
	if m, ok := v.(map[string]any); ok {
		for _, k := range []string{"llmContent", "output", "stdout", "content"} {
			if s, ok := m[k].(string); ok {
				return s
			}
		}
	}
	return text(v)
}

// invalidOutput marks a hook's stdout that the host would not accept.
func invalidOutput(err error) error {
	return fmt.Errorf("%w: %w", shell.ErrInvalidOutput, err)
}

// stringOrLines reads a context that is a string or an array of strings
// (joined by newlines); absent or null is "".
func stringOrLines(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || isNull(raw) {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var a []string
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("context: want a string or an array of strings")
	}
	return strings.Join(a, "\n"), nil
}

// reader reads the fields of a host's JSON answer, remembering the first
// type error.
type reader struct {
	m   map[string]json.RawMessage
	err error
}

func (r *reader) raw(key string) (json.RawMessage, bool) {
	v, ok := r.m[key]
	if !ok || isNull(v) {
		return nil, false
	}
	return v, true
}

func (r *reader) str(key string) string {
	raw, ok := r.raw(key)
	if !ok {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: want a string", key)
	}
	return s
}

func (r *reader) boolean(key string, def bool) bool {
	raw, ok := r.raw(key)
	if !ok {
		return def
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: want a boolean", key)
	}
	return b
}

func (r *reader) value(key string) any {
	raw, ok := r.raw(key)
	if !ok {
		return nil
	}
	v, err := events.DecodeValue(raw)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: %w", key, err)
	}
	return v
}

func (r *reader) object(key string) *reader {
	raw, ok := r.raw(key)
	if !ok {
		return &reader{}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: want an object", key)
	}
	return &reader{m: m}
}

func (r *reader) adopt(sub *reader) {
	if r.err == nil {
		r.err = sub.err
	}
}
