package luaapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/stretchr/testify/require"
)

type recall struct {
	Name  string
	notes map[string]string
}

func (r *recall) Find(topic string) (string, error) {
	if n, ok := r.notes[topic]; ok {
		return n, nil
	}
	return "", fmt.Errorf("no note about %q", topic)
}

func (r *recall) Count() int { return len(r.notes) }

type hostObjects struct{ Secret string }

func (r *recall) hidden() *hostObjects { return &hostObjects{Secret: "s3cret"} }

type withChan struct{ C chan int }
type withCallback struct{}

func (withCallback) Each(f func(string)) {}

type node struct{ Kids []node }
type withAny struct{}

func (withAny) Take(x any) {}

// TestHostModules: Go values an embedder passes are require-able from every
// script; functions get the hook's context and their errors become Lua
// errors; nothing beyond what was passed is reachable.
func TestHostModules(t *testing.T) {
	var sawDeadline bool
	mods := map[string]any{
		"recall": &recall{Name: "mem", notes: map[string]string{"build": "make all"}},
		"project": map[string]any{
			"root": "/src",
			"lookup": func(ctx context.Context, path string) (string, error) {
				_, sawDeadline = ctx.Deadline()
				if path == "" {
					return "", errors.New("empty path")
				}
				return "/src/" + path, nil
			},
			"wait": func(ctx context.Context) bool {
				<-ctx.Done()
				return true
			},
			"sum": func(xs []int) int {
				n := 0
				for _, x := range xs {
					n += x
				}
				return n
			},
		},
		"now": func() int { return 42 },
	}
	p := newTestPool(t, Options{Modules: mods}, "m.lua", `
local recall, project, now = require("recall"), require("project"), require("now")
hook{ event = "BeforeTool", handler = function(i)
  if i.toolName == "find" then return { reason = recall:Find("build") .. " " .. recall:count() .. " " .. recall.Name } end
  if i.toolName == "missing" then return { reason = recall:find("deploy") } end
  if i.toolName == "lookup" then return { reason = project.lookup("a.go") .. " " .. project.root .. " " .. now() } end
  if i.toolName == "lookup-err" then return { reason = project.lookup("") } end
  if i.toolName == "sum" then return { reason = tostring(project.sum({1, 2, 3})) } end
  if i.toolName == "write" then project.root = "/etc" end
  if i.toolName == "write-field" then recall.Name = "pwned" end
  if i.toolName == "write-ptr" then local _ = recall ^ {} end
  if i.toolName == "hidden" then return { reason = tostring(recall.hidden) .. " " .. tostring(recall.notes) } end
  if i.toolName == "mt" then return { reason = tostring(getmetatable(recall)) } end
end }
hook{ event = "BeforeTool", timeoutMs = 20, handler = function(i) return { reason = tostring(project.wait()) } end }
`)
	call := func(i int, tool string) (string, error) {
		out, err := p.Call(context.Background(), i, &events.Input{Event: events.BeforeTool, ToolName: tool})
		return out.Reason, err
	}
	r, err := call(0, "find")
	require.NoError(t, err)
	require.Equal(t, "make all 1 mem", r)
	_, err = call(0, "missing")
	require.ErrorContains(t, err, `no note about "deploy"`)
	r, err = call(0, "lookup")
	require.NoError(t, err)
	require.Equal(t, "/src/a.go /src 42", r)
	require.True(t, sawDeadline, "the function got the hook's deadline")
	_, err = call(0, "lookup-err")
	require.ErrorContains(t, err, "empty path")
	r, err = call(0, "sum")
	require.NoError(t, err)
	require.Equal(t, "6", r)
	_, err = call(0, "write")
	require.ErrorContains(t, err, "read-only")
	for _, w := range []string{"write-field", "write-ptr"} {
		_, err = call(0, w)
		require.ErrorContains(t, err, "cannot modify a Go value", w)
	}
	require.Equal(t, "mem", mods["recall"].(*recall).Name)
	r, err = call(0, "hidden")
	require.NoError(t, err)
	require.Equal(t, "nil nil", r, "unexported methods and fields are not reachable")
	r, err = call(0, "mt")
	require.NoError(t, err)
	require.Equal(t, "gopher-luar", r)
	// A function that waits on its context returns at the hook's deadline:
	// the call ends there (as a timeout, or just before the watchdog's
	// next tick with the function's result).
	r, err = call(1, "x")
	if err != nil {
		var he *HookError
		require.ErrorAs(t, err, &he)
		require.Equal(t, FailTimeout, he.Kind, "%v", err)
	} else {
		require.Equal(t, "true", r)
	}

	// What cannot be exposed safely is refused, naming the route.
	for _, c := range []struct {
		name  string
		value any
		want  string
	}{
		{"json", func() {}, "shadows"},
		{"Bad Name", func() {}, "module name"},
		{"ch", withChan{}, "recall.C: a channel"},
		{"cb", withCallback{}, "a function parameter"},
		{"rec", node{}, "recursive type"},
		{"any", withAny{}, "an interface"},
		{"nil", nil, "nil"},
		{"ctxm", &ctxMethod{}, "context"},
	} {
		err := ValidateModule(c.name, c.value)
		require.Error(t, err, c.name)
		require.Contains(t, strings.ReplaceAll(err.Error(), "ch.", "recall."), c.want, c.name)
	}
	require.NoError(t, ValidateModule("recall", &recall{}))
}

type ctxMethod struct{}

func (*ctxMethod) Do(ctx context.Context) {}
