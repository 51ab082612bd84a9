package cli

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/internal/regfile"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/spec"

	"github.com/monad-hooks/monad-hooks/internal/lazy"
)

// caseTable finds the [[case]] tables that make a TOML file a test file when
// it is found by walking a folder; ruleTable the [[rule]] tables of a rule
// file, whose rules carry cases too.
var (
	caseTable = lazy.Regexp{Expr: `(?m)^[ \t]*\[\[case\]\]`}
	ruleTable = lazy.Regexp{Expr: `(?m)^[ \t]*\[\[rule\]\]`}
)

// maxSpecFile bounds one spec file.
const maxSpecFile = 8 << 20

func cmdTest(ctx context.Context, inv *invocation, args []string) int {
	var c common
	fs := newFlagSet("test")
	c.register(fs)
	verbose := fs.Bool("v", false, "print every case, not only the failing ones")
	runPat := fs.String("run", "", "run only the cases whose name matches `REGEXP`")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "cases that run at once")
	luaTimeout := fs.Duration("lua-timeout", 0, "the timeout of Lua hooks that set no timeoutMs (default: the engine's, 1s)")
	pos, code := parseArgs(inv, fs, helpTest, args)
	if code >= 0 {
		return code
	}
	var filter *regexp.Regexp
	if *runPat != "" {
		var err error
		if filter, err = regexp.Compile(*runPat); err != nil {
			return inv.usageErr("-run: %v", err)
		}
	}
	if *parallel < 1 {
		return inv.usageErr("-parallel must be at least 1")
	}
	if *luaTimeout < 0 || *luaTimeout > luaapi.MaxTimeout {
		return inv.usageErr("-lua-timeout must be between 0 and %v", luaapi.MaxTimeout)
	}
	if len(pos) == 0 {
		pos = []string{"."}
	}
	files, err := loadSpecFiles(inv.env, pos)
	if err != nil {
		if msg := err.Error(); strings.Contains(msg, "\n") {
			inv.errorf("invalid test file:")
			fmt.Fprintln(inv.stderr, msg)
		} else {
			inv.errorf("%v", err)
		}
		return ExitFail
	}
	files = filterCases(files, filter)
	if len(files) == 0 {
		inv.errorf("no test cases found in %s", strings.Join(pos, " "))
		return ExitFail
	}
	base, err := c.baseOptions(inv.env)
	if err != nil {
		return reportErr(inv, err)
	}
	tmp, err := os.MkdirTemp("", "monad-hooks-test-*")
	if err != nil {
		inv.errorf("%v", err)
		return ExitFail
	}
	defer os.RemoveAll(tmp)
	r := &spec.Runner{
		Base:    base,
		TempDir: func() (string, error) { return os.MkdirTemp(tmp, "case-*") },
		Extra:   c.extra(inv.env),

		LuaTimeout: *luaTimeout,
	}
	results := r.RunFiles(ctx, files, *parallel)
	if report(inv.stdout, files, results, *verbose) {
		return ExitFail
	}
	return ExitOK
}

// report prints the results like go test: the failing cases (every case with
// verbose) with their mismatches, a line per file, and the totals. It
// reports whether anything failed.
func report(w io.Writer, files []*spec.File, results []spec.CaseResult, verbose bool) (failed bool) {
	var passed, failedN, skipped int
	i := 0
	for _, f := range files {
		fileFailed := false
		var elapsed time.Duration
		for range f.Cases {
			r := &results[i]
			i++
			elapsed += r.Elapsed
			switch {
			case r.Skipped != "":
				skipped++
				if verbose {
					fmt.Fprintf(w, "--- SKIP: %s\n    %s\n", r.Case, r.Skipped)
				}
			case r.Passed():
				passed++
				if verbose {
					fmt.Fprintf(w, "--- PASS: %s (%s)\n", r.Case, seconds(r.Elapsed))
				}
			default:
				failedN++
				fileFailed = true
				fmt.Fprintf(w, "--- FAIL: %s (%s)\n", r.Case, seconds(r.Elapsed))
				if r.Err != nil {
					for _, l := range strings.Split(r.Err.Error(), "\n") {
						fmt.Fprintf(w, "    error: %s\n", l)
					}
				}
				for _, m := range r.Mismatches {
					fmt.Fprintf(w, "    %s\n", m)
				}
				for _, d := range r.Dispatches {
					for _, l := range dispatchNotes(d, r.Mismatches) {
						fmt.Fprintf(w, "    step %d: %s\n", d.Step+1, l)
					}
				}
			}
		}
		if fileFailed {
			fmt.Fprintf(w, "FAIL\t%s\t%s\n", f.Path, seconds(elapsed))
		} else {
			fmt.Fprintf(w, "ok  \t%s\t%s\n", f.Path, seconds(elapsed))
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed", passed, failedN)
	if skipped > 0 {
		fmt.Fprintf(w, ", %d skipped", skipped)
	}
	fmt.Fprintln(w)
	return failedN > 0
}

// dispatchNotes says, for a dispatch of a failing case that has
// mismatches, which hook decided (with its reason) and every hook that
// failed, so that "want deny, got proceed" comes with its why.
func dispatchNotes(d spec.Dispatch, ms []spec.Mismatch) []string {
	if !slices.ContainsFunc(ms, func(m spec.Mismatch) bool { return m.Step == d.Step }) || d.Err != nil {
		return nil
	}
	res := d.Result
	var notes []string
	if w := winner(res); w != nil {
		notes = append(notes, fmt.Sprintf("%s by hook %s: %q", res.Decision, w.Hook, res.Reason))
	} else if len(res.Audit) == 0 {
		notes = append(notes, "no hook ran")
	} else {
		notes = append(notes, fmt.Sprintf("no hook decided (%d ran)", len(res.Audit)))
	}
	for _, r := range res.Audit {
		if r.Outcome != engine.OutcomeOK {
			cause, _, _ := strings.Cut(r.Error, "\n")
			notes = append(notes, fmt.Sprintf("hook %s failed (%s): %s", r.Hook, r.Outcome, cause))
		}
		if slices.Contains(r.Ignored, "decision") {
			notes = append(notes, fmt.Sprintf("hook %s returned %s, which %s does not honour", r.Hook, r.Decision, res.Event))
		}
	}
	if res.ConfigError != "" {
		notes = append(notes, "configuration error: "+res.ConfigError)
	}
	return notes
}

// winner returns the audit record of the hook whose decision the result
// took (the first to reach the strongest decision), or nil.
func winner(res engine.Result) *engine.Record {
	if res.Decision == events.Proceed {
		return nil
	}
	for i := range res.Audit {
		r := &res.Audit[i]
		if r.FailedClosed && res.Decision == events.Deny ||
			r.Outcome == engine.OutcomeOK && r.Decision == res.Decision && !slices.Contains(r.Ignored, "decision") {
			return r
		}
	}
	return nil
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3fs", d.Seconds()) }

// loadSpecFiles loads the spec files named by paths, in order: a file is
// decoded strictly; a folder is walked in lexical order for the *.toml files
// that hold [[case]] tables (other TOML files, such as agents.toml, are
// skipped), leaving out hidden folders and node_modules. A rule file (with
// [[rule]] tables and no [[case]]) becomes the cases of its rules
// (spec.RuleCases), run against the rule file alone.
func loadSpecFiles(env Env, paths []string) ([]*spec.File, error) {
	var files []*spec.File
	seen := map[string]bool{}
	load := func(shown, full string, requireCases bool) error {
		if seen[full] {
			return nil
		}
		seen[full] = true
		data, err := readBounded(full, maxSpecFile)
		if err != nil {
			return err
		}
		if ruleTable.Get().Match(data) && !caseTable.Get().Match(data) {
			rf, err := engine.LoadRuleFile(nil, full)
			if err != nil {
				return err
			}
			files = append(files, spec.RuleCases(shown, full, data, rf))
			return nil
		}
		if requireCases && !caseTable.Get().Match(data) {
			return nil
		}
		f, err := spec.Decode(shown, data)
		if err != nil {
			return err
		}
		files = append(files, f)
		return nil
	}
	for _, p := range paths {
		full := abs(env, p)
		fi, err := os.Stat(full)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			if err := load(p, full, false); err != nil {
				return nil, err
			}
			continue
		}
		err = filepath.WalkDir(full, func(fp string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if fp != full && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
					return filepath.SkipDir
				}
				return nil
			}
			if filepath.Ext(fp) != ".toml" {
				return nil
			}
			rel, err := filepath.Rel(full, fp)
			if err != nil {
				return err
			}
			return load(filepath.Join(p, rel), fp, true)
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// readBounded reads a regular file of at most max bytes (see package
// regfile: a FIFO or a device is refused without blocking).
func readBounded(path string, max int64) ([]byte, error) {
	return regfile.Read(path, max)
}

// filterCases keeps the cases whose name matches re (all when re is nil) and
// the files that still have cases.
func filterCases(files []*spec.File, re *regexp.Regexp) []*spec.File {
	var out []*spec.File
	for _, f := range files {
		if re != nil {
			g := *f
			g.Cases = nil
			for _, c := range f.Cases {
				if re.MatchString(c.Name) {
					g.Cases = append(g.Cases, c)
				}
			}
			f = &g
		}
		if len(f.Cases) > 0 {
			out = append(out, f)
		}
	}
	return out
}
