package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/monad-hooks/monad-hooks/spec"
)

// TestE2ETransportsAgree proves "behaviour is identical over both
// transports": for every case of the project's spec suite that the command
// line can express, serve over JSON lines and serve over HTTP return the
// same Result (with audit[].latencyMs removed; an invalid input gets the
// same {"error"} from both transports of serve).
//
// A case is included when it has one inline dispatch (event/input/want, no
// [[case.step]]), loads without error (no loadError), is not skipped, and
// configures only what flags and files can: command hooks, inline Lua,
// config/policy/lua files, stdlib packs, maxStopContinues, vouch and env.
// Left out are cases with Go handler hooks (the binary has no Go hooks) and
// with maxParallel (no flag). The test logs the cases it includes and fails
// if there are fewer than a floor, so that it cannot pass vacuously.
func TestE2ETransportsAgree(t *testing.T) {
	t.Parallel()
	dir := specDir(t)
	files, err := spec.Load(os.DirFS(dir), ".")
	if err != nil {
		t.Fatal(err)
	}

	type job struct {
		file string
		c    spec.Case
	}
	var jobs []job
	var left []string
	for _, f := range files {
		for _, c := range f.Cases {
			if why := expressible(&c); why != "" {
				left = append(left, fmt.Sprintf("%s: %s (%s)", f.Path, c.Name, why))
				continue
			}
			jobs = append(jobs, job{f.Path, c})
		}
	}
	for _, j := range jobs {
		t.Logf("included: %s: %s", j.file, j.c.Name)
	}
	t.Logf("%d cases included, %d left out", len(jobs), len(left))
	if len(jobs) < 25 {
		t.Fatalf("only %d cases are expressible; left out:\n%s", len(jobs), strings.Join(left, "\n"))
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for _, j := range jobs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if msg := compareTransports(t, j.c); msg != "" {
				t.Errorf("%s: %s: %s", j.file, j.c.Name, msg)
			}
		})
	}
	wg.Wait()
}

// expressible says why a case cannot be run through the command line, or "".
func expressible(c *spec.Case) string {
	switch {
	case c.Skip != "":
		return "skipped"
	case len(c.Steps) > 0:
		return "several dispatches"
	case c.LoadError != nil:
		return "load error case"
	case c.Event == "" && c.Input == nil && c.InputJSON == "":
		return "no dispatch"
	case c.Options.MaxParallel != 0:
		return "maxParallel"
	case strings.Contains(c.InputJSON, "\n") && !json.Valid([]byte(c.InputJSON)):
		return "the input is not one line"
	}
	for _, h := range c.Hooks {
		if h.Go != "" {
			return "Go handler"
		}
	}
	return ""
}

// caseSetup writes a case's configuration into root, as the spec runner
// does, and returns the flags that load it and the environment.
func caseSetup(t *testing.T, c *spec.Case, root string) (flags, env []string) {
	for name, content := range c.Files {
		p := filepath.Join(root, name)
		writeFile(t, p, content)
		if strings.HasSuffix(name, ".sh") {
			os.Chmod(p, 0o755)
		}
	}
	defaultEvent := c.Event
	if defaultEvent == "" {
		defaultEvent, _ = c.Input["event"].(string)
	}
	user, policy := map[string][]any{}, map[string][]any{}
	for i, h := range c.Hooks {
		ev := h.Event
		if ev == "" {
			ev = defaultEvent
		}
		if h.Lua != "" {
			p := filepath.Join(root, fmt.Sprintf("hook%d.lua", i+1))
			writeFile(t, p, h.Lua)
			flags = append(flags, "--lua", p)
			continue
		}
		entry := map[string]any{"command": h.Command}
		if h.TimeoutMs != 0 {
			entry["timeoutMs"] = h.TimeoutMs
		}
		if h.OnError != "" {
			entry["onError"] = h.OnError
		}
		group := map[string]any{"hooks": []any{entry}}
		if h.Matcher != "" {
			group["matcher"] = h.Matcher
		}
		if h.Tier == "policy" {
			policy[ev] = append(policy[ev], group)
		} else {
			user[ev] = append(user[ev], group)
		}
	}
	writeJSON := func(name string, v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, name)
		writeFile(t, p, string(b))
		return p
	}
	if len(policy) > 0 {
		flags = append(flags, "--policy", writeJSON("generated-policy.json", map[string]any{"policyHooks": policy}))
	}
	for _, p := range c.Policy {
		flags = append(flags, "--policy", filepath.Join(root, p))
	}
	if len(user) > 0 {
		flags = append(flags, "--config", writeJSON("generated-agents.json", map[string]any{"hooks": user}))
	}
	if len(c.Packs) > 0 {
		var atoms []any
		for _, p := range c.Packs {
			atoms = append(atoms, map[string]any{"stdlib": p.Name, "with": p.With})
		}
		flags = append(flags, "--config", writeJSON("generated-packs.json", map[string]any{"atoms": atoms}))
	}
	for _, p := range c.Config {
		flags = append(flags, "--config", filepath.Join(root, p))
	}
	for _, p := range c.Lua {
		flags = append(flags, "--lua", filepath.Join(root, p))
	}
	if len(c.Stdlib) > 0 {
		flags = append(flags, "--stdlib", strings.Join(c.Stdlib, ","))
	} else {
		flags = append(flags, "--stdlib", "none")
	}
	if n := c.Options.MaxStopContinues; n != nil {
		flags = append(flags, "--max-stop-continues", strconv.Itoa(*n))
	}
	for _, m := range c.Options.Vouch {
		flags = append(flags, "--vouch-model", m)
	}
	flags = append(flags, "--root", root)
	env = procEnv(root)
	if c.Options.Env != nil {
		env = nil
		for _, k := range slices.Sorted(maps.Keys(c.Options.Env)) {
			env = append(env, k+"="+c.Options.Env[k])
		}
	}
	return flags, env
}

// caseInput is the HookInput line of a case's inline dispatch, and its event.
func caseInput(t *testing.T, c *spec.Case) (line []byte, event string) {
	line = []byte(c.InputJSON)
	if c.InputJSON == "" {
		m := map[string]any{}
		maps.Copy(m, c.Input)
		var err error
		if line, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) == nil && m != nil {
		if raw, ok := m["event"]; ok {
			json.Unmarshal(raw, &event)
		} else if c.Event != "" {
			m["event"], _ = json.Marshal(c.Event)
			line, _ = json.Marshal(m)
			event = c.Event
		}
	}
	if event == "" {
		event = c.Event
	}
	var compact bytes.Buffer
	if json.Compact(&compact, line) == nil {
		line = compact.Bytes()
	}
	return line, event
}

// compareTransports runs the case's dispatch over both transports and
// returns what differs, or "".
func compareTransports(t *testing.T, c spec.Case) string {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	line, _ := caseInput(t, &c)
	fresh := func() (flags, env []string) {
		os.RemoveAll(root)
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		return caseSetup(t, &c, root)
	}

	// serve, JSON lines.
	flags, env := fresh()
	lines := mhEnv(t, base, env, string(line)+"\n", append([]string{"serve"}, flags...)...)
	if lines.code != 0 {
		return fmt.Sprintf("serve (stdin): exit %d: %s", lines.code, lines.stderr)
	}
	viaLines := normalize(strings.TrimSuffix(lines.stdout, "\n"))

	// serve, HTTP.
	flags, env = fresh()
	s := startServer(t, base, env, append([]string{"--listen", "127.0.0.1:0"}, flags...)...)
	status, body, err := s.post(string(line))
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(); err != nil || code != 0 {
		return fmt.Sprintf("serve (HTTP): %v, exit %d: %s", err, code, s.stderr.String())
	}
	viaHTTP := normalize(strings.TrimSuffix(body, "\n"))
	if viaLines != viaHTTP {
		return fmt.Sprintf("JSON lines and HTTP differ:\nlines: %s\nHTTP (%d): %s", viaLines, status, viaHTTP)
	}
	if isError := strings.HasPrefix(viaHTTP, `{"error"`); isError != (status == 400) {
		return fmt.Sprintf("HTTP status %d for %s", status, viaHTTP)
	}

	return ""
}

// normalize re-encodes a Result with sorted keys and without the audit
// latencies.
func normalize(s string) string {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return "!" + err.Error() + ": " + s
	}
	if _, err := dec.Token(); err != io.EOF {
		return "!trailing data: " + s
	}
	if audit, ok := v["audit"].([]any); ok {
		for _, r := range audit {
			if m, ok := r.(map[string]any); ok {
				delete(m, "latencyMs")
			}
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}
