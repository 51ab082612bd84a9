package otelrec_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/engine/otelrec"
	"github.com/monad-hooks/monad-hooks/events"
)

// TestSpans: a span per dispatch that runs hooks, a child span per hook
// with its tier, kind, outcome and decision, the hook running in the
// dispatch's context, and no payload anywhere.
func TestSpans(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	defer tp.Shutdown(context.Background())
	var hookSpan trace.SpanContext
	eng, err := engine.New(t.Context(), engine.WithRecorder(otelrec.New(tp)),
		engine.WithHook(engine.GoHook{Name: "broken", Event: events.BeforeTool, Handler: engine.HandlerFunc(
			func(ctx context.Context, _ *events.Input) (events.Output, error) {
				hookSpan = trace.SpanContextFromContext(ctx)
				return events.Output{}, errors.New("it broke")
			})}),
		engine.WithHook(engine.GoHook{Name: "no-rm", Event: events.BeforeTool, OnError: engine.OnErrorSkip, Handler: engine.HandlerFunc(
			func(context.Context, *events.Input) (events.Output, error) {
				return events.Output{Decision: events.Deny, Reason: "no rm"}, nil
			})}))
	require.NoError(t, err)
	defer eng.Close()
	_, err = eng.Dispatch(t.Context(), events.Input{Event: events.BeforeTool, ToolName: "bash", SessionID: "s1", ToolCallID: "c1",
		ToolInput: map[string]any{"command": "rm -rf secret-payload"}})
	require.NoError(t, err)
	_, err = eng.Dispatch(t.Context(), events.Input{Event: events.AfterModel}) // no hook: no span
	require.NoError(t, err)

	spans := sr.Ended()
	require.Len(t, spans, 3)
	broken, noRm, dispatch := spans[0], spans[1], spans[2]
	assert.Equal(t, "monad-hooks BeforeTool", dispatch.Name())
	assert.False(t, dispatch.Parent().IsValid())
	assert.ElementsMatch(t, []attribute.KeyValue{
		otelrec.AttrEvent.String("BeforeTool"), otelrec.AttrTool.String("bash"), otelrec.AttrSession.String("s1"),
		otelrec.AttrToolCall.String("c1"), otelrec.AttrDecision.String("deny"), otelrec.AttrHooks.Int(2),
	}, dispatch.Attributes())
	assert.Equal(t, dispatch.SpanContext().SpanID(), hookSpan.SpanID(), "the hook runs in the dispatch's span")

	for _, s := range []sdktrace.ReadOnlySpan{broken, noRm} {
		assert.Equal(t, dispatch.SpanContext().SpanID(), s.Parent().SpanID(), "%s is a child of the dispatch", s.Name())
		assert.Equal(t, dispatch.SpanContext().TraceID(), s.SpanContext().TraceID())
		assert.False(t, s.StartTime().After(s.EndTime()))
	}
	assert.Equal(t, "hook go:broken", broken.Name())
	assert.ElementsMatch(t, []attribute.KeyValue{
		otelrec.AttrHook.String("go:broken"), otelrec.AttrTier.String("atom"), otelrec.AttrKind.String("go"),
		otelrec.AttrOutcome.String("error"), otelrec.AttrDecision.String("proceed"),
	}, broken.Attributes())
	assert.Equal(t, codes.Error, broken.Status().Code)
	assert.Equal(t, "it broke", broken.Status().Description)
	assert.Contains(t, noRm.Attributes(), otelrec.AttrDecision.String("deny"))
	assert.Contains(t, noRm.Attributes(), otelrec.AttrOutcome.String("ok"))

	for _, s := range spans {
		for _, a := range s.Attributes() {
			assert.NotContains(t, a.Value.Emit(), "secret-payload", "no payload in %s", s.Name())
		}
	}
}
