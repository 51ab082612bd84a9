package hostkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/engine/hostkit"
	"github.com/monad-hooks/monad-hooks/events"
	"github.com/monad-hooks/monad-hooks/tools"
)

// reply is what the agent's model answers: text, or a call of a tool.
type reply struct {
	Text  string
	Tool  string
	Input json.RawMessage
}

// scriptedModel stands in for the model: it asks for a destructive command,
// then, told it was blocked, for a harmless one, then answers.
func scriptedModel(messages []string) reply {
	last := messages[len(messages)-1]
	switch {
	case strings.HasPrefix(last, "blocked"):
		return reply{Tool: "sh", Input: json.RawMessage(`{"line":"ls build"}`)}
	case strings.HasPrefix(last, "ran"):
		return reply{Text: "the build folder is clean"}
	case strings.Contains(last, "run the tests"):
		return reply{Text: "tests pass"}
	}
	return reply{Tool: "sh", Input: json.RawMessage(`{"line":"rm -rf ~"}`)}
}

// jsonList is the messages as a JSON value (hooks see JSON values only).
func jsonList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// A whole agent loop, with the place of each of the thirteen events: the
// session's start and end, each turn (its prompt, each model call and
// reply, each tool call through hostkit, and its end, which may ask the
// agent to keep working), compaction of the history and a forked subagent.
// The guards are the default set plus two Go hooks of the agent's own: one
// gives context at SessionStart, one asks for a test run before a turn
// ends.
func Example_agentLoop() {
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.WithStdlib("default"),
		engine.WithFiles(engine.Files{Root: "/work/project", Home: "/home/me"}),
		engine.WithTools(tools.Spec{Name: "sh", Kind: events.ToolShell, Command: []string{"line"}}),
		engine.WithHook(engine.GoHook{Name: "branch", Event: events.SessionStart,
			Handler: engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) {
				return events.Output{AdditionalContext: "branch: main"}, nil
			})}),
		engine.WithHook(engine.GoHook{Name: "tests", Event: events.AfterTurn,
			Handler: engine.HandlerFunc(func(_ context.Context, in *events.Input) (events.Output, error) {
				if strings.Contains(in.Response, "tests pass") {
					return events.Output{}, nil
				}
				return events.Output{ContinueWork: &events.ContinueWork{Reason: "run the tests"}}, nil
			})}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	guard := hostkit.New(eng)
	// loop: begin
	const session = "s1"
	dispatch := func(in events.Input) engine.Result {
		in.SessionID = session
		res, err := eng.Dispatch(ctx, in)
		if err != nil { // an invalid input or a closed engine: fail closed
			return engine.Result{Event: in.Event, Decision: events.Deny, Reason: err.Error()}
		}
		return res
	}
	main := &events.Caller{Kind: "main"}
	dispatch(events.Input{Event: events.SessionStart}) // its context waits for the first turn
	prompt := "clean the build folder"
	for {
		turn := dispatch(events.Input{Event: events.BeforeTurn, Prompt: prompt})
		if turn.Denied() {
			fmt.Println("turn refused:", turn.Reason)
			break
		}
		if turn.MutatedPrompt != nil {
			prompt = *turn.MutatedPrompt
		}
		messages := []string{turn.AdditionalContext, prompt} // context first
		var answer string
		for step := 1; ; step++ {
			req := dispatch(events.Input{Event: events.BeforeModel, Caller: main, Request: jsonList(messages)})
			if req.Denied() {
				answer = "model call refused: " + req.Reason
				break
			}
			r := scriptedModel(messages) // the model call (with req.MutatedRequest, if set)
			if r.Tool == "" {
				seen := dispatch(events.Input{Event: events.AfterModel, Caller: main, Response: r.Text})
				if seen.MutatedText != nil {
					r.Text = *seen.MutatedText
				}
				answer = r.Text
				break
			}
			call := hostkit.Call{SessionID: session, ID: fmt.Sprint(step), Tool: r.Tool, Input: r.Input}
			v, _ := guard.Before(ctx, call) // BeforeTool (Approve, for ApprovalRequest, before a prompt)
			if v.Blocked(false) {
				messages = append(messages, "blocked: "+v.Reason)
				continue
			}
			out, _ := guard.After(ctx, call, "ran "+string(v.Input)) // AfterTool, after the tool ran
			messages = append(messages, fmt.Sprint(out))
		}
		end := dispatch(events.Input{Event: events.AfterTurn, Reason: "completed", Response: answer})
		if end.MutatedText != nil {
			answer = *end.MutatedText
		}
		fmt.Printf("turn %q, context %q: %s (%d messages)\n", prompt, messages[0], answer, len(messages))
		if end.ContinueWork == nil { // nil too once maxStopContinues is reached
			break
		}
		prompt = end.ContinueWork.Reason
	}
	// loop: end
	// Compaction of the history: BeforeCompact's context says what to keep.
	keep := dispatch(events.Input{Event: events.BeforeCompact, Compaction: &events.Compaction{Trigger: "auto", Tokens: 120000}})
	dispatch(events.Input{Event: events.AfterCompact, Compaction: &events.Compaction{Trigger: "auto"}})
	// A subagent: BeforeSubagent's context goes into the fork, and
	// AfterSubagent may rewrite what it returns.
	fork := dispatch(events.Input{Event: events.BeforeSubagent, SubagentName: "reviewer"})
	back := dispatch(events.Input{Event: events.AfterSubagent, SubagentName: "reviewer", SubagentResult: "no issues"})
	dispatch(events.Input{Event: events.SessionEnd, Reason: "completed"}) // drops the session's state
	fmt.Println(keep.AdditionalContext == "", fork.AdditionalContext == "", back.MutatedText == nil)
	// Output:
	// turn "clean the build folder", context "branch: main": the build folder is clean (4 messages)
	// turn "run the tests", context "": tests pass (2 messages)
	// true true true
}
