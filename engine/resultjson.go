package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/monad-hooks/monad-hooks/events"
)

// AppendJSON appends r's JSON to b, byte for byte what a json.Encoder with
// SetEscapeHTML(false) writes for r (without its newline), and returns the
// extended slice. It fails where that encoder fails: an invalid event, a
// latency that is not a finite number, a payload value encoding/json cannot
// encode; b's content is then unspecified. Encoding by hand spares a
// one-shot run building encoding/json's encoders of Result and Record by
// reflection, about 4% of its CPU (BenchmarkCLIRunNoStdlib). It only reads
// r: calls on one Result may run concurrently.
func (r *Result) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"event":`...)
	if b, err = appendEvent(b, r.Event); err != nil {
		return b, err
	}
	b = appendStringField(b, "decision", string(r.Decision))
	b = appendStringField(b, "reason", r.Reason)
	b = appendStringField(b, "additionalContext", r.AdditionalContext)
	if r.MutatedPrompt != nil {
		b = appendJSONString(append(b, `,"mutatedPrompt":`...), *r.MutatedPrompt)
	}
	b = appendStringField(b, "modelOverride", r.ModelOverride)
	for _, f := range [...]struct {
		name string
		v    any
	}{{"mutatedToolInput", r.MutatedToolInput}, {"updatedToolOutput", r.UpdatedToolOutput}, {"mutatedRequest", r.MutatedRequest}} {
		if f.v == nil {
			continue
		}
		b = append(append(append(b, ",\""...), f.name...), "\":"...)
		if b, err = appendAny(b, f.v); err != nil {
			return b, err
		}
	}
	if r.MutatedText != nil {
		b = appendJSONString(append(b, `,"mutatedText":`...), *r.MutatedText)
	}
	if r.ContinueWork != nil {
		b = append(appendJSONString(append(b, `,"continueWork":{"reason":`...), r.ContinueWork.Reason), '}')
	}
	b = appendStringField(b, "configError", r.ConfigError)
	if r.UnguardedTool {
		b = append(b, `,"unguardedTool":true`...)
	}
	if len(r.Audit) > 0 {
		b = append(b, `,"audit":[`...)
		for i := range r.Audit {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = r.Audit[i].appendJSON(b); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// appendJSON appends rec's JSON to b (see Result.AppendJSON).
func (rec *Record) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"event":`...)
	if b, err = appendEvent(b, rec.Event); err != nil {
		return b, err
	}
	b = appendStringField(b, "sessionId", rec.SessionID)
	b = appendJSONString(append(b, `,"tier":`...), rec.Tier.String())
	b = appendJSONString(append(b, `,"kind":`...), rec.Kind)
	b = appendJSONString(append(b, `,"hook":`...), rec.Hook)
	b = appendStringField(b, "source", rec.Source)
	b = appendStringField(b, "registeredBy", rec.RegisteredBy)
	b = appendStringField(b, "toolCallId", rec.ToolCallID)
	b = appendJSONString(append(b, `,"outcome":`...), string(rec.Outcome))
	b = appendStringField(b, "decision", string(rec.Decision))
	b = appendStringField(b, "reason", rec.Reason)
	b = appendStringField(b, "rule", rec.Rule)
	b = appendStringsField(b, "fields", rec.Fields)
	b = appendStringsField(b, "ignored", rec.Ignored)
	b = appendStringsField(b, "truncated", rec.Truncated)
	if rec.FailedClosed {
		b = append(b, `,"failedClosed":true`...)
	}
	if rec.Capped {
		b = append(b, `,"capped":true`...)
	}
	if rec.Unvouched {
		b = append(b, `,"unvouched":true`...)
	}
	b = append(b, `,"latencyMs":`...)
	if b, err = appendFloat(b, rec.LatencyMs); err != nil {
		return b, err
	}
	b = appendStringField(b, "error", rec.Error)
	b = appendStringsField(b, "logs", rec.Logs)
	return append(b, '}'), nil
}

// appendEvent appends ev as a JSON string; an invalid event is
// events.Event.MarshalText's error.
func appendEvent(b []byte, ev events.Event) ([]byte, error) {
	name, err := ev.MarshalText()
	if err != nil {
		return b, err
	}
	return appendJSONString(b, string(name)), nil
}

// appendStringField appends ,"name":s unless s is empty (omitempty).
func appendStringField(b []byte, name, s string) []byte {
	if s == "" {
		return b
	}
	b = append(append(append(b, ",\""...), name...), "\":"...)
	return appendJSONString(b, s)
}

// appendStringsField appends ,"name":[...] unless ss is empty (omitempty).
func appendStringsField(b []byte, name string, ss []string) []byte {
	if len(ss) == 0 {
		return b
	}
	b = append(append(append(b, ",\""...), name...), "\":["...)
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendAny appends a payload value as encoding/json encodes it.
func appendAny(b []byte, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// appendFloat appends f as encoding/json encodes a float64: the shortest
// decimal, in exponent form below 1e-6 and from 1e21 on.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, &json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	format, abs := byte('f'), math.Abs(f)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 -> e-9, as encoding/json writes it
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// appendJSONString appends s as a JSON string as encoding/json writes it
// without HTML escaping: ", \ and control characters escaped, invalid
// UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(append(b, s[start:i]...), `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(append(b, s[start:]...), '"')
}
