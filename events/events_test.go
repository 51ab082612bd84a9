package events_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

func TestEventNamesRoundTrip(t *testing.T) {
	all := events.All()
	if len(all) != 13 {
		t.Fatalf("All() has %d events, want 13", len(all))
	}
	want := []string{"SessionStart", "BeforeTurn", "BeforeModel", "BeforeTool", "ApprovalRequest", "AfterTool", "AfterModel", "BeforeCompact", "AfterCompact", "BeforeSubagent", "AfterSubagent", "AfterTurn", "SessionEnd"}
	for i, e := range all {
		if e.String() != want[i] {
			t.Errorf("event %d = %s, want %s (firing order)", i, e, want[i])
		}
		got, err := events.ParseEvent(e.String())
		if err != nil || got != e {
			t.Errorf("ParseEvent(%q) = %v, %v", e, got, err)
		}
		b, err := json.Marshal(e)
		if err != nil || string(b) != `"`+want[i]+`"` {
			t.Errorf("json.Marshal(%v) = %s, %v", e, b, err)
		}
	}
	for _, bad := range []string{"", "beforeTool", "Stop", "PreToolUse"} {
		if _, err := events.ParseEvent(bad); err == nil {
			t.Errorf("ParseEvent(%q) succeeded", bad)
		}
	}
	if _, err := json.Marshal(events.Invalid); err == nil {
		t.Error("marshalling Invalid succeeded")
	}
}

func TestInputRoundTrip(t *testing.T) {
	doc := `{"event":"BeforeTool","sessionId":"s","cwd":"/w","timestamp":"2026-12-02T10:00:00Z","toolName":"bash",` +
		`"toolInput":{"command":"ls","n":12345678901234567890,"f":1.5,"nested":{"a":[1,null,{}],"e":[]},"nul":null}}`
	in, err := events.DecodeInput([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	again, err := events.DecodeInput(out)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(again)
	if string(out) != string(b2) {
		t.Errorf("not stable:\n%s\n%s", out, b2)
	}
	if !strings.Contains(string(out), `"n":12345678901234567890`) {
		t.Errorf("big integer lost precision: %s", out)
	}
	if !strings.Contains(string(out), `"e":[]`) || !strings.Contains(string(out), `"nul":null`) || !strings.Contains(string(out), `{}`) {
		t.Errorf("empty array, null or empty object lost: %s", out)
	}
}

func TestDecodeOutputErrorsNameTheField(t *testing.T) {
	for doc, field := range map[string]string{
		`{"decision":5}`:                        "decision",
		`{"decision":"nope"}`:                   "decision",
		`{"mutatedToolInput":"x"}`:              "mutatedToolInput",
		`{"continueWork":{"reason":3}}`:         "continueWork.reason",
		`{"continueWork":{}}`:                   "continueWork.reason",
		`{"additionalContext":{"a":1}}`:         "additionalContext",
		`{"mutatedText":false}`:                 "mutatedText",
		`{"reason":"ok","mutatedPrompt":["x"]}`: "mutatedPrompt",
	} {
		_, err := events.DecodeOutput([]byte(doc))
		var fe *events.FieldError
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("DecodeOutput(%s) = %v, want a FieldError on %s", doc, err, field)
		}
	}
	if _, err := events.DecodeOutput([]byte(`[1]`)); !errors.Is(err, events.ErrNotObject) {
		t.Errorf("array: %v, want ErrNotObject", err)
	}
	if _, err := events.DecodeOutput([]byte(`{} {}`)); err == nil {
		t.Error("two objects accepted")
	}
}

func TestSpecFilter(t *testing.T) {
	text := "t"
	o := events.Output{Decision: events.Deny, Reason: "r", MutatedText: &text, AdditionalContext: "c"}
	kept, dropped, decDropped := events.AfterModel.Spec().Filter(o)
	if kept.Decision != events.Proceed || kept.Reason != "" || kept.AdditionalContext != "" || kept.MutatedText == nil {
		t.Errorf("Filter at AfterModel kept %+v", kept)
	}
	if !decDropped || dropped != events.FieldAdditionalContext {
		t.Errorf("dropped = %v, decision dropped = %v", dropped, decDropped)
	}
}

func TestValidateRejectsDeepAndNonJSONValues(t *testing.T) {
	var v any = "leaf"
	for range events.MaxDepth + 5 {
		v = []any{v}
	}
	o := events.Output{UpdatedToolOutput: v}
	if err := o.Validate(); err == nil {
		t.Error("a value deeper than MaxDepth validated")
	}
	o = events.Output{MutatedRequest: map[string]any{"x": struct{}{}}}
	if err := o.Validate(); err == nil {
		t.Error("a struct value validated")
	}
}

func FuzzDecodeInput(f *testing.F) {
	for _, s := range []string{
		`{"event":"BeforeTool","toolName":"bash","toolInput":{"command":"ls"}}`,
		`{"event":"AfterTurn","reason":"error","ok":false,"stopContinues":3,"cost":1.5,"usage":{"t":1}}`,
		`{"event":"BeforeModel","caller":{"kind":"main"},"request":[{"role":"user"}]}`,
		`{"event":"BeforeCompact","compaction":{"trigger":"auto","tokens":12}}`,
		`{"event":null}`, `[]`, `{"event":"X"}`, ``, `{"event":"SessionStart","timestamp":"2026-01-01T00:00:00Z"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := events.DecodeInput(b)
		if err != nil {
			return
		}
		if !in.Event.Valid() {
			t.Fatalf("decoded an invalid event from %q", b)
		}
		if err := in.Validate(); err != nil {
			t.Fatalf("decoded input fails Validate: %v", err)
		}
		out, err := json.Marshal(in)
		if err != nil {
			t.Fatalf("marshal decoded input: %v", err)
		}
		again, err := events.DecodeInput(out)
		if err != nil {
			t.Fatalf("re-decode %s: %v", out, err)
		}
		out2, _ := json.Marshal(again)
		if string(out) != string(out2) {
			t.Fatalf("round trip not stable:\n%s\n%s", out, out2)
		}
	})
}

func FuzzDecodeOutput(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"decision":"deny","reason":"r"}`, `{"mutatedToolInput":{"a":[1,{}]}}`, `{"continueWork":{"reason":"x"}}`,
		`{"decision":""}`, `null`, `"x"`, `{"updatedToolOutput":null}`, `{"mutatedText":"t","modelOverride":"m"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := events.DecodeOutput(b)
		if err != nil {
			return
		}
		if err := o.Validate(); err != nil {
			t.Fatalf("decoded output fails Validate: %v", err)
		}
		out, err := json.Marshal(o)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		o2, err := events.DecodeOutput(out)
		if err != nil {
			t.Fatalf("re-decode %s: %v", out, err)
		}
		out2, _ := json.Marshal(o2)
		if string(out) != string(out2) {
			t.Fatalf("round trip not stable:\n%s\n%s", out, out2)
		}
	})
}

func TestToolCallIDIsDecodedAndToolIsNot(t *testing.T) {
	in, err := events.DecodeInput([]byte(`{"event":"AfterTool","toolName":"bash","toolCallId":"call_7","tool":{"kind":"other"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.ToolCallID != "call_7" {
		t.Errorf("ToolCallID = %q, want call_7", in.ToolCallID)
	}
	if in.Tool != nil {
		t.Errorf("a tool view sent by the host was decoded: %+v", in.Tool)
	}
	if _, err := events.DecodeInput([]byte(`{"event":"AfterTool","toolCallId":7}`)); err == nil {
		t.Error("a numeric toolCallId was accepted")
	}
}

func TestParseToolKind(t *testing.T) {
	for _, k := range events.ToolKinds() {
		got, err := events.ParseToolKind(string(k))
		if err != nil || got != k {
			t.Errorf("ParseToolKind(%q) = %q, %v", k, got, err)
		}
	}
	for _, bad := range []string{"", "Shell", "bash", "file"} {
		if _, err := events.ParseToolKind(bad); err == nil || !strings.Contains(err.Error(), "shell, read") {
			t.Errorf("ParseToolKind(%q) = %v, want an error listing the kinds", bad, err)
		}
	}
}

func TestDecisionString(t *testing.T) {
	for d, want := range map[events.Decision]string{events.Proceed: "proceed", events.Allow: "allow", events.Ask: "ask", events.Deny: "deny"} {
		if got := fmt.Sprint(d); got != want {
			t.Errorf("fmt.Sprint(%#v) = %q, want %q", string(d), got, want)
		}
	}
	b, err := json.Marshal(struct {
		D events.Decision `json:"d,omitempty"`
	}{events.Proceed})
	if err != nil || string(b) != `{}` {
		t.Errorf("JSON of Proceed = %s, %v; want it omitted", b, err)
	}
}
