package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/monad-hooks/monad-hooks/events"
)

// WriteFS is the filesystem a [Writer] edits files through. [OSFS] is the
// operating system's; tests inject failures with their own.
type WriteFS interface {
	// ReadFile reads a whole file, like os.ReadFile. A missing file is an
	// error wrapping fs.ErrNotExist.
	ReadFile(name string) ([]byte, error)
	// Stat describes a file, like os.Stat.
	Stat(name string) (fs.FileInfo, error)
	// EvalSymlinks resolves symbolic links, like filepath.EvalSymlinks, so
	// that editing a symlinked config file replaces its target, not the link.
	EvalSymlinks(name string) (string, error)
	// CreateTemp creates a new file in dir, like os.CreateTemp.
	CreateTemp(dir, pattern string) (TempFile, error)
	// Rename replaces newpath with oldpath atomically, like os.Rename.
	Rename(oldpath, newpath string) error
	// Remove removes a file, like os.Remove.
	Remove(name string) error
	// SyncDir flushes a directory's entries to stable storage (after a
	// rename); an implementation without durability may do nothing.
	SyncDir(dir string) error
}

// A TempFile is a file made by WriteFS.CreateTemp. *os.File is one.
type TempFile interface {
	io.Writer
	Name() string
	Chmod(mode fs.FileMode) error
	Sync() error
	Close() error
}

// OSFS is the operating system's filesystem as a [WriteFS]. Its ReadFile
// reads at most MaxFileSize+1 bytes, enough for Parse to reject a file that
// is too large. The zero value is ready to use and safe for concurrent use.
type OSFS struct{}

var _ WriteFS = OSFS{}

// ReadFile reads name, at most MaxFileSize+1 bytes of it.
func (OSFS) ReadFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileSize+1))
}

// Stat calls os.Stat.
func (OSFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// EvalSymlinks calls filepath.EvalSymlinks.
func (OSFS) EvalSymlinks(name string) (string, error) { return filepath.EvalSymlinks(name) }

// CreateTemp calls os.CreateTemp.
func (OSFS) CreateTemp(dir, pattern string) (TempFile, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err // not a typed nil in an interface
	}
	return f, nil
}

// Rename calls os.Rename.
func (OSFS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Remove calls os.Remove.
func (OSFS) Remove(name string) error { return os.Remove(name) }

// SyncDir opens dir and syncs it.
func (OSFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// A Ref names one command hook of a file: the Hook-th hook of the Group-th
// matcher group of Event, as in File.Hooks[Event][Group].Hooks[Hook].
type Ref struct {
	Event events.Event
	Group int
	Hook  int
}

// String returns the hook's field path, "hooks.BeforeTool[0].hooks[1]".
func (r Ref) String() string {
	return fmt.Sprintf("hooks.%s[%d].hooks[%d]", r.Event, r.Group, r.Hook)
}

// A Writer edits the command hooks of user configuration files: the settings
// API. It never writes policy hooks.
//
// Every edit reads the file, applies the change to its hooks, validates the
// whole resulting document with [Parse] and only then replaces the file
// atomically: it writes a temporary file in the same directory, gives it the
// original file's permissions (0600 for a new file), syncs it, checks that
// the file did not change meanwhile ([ErrConflict]) and renames it over the
// original, then syncs the directory (best effort). On any failure the
// temporary file is removed and the original is untouched: a reader sees the
// old file or the new one, never a mix. A symlinked file is edited through
// the link.
//
// Only JSON files are written ([ErrUnsupportedFormat] for TOML). The
// rewritten file keeps every other top-level key, with its value and its
// position, byte for byte apart from indentation; the whole document is
// re-indented in the file's own style (tabs or the width of its first
// indented line, two spaces by default), and keeps its line endings and byte
// order mark. The "hooks" value is written in canonical form: "*" matchers
// and "skip" onErrors, which mean the defaults, are dropped, and events keep
// their order in the file (new ones follow in firing order).
//
// A Writer refuses (and writes nothing) when the file is not valid, as it
// cannot edit what it cannot read; the error then wraps the file's [Errors].
//
// The zero Writer edits the operating system's files. A Writer serializes
// its own edits; it is safe for concurrent use but must not be copied after
// first use. Edits by other processes are detected (ErrConflict) but not
// locked out.
type Writer struct {
	// FS is the filesystem to edit; nil means OSFS{}.
	FS WriteFS

	mu sync.Mutex
}

// NewWriter returns a Writer that edits files through fsys (nil: OSFS{}).
func NewWriter(fsys WriteFS) *Writer { return &Writer{FS: fsys} }

func (w *Writer) fs() WriteFS {
	if w.FS == nil {
		return OSFS{}
	}
	return w.FS
}

// Edit applies edit to the command hooks of the user file at path and writes
// the result (see [Writer] for how). The map passed to edit holds the file's
// hooks as [Parse] returns them (empty when the file does not exist yet) and
// belongs to edit; what it holds when edit returns is written. Pos fields are
// ignored. edit must not call the Writer.
//
// Edit returns nil when the file was written, or an error:
//   - [ErrPolicyReadOnly] when tier is not TierUser or the file holds a
//     policyHooks key;
//   - [ErrUnsupportedFormat] when path does not end in .json;
//   - the file's [Errors], wrapped, when the file is not valid;
//   - edit's own error, unwrapped, when edit fails;
//   - the [Errors] of the result, wrapped, when the edit would make the file
//     invalid (their Line and Col are 0: the document was never written;
//     Field says which value is wrong);
//   - an error when edit left a hook under an invalid event, or a string
//     that is not valid UTF-8 (it would not read back as given);
//   - [ErrConflict] when the file changed during the edit;
//   - a filesystem error, wrapped.
//
// Nothing is written unless Edit returns nil.
func (w *Writer) Edit(path string, tier Tier, edit func(hooks map[events.Event][]Group) error) error {
	if tier != TierUser {
		return fmt.Errorf("config: edit %s as the %s tier: %w", path, tier, ErrPolicyReadOnly)
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".json" {
		return fmt.Errorf("config: edit %s: %w", path, ErrUnsupportedFormat)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	fsys := w.fs()

	target, err := fsys.EvalSymlinks(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("config: edit %s: %w", path, err)
		}
		target = path
	}
	orig, err := fsys.ReadFile(target)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("config: edit %s: %w", path, err)
	}

	hooks := map[events.Event][]Group{}
	var doc *node
	var order []events.Event
	body := bytes.TrimPrefix(orig, []byte(bom))
	if exists {
		f, err := Parse(path, orig, TierUser)
		if err != nil {
			var es Errors
			if errors.As(err, &es) && hasCode(es, CodePolicyInUser) {
				return fmt.Errorf("config: edit %s: the file holds policyHooks: %w", path, ErrPolicyReadOnly)
			}
			return fmt.Errorf("config: edit %s: the file is not valid; fix it first: %w", path, err)
		}
		for ev, gs := range f.Hooks {
			hooks[ev] = gs
		}
		doc, _ = parseJSON(body, newLineIndex(body)) // valid: Parse accepted it
		order = eventOrder(doc)
	}
	if err := edit(hooks); err != nil {
		return err
	}
	for ev := range hooks {
		if !ev.Valid() {
			return fmt.Errorf("config: edit %s: invalid event %v", path, ev)
		}
	}

	out := render(body, doc, hooks, order)
	if bytes.HasPrefix(orig, []byte(bom)) {
		out = append([]byte(bom), out...)
	}
	written, err := Parse(path, out, TierUser)
	if err != nil {
		return fmt.Errorf("config: refusing to write %s: %w", path, unpositioned(err))
	}
	if !sameHooks(hooks, written.Hooks) {
		return fmt.Errorf("config: refusing to write %s: the hooks would not read back as given (a string that is not valid UTF-8?)", path)
	}
	mode := fs.FileMode(0o600)
	if exists {
		st, err := fsys.Stat(target)
		if err != nil {
			return fmt.Errorf("config: edit %s: %w", path, err)
		}
		mode = st.Mode().Perm()
	}
	return replaceFile(fsys, target, out, mode, orig, exists)
}

// AddHook appends h to the hooks of ev for tools matching matcher, in the
// user file at path (created if missing), and returns where it now is. It
// joins the event's last group when that group has the same matcher ("" and
// "*" are the same), and otherwise starts a new last group, so the new hook
// runs after every existing hook of ev. Errors are those of [Writer.Edit];
// an invalid ev is an error too.
func (w *Writer) AddHook(path string, ev events.Event, matcher string, h Hook) (Ref, error) {
	if !ev.Valid() {
		return Ref{}, fmt.Errorf("config: add a hook to %s: invalid event %v", path, ev)
	}
	matcher = normMatcher(matcher)
	var ref Ref
	err := w.Edit(path, TierUser, func(hooks map[events.Event][]Group) error {
		gs := hooks[ev]
		if n := len(gs); n > 0 && normMatcher(gs[n-1].Matcher) == matcher {
			gs[n-1].Hooks = append(gs[n-1].Hooks, h)
			ref = Ref{Event: ev, Group: n - 1, Hook: len(gs[n-1].Hooks) - 1}
		} else {
			gs = append(gs, Group{Matcher: matcher, Hooks: []Hook{h}})
			ref = Ref{Event: ev, Group: len(gs) - 1}
		}
		hooks[ev] = gs
		return nil
	})
	if err != nil {
		return Ref{}, err
	}
	return ref, nil
}

// ReplaceHook replaces the hook ref names, in the user file at path, with h.
// It returns [ErrHookNotFound] (wrapped) when there is no such hook, and
// otherwise the errors of [Writer.Edit].
func (w *Writer) ReplaceHook(path string, ref Ref, h Hook) error {
	return w.Edit(path, TierUser, func(hooks map[events.Event][]Group) error {
		if !ref.in(hooks) {
			return fmt.Errorf("config: %s has no hook %s: %w", path, ref, ErrHookNotFound)
		}
		hooks[ref.Event][ref.Group].Hooks[ref.Hook] = h
		return nil
	})
}

// RemoveHook removes the hook ref names from the user file at path. A group
// left empty is removed (the indices of later groups shift down), and so is
// an event left with no groups. It returns [ErrHookNotFound] (wrapped) when
// there is no such hook, and otherwise the errors of [Writer.Edit].
func (w *Writer) RemoveHook(path string, ref Ref) error {
	return w.Edit(path, TierUser, func(hooks map[events.Event][]Group) error {
		if !ref.in(hooks) {
			return fmt.Errorf("config: %s has no hook %s: %w", path, ref, ErrHookNotFound)
		}
		gs := hooks[ref.Event]
		g := &gs[ref.Group]
		g.Hooks = append(g.Hooks[:ref.Hook:ref.Hook], g.Hooks[ref.Hook+1:]...)
		if len(g.Hooks) == 0 {
			gs = append(gs[:ref.Group:ref.Group], gs[ref.Group+1:]...)
		}
		if len(gs) == 0 {
			delete(hooks, ref.Event)
		} else {
			hooks[ref.Event] = gs
		}
		return nil
	})
}

func (r Ref) in(hooks map[events.Event][]Group) bool {
	gs := hooks[r.Event]
	return r.Group >= 0 && r.Group < len(gs) && r.Hook >= 0 && r.Hook < len(gs[r.Group].Hooks)
}

const bom = "\xef\xbb\xbf"

func hasCode(es Errors, code string) bool {
	for _, e := range es {
		if e.Code == code {
			return true
		}
	}
	return false
}

func normMatcher(m string) string {
	if m == "*" {
		return ""
	}
	return m
}

// unpositioned drops the positions of errors found in a document that was
// never written.
func unpositioned(err error) error {
	var es Errors
	if !errors.As(err, &es) {
		return err
	}
	out := make(Errors, len(es))
	for i, e := range es {
		c := *e
		c.Line, c.Col = 0, 0
		out[i] = &c
	}
	return out
}

// sameHooks reports whether the hooks an edit asked for (want) are what the
// written document holds (got), defaults normalized and positions ignored.
func sameHooks(want, got map[events.Event][]Group) bool {
	n := 0
	for _, gs := range want {
		if len(gs) > 0 {
			n++
		}
	}
	if n != len(got) {
		return false
	}
	for ev, gs := range got {
		w := want[ev]
		if len(w) != len(gs) {
			return false
		}
		for i, g := range gs {
			if normMatcher(w[i].Matcher) != g.Matcher || len(w[i].Hooks) != len(g.Hooks) {
				return false
			}
			for j, h := range g.Hooks {
				wh := w[i].Hooks[j]
				if wh.OnError == OnErrorSkip {
					wh.OnError = ""
				}
				if wh.Command != h.Command || wh.TimeoutMs != h.TimeoutMs || wh.OnError != h.OnError {
					return false
				}
			}
		}
	}
	return true
}

// eventOrder lists the events of a document's hooks object in file order.
func eventOrder(doc *node) []events.Event {
	var order []events.Event
	if doc == nil {
		return nil
	}
	for _, m := range doc.mems {
		if m.key != "hooks" || m.val.kind != kindObject {
			continue
		}
		for _, em := range m.val.mems {
			if ev, err := events.ParseEvent(em.key); err == nil {
				order = append(order, ev)
			}
		}
	}
	return order
}

// render writes the document body (without BOM; nil for a new file) with its
// hooks replaced.
func render(body []byte, doc *node, hooks map[events.Event][]Group, order []events.Event) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	wrote := false
	if doc != nil {
		for i, m := range doc.mems {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(body[m.kstart:m.ke])
			b.WriteByte(':')
			if m.key == "hooks" && !wrote {
				encodeHooks(&b, hooks, order)
				wrote = true
			} else {
				b.Write(body[m.val.start:m.val.end])
			}
		}
	}
	if !wrote {
		if doc != nil && len(doc.mems) > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"hooks":`)
		encodeHooks(&b, hooks, order)
	}
	b.WriteByte('}')

	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", detectIndent(body)); err != nil {
		// Unreachable: every piece is valid JSON. Keep the compact form; the
		// caller validates it anyway.
		out.Reset()
		out.Write(b.Bytes())
	}
	out.WriteByte('\n')
	if bytes.Contains(body, []byte("\r\n")) {
		return bytes.ReplaceAll(out.Bytes(), []byte("\n"), []byte("\r\n"))
	}
	return out.Bytes()
}

// detectIndent returns the indentation of the first indented line: a tab,
// or that many spaces (up to 8); two spaces when there is none.
func detectIndent(body []byte) string {
	for i := 0; i < len(body); i++ {
		if body[i] != '\n' {
			continue
		}
		j := i + 1
		if j < len(body) && body[j] == '\t' {
			return "\t"
		}
		k := j
		for k < len(body) && body[k] == ' ' {
			k++
		}
		if k > j && k < len(body) && body[k] != '\n' && body[k] != '\r' {
			return strings.Repeat(" ", min(k-j, 8))
		}
	}
	return "  "
}

// encodeHooks writes the hooks object in canonical, compact form: events in
// order, then the remaining ones in firing order.
func encodeHooks(b *bytes.Buffer, hooks map[events.Event][]Group, order []events.Event) {
	seen := make(map[events.Event]bool, len(hooks))
	all := append(append([]events.Event(nil), order...), events.All()...)
	b.WriteByte('{')
	first := true
	for _, ev := range all {
		gs := hooks[ev]
		if seen[ev] || len(gs) == 0 {
			continue
		}
		seen[ev] = true
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeJSONString(b, ev.String())
		b.WriteString(":[")
		for i, g := range gs {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('{')
			if m := normMatcher(g.Matcher); m != "" {
				b.WriteString(`"matcher":`)
				writeJSONString(b, m)
				b.WriteByte(',')
			}
			b.WriteString(`"hooks":[`)
			for j, h := range g.Hooks {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`{"command":`)
				writeJSONString(b, h.Command)
				if h.TimeoutMs != 0 {
					fmt.Fprintf(b, `,"timeoutMs":%d`, h.TimeoutMs)
				}
				if h.OnError != "" && h.OnError != OnErrorSkip {
					b.WriteString(`,"onError":`)
					writeJSONString(b, h.OnError)
				}
				b.WriteByte('}')
			}
			b.WriteString("]}")
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
}

// writeJSONString writes s as a JSON string, without escaping <, > and &.
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // Encode's newline
}

// replaceFile atomically replaces path with data (see Writer).
func replaceFile(fsys WriteFS, path string, data []byte, mode fs.FileMode, orig []byte, existed bool) (err error) {
	dir := filepath.Dir(path)
	tmp, err := fsys.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("config: write %s: %w", path, err)
	}
	name := tmp.Name()
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				_ = tmp.Close()
			}
			_ = fsys.Remove(name)
		}
	}()
	n, err := tmp.Write(data)
	if err == nil && n < len(data) {
		err = io.ErrShortWrite
	}
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if err != nil {
		return fmt.Errorf("config: write %s: %w", path, err)
	}
	closed = true
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("config: write %s: %w", path, err)
	}
	cur, rerr := fsys.ReadFile(path)
	if existed && (rerr != nil || !bytes.Equal(cur, orig)) || !existed && rerr == nil {
		err = fmt.Errorf("config: write %s: %w", path, ErrConflict)
		return err
	}
	if err = fsys.Rename(name, path); err != nil {
		return fmt.Errorf("config: write %s: %w", path, err)
	}
	// Best effort: the new file is in place; a failed directory sync only
	// weakens durability across a crash, and reporting it would invite a
	// retry of an edit that succeeded.
	_ = fsys.SyncDir(dir)
	return nil
}
