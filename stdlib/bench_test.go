package stdlib_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"
	"github.com/monad-hooks/monad-hooks/tools"
)

// packPool loads the named packs into one pool, as the engine does, for
// benchmarks of the packs' own cost (without the engine's overhead).
func packPool(b *testing.B, names ...string) (*luaapi.Pool, []luaapi.Hook) {
	var srcs []luaapi.Source
	for _, name := range names {
		info, _ := stdlib.Lookup(name)
		srcs = append(srcs, luaapi.Source{Script: compilePack(b, info)})
	}
	p, err := luaapi.NewPool(context.Background(), srcs, luaapi.Options{Home: testHome, Root: testRoot, Libraries: libraries(b)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	return p, p.Hooks()
}

// BenchmarkDefaultSetBeforeTool runs every BeforeTool hook of the default
// set that matches a shell tool call, as a dispatch would (without the
// engine's own overhead): the engine's view of the call (input.tool, from
// the built-in tool table) is computed once, and a hook of kinds runs only
// for a tool of one of them.
func BenchmarkDefaultSetBeforeTool(b *testing.B) {
	p, hooks := packPool(b, stdlib.Default()...)
	table, err := tools.NewTable(tools.Builtin()...)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, cmd string }{
		{"allowed", "go test ./... -run TestFoo -count=1 2>&1 | tail -20"},
		{"allowed-long", "cd /work/proj && git status && git diff --stat && npm run build > build.log && rm -rf ./dist && ls -la"},
		{"denied", "sudo rm -rf --no-preserve-root /"},
		{"denied-nested", "bash -c 'cd / && R=rm; $R -rf *'"},
	} {
		in := shellInput(c.cmd)
		in.Tool = table.View(in.ToolName, in.ToolInput)
		if in.Tool == nil || in.Tool.Kind != events.ToolShell {
			b.Fatalf("%s is not a shell tool in the built-in table", in.ToolName)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				callBeforeTool(b, p, hooks, &in)
			}
		})
	}
}

// callBeforeTool runs every BeforeTool hook of a pool that matches the
// input, stopping at a deny, as a dispatch would.
func callBeforeTool(b *testing.B, p *luaapi.Pool, hooks []luaapi.Hook, in *events.Input) {
	for i, h := range hooks {
		if h.Event != events.BeforeTool || !h.Matches(in.ToolName) || len(h.Kinds) > 0 && !slices.Contains(h.Kinds, in.Tool.Kind) {
			continue
		}
		out, err := p.Call(context.Background(), i, in)
		if err != nil {
			b.Fatal(err)
		}
		if out.Decision == events.Deny {
			break
		}
	}
}

// BenchmarkFamilies measures what the rule families of ask-irreversible
// (every family on) add to the rest of the default set, command by
// command, in the same process: "without" is the default set without
// ask-irreversible, "with" the default set, "alone" ask-irreversible by
// itself (its prefilter only, for commands that name no guarded program).
// The target is with <= 1.5 x without.
func BenchmarkFamilies(b *testing.B) {
	var without []string
	for _, n := range stdlib.Default() {
		if n != "ask-irreversible" {
			without = append(without, n)
		}
	}
	pools := map[string][]string{"without": without, "with": append(slices.Clone(without), "ask-irreversible"), "alone": {"ask-irreversible"}}
	cmds := []struct{ name, cmd string }{
		{"allowed", "go test ./... -run TestFoo -count=1 2>&1 | tail -20"},
		{"allowed-long", "cd /work/proj && git status && git diff --stat && npm run build > build.log && rm -rf ./dist && ls -la"},
		{"guarded-read", "kubectl --context prod get pods -n payments -o wide | grep -v Running"},
		{"asked", "aws-vault exec prod -- terraform -chdir=infra destroy -auto-approve"},
	}
	type loaded struct {
		p     *luaapi.Pool
		hooks []luaapi.Hook
	}
	sets := []string{"without", "with", "alone"}
	ps := map[string]loaded{}
	for _, set := range sets {
		p, hooks := packPool(b, pools[set]...)
		ps[set] = loaded{p, hooks}
	}
	table, err := tools.NewTable(tools.Builtin()...)
	if err != nil {
		b.Fatal(err)
	}
	// command by command, the sets back to back: the ratios compare
	// measurements seconds apart
	for _, c := range cmds {
		for _, set := range sets {
			l := ps[set]
			in := shellInput(c.cmd)
			in.Tool = table.View(in.ToolName, in.ToolInput)
			b.Run(set+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					callBeforeTool(b, l.p, l.hooks, &in)
				}
			})
		}
	}
}

// benchText builds n bytes of tool output: log lines, code and JSON, with
// a fake secret every 4 KiB (at least one) when secrets is set.
func benchText(n int, secrets bool) string {
	lines := []string{
		`2026-01-15T10:20:30Z INFO  server: listening on 0.0.0.0:8080 (pid 4242)`,
		`func (s *Server) handle(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }`,
		`{"id": "123e4567-e89b-12d3-a456-426614174000", "status": "ok", "count": 17}`,
		`    at Object.<anonymous> (/work/proj/src/index.js:12:7) token count: 4096`,
		`diff --git a/README.md b/README.md index 3f78685..e69de29 100644`,
		`password: <set in vault>  # see docs/secrets.md for the key rotation policy`,
	}
	var b strings.Builder
	next := 0
	for i := 0; b.Len() < n; i++ {
		if secrets && b.Len() >= next {
			fmt.Fprintf(&b, "export GITHUB_TOKEN=%s\n", expand("gh{{}}p_{{a:36}}", uint64(i)))
			fmt.Fprintf(&b, "DATABASE_URL=postgres://app:%s@db:5432/app\n", expand("{{a:24}}", uint64(i)))
			next += 4096
			continue
		}
		b.WriteString(lines[i%len(lines)])
		b.WriteByte('\n')
	}
	return b.String()[:n]
}

func BenchmarkRedactSecrets(b *testing.B) {
	benchRedact(b, "redact-secrets", "secrets", benchText)
}

// piiText builds n bytes of tool output as benchText does, with a line of
// personal data (an email address, a phone number, a card number) every
// 4 KiB when pii is set.
func piiText(n int, pii bool) string {
	if !pii {
		return benchText(n, false)
	}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "customer %d: jane.doe%d@mail.acme.io, +1 415 555 %04d, card 4111 1111 1111 1111\n", i, i, i%10000)
		b.WriteString(benchText(4096, false))
	}
	return b.String()[:n]
}

// BenchmarkRedactPII: redact-pii on the same log text; phone numbers, card
// numbers and IBANs have no keyword: their expressions run where a value
// can begin (luaapi's scan gates).
func BenchmarkRedactPII(b *testing.B) {
	benchRedact(b, "redact-pii", "pii", piiText)
}

// benchRedact runs the AfterTool hook of a redacting pack over texts of
// 1 KiB, 64 KiB and 1 MiB without and with values to redact.
func benchRedact(b *testing.B, pack, dirty string, text func(int, bool) string) {
	p, hooks := packPool(b, pack)
	idx := -1
	for i, h := range hooks {
		if h.Event == events.AfterTool {
			idx = i
		}
	}
	for _, size := range []struct {
		name string
		n    int
	}{{"1KiB", 1 << 10}, {"64KiB", 64 << 10}, {"1MiB", 1 << 20}} {
		for _, secrets := range []bool{false, true} {
			name := size.name + "/clean"
			if secrets {
				name = size.name + "/" + dirty
			}
			s := text(size.n, secrets)
			in := events.Input{Event: events.AfterTool, ToolName: "bash", ToolResult: s}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				b.ReportAllocs()
				for b.Loop() {
					out, err := p.Call(context.Background(), idx, &in)
					if err != nil {
						b.Fatal(err)
					}
					if (out.UpdatedToolOutput != nil) != secrets {
						b.Fatalf("rewritten = %v, want %v", out.UpdatedToolOutput != nil, secrets)
					}
				}
			})
		}
	}
}

// BenchmarkFloorEmptyHook is the cost of calling a Lua hook that does
// nothing with the same input, on the same machine: the floor the pack
// figures should be read against.
func BenchmarkFloorEmptyHook(b *testing.B) {
	s, err := luaapi.Compile("empty.lua", []byte(`hook{ event = "BeforeTool", handler = function(input) return nil end }`))
	if err != nil {
		b.Fatal(err)
	}
	p, err := luaapi.NewPool(context.Background(), []luaapi.Source{{Script: s}}, luaapi.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	in := shellInput("go test ./... -run TestFoo -count=1 2>&1 | tail -20")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Call(context.Background(), 0, &in); err != nil {
			b.Fatal(err)
		}
	}
}
