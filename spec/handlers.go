package spec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/events"
)

// A HandlerMaker builds a named Go test handler from the case's args. The
// handlers of one case share a [Shared] value, fresh per case.
type HandlerMaker func(args map[string]any, shared *Shared) (engine.Handler, error)

// Shared is per-case state that named handlers can coordinate through (the
// barrier that proves parallel fan-out).
type Shared struct {
	mu       sync.Mutex
	barriers map[string]*barrier
}

type barrier struct {
	n, arrived int
	done       chan struct{}
}

func (s *Shared) barrier(name string, n int) *barrier {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.barriers == nil {
		s.barriers = map[string]*barrier{}
	}
	b := s.barriers[name]
	if b == nil {
		b = &barrier{n: n, done: make(chan struct{})}
		s.barriers[name] = b
	}
	return b
}

func (s *Shared) arrive(b *barrier) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b.arrived++
	if b.arrived == b.n {
		close(b.done)
	}
}

// Handlers returns the named Go handlers spec cases can use as atom hooks.
// The caller owns the map and may add its own.
//
//   - output: returns args as the HookOutput (decoded and validated like a
//     command hook's stdout).
//   - raw: returns args.decision verbatim, valid or not (to prove that an
//     invalid output is a failure).
//   - echo: returns additionalContext (or, with args.into = "mutatedText",
//     mutatedText) = "<label>=<value of args.field>" where field is an Input
//     JSON path such as "toolInput.command" (proves chaining).
//   - error: returns an error with args.message.
//   - panic: panics with args.message.
//   - sleep: waits args.ms milliseconds or until its context ends, then
//     returns args.output (or ctx.Err()).
//   - hang: ignores its context and returns after args.ms milliseconds.
//   - barrier: waits until args.n handlers of the barrier args.name have
//     arrived, or its context ends (proves parallel fan-out), then returns
//     args.output.
func Handlers() map[string]HandlerMaker {
	return map[string]HandlerMaker{
		"output": func(args map[string]any, _ *Shared) (engine.Handler, error) {
			out, err := outputFrom(args)
			if err != nil {
				return nil, err
			}
			return fixed(out), nil
		},
		"raw": func(args map[string]any, _ *Shared) (engine.Handler, error) {
			d, _ := args["decision"].(string)
			return fixed(events.Output{Decision: events.Decision(d)}), nil
		},
		"echo": func(args map[string]any, _ *Shared) (engine.Handler, error) {
			field, _ := args["field"].(string)
			if field == "" {
				return nil, errors.New("echo: args.field is required")
			}
			label, _ := args["label"].(string)
			if label == "" {
				label = field
			}
			into, _ := args["into"].(string)
			if into != "" && into != "mutatedText" && into != "additionalContext" {
				return nil, errors.New("echo: args.into is additionalContext or mutatedText")
			}
			return engine.HandlerFunc(func(_ context.Context, in *events.Input) (events.Output, error) {
				v, err := inputPath(in, field)
				if err != nil {
					return events.Output{}, err
				}
				text := label + "=" + v
				if into == "mutatedText" {
					return events.Output{MutatedText: &text}, nil
				}
				return events.Output{AdditionalContext: text}, nil
			}), nil
		},
		"error": func(args map[string]any, _ *Shared) (engine.Handler, error) {
			msg, _ := args["message"].(string)
			return engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) {
				return events.Output{}, errors.New(msg)
			}), nil
		},
		"panic": func(args map[string]any, _ *Shared) (engine.Handler, error) {
			msg, _ := args["message"].(string)
			return engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) {
				panic(msg)
			}), nil
		},
		"sleep": func(args map[string]any, _ *Shared) (engine.Handler, error) {
			d := durationArg(args)
			out, err := outputFrom(subMap(args, "output"))
			if err != nil {
				return nil, err
			}
			return engine.HandlerFunc(func(ctx context.Context, _ *events.Input) (events.Output, error) {
				t := time.NewTimer(d)
				defer t.Stop()
				select {
				case <-t.C:
					return out, nil
				case <-ctx.Done():
					return events.Output{}, context.Cause(ctx)
				}
			}), nil
		},
		"hang": func(args map[string]any, _ *Shared) (engine.Handler, error) {
			d := durationArg(args)
			return engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) {
				time.Sleep(d)
				return events.Output{Decision: events.Allow}, nil
			}), nil
		},
		"barrier": func(args map[string]any, sh *Shared) (engine.Handler, error) {
			name, _ := args["name"].(string)
			n := intArg(args, "n")
			if n < 1 {
				return nil, errors.New("barrier: args.n must be >= 1")
			}
			out, err := outputFrom(subMap(args, "output"))
			if err != nil {
				return nil, err
			}
			b := sh.barrier(name, n)
			return engine.HandlerFunc(func(ctx context.Context, _ *events.Input) (events.Output, error) {
				sh.arrive(b)
				select {
				case <-b.done:
					return out, nil
				case <-ctx.Done():
					return events.Output{}, fmt.Errorf("barrier %q: only %d of %d arrived: %w", name, b.arrived, n, context.Cause(ctx))
				}
			}), nil
		},
	}
}

func fixed(out events.Output) engine.Handler {
	return engine.HandlerFunc(func(context.Context, *events.Input) (events.Output, error) { return out, nil })
}

func outputFrom(args map[string]any) (events.Output, error) {
	if len(args) == 0 {
		return events.Output{}, nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		return events.Output{}, err
	}
	return events.DecodeOutput(b)
}

func subMap(args map[string]any, key string) map[string]any {
	m, _ := args[key].(map[string]any)
	return m
}

func intArg(args map[string]any, key string) int {
	switch v := args[key].(type) {
	case int64:
		return int(v)
	case float64:
		return int(v)
	case int:
		return v
	}
	return 0
}

func durationArg(args map[string]any) time.Duration {
	return time.Duration(intArg(args, "ms")) * time.Millisecond
}

// inputPath renders the value at a dotted JSON path of the input.
func inputPath(in *events.Input, path string) (string, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return "", err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "", err
	}
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return "<absent>", nil
		}
		if v, ok = m[p]; !ok {
			return "<absent>", nil
		}
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	out, _ := json.Marshal(v)
	return string(out), nil
}

// HandlerNames returns the names of the built-in handlers, sorted.
func HandlerNames() []string {
	var names []string
	for n := range Handlers() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
