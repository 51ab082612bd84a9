package engine

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/monad-hooks/monad-hooks/engine/internal/config"
	"github.com/monad-hooks/monad-hooks/shell/syntax"
)

// policyCommand resolves the command line of a policy hook defined in the
// policy file at path. Command hooks run in the sandbox root, which the
// agent can write: a relative script path there would let the agent
// substitute the operator's guard. So:
//
//   - a line whose first word is a relative path with a slash (./check.sh,
//     guards/x.sh, ../x.sh) runs the script beside the policy file: the word
//     becomes its absolute path;
//   - any other word that is surely a relative path (it starts with ./ or
//     ../, as in "bash ./x.sh" or "true && ./x.sh"), or that names a file
//     beside the policy file (as in "python3 guards/x.py"), is an error: it
//     would be resolved in the sandbox root.
//
// The line still runs with the sandbox root as its working directory.
func (s *fileSource) policyCommand(path string, h config.Hook) (string, *ConfigError) {
	dir := filepath.Dir(path)
	line := h.Command
	rest := strings.TrimLeft(line, " \t")
	lead := line[:len(line)-len(rest)]
	end := strings.IndexAny(rest, " \t\n;&|<>()")
	if end < 0 {
		end = len(rest)
	}
	first := rest[:end]
	if plainWord(first) && strings.Contains(first, "/") && !filepath.IsAbs(first) {
		line = lead + shellQuote(filepath.Join(dir, filepath.FromSlash(first))) + rest[end:]
		rest = rest[end:] // the words left to check
	}
	words, _ := syntax.Split(rest)
	for _, w := range words {
		if filepath.IsAbs(w) || !strings.Contains(w, "/") || strings.Contains(w, "://") {
			continue
		}
		sure := strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../")
		if !sure {
			if _, err := s.f.FS.Stat(filepath.Join(dir, filepath.FromSlash(w))); err != nil {
				continue
			}
		}
		return "", &ConfigError{Code: CodeRelativePath, File: h.Pos.File, Line: h.Pos.Line, Col: h.Pos.Col, Msg: fmt.Sprintf(
			"policy command %q names %q, which would be resolved in the sandbox root (the agent can write there): "+
				"put the script first on the line, where a relative path names a file beside the policy file, or give an absolute path", h.Command, w)}
	}
	return line, nil
}

// plainWord reports whether w is a shell word without quoting or expansion:
// it means itself.
func plainWord(w string) bool {
	return w != "" && !strings.ContainsAny(w, "\"'\\$`*?[]{}~=#!")
}

// shellQuote quotes p for /bin/sh when it holds anything but letters,
// digits and /._+-@%,:
func shellQuote(p string) string {
	for _, c := range p {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._+-@%,:", c)) {
			return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
		}
	}
	return p
}
