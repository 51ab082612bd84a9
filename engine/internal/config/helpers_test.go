package config

import (
	"reflect"
	"testing"
)

// testify is in go.mod but its assert package needs go.yaml.in/yaml/v3,
// which go.sum does not list; these few helpers stand in for it.

func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

func equal(t *testing.T, want, got any, msg ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Errorf("%v\nwant: %#v\n got: %#v", msg, want, got)
	}
}
