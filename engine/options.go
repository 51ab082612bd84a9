package engine

import (
	"log/slog"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/tools"
)

// An Option configures an [Engine] at [New].
type Option func(*options)

type options struct {
	hooks            []GoHook
	recorder         Recorder
	logger           *slog.Logger
	now              func() time.Time
	clockSet         bool // WithClock injected now
	vouch            func(model string) bool
	maxStopContinues int
	maxParallel      int
	maxSessions      int
	sessions         map[string]SessionState
	files            *Files   // WithFiles; nil: no file-based configuration
	stdlib           []string // WithStdlib
	reloadInterval   time.Duration
	reloadTimeout    time.Duration
	degradedStart    bool
	luaPoolSize      int
	luaTimeout       time.Duration
	luaOnDemand      bool               // WithLuaPoolOnDemand
	noRecords        bool               // tests: load the stdlib packs without their Records (see packSource)
	events           [events.Count]bool // WithEvents: the events served
	someEvents       bool               // WithEvents was given
	tools            []tools.Spec       // WithTools
	unguarded        events.Decision    // WithUnguardedTools
	luaModules       map[string]any
	startContext     bool // WithSessionContextAtStart
}

// DefaultMaxStopContinues is the default bound on consecutive AfterTurn
// continuations of a session (see [WithMaxStopContinues]).
const DefaultMaxStopContinues = 3

// DefaultMaxParallel is the default fan-out width of parallel events.
const DefaultMaxParallel = 8

// DefaultMaxSessions bounds how many sessions the engine keeps state for
// (stashed SessionStart context and continuation counts); past it the oldest
// session's state is dropped.
const DefaultMaxSessions = 10000

func defaultOptions() options {
	return options{
		logger:           slog.New(slog.DiscardHandler),
		now:              time.Now,
		maxStopContinues: DefaultMaxStopContinues,
		maxParallel:      DefaultMaxParallel,
		maxSessions:      DefaultMaxSessions,
		reloadTimeout:    DefaultReloadTimeout,
	}
}

// WithHook registers a native Go handler as an atom hook. Go hooks run first,
// in the order of their options, before Lua atom hooks.
func WithHook(h GoHook) Option {
	return func(o *options) { o.hooks = append(o.hooks, h) }
}

// WithRecorder sets the audit [Recorder]; by default records only go into the
// [Result].
func WithRecorder(r Recorder) Option {
	return func(o *options) { o.recorder = r }
}

// WithLogger sets the logger for operational messages (a failed reload, Lua
// log calls). The default discards.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// WithClock injects the clock used for latencies and reload intervals.
func WithClock(now func() time.Time) Option {
	return func(o *options) {
		if now != nil {
			o.now = now
			o.clockSet = true
		}
	}
}

// WithModelVouch sets the function that says whether the host vouches for a
// model. A BeforeTurn modelOverride is applied only when it returns true;
// without a vouch function no override is ever applied.
func WithModelVouch(vouch func(model string) bool) Option {
	return func(o *options) { o.vouch = vouch }
}

// WithMaxStopContinues bounds the consecutive AfterTurn continuations
// (continueWork) of a session; n <= 0 disables continuation entirely. The
// default is [DefaultMaxStopContinues].
func WithMaxStopContinues(n int) Option {
	return func(o *options) { o.maxStopContinues = n }
}

// WithMaxParallel bounds how many hooks of a parallel event run at once
// (default [DefaultMaxParallel]; n < 1 means 1).
func WithMaxParallel(n int) Option {
	return func(o *options) { o.maxParallel = max(n, 1) }
}

// WithSessionState seeds the per-session state, for hosts that keep it across
// processes (see [Engine.SessionState]).
func WithSessionState(s map[string]SessionState) Option {
	return func(o *options) { o.sessions = s }
}

// WithSessionContextAtStart is for hosts whose SessionStart hook can hand
// context to the model itself (Claude Code, Gemini CLI, Codex, Cursor): the
// Result of SessionStart keeps its additionalContext, and nothing is stashed
// for the session's first BeforeTurn. Without it the context is stashed and
// injected into that BeforeTurn (the seed's rule).
func WithSessionContextAtStart() Option {
	return func(o *options) { o.startContext = true }
}

// WithMaxSessions bounds how many sessions' state the engine keeps (default
// [DefaultMaxSessions]).
func WithMaxSessions(n int) Option {
	return func(o *options) { o.maxSessions = max(n, 1) }
}
