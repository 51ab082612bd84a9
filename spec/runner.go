package spec

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// Runner runs spec cases. Its zero value is not ready: set TempDir. A Runner is
// safe for concurrent use once built; it does not change its fields.
type Runner struct {
	// Handlers are the named Go handlers cases may use; nil means
	// [Handlers].
	Handlers map[string]HandlerMaker
	// Base are the engine options for cases that configure no hooks or
	// files of their own (how `monad-hooks test` runs users' cases
	// against their configuration); cases that do configure hooks start
	// from an empty engine.
	Base []engine.Option
	// TempDir returns a fresh, empty directory that the case may use as its
	// sandbox root (t.TempDir in tests).
	TempDir func() (string, error)
	// Extra, when set, replaces [FileOptions]: it returns the engine
	// options for the files, Lua scripts, stdlib packs and command hooks
	// of a case, given its root.
	Extra func(c *Case, root string, generated Generated) ([]engine.Option, error)
	// LuaTimeout, when above 0, is the timeout of every case's Lua hooks
	// and stdlib packs that set no timeoutMs (otherwise the engine's
	// default, 1 s). A machine slower than the one the cases were written
	// on (a loaded CI runner, the race detector) wants a higher one, so
	// that a hook expected to answer is not timed out; the cases whose
	// point is a timeout set their own timeoutMs.
	LuaTimeout time.Duration
}

// Generated lists the configuration the runner wrote for a case's hooks:
// command hooks as agents.json files, inline Lua as scripts.
type Generated struct {
	Policy []string // policy files (absolute)
	User   []string // user config files (absolute)
	Lua    []string // Lua scripts (absolute)
}

// CaseResult is the outcome of one case.
type CaseResult struct {
	File       string
	Case       string
	Skipped    string
	Mismatches []Mismatch
	// Dispatches are the dispatches that ran, in step order, with what
	// they returned: what a report shows beside the mismatches (the hook
	// that decided, the hooks that failed).
	Dispatches []Dispatch
	// Err is a problem with the case itself (bad TOML values, an unknown
	// handler), or an unexpected engine start failure.
	Err     error
	Elapsed time.Duration
}

// Dispatch is one dispatch of a case as it ran: its step (0-based), and the
// Result, or the error, of engine.Dispatch.
type Dispatch struct {
	Step   int
	Result engine.Result
	Err    error
}

// Passed reports whether the case ran and matched.
func (r *CaseResult) Passed() bool {
	return r.Skipped == "" && r.Err == nil && len(r.Mismatches) == 0
}

// RunFiles runs every case of files, at most parallel at once, and returns the
// results in file and case order.
func (r *Runner) RunFiles(ctx context.Context, files []*File, parallel int) []CaseResult {
	type job struct {
		f *File
		c *Case
		i int
	}
	var jobs []job
	for _, f := range files {
		for i := range f.Cases {
			jobs = append(jobs, job{f, &f.Cases[i], len(jobs)})
		}
	}
	out := make([]CaseResult, len(jobs))
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	for _, j := range jobs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out[j.i] = r.RunCase(ctx, j.f, j.c)
		})
	}
	wg.Wait()
	return out
}

// RunCase builds the case's engine, runs its steps in order and compares each
// outcome with what the step wants.
func (r *Runner) RunCase(ctx context.Context, f *File, c *Case) (res CaseResult) {
	res = CaseResult{File: f.Path, Case: c.Name}
	start := time.Now()
	defer func() { res.Elapsed = time.Since(start) }()
	if c.Skip != "" {
		res.Skipped = c.Skip
		return res
	}
	root, err := r.TempDir()
	if err != nil {
		res.Err = err
		return res
	}
	opts, err := r.options(c, root)
	if err != nil {
		res.Err = fmt.Errorf("%w: %w", errCaseSetup, err)
		return res
	}
	eng, err := engine.New(ctx, opts...)
	if c.LoadError != nil {
		res.Mismatches = checkLoadError(c.LoadError, err)
		if eng != nil {
			eng.Close()
		}
		return res
	}
	if err != nil {
		res.Err = fmt.Errorf("engine did not start: %w", err)
		return res
	}
	defer eng.Close()
	steps := c.steps()
	if len(steps) == 0 {
		res.Err = fmt.Errorf("%w: the case has no dispatch (event/input/want or [[case.step]])", errCaseSetup)
		return res
	}
	for i := range steps {
		s := &steps[i]
		if err := applyWrites(root, s); err != nil {
			res.Err = fmt.Errorf("step %d: %w", i+1, err)
			return res
		}
		if len(s.Write)+len(s.Remove) > 0 {
			// A dispatch would load the change in the background; the step
			// is about the dispatch after that load. (A broken change is
			// the step's configError.)
			eng.Reload(ctx)
		}
		in, err := s.decodeInput()
		if err != nil {
			if s.Want.Error != "" {
				res.Mismatches = append(res.Mismatches, check(i, &s.Want, engine.Result{}, fmt.Errorf("%w: %w", engine.ErrInvalidInput, err), 0)...)
				continue
			}
			res.Err = fmt.Errorf("step %d: invalid input: %w", i+1, err)
			return res
		}
		t0 := time.Now()
		got, derr := eng.Dispatch(ctx, in)
		for _, m := range check(i, &s.Want, got, derr, time.Since(t0)) {
			m.StepName = s.Name
			res.Mismatches = append(res.Mismatches, m)
		}
		res.Dispatches = append(res.Dispatches, Dispatch{Step: i, Result: got, Err: derr})
	}
	return res
}

func checkLoadError(want []string, err error) []Mismatch {
	var codes []string
	var ce engine.ConfigErrors
	if errors.As(err, &ce) {
		for _, e := range ce {
			codes = append(codes, e.Code)
		}
	} else if err != nil {
		codes = append(codes, "error: "+err.Error())
	}
	if !sameSet(dedupe(want), dedupe(codes)) {
		msg := "none"
		if err != nil {
			msg = fmt.Sprintf("%v (%v)", codes, err)
		}
		return []Mismatch{{Field: "loadError", Want: fmt.Sprint(want), Got: msg}}
	}
	return nil
}

func dedupe(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// options builds the engine options of a case.
func (r *Runner) options(c *Case, root string) ([]engine.Option, error) {
	if err := writeFiles(root, c.Files); err != nil {
		return nil, err
	}
	handlers := r.Handlers
	if handlers == nil {
		handlers = Handlers()
	}
	var opts []engine.Option
	if r.LuaTimeout > 0 {
		opts = append(opts, engine.WithLuaPool(0, r.LuaTimeout))
	}
	if len(c.Hooks) == 0 && len(c.Files) == 0 && len(c.Config) == 0 && len(c.Policy) == 0 && len(c.Lua) == 0 && len(c.Stdlib) == 0 {
		opts = append(opts, r.Base...)
	}
	if c.Options.MaxStopContinues != nil {
		opts = append(opts, engine.WithMaxStopContinues(*c.Options.MaxStopContinues))
	}
	if c.Options.MaxParallel > 0 {
		opts = append(opts, engine.WithMaxParallel(c.Options.MaxParallel))
	}
	if v := c.Options.Vouch; v != nil {
		opts = append(opts, engine.WithModelVouch(func(m string) bool { return slices.Contains(v, m) }))
	}
	if len(c.Options.Tools) > 0 {
		opts = append(opts, engine.WithTools(c.Options.Tools...))
	}
	if d := c.Options.UnguardedTools; d != "" {
		opts = append(opts, engine.WithUnguardedTools(events.Decision(d)))
	}
	shared := &Shared{}
	var gen Generated
	userGroups := map[string][]map[string]any{}
	policyGroups := map[string][]map[string]any{}
	for i, h := range c.Hooks {
		ev := h.Event
		if ev == "" {
			ev = c.defaultEvent()
		}
		switch {
		case h.Go != "":
			mk, ok := handlers[h.Go]
			if !ok {
				return nil, fmt.Errorf("hook #%d: unknown Go handler %q (have %v)", i+1, h.Go, HandlerNames())
			}
			hd, err := mk(h.Args, shared)
			if err != nil {
				return nil, fmt.Errorf("hook #%d: %w", i+1, err)
			}
			e, err := events.ParseEvent(ev)
			if err != nil {
				return nil, fmt.Errorf("hook #%d: %w", i+1, err)
			}
			oe, err := engine.ParseOnError(h.OnError)
			if err != nil {
				return nil, fmt.Errorf("hook #%d: %w", i+1, err)
			}
			if h.Tier != "" && h.Tier != "atom" {
				return nil, fmt.Errorf("hook #%d: Go handlers are atom hooks, not %s", i+1, h.Tier)
			}
			var kinds []events.ToolKind
			for _, k := range h.Kind {
				kinds = append(kinds, events.ToolKind(k))
			}
			opts = append(opts, engine.WithHook(engine.GoHook{
				Name: fmt.Sprintf("%s#%d", h.Go, i+1), Event: e, Matcher: h.Matcher, Kinds: kinds, OnError: oe,
				Timeout: time.Duration(h.TimeoutMs) * time.Millisecond, Handler: hd,
			}))
		case h.Lua != "":
			p := filepath.Join(root, fmt.Sprintf("hook%d.lua", i+1))
			if err := os.WriteFile(p, []byte(h.Lua), 0o644); err != nil {
				return nil, err
			}
			gen.Lua = append(gen.Lua, p)
		case h.Command != "":
			entry := map[string]any{"command": h.Command}
			if h.TimeoutMs != 0 {
				entry["timeoutMs"] = h.TimeoutMs
			}
			if h.OnError != "" {
				entry["onError"] = h.OnError
			}
			if h.Persistent {
				entry["persistent"] = true
			}
			group := map[string]any{"hooks": []any{entry}}
			if h.Matcher != "" {
				group["matcher"] = h.Matcher
			}
			if len(h.Kind) > 0 {
				group["kind"] = h.Kind
			}
			switch h.Tier {
			case "", "user":
				userGroups[ev] = append(userGroups[ev], group)
			case "policy":
				policyGroups[ev] = append(policyGroups[ev], group)
			default:
				return nil, fmt.Errorf("hook #%d: command hooks are policy or user hooks, not %s", i+1, h.Tier)
			}
		default:
			return nil, fmt.Errorf("hook #%d: set one of go, lua or command", i+1)
		}
	}
	if len(policyGroups) > 0 {
		p := filepath.Join(root, "generated-policy.json")
		if err := writeJSON(p, map[string]any{"policyHooks": policyGroups}); err != nil {
			return nil, err
		}
		gen.Policy = append(gen.Policy, p)
	}
	if len(userGroups) > 0 {
		p := filepath.Join(root, "generated-agents.json")
		if err := writeJSON(p, map[string]any{"hooks": userGroups}); err != nil {
			return nil, err
		}
		gen.User = append(gen.User, p)
	}
	if len(gen.Lua)+len(gen.Policy)+len(gen.User)+len(c.Config)+len(c.Policy)+len(c.Lua)+len(c.Stdlib)+len(c.Packs) > 0 {
		extra := r.Extra
		if extra == nil {
			extra = FileOptions
		}
		more, err := extra(c, root, gen)
		if err != nil {
			return nil, err
		}
		opts = append(opts, more...)
	}
	return opts, nil
}

// FileOptions returns the engine options for the configuration files, Lua
// scripts, stdlib packs and command hooks of a case: one engine.WithFiles
// rooted at root, with the case's environment (or a small fixed one).
func FileOptions(c *Case, root string, gen Generated) ([]engine.Option, error) {
	abs := func(names []string) ([]string, error) {
		var out []string
		for _, n := range names {
			p, err := inside(root, n)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		return out, nil
	}
	policy, err := abs(c.Policy)
	if err != nil {
		return nil, err
	}
	user, err := abs(c.Config)
	if err != nil {
		return nil, err
	}
	lua, err := abs(c.Lua)
	if err != nil {
		return nil, err
	}
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + root, "LANG=C.UTF-8"}
	if c.Options.Env != nil {
		env = env[:0]
		for _, k := range slices.Sorted(maps.Keys(c.Options.Env)) {
			env = append(env, k+"="+c.Options.Env[k])
		}
	}
	var packs []engine.Pack
	for _, n := range c.Stdlib {
		packs = append(packs, engine.Pack{Name: n})
	}
	for _, p := range c.Packs {
		packs = append(packs, engine.Pack{Name: p.Name, With: p.With})
	}
	return []engine.Option{engine.WithFiles(engine.Files{
		Policy: append(gen.Policy, policy...),
		User:   append(gen.User, user...),
		Lua:    append(gen.Lua, lua...),
		Stdlib: packs,
		Root:   root,
		Home:   root,
		Env:    env,
	})}, nil
}
