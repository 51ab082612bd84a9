package config

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/monad-hooks/monad-hooks/events"

	"github.com/monad-hooks/monad-hooks/internal/docpos"
)

// Bounds on what a configuration file may hold.
const (
	// MaxFileSize is the largest configuration file accepted, in bytes.
	MaxFileSize = 4 << 20
	// MaxDepth is the deepest nesting accepted: of arrays and objects in
	// JSON; of arrays, tables, dotted-key segments and table-header segments
	// in TOML. The hooks shape needs 6; the rest is for atom parameters.
	MaxDepth = 64
	// MaxTimeoutMs is the largest timeoutMs accepted: ten minutes.
	MaxTimeoutMs = 600_000
	// MaxErrors is the most problems reported for one file; beyond it a
	// final CodeTooManyErrors entry is added.
	MaxErrors = 100
)

// onError spellings.
const (
	// OnErrorDeny makes a failing command hook deny (fail closed).
	OnErrorDeny = "deny"
	// OnErrorSkip is the explicit spelling of the default: a failing command
	// hook is skipped. [Parse] normalizes it to "".
	OnErrorSkip = "skip"
)

// A Tier says who owns a configuration file, and so which keys it may hold.
type Tier uint8

const (
	// TierUser is a user's file (agents.json): keys hooks and atoms. It is
	// the zero value, the less privileged tier.
	TierUser Tier = iota
	// TierPolicy is the operator's policy file: key policyHooks, shell command
	// hooks only.
	TierPolicy
)

// String returns "user" or "policy", or "Tier(N)" for other values.
func (t Tier) String() string {
	switch t {
	case TierUser:
		return "user"
	case TierPolicy:
		return "policy"
	}
	return "Tier(" + strconv.Itoa(int(t)) + ")"
}

// A Pos is a position in a configuration file: 1-based line and column, the
// column counted in bytes. The zero Pos means "unknown".
type Pos struct {
	File string
	Line int
	Col  int
}

// String returns "file:line:col", "file:line" when Col is 0, or just the
// file when Line is 0.
func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return p.File + ":" + strconv.Itoa(p.Line)
	}
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// A File is one validated configuration file. It is a plain value: it holds
// nothing but what the file says, and is safe for concurrent reads. The
// caller owns it.
type File struct {
	// Path is the path the file was parsed as, unchanged.
	Path string
	// Tier is the tier it was parsed for.
	Tier Tier
	// Hooks holds the command hooks by event: for a user file its hooks key,
	// for a policy file its policyHooks key. Groups, and hooks within a
	// group, are in file order. Events with no groups are left out; Hooks is
	// nil when there are none.
	Hooks map[events.Event][]Group
	// HooksKey reports whether the file holds its tier's hooks key (hooks,
	// or policyHooks for a policy file), even with no event in it. (A TOML
	// file cut short mid-write can still parse; the engine tells it from an
	// intended file with no hooks by this key.)
	HooksKey bool
	// Atoms lists the atoms entries in file order (always empty for a policy
	// file).
	Atoms []Atom
	// Tools lists the tools the file declares (its tools key), in file
	// order.
	Tools []Tool
	// Warnings lists problems that do not stop the file from loading (codes
	// marked "warning"), in document order.
	Warnings Errors
}

// A Group is one matcher group: the hooks that run when Matcher matches.
type Group struct {
	// Matcher is an RE2 regular expression, unanchored, tested against the
	// tool name for the tool-scoped events (events.Spec.Matcher). "" matches
	// everything; "*" in the file is stored as "". For other events it is
	// kept as written but never consulted (and reported as a warning).
	Matcher string
	// Kinds, when set (the group's kind key: a tool kind or a list of
	// them), restrict the group to tools of those kinds in the engine's
	// tool table; with a Matcher, both must match. Only the tool-scoped
	// events accept it.
	Kinds []events.ToolKind
	// Hooks are the group's command hooks, in file order.
	Hooks []Hook
	// Pos is the position of the group in the file.
	Pos Pos
}

// A Hook is one command hook entry.
type Hook struct {
	// Command is the shell command, never empty.
	Command string
	// TimeoutMs is the timeout in milliseconds, 1 to MaxTimeoutMs; 0 means
	// the engine's default.
	TimeoutMs int
	// OnError is OnErrorDeny or "" (skip on failure, the default).
	OnError string
	// Input names the agent whose hook contract the command speaks
	// (package engine/hosts), "HOST" or "HOST:EVENT": the command gets
	// that agent's payload and its answer is read the agent's way. "" is
	// the seed's contract (HookInput in, HookOutput out).
	Input string
	// Persistent: the command runs as one long-lived process speaking
	// JSON lines (a resident hook), not once per call.
	Persistent bool
	// Pos is the position of the entry in the file.
	Pos Pos
}

// A Tool is one entry of the tools key: a tool the host calls Name, what it
// does and where its input holds what guards read. The locations are
// checked by the engine (package tools), at Pos.
type Tool struct {
	Name string
	Kind events.ToolKind
	// The locations given (see package tools); all empty means the kind's
	// defaults.
	Command, Paths, Contents, URLs []string
	// Shell is the dialect of a shell tool's commands: "", "sh",
	// "powershell" or "cmd" (tools.Spec.Shell).
	Shell string
	// Pos is the position of the entry's key in the file.
	Pos Pos
}

// An Atom is one atoms entry: a Lua file or folder, or a standard pack.
// Exactly one of Path and Stdlib is set. Neither pack names nor parameters are
// checked here: the engine does that, at the positions WithPos gives.
type Atom struct {
	// Path is the .lua file or folder, made absolute against the config
	// file's directory (when the config path is absolute) and cleaned.
	Path string
	// Stdlib names a standard pack.
	Stdlib string
	// With holds the pack's parameters: nil when the entry has no with, else
	// JSON values as map[string]any, []any, string, bool, nil and
	// json.Number (every number, from TOML too: an integer in decimal, a
	// float in Go's shortest 'g' form).
	With map[string]any
	// WithPos holds the position of each key of With, for the errors of a
	// parameter check; nil when With is.
	WithPos map[string]Pos
	// Pos is the position of the entry in the file.
	Pos Pos
}

// Parse validates a configuration file and returns what it holds.
//
// The format comes from the extension of path: .json or .toml (any case).
// path also names the file in positions and anchors relative atom paths: they
// resolve against filepath.Dir(path), so pass an absolute path to get absolute
// atom paths. Parse reads nothing but data; a leading UTF-8 byte order mark is
// skipped (columns on line 1 are counted after it).
//
// Parse returns a *File and a nil error, or a nil *File and the problems as
// [Errors] (all of them, in document order, up to [MaxErrors]), or a nil
// *File and a plain error when tier is not a valid [Tier]. Parse is safe for
// concurrent use and never panics.
func Parse(path string, data []byte, tier Tier) (*File, error) {
	if tier != TierUser && tier != TierPolicy {
		return nil, fmt.Errorf("config: parse %s: invalid tier %d", path, tier)
	}
	root, isTOML, err := parseTree(path, data)
	if err != nil {
		return nil, err
	}
	v := &validator{file: path, tier: tier, toml: isTOML, dir: filepath.Dir(path)}
	f := v.document(root)
	if errs := v.result(); errs != nil {
		return nil, errs
	}
	f.Warnings = v.sortedWarnings()
	return f, nil
}

// parseTree reads a JSON or TOML document (the extension of path chooses)
// into its tree of positioned nodes: the checks every file gets (format,
// size, encoding, syntax, depth). The error is Errors.
func parseTree(path string, data []byte) (root *node, isTOML bool, err error) {
	whole := func(code, msg string) error {
		return Errors{{Code: code, File: path, Msg: msg}}
	}
	format := strings.ToLower(filepath.Ext(path))
	if format != ".json" && format != ".toml" {
		return nil, false, whole(CodeBadFormat, fmt.Sprintf("unknown file format %q: want .json or .toml", filepath.Ext(path)))
	}
	if len(data) > MaxFileSize {
		return nil, false, whole(CodeTooLarge, fmt.Sprintf("file is %d bytes, larger than the limit of %d", len(data), MaxFileSize))
	}
	data = bytes.TrimPrefix(data, []byte(bom))
	lines := docpos.NewLines(data)
	if off, msg := checkEncoding(data); off >= 0 {
		l, c := lines.Pos(off)
		return nil, false, Errors{{Code: CodeBadEncoding, File: path, Line: l, Col: c, Msg: msg}}
	}
	var perr *Error
	if format == ".json" {
		root, perr = parseJSON(data, lines)
	} else {
		root, perr = parseTOML(data, lines)
	}
	if perr != nil {
		perr.File = path
		return nil, false, Errors{perr}
	}
	return root, format == ".toml", nil
}

// checkEncoding returns the offset of the first invalid UTF-8 sequence or NUL
// byte and a message, or -1.
func checkEncoding(data []byte) (int, string) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		if !utf8.Valid(data[:i]) {
			return firstInvalid(data), "file is not valid UTF-8 text"
		}
		return i, "file contains a NUL byte: not a text file"
	}
	if !utf8.Valid(data) {
		return firstInvalid(data), "file is not valid UTF-8 text"
	}
	return -1, ""
}

func firstInvalid(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// bom is the UTF-8 byte order mark, which Parse skips.
const bom = "\xef\xbb\xbf"
