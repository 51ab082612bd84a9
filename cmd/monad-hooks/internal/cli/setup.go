package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/monad-hooks/monad-hooks/engine/hosts/settings"
	"github.com/monad-hooks/monad-hooks/internal/textdiff"
)

// maxSettingsSize bounds a settings file import and install read.
const maxSettingsSize = 4 << 20

const helpImport = `Usage: monad-hooks import --from AGENT [--toml] [-o FILE] SETTINGS

Import reads the hook configuration of an agent and prints the equivalent
agents.json (agents.toml with --toml) on stdout, or writes it to -o FILE.
AGENT and SETTINGS are one of:

	claude-code  .claude/settings.json, ~/.claude/settings.json (its "hooks")
	gemini-cli   .gemini/settings.json, ~/.gemini/settings.json
	codex        .codex/hooks.json, or the [hooks] tables of config.toml
	cursor       .cursor/hooks.json, ~/.cursor/hooks.json
	crush        crush.json, .crush.json, ~/.config/crush/crush.json

Every imported hook keeps its own input format: it gets "input": "AGENT"
(or "AGENT:Event" for an event that is not the agent's first for its Monad
event), so its script gets the agent's payload and its answer is read the
agent's way; existing scripts run unchanged. Events map to Monad events,
matchers to RE2 matchers (an exact tool name or list is anchored), timeouts
to timeoutMs (Gemini's are milliseconds already; the others' seconds), and
Cursor's failClosed to "onError": "deny".

Anything that cannot be carried over is listed on stderr, a line each (FILE:
where: what happened): hooks that are not imported (an http, prompt or
agent hook; an async hook; an event with no Monad equivalent; a matcher
that is not a regular expression) and what an imported hook loses (a
matcher at an event that has none, an "if" condition, a status message).
Nothing is dropped silently: when a hook is not imported, import exits 1
(the output is written all the same).

	--from AGENT   the agent whose settings SETTINGS holds
	--toml         print agents.toml instead of agents.json
	-o FILE        write FILE (atomically) instead of stdout; an existing
	               FILE is refused unless --force
	--force        overwrite FILE
` + exitCodesHelp + `
Examples:

	monad-hooks import --from claude-code .claude/settings.json > agents.json
	monad-hooks import --from codex --toml ~/.codex/config.toml -o agents.toml
`

const helpInstall = `Usage: monad-hooks install --host AGENT [--project|--user] [--dry-run] [FLAGS]

Install writes the entries of the agent's hook settings that route each of
its hook events through "monad-hooks run --host AGENT", so that the agent
runs the stdlib guards, your agents.json and the operator policy on every
tool call, prompt and stop. It prints the change as a diff first; with
--dry-run it writes nothing.

	--project      the project's file, under --dir (default: the current
	               directory): .claude/settings.json, .gemini/settings.json,
	               .codex/hooks.json, .cursor/hooks.json or crush.json (the
	               default)
	--user         the file in your home folder ($HOME): ~/.claude/..., ...
	--dry-run      print the diff, write nothing
	--dir DIR      the project folder (--project)
	--command BIN  the monad-hooks the agent runs (default monad-hooks, found
	               on the agent's PATH; an absolute path also works)
	--config FILE  passed on to run (repeatable); a relative FILE is relative
	               to the folder the agent runs its hooks in

Each event gets one entry: BIN run --host AGENT --state
"$HOME/.AGENT/monad-hooks-state.json" (the state carries the continuation
count and session context across runs, so --max-stop-continues holds). The
rest of the file is kept as it was: its keys in their order, its
indentation, its other hooks. Install is idempotent: run twice, it changes
nothing; an entry of an earlier install with another command is replaced.
Cursor's entries get "failClosed": true (Cursor fails open otherwise).
Gemini CLI's AfterModel, which runs for every streamed chunk, is left out.
For Codex, install writes hooks.json: hooks in the [hooks] tables of
config.toml keep running beside it (Codex warns when a folder has both).

The file is written atomically (a temporary file, synced, renamed over it),
after a copy of the old one to FILE.monad-hooks.bak. A file that is not a
JSON object (JSON with comments included) is never rewritten, nor a file the
organization manages (managed-settings.json, /etc/..., requirements.toml),
also through a symbolic link. uninstall --host AGENT removes exactly the
entries install wrote.
` + exitCodesHelp + `
Examples:

	monad-hooks install --host claude-code --project --dry-run
	monad-hooks install --host cursor --user --config ~/agents.json
	monad-hooks uninstall --host claude-code --project
`

const helpUninstall = `Usage: monad-hooks uninstall --host AGENT [--project|--user] [--dry-run] [--dir DIR]

Uninstall removes from the agent's hook settings the entries install wrote
(those that run "monad-hooks run --host AGENT"), and a group, event or hooks
key their removal leaves empty; nothing else. It prints the change as a
diff first, writes atomically after a backup (FILE.monad-hooks.bak), and
with --dry-run writes nothing. See "monad-hooks install --help".
` + exitCodesHelp + `
Examples:

	monad-hooks uninstall --host claude-code --project --dry-run
`

func cmdImport(_ context.Context, inv *invocation, args []string) int {
	fs := newFlagSet("import")
	from := fs.String("from", "", "the `AGENT` whose settings to read")
	asTOML := fs.Bool("toml", false, "print agents.toml")
	out := fs.String("o", "", "write `FILE` instead of stdout")
	force := fs.Bool("force", false, "overwrite -o FILE")
	pos, code := parseArgs(inv, fs, helpImport, args)
	if code >= 0 {
		return code
	}
	if *from == "" {
		return inv.usageErr("missing --from AGENT (one of %s)", strings.Join(settings.Agents(), ", "))
	}
	if len(pos) != 1 {
		return inv.usageErr("want one SETTINGS file, got %d arguments", len(pos))
	}
	path := abs(inv.env, pos[0])
	data, err := readBounded(path, maxSettingsSize)
	if err != nil {
		inv.errorf("%v", err)
		return ExitFail
	}
	im, err := settings.Import(*from, pos[0], data)
	if err != nil {
		if strings.HasPrefix(err.Error(), "no settings known") {
			return inv.usageErr("--from: %v", err)
		}
		inv.errorf("%v", err)
		return ExitFail
	}
	doc := im.JSON()
	if *asTOML {
		if doc, err = im.TOML(); err != nil {
			inv.errorf("%v", err)
			return ExitFail
		}
	}
	for _, n := range im.Notes {
		fmt.Fprintf(inv.stderr, "monad-hooks import: %s: %s\n", pos[0], n)
	}
	if *out == "" {
		if _, err := inv.stdout.Write(doc); err != nil {
			inv.errorf("writing stdout: %v", err)
			return ExitFail
		}
	} else {
		target := abs(inv.env, *out)
		if _, err := os.Lstat(target); err == nil && !*force {
			inv.errorf("%s exists: use --force to overwrite it", *out)
			return ExitFail
		}
		if err := writeFileAtomic(target, doc, 0o644); err != nil {
			inv.errorf("%v", err)
			return ExitFail
		}
	}
	fmt.Fprintf(inv.stderr, "monad-hooks import: %d %s imported", im.Imported, plural(im.Imported, "hook", "hooks"))
	if im.Dropped > 0 {
		fmt.Fprintf(inv.stderr, ", %d not imported (listed above)\n", im.Dropped)
		return ExitFail
	}
	fmt.Fprintln(inv.stderr)
	return ExitOK
}

// setupFlags are the flags of install and uninstall.
type setupFlags struct {
	host          string
	project, user bool
	dryRun        bool
	dir           string
	command       string
	config        stringList
}

func cmdInstall(_ context.Context, inv *invocation, args []string) int {
	return setup(inv, "install", helpInstall, args)
}

func cmdUninstall(_ context.Context, inv *invocation, args []string) int {
	return setup(inv, "uninstall", helpUninstall, args)
}

func setup(inv *invocation, name, help string, args []string) int {
	var sf setupFlags
	flags := newFlagSet(name)
	flags.StringVar(&sf.host, "host", "", "the `AGENT` whose settings to edit")
	flags.BoolVar(&sf.project, "project", false, "the project's settings file (the default)")
	flags.BoolVar(&sf.user, "user", false, "the settings file in the home folder")
	flags.BoolVar(&sf.dryRun, "dry-run", false, "print the diff, write nothing")
	flags.StringVar(&sf.dir, "dir", "", "the project `DIR` (default: the current directory)")
	if name == "install" {
		flags.StringVar(&sf.command, "command", "monad-hooks", "the monad-hooks `BIN` the agent runs")
		flags.Var(&sf.config, "config", "a `FILE` passed on to run --config; repeatable")
	}
	pos, code := parseArgs(inv, flags, help, args)
	if code >= 0 {
		return code
	}
	switch {
	case len(pos) > 0:
		return inv.usageErr("unexpected argument %q", pos[0])
	case sf.host == "":
		return inv.usageErr("missing --host AGENT (one of %s)", strings.Join(settings.Agents(), ", "))
	case sf.project && sf.user:
		return inv.usageErr("--project and --user exclude each other")
	}
	scope := settings.Project
	if sf.user {
		scope = settings.User
	}
	target, err := settings.Locate(sf.host, scope, abs(inv.env, orDot(sf.dir)), inv.env.lookup("HOME"))
	if err != nil {
		if strings.HasPrefix(err.Error(), "no settings known") {
			return inv.usageErr("--host: %v", err)
		}
		inv.errorf("%v", err)
		return ExitFail
	}
	// Never a managed file, also through a symbolic link.
	if real, err := resolveExisting(target); err == nil && settings.Managed(sf.host, real) {
		inv.errorf("%s is %s, a file %s's organization manages: monad-hooks never writes it", target, real, sf.host)
		return ExitFail
	}
	old, err := readBounded(target, maxSettingsSize)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		inv.errorf("%v", err)
		return ExitFail
	}
	var next []byte
	var changed bool
	if name == "install" {
		var extra []string
		for _, c := range sf.config {
			extra = append(extra, "--config", c)
		}
		cmd, err := settings.Command(sf.host, sf.command, extra)
		if err != nil {
			return inv.usageErr("--command: %v", err)
		}
		if !onPath(inv.env, sf.command) {
			fmt.Fprintf(inv.stderr, "monad-hooks install: note: %s is not on this PATH; the agent must find it on its own (or pass --command /path/to/monad-hooks)\n", sf.command)
		}
		next, changed, err = settings.Install(sf.host, old, cmd)
		if err != nil {
			inv.errorf("%s: %v; it is left as it is", target, err)
			return ExitFail
		}
	} else {
		next, changed, err = settings.Uninstall(sf.host, old)
		if err != nil {
			inv.errorf("%s: %v; it is left as it is", target, err)
			return ExitFail
		}
	}
	if !changed {
		what := "monad-hooks is installed"
		if name == "uninstall" {
			what = "no entry of monad-hooks"
		}
		fmt.Fprintf(inv.stdout, "%s: %s already; nothing to change.\n", target, what)
		return ExitOK
	}
	oldName := target
	if !existed {
		oldName = "/dev/null"
	}
	fmt.Fprint(inv.stdout, textdiff.Unified(oldName, target, string(old), string(next)))
	if sf.dryRun {
		fmt.Fprintf(inv.stdout, "(--dry-run: %s is not written)\n", target)
		return ExitOK
	}
	mode := fs.FileMode(0o644)
	if existed {
		if fi, err := os.Stat(target); err == nil {
			mode = fi.Mode().Perm()
		}
		if err := writeFileAtomic(target+".monad-hooks.bak", old, mode); err != nil {
			inv.errorf("backup: %v; %s is left as it is", err, target)
			return ExitFail
		}
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		inv.errorf("%v", err)
		return ExitFail
	}
	if err := writeFileAtomic(target, next, mode); err != nil {
		inv.errorf("%v", err)
		return ExitFail
	}
	fmt.Fprintf(inv.stdout, "wrote %s", target)
	if existed {
		fmt.Fprintf(inv.stdout, " (the old one is %s.monad-hooks.bak)", target)
	}
	fmt.Fprintln(inv.stdout)
	return ExitOK
}

// onPath reports whether bin names a file, or is found in the
// environment's PATH.
func onPath(env Env, bin string) bool {
	if strings.ContainsRune(bin, filepath.Separator) {
		_, err := os.Stat(abs(env, bin))
		return err == nil
	}
	for _, d := range filepath.SplitList(env.lookup("PATH")) {
		if fi, err := os.Stat(filepath.Join(d, bin)); err == nil && !fi.IsDir() {
			return true
		}
	}
	return false
}

func orDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// resolveExisting resolves the symbolic links of path, or of its nearest
// existing parent when it does not exist.
func resolveExisting(path string) (string, error) {
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest), nil
		}
		if filepath.Dir(p) == p {
			return "", fmt.Errorf("%s: no existing parent", path)
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// writeFileAtomic replaces path with data atomically: a temporary file in
// the same folder, synced, renamed over it, and the folder synced, so that
// a reader never sees it half written and a crash leaves the old or the new
// file.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: not every platform syncs a folder
		d.Close()
	}
	return nil
}
