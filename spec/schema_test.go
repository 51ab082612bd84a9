package spec_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/spec"
)

func compileSchema(t *testing.T, name string, doc []byte) *jsonschema.Schema {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(name, v); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSchemasAgreeWithGo proves that the JSON Schema documents and the Go
// validation accept and reject the same documents.
func TestSchemasAgreeWithGo(t *testing.T) {
	tests := []struct {
		kind  string
		doc   string
		valid bool
	}{
		{"input", `{"event":"BeforeTool","toolName":"bash","toolInput":{"command":"ls"}}`, true},
		{"input", `{"event":"SessionStart","sessionId":"s","cwd":"/w","timestamp":"2026-12-02T10:00:00Z"}`, true},
		{"input", `{"event":"SessionStart","timestamp":"2026-12-02T10:00:00.123+02:00"}`, true},
		{"input", `{"event":"AfterTurn","reason":"completed","usage":{"in":1},"cost":0.02,"ok":true,"response":"done"}`, true},
		{"input", `{"event":"BeforeModel","caller":{"kind":"subagent","agentName":"r"},"request":[1,"x",null]}`, true},
		{"input", `{"event":"AfterCompact","compaction":{"trigger":"auto","tokens":1000}}`, true},
		{"input", `{"event":"AfterSubagent","subagentName":"r","subagentResult":"x","ok":false,"error":"boom"}`, true},
		{"input", `{"event":"AfterTool","toolResult":null,"prompt":null,"unknownKey":{"x":1}}`, true},
		{"input", `{"event":"AfterTurn","stopContinues":2}`, true},
		{"input", `{"event":"AfterTool","toolCallId":"call_1","tool":{"kind":"whatever"}}`, true},
		{"input", `{"event":"AfterTool","toolCallId":7}`, false},
		{"input", `{"event":"SessionEnd","reason":null}`, true},
		{"input", `{}`, false},
		{"input", `{"event":null}`, false},
		{"input", `{"event":"beforeTool"}`, false},
		{"input", `{"event":"Stop"}`, false},
		{"input", `{"event":3}`, false},
		{"input", `{"event":"BeforeTool","toolName":5}`, false},
		{"input", `{"event":"AfterTool","ok":"yes"}`, false},
		{"input", `{"event":"AfterTurn","reason":"done"}`, false},
		{"input", `{"event":"AfterTurn","cost":"1"}`, false},
		{"input", `{"event":"BeforeModel","caller":{"kind":"helper"}}`, false},
		{"input", `{"event":"BeforeModel","caller":{"agentName":"x"}}`, false},
		{"input", `{"event":"BeforeModel","caller":"main"}`, false},
		{"input", `{"event":"BeforeCompact","compaction":{"tokens":-1}}`, false},
		{"input", `{"event":"BeforeCompact","compaction":{"tokens":1.5}}`, false},
		{"input", `{"event":"BeforeCompact","compaction":[]}`, false},
		{"input", `{"event":"SessionStart","timestamp":"yesterday"}`, false},
		{"input", `{"event":"AfterTurn","stopContinues":-1}`, false},
		{"input", `[]`, false},
		{"input", `"BeforeTool"`, false},

		{"output", `{}`, true},
		{"output", `{"decision":"deny","reason":"no"}`, true},
		{"output", `{"decision":"ask"}`, true},
		{"output", `{"decision":"allow","additionalContext":"x","unknown":1}`, true},
		{"output", `{"decision":null,"reason":null}`, true},
		{"output", `{"mutatedPrompt":"p","modelOverride":"m","mutatedText":"t"}`, true},
		{"output", `{"mutatedToolInput":{"command":"ls","n":[1,2,null]}}`, true},
		{"output", `{"updatedToolOutput":"text"}`, true},
		{"output", `{"updatedToolOutput":{"stdout":"x"}}`, true},
		{"output", `{"mutatedRequest":[{"role":"user"}]}`, true},
		{"output", `{"continueWork":{"reason":"tests fail"}}`, true},
		{"output", `{"continueWork":null}`, true},
		{"output", `{"decision":"DENY"}`, false},
		{"output", `{"decision":"block"}`, false},
		{"output", `{"decision":""}`, false},
		{"output", `{"decision":true}`, false},
		{"output", `{"reason":5}`, false},
		{"output", `{"additionalContext":["a"]}`, false},
		{"output", `{"mutatedPrompt":{}}`, false},
		{"output", `{"mutatedToolInput":"ls"}`, false},
		{"output", `{"mutatedToolInput":[]}`, false},
		{"output", `{"mutatedText":1}`, false},
		{"output", `{"continueWork":true}`, false},
		{"output", `{"continueWork":{}}`, false},
		{"output", `{"continueWork":{"reason":1}}`, false},
		{"output", `[]`, false},
		{"output", `null`, false},
		{"output", `"deny"`, false},
	}
	schemas := map[string]*jsonschema.Schema{
		"input":  compileSchema(t, "input.schema.json", spec.InputSchema()),
		"output": compileSchema(t, "output.schema.json", spec.OutputSchema()),
	}
	for _, tc := range tests {
		var goErr error
		if tc.kind == "input" {
			_, goErr = events.DecodeInput([]byte(tc.doc))
		} else {
			_, goErr = events.DecodeOutput([]byte(tc.doc))
		}
		var v any
		if err := json.Unmarshal([]byte(tc.doc), &v); err != nil {
			t.Fatal(err)
		}
		schemaErr := schemas[tc.kind].Validate(v)
		if (goErr == nil) != tc.valid {
			t.Errorf("Go %s validation of %s: err = %v, want valid = %v", tc.kind, tc.doc, goErr, tc.valid)
		}
		if (schemaErr == nil) != tc.valid {
			t.Errorf("JSON Schema %s validation of %s: err = %v, want valid = %v", tc.kind, tc.doc, schemaErr, tc.valid)
		}
	}
}
