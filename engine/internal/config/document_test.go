package config

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestParseDocument(t *testing.T) {
	src := "family = \"team\"\n\n[[rule]]\nid = \"a\"\nmatch = [\"x\",\n  \"y\"]\n[rule.http]\nmethod = \"DELETE\"\n"
	d, err := ParseDocument("team.toml", []byte(src))
	noErr(t, err)
	equal(t, "team", d.Values["family"])
	rules, _ := d.Values["rule"].([]any)
	if len(rules) != 1 {
		t.Fatalf("rule = %#v", d.Values["rule"])
	}
	for field, want := range map[string]Pos{
		"family":              {File: "team.toml", Line: 1, Col: 1},
		"rule[0]":             {File: "team.toml", Line: 3, Col: 1},
		"rule[0].id":          {File: "team.toml", Line: 4, Col: 1},
		"rule[0].match[1]":    {File: "team.toml", Line: 6, Col: 3},
		"rule[0].http.method": {File: "team.toml", Line: 8, Col: 1},
	} {
		equal(t, want, d.Pos[field], field)
	}
	// At falls back to the nearest ancestor that has a position.
	equal(t, Pos{File: "team.toml", Line: 4, Col: 1}, d.At("rule[0].id.nope"), "At")
	equal(t, Pos{File: "team.toml", Line: 1, Col: 1}, d.At("nothing"), "At of an unknown field")

	j, err := ParseDocument("x.json", []byte(`{"a": [1, {"b": true}]}`))
	noErr(t, err)
	equal(t, []any{json.Number("1"), map[string]any{"b": true}}, j.Values["a"], "json values")
	equal(t, Pos{File: "x.json", Line: 1, Col: 12}, j.Pos["a[1].b"], "json position")
}

func TestParseDocumentErrors(t *testing.T) {
	for _, c := range []struct {
		name, src, code string
		line            int
	}{
		{"x.yaml", "a: 1", CodeBadFormat, 0},
		{"x.toml", "a = \n", CodeSyntax, 1},
		{"x.toml", "d = 1979-05-27\n", CodeBadAtom, 1},
		{"x.json", `[1]`, CodeWrongType, 1},
		{"x.json", `{"a":1,"a":2}`, CodeDuplicateKey, 1},
	} {
		_, err := ParseDocument(c.name, []byte(c.src))
		var es Errors
		if !errors.As(err, &es) || len(es) == 0 {
			t.Errorf("%s %q: want Errors, got %v", c.name, c.src, err)
			continue
		}
		equal(t, c.code, es[0].Code, c.name, c.src)
		equal(t, c.line, es[0].Line, c.name, c.src)
	}
}
