package engine

import (
	"errors"
	"fmt"
	"io/fs"
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
	line, _, rest := besideFile(path, h.Command)
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

// besideFile applies the rule of relative paths to the command line of a
// hook defined in the configuration file at path: a first word that is a
// relative path with a slash (./check.sh, guards/x.sh, ../x.sh) names a
// script beside the file, and becomes its absolute path. It returns the
// line, the script the line starts with when its first word is a path
// (absolute, or "" when it is not a path: "python3 x.py", "echo hi") and
// the rest of the line after that first word.
func besideFile(path, line string) (resolved, script, rest string) {
	rest = strings.TrimLeft(line, " \t")
	lead := line[:len(line)-len(rest)]
	end := strings.IndexAny(rest, " \t\n;&|<>()")
	if end < 0 {
		end = len(rest)
	}
	first := rest[:end]
	if !plainWord(first) || !strings.Contains(first, "/") {
		return line, "", rest
	}
	script = filepath.FromSlash(first)
	if !filepath.IsAbs(script) {
		script = filepath.Join(filepath.Dir(path), script)
		line = lead + shellQuote(script) + rest[end:]
	}
	return line, script, rest[end:]
}

// checkScript reports a command hook whose line starts with a script that
// does not exist or is not executable (CodeBadScript, a warning: the hook
// fails when it runs, and its onError applies).
func (s *fileSource) checkScript(h config.Hook, script string) *ConfigError {
	if script == "" {
		return nil
	}
	var msg string
	switch fi, err := s.f.FS.Stat(script); {
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		msg = fmt.Sprintf("command %q: its script %s cannot be run: %v", h.Command, script, err)
	case !fi.Mode().IsRegular():
		msg = fmt.Sprintf("command %q: its script %s is not a regular file", h.Command, script)
	case fi.Mode().Perm()&0o111 == 0:
		msg = fmt.Sprintf("command %q: its script %s is not executable (chmod +x it, or start the line with its interpreter: sh %s)", h.Command, script, script)
	default:
		return nil
	}
	return &ConfigError{Code: CodeBadScript, File: h.Pos.File, Line: h.Pos.Line, Col: h.Pos.Col, Msg: msg}
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
