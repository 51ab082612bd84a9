// Package hostkit turns a Go agent's tool calls into engine dispatches: one
// call before a tool runs ([Guard.Before], BeforeTool), one at the approval
// prompt of a host that has one ([Guard.Approve], ApprovalRequest), one
// after it ran ([Guard.After], AfterTool). It is the glue an agent would
// otherwise write itself: the tool input goes in as the raw JSON the model
// sent and comes back the same way, the tool's result goes in as the
// agent's own Go value (any JSON-shaped type: text and metadata alike) and
// comes back as that type with every rewrite applied, and the call's id
// ties the audit records of its dispatches together (Input.ToolCallID,
// beyond the seed's contract).
//
// Declare the agent's tools on the engine (engine.WithTools) so that the
// guards know what each tool does; a tool left undeclared is reported as
// unguardedTool in the Result. The other events of an agent's loop are
// plain Engine.Dispatch calls: Example_agentLoop shows where each of the
// thirteen goes in a turn and what to do with its Result.
//
// # Verdicts
//
// [Verdict.Decision] is the engine's: deny, ask, allow or proceed (no
// opinion). How a host acts on it depends on whether it has an approval
// prompt ([Verdict.Blocked]):
//
//	decision  host with a prompt                   host without one
//	deny      block the call (Reason)              block the call (Reason)
//	ask       ask the person, whatever its policy  block the call: it needs approval
//	allow     run it, skip the prompt              run it
//	proceed   its own policy (it may ask)          run it
//
// A host with a prompt calls [Guard.Approve] before showing it: an allow
// there approves without asking, a deny refuses, anything else asks.
//
// # Failure policy
//
// A hook's own failure is not an error here: the engine turns it into an
// outcome (and, with onError: deny, a deny). A dispatch error is: the
// engine closed, a tool input that is not valid JSON, an input or output
// JSON cannot carry. By default it fails closed: Before and Approve return
// a deny verdict whose reason names the error, and After withholds the
// output (it returns nil); the error is returned as well, for the host to
// log. [FailOpen] makes a Guard let the call run and pass the output
// through unchanged instead.
//
// A Guard is safe for concurrent use; it holds nothing but the engine and
// its options.
package hostkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// A Guard dispatches a host's tool calls to an engine. Build one with New.
type Guard struct {
	eng      *engine.Engine
	failOpen bool
}

// An Option configures a Guard.
type Option func(*Guard)

// FailOpen makes a dispatch error let the call run (Before and Approve
// return a proceed verdict with the original input) and pass the tool's
// output through unchanged (After), still returning the error. The default
// fails closed (see the package documentation).
func FailOpen() Option { return func(g *Guard) { g.failOpen = true } }

// New returns a Guard that dispatches to eng. The Guard does not own eng:
// closing it is the caller's job.
func New(eng *engine.Engine, opts ...Option) *Guard {
	g := &Guard{eng: eng}
	for _, o := range opts {
		o(g)
	}
	return g
}

// Call is one tool call of the host.
type Call struct {
	// SessionID and Cwd are the session's (events.Input).
	SessionID string
	Cwd       string
	// Tool is the tool name as the host calls it.
	Tool string
	// Input is the tool's input as the model sent it: a JSON value
	// (usually an object). Empty means none.
	Input json.RawMessage
	// ID is the host's id of the call; every audit record of the call's
	// dispatches carries it (Record.ToolCallID).
	ID string
	// Err is, for After, the error the tool failed with (nil on success):
	// hooks see ok false and the error's text.
	Err error
}

// Verdict is what the hooks said about a call.
type Verdict struct {
	// Decision is deny, ask, allow or proceed (see the package
	// documentation for how a host acts on it).
	Decision events.Decision
	// Reason is the reason of the winning hook (or of a dispatch error).
	Reason string
	// Context is additional context for the model, from the hooks.
	Context string
	// Input is the input to run the tool with: the call's own, or the
	// hooks' rewrite of it as JSON.
	Input json.RawMessage
	// Result is the whole Result of the dispatch (audit, unguardedTool,
	// configError); zero after a dispatch error.
	Result engine.Result
}

// Blocked reports whether the host must not run the call: a deny, or an ask
// when the host cannot ask a person (canAsk false).
func (v Verdict) Blocked(canAsk bool) bool {
	return v.Decision == events.Deny || v.Decision == events.Ask && !canAsk
}

// Before dispatches BeforeTool for c and returns the verdict, with the input
// to run the tool with. It returns an error only for a dispatch error, with
// the verdict of the failure policy.
func (g *Guard) Before(ctx context.Context, c Call) (Verdict, error) {
	return g.gate(ctx, events.BeforeTool, c)
}

// Approve dispatches ApprovalRequest for c, for a host about to ask a person
// whether to run it: allow approves without asking, deny refuses, anything
// else leaves the person to decide. Errors are as for Before.
func (g *Guard) Approve(ctx context.Context, c Call) (Verdict, error) {
	return g.gate(ctx, events.ApprovalRequest, c)
}

func (g *Guard) gate(ctx context.Context, ev events.Event, c Call) (Verdict, error) {
	input, err := decode(c.Input)
	if err != nil {
		return g.failed(c, fmt.Errorf("hostkit: tool input of %s: %w", c.Tool, err))
	}
	res, err := g.eng.Dispatch(ctx, events.Input{Event: ev, SessionID: c.SessionID, Cwd: c.Cwd,
		ToolName: c.Tool, ToolInput: input, ToolCallID: c.ID})
	if err != nil {
		return g.failed(c, fmt.Errorf("hostkit: %s of %s: %w", ev, c.Tool, err))
	}
	v := Verdict{Decision: res.Decision, Reason: res.Reason, Context: res.AdditionalContext, Input: c.Input, Result: res}
	if res.MutatedToolInput != nil {
		b, err := json.Marshal(res.MutatedToolInput)
		if err != nil {
			return g.failed(c, fmt.Errorf("hostkit: rewritten input of %s: %w", c.Tool, err))
		}
		v.Input = b
	}
	return v, nil
}

// failed is the verdict of a dispatch error under the failure policy.
func (g *Guard) failed(c Call, err error) (Verdict, error) {
	if g.failOpen {
		return Verdict{Decision: events.Proceed, Reason: err.Error(), Input: c.Input}, err
	}
	return Verdict{Decision: events.Deny, Reason: "monad-hooks could not check this call, so it is blocked: " + err.Error(), Input: c.Input}, err
}

// After dispatches AfterTool for c with the tool's output and returns the
// output to give the model: output itself when no hook rewrote it, else the
// rewrite (a redaction of any string anywhere in it, content or metadata)
// converted back to output's type. The output must be JSON-shaped: what
// json.Marshal makes of it is what hooks see, and a rewrite is decoded
// with json.Unmarshal into a new value of output's type (unexported fields
// are lost, so keep what the model must not see in exported fields or out
// of output). On a dispatch error After returns nil (the output withheld)
// and the error, or output and the error with FailOpen.
func (g *Guard) After(ctx context.Context, c Call, output any) (any, error) {
	result, err := toJSON(output)
	if err != nil {
		return g.withheld(output, fmt.Errorf("hostkit: output of %s: %w", c.Tool, err))
	}
	input, err := decode(c.Input)
	if err != nil {
		return g.withheld(output, fmt.Errorf("hostkit: tool input of %s: %w", c.Tool, err))
	}
	in := events.Input{Event: events.AfterTool, SessionID: c.SessionID, Cwd: c.Cwd,
		ToolName: c.Tool, ToolInput: input, ToolResult: result, ToolCallID: c.ID}
	ok := c.Err == nil
	in.OK = &ok
	if c.Err != nil {
		in.Error = c.Err.Error()
	}
	res, err := g.eng.Dispatch(ctx, in)
	if err != nil {
		return g.withheld(output, fmt.Errorf("hostkit: AfterTool of %s: %w", c.Tool, err))
	}
	if res.UpdatedToolOutput == nil {
		return output, nil
	}
	out, err := fromJSON(res.UpdatedToolOutput, output)
	if err != nil {
		return g.withheld(output, fmt.Errorf("hostkit: rewritten output of %s: %w", c.Tool, err))
	}
	return out, nil
}

func (g *Guard) withheld(output any, err error) (any, error) {
	if g.failOpen {
		return output, err
	}
	return nil, err
}

// decode turns raw JSON into the engine's values (json.Number for numbers,
// so they round-trip exactly); empty means none.
func decode(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

// toJSON turns a Go value into the engine's values.
func toJSON(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decode(b)
}

// fromJSON decodes the engine's value v into a new value of like's type
// (v itself when like is nil).
func fromJSON(v, like any) (any, error) {
	if like == nil {
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	t := reflect.TypeOf(like)
	p := reflect.New(t)
	if err := json.Unmarshal(b, p.Interface()); err != nil {
		return nil, err
	}
	return p.Elem().Interface(), nil
}
