package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

// faultFS is the real filesystem with failures injected.
type faultFS struct {
	OSFS
	failWrite, failChmod, failSync, failClose, failRename error
	beforeRename                                          func() // e.g. another process editing the file
	reads                                                 int
}

func (f *faultFS) CreateTemp(dir, pattern string) (TempFile, error) {
	tf, err := f.OSFS.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &faultFile{TempFile: tf, fs: f}, nil
}

func (f *faultFS) Rename(oldpath, newpath string) error {
	if f.failRename != nil {
		return f.failRename
	}
	return f.OSFS.Rename(oldpath, newpath)
}

func (f *faultFS) ReadFile(name string) ([]byte, error) {
	// The Writer reads the file twice: to edit it and, just before the
	// rename, to check it did not change. Fire on the second read.
	f.reads++
	if f.reads == 2 && f.beforeRename != nil {
		f.beforeRename()
	}
	return f.OSFS.ReadFile(name)
}

type faultFile struct {
	TempFile
	fs *faultFS
}

func (ff *faultFile) Write(p []byte) (int, error) {
	if ff.fs.failWrite != nil {
		n, _ := ff.TempFile.Write(p[:len(p)/2]) // a torn write
		return n, ff.fs.failWrite
	}
	return ff.TempFile.Write(p)
}

func (ff *faultFile) Chmod(m fs.FileMode) error {
	if ff.fs.failChmod != nil {
		return ff.fs.failChmod
	}
	return ff.TempFile.Chmod(m)
}

func (ff *faultFile) Sync() error {
	if ff.fs.failSync != nil {
		return ff.fs.failSync
	}
	return ff.TempFile.Sync()
}

func (ff *faultFile) Close() error {
	err := ff.TempFile.Close()
	if ff.fs.failClose != nil {
		return ff.fs.failClose
	}
	return err
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dirNames lists a directory, to prove no temporary file is left behind.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestWriterAddCreatesFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "agents.json")
	var w Writer
	ref, err := w.AddHook(p, events.BeforeTool, "^shell_exec$", Hook{Command: "./check.sh <in >out && ok", TimeoutMs: 5000, OnError: OnErrorDeny})
	noErr(t, err)
	equal(t, Ref{Event: events.BeforeTool}, ref)
	equal(t, `{
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "^shell_exec$",
        "hooks": [
          {
            "command": "./check.sh <in >out && ok",
            "timeoutMs": 5000,
            "onError": "deny"
          }
        ]
      }
    ]
  }
}
`, readString(t, p))
	st, err := os.Stat(p)
	noErr(t, err)
	equal(t, fs.FileMode(0o600), st.Mode().Perm(), "a new file is private")
	equal(t, []string{"agents.json"}, dirNames(t, dir))
}

func TestWriterKeepsOtherKeys(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "agents.json", "{\n"+
		"\t\"model\": \"large\",\n"+
		"\t\"limits\": {\"tokens\": 1.50, \"name\": \"caf\\u00e9 <x>\", \"list\": [1, 2e3, null]},\n"+
		"\t\"hooks\": {\"AfterModel\": [{\"matcher\": \"\", \"hooks\": [{\"command\": \"a\", \"onError\": \"skip\"}]}],\n"+
		"\t          \"BeforeTool\": [{\"matcher\": \"x\", \"hooks\": [{\"command\": \"b\"}]}]},\n"+
		"\t\"atoms\": [\"x.lua\"],\n"+
		"\t\"zzz\": true\n"+
		"}\n")
	w := NewWriter(nil)
	ref, err := w.AddHook(p, events.SessionStart, "", Hook{Command: "c"})
	noErr(t, err)
	equal(t, Ref{Event: events.SessionStart}, ref)
	equal(t, "{\n"+
		"\t\"model\": \"large\",\n"+
		"\t\"limits\": {\n\t\t\"tokens\": 1.50,\n\t\t\"name\": \"caf\\u00e9 <x>\",\n\t\t\"list\": [\n\t\t\t1,\n\t\t\t2e3,\n\t\t\tnull\n\t\t]\n\t},\n"+
		"\t\"hooks\": {\n"+
		"\t\t\"AfterModel\": [\n\t\t\t{\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"command\": \"a\"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t],\n"+
		"\t\t\"BeforeTool\": [\n\t\t\t{\n\t\t\t\t\"matcher\": \"x\",\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"command\": \"b\"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t],\n"+
		"\t\t\"SessionStart\": [\n\t\t\t{\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"command\": \"c\"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n"+
		"\t},\n"+
		"\t\"atoms\": [\n\t\t\"x.lua\"\n\t],\n"+
		"\t\"zzz\": true\n"+
		"}\n", readString(t, p))
}

func TestWriterAddJoinsOrStartsGroup(t *testing.T) {
	p := filepath.Join(t.TempDir(), "agents.json")
	var w Writer
	steps := []struct {
		matcher string
		want    Ref
	}{
		{"^a$", Ref{events.BeforeTool, 0, 0}},
		{"^a$", Ref{events.BeforeTool, 0, 1}}, // same matcher as the last group: joins it
		{"*", Ref{events.BeforeTool, 1, 0}},   // a new last group
		{"", Ref{events.BeforeTool, 1, 1}},    // "" and "*" are the same
		{"^a$", Ref{events.BeforeTool, 2, 0}}, // not the last group: a new one, so it runs last
	}
	for i, s := range steps {
		ref, err := w.AddHook(p, events.BeforeTool, s.matcher, Hook{Command: fmt.Sprint("cmd", i)})
		noErr(t, err)
		equal(t, s.want, ref, "step", i)
	}
	f, err := Load(OSOpen, p, TierUser)
	noErr(t, err)
	gs := f.Hooks[events.BeforeTool]
	equal(t, 3, len(gs))
	equal(t, []string{"^a$", "", "^a$"}, []string{gs[0].Matcher, gs[1].Matcher, gs[2].Matcher})
	equal(t, "cmd3", gs[1].Hooks[1].Command)
}

func TestWriterReplaceAndRemove(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "agents.json", `{"hooks": {
  "BeforeTool": [
    {"matcher": "a", "hooks": [{"command": "a0"}, {"command": "a1"}]},
    {"matcher": "b", "hooks": [{"command": "b0"}]}
  ],
  "AfterTurn": [{"hooks": [{"command": "t0"}]}]
}, "other": 1}`)
	var w Writer
	load := func() map[events.Event][]Group {
		f, err := Load(OSOpen, p, TierUser)
		noErr(t, err)
		return f.Hooks
	}
	commands := func(gs []Group) [][]string {
		var out [][]string
		for _, g := range gs {
			var cs []string
			for _, h := range g.Hooks {
				cs = append(cs, h.Command)
			}
			out = append(out, cs)
		}
		return out
	}

	noErr(t, w.ReplaceHook(p, Ref{events.BeforeTool, 0, 1}, Hook{Command: "A1", TimeoutMs: 100}))
	h := load()
	equal(t, [][]string{{"a0", "A1"}, {"b0"}}, commands(h[events.BeforeTool]))
	equal(t, 100, h[events.BeforeTool][0].Hooks[1].TimeoutMs)

	noErr(t, w.RemoveHook(p, Ref{events.BeforeTool, 0, 0}))
	equal(t, [][]string{{"A1"}, {"b0"}}, commands(load()[events.BeforeTool]))

	noErr(t, w.RemoveHook(p, Ref{events.BeforeTool, 0, 0})) // empties group 0: it goes
	h = load()
	equal(t, [][]string{{"b0"}}, commands(h[events.BeforeTool]))
	equal(t, "b", h[events.BeforeTool][0].Matcher)

	noErr(t, w.RemoveHook(p, Ref{events.AfterTurn, 0, 0})) // empties the event: it goes
	_, ok := load()[events.AfterTurn]
	equal(t, false, ok)
	if s := readString(t, p); strings.Contains(s, "AfterTurn") || !strings.Contains(s, `"other": 1`) {
		t.Errorf("unexpected file:\n%s", s)
	}

	for _, ref := range []Ref{{events.BeforeTool, 1, 0}, {events.BeforeTool, 0, 1}, {events.BeforeTool, -1, 0}, {events.SessionEnd, 0, 0}} {
		before := readString(t, p)
		err := w.RemoveHook(p, ref)
		if !errors.Is(err, ErrHookNotFound) {
			t.Errorf("RemoveHook(%v) = %v, want ErrHookNotFound", ref, err)
		}
		err = w.ReplaceHook(p, ref, Hook{Command: "x"})
		if !errors.Is(err, ErrHookNotFound) {
			t.Errorf("ReplaceHook(%v) = %v, want ErrHookNotFound", ref, err)
		}
		equal(t, before, readString(t, p))
	}
	if err := w.RemoveHook(filepath.Join(dir, "missing.json"), Ref{events.BeforeTool, 0, 0}); !errors.Is(err, ErrHookNotFound) {
		t.Errorf("RemoveHook on a missing file = %v, want ErrHookNotFound", err)
	}
	equal(t, []string{"agents.json"}, dirNames(t, dir), "a failed edit creates no file")
}

func TestWriterNeverWritesPolicy(t *testing.T) {
	dir := t.TempDir()
	const policy = `{"policyHooks": {"BeforeTool": [{"hooks": [{"command": "p"}]}]}}`
	p := writeFile(t, dir, "policy.json", policy)
	var w Writer

	err := w.Edit(p, TierPolicy, func(map[events.Event][]Group) error { return nil })
	if !errors.Is(err, ErrPolicyReadOnly) {
		t.Errorf("Edit(TierPolicy) = %v, want ErrPolicyReadOnly", err)
	}
	_, err = w.AddHook(p, events.BeforeTool, "", Hook{Command: "x"})
	if !errors.Is(err, ErrPolicyReadOnly) {
		t.Errorf("AddHook on a policy file = %v, want ErrPolicyReadOnly", err)
	}
	err = w.RemoveHook(p, Ref{events.BeforeTool, 0, 0})
	if !errors.Is(err, ErrPolicyReadOnly) {
		t.Errorf("RemoveHook on a policy file = %v, want ErrPolicyReadOnly", err)
	}
	// A user file that also holds policyHooks is refused too.
	mixed := writeFile(t, dir, "mixed.json", `{"hooks": {}, "policyHooks": {}}`)
	_, err = w.AddHook(mixed, events.BeforeTool, "", Hook{Command: "x"})
	if !errors.Is(err, ErrPolicyReadOnly) {
		t.Errorf("AddHook on a mixed file = %v, want ErrPolicyReadOnly", err)
	}
	equal(t, policy, readString(t, p))
	equal(t, `{"hooks": {}, "policyHooks": {}}`, readString(t, mixed))
}

func TestWriterTOMLUnsupported(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "agents.toml", "# comment\n")
	var w Writer
	for _, path := range []string{p, filepath.Join(dir, "agents.yaml")} {
		_, err := w.AddHook(path, events.BeforeTool, "", Hook{Command: "x"})
		if !errors.Is(err, ErrUnsupportedFormat) {
			t.Errorf("AddHook(%s) = %v, want ErrUnsupportedFormat", path, err)
		}
	}
	equal(t, "# comment\n", readString(t, p))
}

func TestWriterRefusesInvalidResult(t *testing.T) {
	dir := t.TempDir()
	const orig = `{"hooks": {"BeforeTool": [{"hooks": [{"command": "a"}]}]}}`
	p := writeFile(t, dir, "agents.json", orig)
	var w Writer
	cases := []struct {
		matcher string
		hook    Hook
		code    string
		field   string
	}{
		{"", Hook{Command: "  "}, CodeMissingCommand, "hooks.BeforeTool[0].hooks[1].command"},
		{"", Hook{Command: "x", TimeoutMs: -1}, CodeBadTimeout, "hooks.BeforeTool[0].hooks[1].timeoutMs"},
		{"", Hook{Command: "x", TimeoutMs: MaxTimeoutMs + 1}, CodeBadTimeout, "hooks.BeforeTool[0].hooks[1].timeoutMs"},
		{"", Hook{Command: "x", OnError: "ignore"}, CodeBadOnError, "hooks.BeforeTool[0].hooks[1].onError"},
		{"(", Hook{Command: "x"}, CodeBadMatcher, "hooks.BeforeTool[1].matcher"},
	}
	for _, c := range cases {
		_, err := w.AddHook(p, events.BeforeTool, c.matcher, c.hook)
		var es Errors
		if !errors.As(err, &es) || len(es) != 1 {
			t.Errorf("AddHook(%+v) = %v, want one Errors entry", c.hook, err)
			continue
		}
		equal(t, &Error{Code: c.code, File: p, Field: c.field, Msg: es[0].Msg}, es[0])
	}
	equal(t, orig, readString(t, p))
	equal(t, []string{"agents.json"}, dirNames(t, dir))
	// An invalid event.
	if _, err := w.AddHook(p, events.Invalid, "", Hook{Command: "x"}); err == nil {
		t.Error("AddHook(Invalid) succeeded")
	}
}

func TestWriterRefusesInvalidFile(t *testing.T) {
	dir := t.TempDir()
	const orig = `{"hooks": {"BeforeTool": [{"hooks": [{"command": "a", "timeoutMs": 0}]}]}}`
	p := writeFile(t, dir, "agents.json", orig)
	var w Writer
	_, err := w.AddHook(p, events.BeforeTool, "", Hook{Command: "x"})
	var es Errors
	if !errors.As(err, &es) || es[0].Code != CodeBadTimeout || es[0].Line != 1 {
		t.Fatalf("AddHook on an invalid file = %v, want its bad_timeout error", err)
	}
	equal(t, orig, readString(t, p))
}

func TestWriterFailuresLeaveOriginal(t *testing.T) {
	boom := errors.New("boom")
	const orig = "{\n  \"hooks\": {}\n}\n"
	cases := []struct {
		name   string
		fs     *faultFS
		target error
	}{
		{"write", &faultFS{failWrite: boom}, boom},
		{"chmod", &faultFS{failChmod: boom}, boom},
		{"sync", &faultFS{failSync: boom}, boom},
		{"close", &faultFS{failClose: boom}, boom},
		{"rename", &faultFS{failRename: boom}, boom},
		{"conflict", &faultFS{}, ErrConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, "agents.json", orig)
			if c.target == ErrConflict {
				c.fs.beforeRename = func() {
					if err := os.WriteFile(p, []byte(`{"edited": "elsewhere"}`), 0o644); err != nil {
						t.Error(err)
					}
				}
			}
			w := NewWriter(c.fs)
			_, err := w.AddHook(p, events.BeforeTool, "", Hook{Command: "x"})
			if !errors.Is(err, c.target) {
				t.Fatalf("AddHook = %v, want %v", err, c.target)
			}
			if c.target != ErrConflict {
				equal(t, orig, readString(t, p), "the original is intact")
			}
			equal(t, []string{"agents.json"}, dirNames(t, dir), "no temporary file is left")
		})
	}
}

func TestWriterKeepsModeBOMAndCRLF(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "agents.json", "\xef\xbb\xbf{\r\n    \"x\": 1\r\n}\r\n")
	noErr(t, os.Chmod(p, 0o640))
	var w Writer
	_, err := w.AddHook(p, events.AfterTurn, "", Hook{Command: "c"})
	noErr(t, err)
	equal(t, "\xef\xbb\xbf{\r\n    \"x\": 1,\r\n    \"hooks\": {\r\n        \"AfterTurn\": [\r\n            {\r\n                \"hooks\": [\r\n"+
		"                    {\r\n                        \"command\": \"c\"\r\n                    }\r\n                ]\r\n            }\r\n        ]\r\n    }\r\n}\r\n",
		readString(t, p))
	st, err := os.Stat(p)
	noErr(t, err)
	equal(t, fs.FileMode(0o640), st.Mode().Perm())
}

func TestWriterFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	real := writeFile(t, dir, "real.json", `{}`)
	link := filepath.Join(dir, "agents.json")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	var w Writer
	_, err := w.AddHook(link, events.BeforeTurn, "", Hook{Command: "c"})
	noErr(t, err)
	st, err := os.Lstat(link)
	noErr(t, err)
	equal(t, fs.ModeSymlink, st.Mode().Type(), "the link is still a link")
	if !strings.Contains(readString(t, real), `"BeforeTurn"`) {
		t.Errorf("the target was not edited:\n%s", readString(t, real))
	}
}

func TestWriterConcurrentEdits(t *testing.T) {
	p := filepath.Join(t.TempDir(), "agents.json")
	var w Writer
	var wg sync.WaitGroup
	const n = 8
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := w.AddHook(p, events.BeforeTool, "", Hook{Command: fmt.Sprint("c", i)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	f, err := Load(OSOpen, p, TierUser)
	noErr(t, err)
	equal(t, n, len(f.Hooks[events.BeforeTool][0].Hooks), "no edit is lost")
}

func TestWriterEditError(t *testing.T) {
	p := writeFile(t, t.TempDir(), "agents.json", `{}`)
	var w Writer
	mine := errors.New("mine")
	err := w.Edit(p, TierUser, func(map[events.Event][]Group) error { return mine })
	equal(t, mine, err, "edit's error is returned as is")
	equal(t, `{}`, readString(t, p))
}

func TestWriterEditInvalidEvent(t *testing.T) {
	p := writeFile(t, t.TempDir(), "agents.json", `{}`)
	var w Writer
	err := w.Edit(p, TierUser, func(h map[events.Event][]Group) error {
		h[events.Event(99)] = []Group{{Hooks: []Hook{{Command: "x"}}}}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "invalid event") {
		t.Errorf("Edit with an invalid event = %v", err)
	}
	equal(t, `{}`, readString(t, p))
}

func TestWriterRefusesUnfaithfulWrite(t *testing.T) {
	p := writeFile(t, t.TempDir(), "agents.json", `{}`)
	var w Writer
	_, err := w.AddHook(p, events.BeforeTool, "", Hook{Command: "bad \xff byte"})
	if err == nil || !strings.Contains(err.Error(), "would not read back") {
		t.Errorf("AddHook with invalid UTF-8 = %v", err)
	}
	equal(t, `{}`, readString(t, p))
}
