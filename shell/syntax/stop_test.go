package syntax

import (
	"errors"
	"strings"
	"testing"
)

// TestStop: Options.Stop and SplitStop's stop end a parse early, with the
// commands or words found and ErrStopped; a stop that never fires changes
// nothing.
func TestStop(t *testing.T) {
	line := strings.Repeat("echo 'a b' | grep -v x; ", 20000)
	all, err := Commands(line, Options{MaxCommands: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	polls := 0
	stopAfter := func(n int) func() bool {
		polls = 0
		return func() bool { polls++; return polls > n }
	}
	cmds, err := Commands(line, Options{MaxCommands: 1 << 20, Stop: stopAfter(3)})
	if !errors.Is(err, ErrStopped) || len(cmds) == 0 || len(cmds) >= len(all)/2 {
		t.Fatalf("%d of %d commands, %v", len(cmds), len(all), err)
	}
	if polls != 4 {
		t.Fatalf("stop polled %d times after it fired", polls)
	}
	never, err := Commands(line, Options{MaxCommands: 1 << 20, Stop: func() bool { return false }})
	if err != nil || len(never) != len(all) {
		t.Fatalf("%d of %d commands, %v", len(never), len(all), err)
	}

	words, err := Split(line)
	if err != nil {
		t.Fatal(err)
	}
	some, err := SplitStop(line, stopAfter(3))
	if !errors.Is(err, ErrStopped) || len(some) == 0 || len(some) >= len(words)/2 {
		t.Fatalf("%d of %d words, %v", len(some), len(words), err)
	}
	same, err := SplitStop(line, func() bool { return false })
	if err != nil || len(same) != len(words) {
		t.Fatalf("%d of %d words, %v", len(same), len(words), err)
	}
}
