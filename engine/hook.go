package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/monad-hooks/monad-hooks/engine/internal/config"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/luaapi"
	"github.com/monad-hooks/monad-hooks/stdlib"
	"github.com/monad-hooks/monad-hooks/tools"
)

// A Tier is where a hook comes from. Hooks run tier by tier: atom hooks (Go
// and Lua, in registration order), then operator policy command hooks, then
// user command hooks.
type Tier uint8

// The tiers, in dispatch order.
const (
	TierAtom Tier = iota
	TierPolicy
	TierUser
	// TierEngine marks an audit Record of the engine's own rules (an
	// unguarded tool), which comes before every hook's.
	TierEngine
)

var tierNames = [...]string{TierAtom: "atom", TierPolicy: "policy", TierUser: "user", TierEngine: "engine"}

// String returns "atom", "policy", "user" or "engine".
func (t Tier) String() string {
	if int(t) < len(tierNames) {
		return tierNames[t]
	}
	return fmt.Sprintf("Tier(%d)", uint8(t))
}

// MarshalText encodes the tier as its name.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText decodes a tier name.
func (t *Tier) UnmarshalText(b []byte) error {
	for i, n := range tierNames {
		if n == string(b) {
			*t = Tier(i)
			return nil
		}
	}
	return fmt.Errorf("unknown tier %q (want atom, policy or user)", b)
}

// OnError says what a hook's own failure (an error, a panic, a timeout, an
// invalid output) means. The zero value [OnErrorSkip] skips the failed hook.
type OnError uint8

// The failure policies.
const (
	// OnErrorSkip skips a failed hook, as if it had returned nothing.
	OnErrorSkip OnError = iota
	// OnErrorDeny turns a failure into a deny at events that can deny (fail
	// closed). At events that cannot deny, the payloads the event lets a
	// hook rewrite (the tool result, the response or subagent text) are
	// withheld: the Result carries "[withheld: hook <id> failed (onError:
	// deny)]" in their place, and later hooks see that marker. At events
	// with no payload the failure is skipped.
	OnErrorDeny
)

// ParseOnError parses "deny", "skip" or "" (skip).
func ParseOnError(s string) (OnError, error) {
	switch s {
	case "", "skip":
		return OnErrorSkip, nil
	case "deny":
		return OnErrorDeny, nil
	}
	return OnErrorSkip, fmt.Errorf("unknown onError %q (want deny or skip)", s)
}

// String returns "skip" or "deny".
func (o OnError) String() string {
	if o == OnErrorDeny {
		return "deny"
	}
	return "skip"
}

// A Handler is a native Go hook. Handle receives the input as rewritten by the
// hooks before it and returns an Output; the zero Output means proceed.
//
// Handle must not modify *in or anything it references, and must return when
// ctx is done (ctx carries the hook's timeout). An error, a panic, a return
// after the timeout or an invalid Output is a hook failure, handled by the
// hook's [OnError]. Handle may be called from many goroutines at once.
type Handler interface {
	Handle(ctx context.Context, in *events.Input) (events.Output, error)
}

// HandlerFunc adapts a function to a [Handler].
type HandlerFunc func(ctx context.Context, in *events.Input) (events.Output, error)

// Handle calls f(ctx, in).
func (f HandlerFunc) Handle(ctx context.Context, in *events.Input) (events.Output, error) {
	return f(ctx, in)
}

// GoHook registers a native Go [Handler] as an atom hook (see [WithHook]).
type GoHook struct {
	// Name identifies the hook in the audit ("go:<Name>").
	Name  string
	Event events.Event
	// Matcher is an RE2 regular expression on the tool name, applied at the
	// tool-scoped events only; "" and "*" match every tool.
	Matcher string
	// Kinds, when set, restrict the hook to tools of these kinds in the
	// engine's tool table (see [WithTools]); with a Matcher, both must
	// match. Only the tool-scoped events accept them.
	Kinds   []events.ToolKind
	OnError OnError
	// Timeout bounds one call; 0 means no timeout beyond the dispatch ctx.
	Timeout time.Duration
	Handler Handler
}

// hookSpec is a hook as loaded, before the plan compiles it.
type hookSpec struct {
	tier   Tier
	kind   string     // "go", "lua", "command"
	id     string     // identity shown in the audit
	pos    config.Pos // where it is defined: file:line:col, when known
	source string     // pos as a string, for Plan and the audit
	// registeredBy says what configured the hook: the file:line:col of the
	// command hook or of the atoms entry that loaded its script, the
	// script path given to Files.Lua, "stdlib NAME", "WithHook #N".
	registeredBy string
	event        events.Event
	matcher      string
	kinds        []events.ToolKind // when set, only tools of these kinds
	onError      OnError
	timeout      time.Duration
	// dedup, when non-empty, is the identity under which identical command
	// specs run once per event.
	dedup string
	// shownTimeout is the timeout Plan reports when the hook enforces its
	// own (command hooks, Lua hooks) rather than through timeout.
	shownTimeout time.Duration
	// resident is the key of the process of a persistent command hook in
	// its file source's residentSet; "" for any other hook.
	resident string
	// validated is set when run already returns only outputs that pass
	// events.Output.Validate (luaapi and shell.Interpret do), so the engine
	// does not check them a second time (BenchmarkLuaGuard,
	// BenchmarkCommandHook).
	validated bool
	// rules, for a Lua hook that evaluates rule files (ask-irreversible, a
	// user's rule file), returns those files: ExplainRules looks the rule a
	// reason names up in them. It is a function so that the stdlib's own
	// are decoded only when something asks (BenchmarkCLIRun); nil for
	// other hooks.
	rules func() []*stdlib.RuleFile
	// run runs the hook once; logs are what it logged, for the audit.
	run func(ctx context.Context, c *call) (out events.Output, logs []string, err error)
	// releases is set when run keeps nothing of c once it returns (Lua
	// hooks: luaapi converts the input during the call): a dispatch whose
	// hooks all release it takes its call from a pool (see getCall).
	releases bool
}

// hook is a compiled hook in a plan. It is immutable.
type hook struct {
	hookSpec
	re    *regexp.Regexp // nil: matches every tool
	tools *tools.Table   // the generation's tool table, for kinds
	// group, when not 0, numbers the command spec this hook shares with
	// others of its event: of a group, only the first hook that matches
	// runs in a dispatch.
	group int
	// dupOf is the first hook of the group, when it is not this one.
	dupOf *hook
	// neverRuns: an earlier hook of the group matches every tool this one
	// matches.
	neverRuns bool
}

func (h *hook) matches(spec events.Spec, toolName string) bool {
	if !spec.Matcher {
		return true
	}
	if len(h.kinds) > 0 && !slices.Contains(h.kinds, h.tools.Kind(toolName)) {
		return false
	}
	return h.re == nil || h.re.MatchString(toolName)
}

// compileMatcher compiles a tool-name matcher; "" and "*" match everything
// (nil).
func compileMatcher(m string) (*regexp.Regexp, error) {
	if m == "" || m == "*" {
		return nil, nil
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return nil, fmt.Errorf("bad matcher %q: %w", m, err)
	}
	return re, nil
}

// call is what a hook runs on: the dispatch's working copy of the input and,
// for command hooks, its JSON encoding, made at most once per version of the
// input (serial events invalidate it when a rewrite chains into the input):
// several command hooks share one encoding (TestInputMarshalledOncePerVersion).
type call struct {
	in   events.Input
	json []byte
	err  error
	// tools is the generation's tool table and view the storage of
	// in.Tool, recomputed when a rewrite changes the tool input.
	tools *tools.Table
	view  events.ToolView
	links *links // resolves the view's links; nil: none
	// viewPending: in.Tool is nil until a hook asks for it (ToolView):
	// a Lua-only serial dispatch computes the view only if a prefilter or
	// handler reads it (BenchmarkLuaGuardPeers).
	viewPending bool
	lazyView    bool // the view is computed when asked for (viewPending)
}

// countViews, set by tests before any engine starts, makes setView count
// the views it computes in viewsComputed (TestLazyToolView).
var (
	countViews    bool
	viewsComputed atomic.Int64
)

// ToolView computes the pending view (see viewPending) and returns it.
func (c *call) ToolView() *events.ToolView {
	if c.viewPending {
		c.viewPending = false
		c.setView()
	}
	return c.in.Tool
}

// viewer returns c when its view is pending, else nil (no view to compute:
// in.Tool is set, or the tool is unknown).
func (c *call) viewer() luaapi.ToolViewer {
	if c.viewPending {
		return c
	}
	return nil
}

// setView computes in.Tool from the tool table: nil for a tool the table
// does not know.
func (c *call) setView() {
	if countViews {
		viewsComputed.Add(1)
	}
	c.in.Tool = nil
	if c.tools.ViewInto(c.in.ToolName, c.in.ToolInput, &c.view) {
		if c.links != nil && c.view.Kind != events.ToolShell {
			c.links.add(&c.view, c.in.Cwd)
		}
		c.in.Tool = &c.view
	}
}

// inputJSON returns the input encoded as JSON. The caller must not modify the
// bytes. It is not safe for concurrent use unless called once before the
// goroutines start (fanOut does).
func (c *call) inputJSON() ([]byte, error) {
	if c.json == nil && c.err == nil {
		c.json, c.err = json.Marshal(&c.in)
	}
	return c.json, c.err
}

// changed drops the cached encoding after a rewrite.
func (c *call) changed() { c.json, c.err = nil, nil }

// callPool holds the calls of dispatches whose hooks all release their
// call (hookSpec.releases): a call is 456 bytes, most of what a dispatch
// to one Lua guard allocated (BenchmarkLuaGuardPeers).
var callPool = sync.Pool{New: func() any { return new(call) }}

// spareCall holds the call the last such dispatch gave back: the next takes
// it with one atomic swap, where the pool pins and unpins its P twice
// (BenchmarkLuaGuardPeers).
var spareCall atomic.Pointer[call]

// getCall returns a pooled call of a copy of in; putCall gives it back,
// emptied, once nothing uses it.
func getCall(in *events.Input) *call {
	c := spareCall.Swap(nil)
	if c == nil {
		c = callPool.Get().(*call)
	}
	c.in = *in
	return c
}

func putCall(c *call) {
	*c = call{}
	if !spareCall.CompareAndSwap(nil, c) {
		callPool.Put(c)
	}
}

// releaseAll reports whether every hook of hooks releases its call.
func releaseAll(hooks []*hook) bool {
	for _, h := range hooks {
		if !h.releases {
			return false
		}
	}
	return true
}
