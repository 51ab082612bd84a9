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

// Result is the agent's own tool result type: text for the model plus
// metadata the agent stores.
type Result struct {
	Text string         `json:"text"`
	Meta map[string]any `json:"meta,omitempty"`
}

// fakeKey is a made-up cloud access key id, built so that no scanner flags
// this file.
var fakeKey = "AKIA" + "Q3ZT7WBX5MNRK2PL"

// runTool is the agent's tool runner (a stand-in: it runs nothing).
func runTool(name string, input json.RawMessage) Result {
	return Result{Text: "ran " + name + " " + string(input) + " key=" + fakeKey, Meta: map[string]any{"env": map[string]any{"AWS_ACCESS_KEY_ID": fakeKey}}}
}

// A complete agent loop: the agent declares its own tools, asks the guards
// before each call, runs the tool, and hands the result back through them.
// The glue is the 19 lines between the markers.
func Example() {
	ctx := context.Background()
	// glue: begin
	eng, err := engine.New(ctx, engine.WithStdlib("default"),
		engine.WithFiles(engine.Files{Root: "/work/project", Home: "/home/me"}),
		engine.WithTools(
			tools.Spec{Name: "sh", Kind: events.ToolShell, Command: []string{"line"}},
			tools.Spec{Name: "put", Kind: events.ToolWrite, Paths: []string{"to"}, Contents: []string{"body"}}))
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	guard := hostkit.New(eng)
	call := func(c hostkit.Call) Result {
		v, _ := guard.Before(ctx, c) // after an error v blocks; a real agent logs it
		if v.Blocked(false) {        // this agent has no approval prompt
			return Result{Text: "blocked: " + v.Reason}
		}
		out, _ := guard.After(ctx, c, runTool(c.Tool, v.Input))
		res, _ := out.(Result) // the zero Result when the output is withheld
		return res
	}
	// glue: end
	for _, c := range []hostkit.Call{
		{SessionID: "s1", ID: "1", Tool: "sh", Input: json.RawMessage(`{"line":"rm -rf ~"}`)},
		{SessionID: "s1", ID: "2", Tool: "put", Input: json.RawMessage(`{"to":"~/.ssh/id_rsa","body":"x"}`)},
		{SessionID: "s1", ID: "3", Tool: "sh", Input: json.RawMessage(`{"line":"ls"}`)},
	} {
		r := call(c)
		if strings.HasPrefix(r.Text, "blocked") {
			fmt.Println(strings.Join(strings.Fields(r.Text)[:2], " "))
			continue
		}
		fmt.Println(r.Text, r.Meta)
	}
	// Output:
	// blocked: deny-destructive
	// blocked: protect-paths:
	// ran sh {"line":"ls"} key=[REDACTED:aws-access-key-id] map[env:map[AWS_ACCESS_KEY_ID:[REDACTED:aws-access-key-id]]]
}
