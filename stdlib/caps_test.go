package stdlib_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/events"
)

// The loops and size caps inside the packs fail closed: past a cap, a
// guard denies (or redacts) rather than let through what it did not
// examine. Each test puts the dangerous part just past a cap.

// TestCapsOneLineProgram: a program with more calls than deny-destructive
// examines is denied, and the calls it does examine are all examined (the
// old caps of 16 and 32 let a deletion after 32 decoys through).
func TestCapsOneLineProgram(t *testing.T) {
	p := mustLoad(t, "deny-destructive", nil)
	decoys := func(n int) string { return strings.Repeat("os.remove('x'); ", n) }
	for _, c := range []struct {
		name, code, reason string
	}{
		{"within the cap", decoys(40) + "shutil.rmtree('/')", "[delete-critical]"},
		{"past the cap", decoys(70) + "shutil.rmtree('/')", "[too-complex]"},
		{"exec past the cap", strings.Repeat("os.system('ls'); ", 70) + "os.system('rm -rf /')", "[too-complex]"},
		{"strings past the cap", "subprocess.run([" + strings.Repeat("'x', ", 70) + "'rm'])", "[too-complex]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := p.call(t, shellInput(`python3 -c "import os, shutil, subprocess; `+c.code+`"`))
			require.Equal(t, events.Deny, out.Decision, out.Reason)
			assert.Contains(t, out.Reason, c.reason)
		})
	}
	// far below the caps, harmless programs stay allowed
	out := p.call(t, shellInput(`python3 -c "import os; `+decoys(10)+`print(1)"`))
	assert.Equal(t, events.Decision(""), out.Decision, out.Reason)
}
