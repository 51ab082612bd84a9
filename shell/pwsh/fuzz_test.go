package pwsh_test

import (
	"errors"
	"testing"

	"github.com/monad-hooks/monad-hooks/shell/pwsh"
)

func FuzzCommands(f *testing.F) {
	for _, s := range []string{
		`Remove-Item -Recurse -Force C:\`,
		`gci | % { ri $_ -fo }; cmd /c "rd /s /q x ^& del y"`,
		"\"a`\"$(b)\" 'c''d' <# e #> # f\n& g; . h",
		`$x = @{a=(b)}; [T]::M($(c)) 2>&1 *> z`,
		"pwsh -enc ZQBjAGgAbwA=",
		"\u201cx\u201d \u2013Force",
		"{{{((($($(",
		"))}}]]",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, line string, cmd bool) {
		o := pwsh.Options{MaxCommands: 200}
		var cmds []pwsh.Command
		var err error
		if cmd {
			cmds, err = pwsh.CmdCommands(line, o)
		} else {
			cmds, err = pwsh.Commands(line, o)
		}
		if err != nil && !errors.Is(err, pwsh.ErrTooDeep) && !errors.Is(err, pwsh.ErrTooMany) && !errors.Is(err, pwsh.ErrTooLong) {
			t.Fatalf("unexpected error %v", err)
		}
		if len(cmds) > 200 {
			t.Fatalf("%d commands", len(cmds))
		}
		if steps := pwsh.Steps(line, o, cmd); steps > 64*(len(line)+1) {
			t.Fatalf("%d steps for %d bytes", steps, len(line))
		}
		for _, c := range cmds {
			switch c.Op {
			case "", ";", "&&", "||", "|", "&":
			default:
				t.Fatalf("op %q", c.Op)
			}
			if c.Depth > pwsh.DefaultMaxDepth {
				t.Fatalf("depth %d", c.Depth)
			}
		}
	})
}
