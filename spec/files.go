package spec

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// writeFiles writes a case's files under root; a file ending in .sh is made
// executable. Paths must stay inside root.
func writeFiles(root string, files map[string]string) error {
	for name, content := range files {
		p, err := inside(root, name)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := writeAtomic(p, []byte(content), mode); err != nil {
			return err
		}
	}
	return nil
}

// writeAtomic replaces a file by rename, so that a concurrent reader never
// sees it half written, and moves its mtime forward so that a reload notices
// even on a coarse clock.
func writeAtomic(p string, data []byte, mode os.FileMode) error {
	var old os.FileInfo
	if fi, err := os.Stat(p); err == nil {
		old = fi
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	if old != nil {
		if mt := old.ModTime(); !mt.Before(mtimeOf(tmp)) {
			later := mt.Add(10_000_000) // 10ms
			if err := os.Chtimes(tmp, later, later); err != nil {
				return err
			}
		}
	}
	return os.Rename(tmp, p)
}

func mtimeOf(p string) (t time.Time) {
	if fi, err := os.Stat(p); err == nil {
		return fi.ModTime()
	}
	return t
}

func applyWrites(root string, s *Step) error {
	if err := writeFiles(root, s.Write); err != nil {
		return err
	}
	for _, name := range s.Remove {
		p, err := inside(root, name)
		if err != nil {
			return err
		}
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

func inside(root, name string) (string, error) {
	p := filepath.Join(root, name)
	if rel, err := filepath.Rel(root, p); err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("file %q is outside the case root", name)
	}
	return p, nil
}

func writeJSON(p string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o644)
}
