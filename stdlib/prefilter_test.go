package stdlib_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"
	"github.com/monad-hooks/monad-hooks/tools"
)

// corpusCommands returns the command lines of every stdlib corpus: the
// command corpora (dangerous, harmless, hold-out, families), the rule
// corpora (testdata/rules and its hold-out), every rule's match and pass
// cases, and the commands of the path corpora.
func corpusCommands(t *testing.T) []string {
	var cmds []string
	for _, name := range []string{"commands-dangerous.txt", "commands-holdout-dangerous.txt", "commands-holdout-families-dangerous.txt",
		"commands-holdout-families-safe.txt", "commands-holdout-safe.txt", "commands-safe.txt"} {
		for _, l := range readCorpus(t, name) {
			cmds = append(cmds, l.text)
		}
	}
	for _, dir := range []string{"testdata/rules", "testdata/rules/holdout"} {
		files, err := filepath.Glob(dir + "/*.txt")
		require.NoError(t, err)
		require.NotEmpty(t, files, dir)
		for _, f := range files {
			for _, l := range readCorpus(t, strings.TrimPrefix(f, "testdata/")) {
				cmds = append(cmds, l.text[2:]) // "+ " or "- "
			}
		}
	}
	for _, rf := range embeddedRules(t) {
		for _, r := range rf.Rules {
			cmds = append(cmds, r.Match...)
			cmds = append(cmds, r.Pass...)
		}
	}
	for _, name := range []string{"paths.jsonl", "paths-holdout.jsonl"} {
		data, err := os.ReadFile("testdata/" + name)
		require.NoError(t, err)
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var c pathCase
			require.NoError(t, json.Unmarshal([]byte(line), &c))
			if c.Command != "" {
				cmds = append(cmds, c.Command)
			}
		}
	}
	return cmds
}

// mutants derives n command lines from cmds by seeded edits that change
// what a keyword search sees: quotes, backslashes and shell syntax put
// into words, case changes (also to letters whose lowercase is ASCII, such
// as the Kelvin sign), lines joined by operators, command substitution,
// eval and nested shells, bytes deleted.
func mutants(cmds []string, n int) []string {
	r := rand.New(rand.NewPCG(17, 6))
	bytes := []string{"'", `"`, `\`, "$", "`", "{", "}", "(", ")", "<", ">", "|", ";", "&", "/", "~", ".", "-", "=", " ", "\t", "\n", "\u212a", "\u0130", "$(", "${", "''", `""`}
	joins := []string{"%s && %s", "%s; %s", "%s | %s", "%s $(%s)", "eval '%s'; %s", "bash -c \"%s\" %s", "%s `%s`", "sudo %s || %s"}
	out := make([]string, 0, n)
	for len(out) < n {
		s := cmds[r.IntN(len(cmds))]
		for range 1 + r.IntN(3) {
			at := 0
			if len(s) > 0 {
				at = r.IntN(len(s) + 1)
			}
			switch r.IntN(6) {
			case 0:
				s = s[:at] + bytes[r.IntN(len(bytes))] + s[at:]
			case 1:
				if at < len(s) {
					s = s[:at] + s[at+1:]
				}
			case 2:
				s = s[:at] + strings.ToUpper(s[at:min(len(s), at+1+r.IntN(12))]) + s[min(len(s), at+1+r.IntN(12)):]
			case 3:
				s = strings.NewReplacer("%s", s, "%%", "%").Replace(strings.Replace(joins[r.IntN(len(joins))], "%s", cmds[r.IntN(len(cmds))], 1))
			case 4:
				s = strings.ReplaceAll(s, "k", "\u212a")
			case 5:
				if at < len(s) {
					s = s[:at] + `\` + s[at:]
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// TestPrefilterSameOutputs: the prefilters of the shell packs (hook{
// prefilter }, searched in Go without a VM) change no output. Every
// BeforeTool hook of each pack, under default and other parameters, gives
// the same output on every command of every corpus and on mutants of them
// with its prefilter as with luaapi.Options.IgnorePrefilters; and the
// prefilter answers a share of the calls, but none where the parameters
// add checks that run on every line (extraPatterns, extraSecrets).
func TestPrefilterSameOutputs(t *testing.T) {
	cmds := corpusCommands(t)
	all := append(slices.Clone(cmds), mutants(cmds, 4000)...)
	table, err := tools.NewTable(tools.Builtin()...)
	require.NoError(t, err)
	inputs := make([]events.Input, len(all))
	for i, c := range all {
		inputs[i] = shellInput(c)
		inputs[i].Tool = table.View(inputs[i].ToolName, inputs[i].ToolInput)
		require.Equal(t, events.ToolShell, inputs[i].Tool.Kind)
	}
	for _, c := range []struct {
		pack   string
		params map[string]any
		skips  bool // some calls are answered by the prefilter
		every  int  // the share of the inputs checked: 1 in every
	}{
		{"deny-destructive", nil, true, 1},
		{"protect-paths", nil, true, 1},
		{"ask-irreversible", nil, true, 1},
		{"deny-destructive", map[string]any{"exempt": []any{"^git "}}, true, 4},
		{"deny-destructive", map[string]any{"extraPatterns": []any{"zz"}}, false, 8},
		{"protect-paths", map[string]any{"extraSecrets": []any{"~/.zz"}}, false, 8},
		{"protect-paths", map[string]any{"extraConfig": []any{"~/.zz"}}, false, 8},
		{"ask-irreversible", map[string]any{"off": []any{"cloud"}, "deny": []any{"git"}}, true, 4},
	} {
		name := c.pack
		if c.params != nil {
			b, _ := json.Marshal(c.params)
			name += string(b)
		}
		every := c.every
		if raceEnabled {
			// the calls are one at a time: the race detector has nothing
			// to find here that a sample would not show
			every *= 16
		}
		t.Run(name, func(t *testing.T) {
			with := prefilterPool(t, c.pack, c.params, false)
			without := prefilterPool(t, c.pack, c.params, true)
			hooks := with.Hooks()
			checked := 0
			for k := 0; k < len(inputs); k += every {
				in := &inputs[k]
				for i, h := range hooks {
					if h.Event != events.BeforeTool || !h.Matches(in.ToolName) || len(h.Kinds) > 0 && !slices.Contains(h.Kinds, events.ToolShell) {
						continue
					}
					checked++
					got, gotErr := callHook(with, i, in)
					want, wantErr := callHook(without, i, in)
					require.Equal(t, wantErr, gotErr, "%s hook %d on %q", c.pack, i, in.Tool.Command)
					require.Equal(t, want, got, "%s hook %d on %q", c.pack, i, in.Tool.Command)
				}
			}
			require.NotZero(t, checked)
			require.Zero(t, without.Stats().Skipped)
			if c.skips {
				require.Greater(t, with.Stats().Skipped, int64(checked/20), "the prefilter answers a share of the calls")
			} else {
				require.Zero(t, with.Stats().Skipped)
			}
		})
	}
}

// prefilterPool loads one pack with params into a pool of its own, with
// or without its prefilters.
func prefilterPool(t testing.TB, name string, params map[string]any, ignore bool) *luaapi.Pool {
	info, ok := stdlib.Lookup(name)
	require.True(t, ok, name)
	p, err := luaapi.NewPool(context.Background(), []luaapi.Source{{Script: compilePack(t, info), Params: params}},
		luaapi.Options{Home: testHome, Root: testRoot, Libraries: libraries(t), IgnorePrefilters: ignore, PoolSize: 1, DefaultTimeout: testLuaTimeout})
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	return p
}

// callHook calls hook i and returns the output and the error's message.
func callHook(p *luaapi.Pool, i int, in *events.Input) (events.Output, string) {
	out, err := p.Call(context.Background(), i, in)
	if err != nil {
		return out, err.Error()
	}
	return out, ""
}

// FuzzPrefilter: on any command line, every shell hook of the default set
// gives the same output with its prefilter as without (see
// TestPrefilterSameOutputs).
func FuzzPrefilter(f *testing.F) {
	for _, s := range []string{"rm -rf /", "ls -la", "terr\\aform destroy", "git push --force", "cat ~/.ssh/id_rsa", "T''ERRAFORM destroy -auto-approve",
		"echo cm0gLXJmIC8= | base64 -d | sh", "kubectl delete ns prod", "f() { rm -rf \"$1\"; }; f /", "\u212aubectl delete ns prod"} {
		f.Add(s)
	}
	table, err := tools.NewTable(tools.Builtin()...)
	require.NoError(f, err)
	type pair struct{ with, without *luaapi.Pool }
	var pools []pair
	for _, name := range stdlib.Default() {
		pools = append(pools, pair{prefilterPool(f, name, nil, false), prefilterPool(f, name, nil, true)})
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		in := shellInput(cmd)
		in.Tool = table.View(in.ToolName, in.ToolInput)
		if in.Tool == nil || in.Tool.Kind != events.ToolShell {
			return
		}
		for _, p := range pools {
			for i, h := range p.with.Hooks() {
				if h.Event != events.BeforeTool || !slices.Contains(h.Kinds, events.ToolShell) {
					continue
				}
				got, gotErr := callHook(p.with, i, &in)
				want, wantErr := callHook(p.without, i, &in)
				require.Equal(t, wantErr, gotErr, "%s on %q", h.Script, cmd)
				require.Equal(t, want, got, "%s on %q", h.Script, cmd)
			}
		}
	})
}
