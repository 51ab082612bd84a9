// Package otelrec records what an engine does as OpenTelemetry spans
// (go.opentelemetry.io/otel): a span per dispatch that runs hooks, and
// inside it a child span per executed hook with its tier, kind, identity,
// outcome and decision. Spans carry identifiers and outcomes, never
// payloads (no prompt, tool input or result, response). It lives apart from
// package engine so that the core does not depend on OpenTelemetry:
//
//	rec := otelrec.New(otel.GetTracerProvider())
//	eng, err := engine.New(ctx, engine.WithRecorder(rec), ...)
//
// The engine runs the hooks in the dispatch span's context, so that a Go
// hook's own spans are its children. A Recorder is safe for concurrent use.
package otelrec

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/monad-hooks/monad-hooks/engine"
)

// ScopeName is the instrumentation scope of the tracer.
const ScopeName = "github.com/monad-hooks/monad-hooks/engine/otelrec"

// The attributes of the spans.
const (
	AttrEvent        = attribute.Key("monad_hooks.event")
	AttrTool         = attribute.Key("monad_hooks.tool.name")
	AttrSession      = attribute.Key("monad_hooks.session.id")
	AttrToolCall     = attribute.Key("monad_hooks.tool_call.id")
	AttrDecision     = attribute.Key("monad_hooks.decision")
	AttrHooks        = attribute.Key("monad_hooks.hooks")
	AttrHook         = attribute.Key("monad_hooks.hook")
	AttrTier         = attribute.Key("monad_hooks.tier")
	AttrKind         = attribute.Key("monad_hooks.kind")
	AttrOutcome      = attribute.Key("monad_hooks.outcome")
	AttrFailedClosed = attribute.Key("monad_hooks.failed_closed")
	AttrSource       = attribute.Key("monad_hooks.source")
)

// Recorder is an engine.DispatchRecorder that makes spans.
type Recorder struct {
	tracer trace.Tracer
	now    func() time.Time
}

// New returns a Recorder whose spans come from tp's tracer of ScopeName.
func New(tp trace.TracerProvider) *Recorder {
	return &Recorder{tracer: tp.Tracer(ScopeName), now: time.Now}
}

// StartDispatch starts the dispatch's span, "monad-hooks <event>", and
// returns its context.
func (r *Recorder) StartDispatch(ctx context.Context, d engine.DispatchInfo) context.Context {
	attrs := []attribute.KeyValue{AttrEvent.String(d.Event.String())}
	if d.ToolName != "" {
		attrs = append(attrs, AttrTool.String(d.ToolName))
	}
	if d.SessionID != "" {
		attrs = append(attrs, AttrSession.String(d.SessionID))
	}
	if d.ToolCallID != "" {
		attrs = append(attrs, AttrToolCall.String(d.ToolCallID))
	}
	ctx, _ = r.tracer.Start(ctx, "monad-hooks "+d.Event.String(), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx
}

// Record adds the span of one executed hook, "hook <identity>", as a child
// of the dispatch's span. It ends now and began its latency ago: exact for
// the hooks of a serial event, whose records come as each hook returns; for
// a parallel event the records come after the fan-out, so the spans end
// with it. A failed hook's span has the status Error, with the hook's
// error message.
func (r *Recorder) Record(ctx context.Context, rec engine.Record) {
	end := r.now()
	start := end.Add(-time.Duration(rec.LatencyMs * float64(time.Millisecond)))
	attrs := []attribute.KeyValue{
		AttrHook.String(rec.Hook), AttrTier.String(rec.Tier.String()), AttrKind.String(rec.Kind),
		AttrOutcome.String(string(rec.Outcome)), AttrDecision.String(rec.Decision.String()),
	}
	if rec.Source != "" {
		attrs = append(attrs, AttrSource.String(rec.Source))
	}
	if rec.FailedClosed {
		attrs = append(attrs, AttrFailedClosed.Bool(true))
	}
	_, span := r.tracer.Start(ctx, "hook "+rec.Hook, trace.WithTimestamp(start), trace.WithAttributes(attrs...))
	if rec.Outcome != engine.OutcomeOK {
		span.SetStatus(codes.Error, rec.Error)
	}
	span.End(trace.WithTimestamp(end))
}

// EndDispatch ends the dispatch's span with the decision and the number
// of hooks that ran.
func (r *Recorder) EndDispatch(ctx context.Context, res engine.Result) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(AttrDecision.String(res.Decision.String()), AttrHooks.Int(len(res.Audit)))
	span.End()
}
