package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/monad-hooks/monad-hooks/events"
)

// LinkResolver is the optional method of a [FileSystem] that resolves
// symbolic links, as filepath.EvalSymlinks does (the operating system's
// file system has it). With it, the engine's view of a file tool's call
// lists the target of each path that is, or lies under, a symbolic link
// (events.ToolView.Paths), so that a guard of paths sees the file the tool
// will reach: a link the agent made earlier (ln -s ~/.ssh/id_rsa notes.txt,
// spelt so that no guard saw it) does not pass a read of notes.txt.
type LinkResolver interface {
	// EvalSymlinks resolves every link of path, which must exist.
	EvalSymlinks(path string) (string, error)
	// Readlink returns the target of the link name.
	Readlink(name string) (string, error)
}

func (osFS) EvalSymlinks(p string) (string, error) { return filepath.EvalSymlinks(p) }
func (osFS) Readlink(name string) (string, error)  { return os.Readlink(name) }

// maxHops bounds the links followed to a file that does not exist (the
// operating system's own bound).
const maxHops = 40

// maxLinkPaths bounds the paths of one call whose links are resolved.
const maxLinkPaths = 64

// links resolves the paths of a tool view (see LinkResolver).
type links struct {
	r          LinkResolver
	root, home string // the base of a relative path without cwd; what ~ is
}

// newLinks returns the resolver of f, or nil when its file system has none.
func newLinks(f Files) *links {
	r, ok := f.FS.(LinkResolver)
	if !ok {
		return nil
	}
	return &links{r: r, root: f.Root, home: f.Home}
}

// add appends to v.Paths the target of each of its paths (the first
// maxLinkPaths) that differs from the path itself: the path resolved, or
// for a file that does not exist yet its folder resolved. cwd is the base
// of relative paths (the root when empty); a relative path without either,
// and a path that cannot be resolved, are left as they are.
func (l *links) add(v *events.ToolView, cwd string) {
	if cwd == "" {
		cwd = l.root
	}
	n := len(v.Paths)
	for _, p := range v.Paths[:min(n, maxLinkPaths)] {
		abs := p
		if rest, ok := strings.CutPrefix(p, "~/"); ok && l.home != "" {
			abs = filepath.Join(l.home, rest)
		}
		if !filepath.IsAbs(abs) {
			if cwd == "" {
				continue
			}
			abs = filepath.Join(cwd, abs)
		}
		abs = filepath.Clean(abs)
		t, ok := l.resolve(abs)
		if ok && t != abs && !slices.Contains(v.Paths, t) {
			v.Paths = append(slices.Clip(v.Paths), t)
		}
	}
}

// resolve returns the file abs reaches: abs with every link resolved, or
// for a file that does not exist (a new file, or a dangling link, which a
// write would create) its folder resolved and its own links followed.
func (l *links) resolve(abs string) (string, bool) {
	if t, err := l.r.EvalSymlinks(abs); err == nil {
		return t, true
	}
	for range maxHops {
		d, err := l.r.EvalSymlinks(filepath.Dir(abs))
		if err != nil {
			return "", false
		}
		cur := filepath.Join(d, filepath.Base(abs))
		target, err := l.r.Readlink(cur)
		if err != nil {
			return cur, true // not a link: the file is created there
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(d, target)
		}
		abs = filepath.Clean(target)
	}
	return "", false
}
