package stdlib_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQualityRedteamReadonly measures the red team of approve-readonly
// (readonly-redteam-*.txt, not blind): no write may be approved; the
// harmless look-alikes that are not approved are logged (go test -v).
func TestQualityRedteamReadonly(t *testing.T) {
	ro := mustLoad(t, "approve-readonly", nil)
	ra := measureBlindApprovals(t, ro, "readonly-redteam-approve.txt", true)
	rw := measureBlindApprovals(t, ro, "readonly-redteam-writes.txt", false)
	rows := append(ra.report("readonly-redteam-approve.txt", "approved"), rw.report("readonly-redteam-writes.txt", "approved")...)
	if _, hit := rw.total(); hit > 0 {
		t.Errorf("readonly: %d writes approved", hit)
	}
	t.Logf("red team:\n%s", strings.Join(rows, "\n"))
	checkQualitySection(t, "redteam-readonly", rows)
}

// TestApproveReadonlyPastLimits: a line past the shell parser's limits (more
// commands, more bytes) or the pack's own (glob words it reads the line
// for) is never approved, whatever its beginning holds.
func TestApproveReadonlyPastLimits(t *testing.T) {
	p := mustLoad(t, "approve-readonly", nil)
	// More than 64 glob words in commands whose arguments act: each
	// would read the whole line to tell whether it is quoted.
	var globs strings.Builder
	globs.WriteString("git ls-files")
	for i := 0; i < 65; i++ {
		fmt.Fprintf(&globs, " '*%06d'", i)
	}
	for _, cmd := range []string{
		strings.Repeat("ls; ", 10001) + "rm -rf build",
		"ls " + strings.Repeat("a", 1<<20) + "; rm -rf build",
		globs.String(),
	} {
		in := shellInput(cmd)
		in.Event = events.ApprovalRequest
		res, err := p.eng.Dispatch(context.Background(), in)
		require.NoError(t, err)
		assert.NotEqual(t, events.Allow, res.Decision, "%.40s...", cmd)
	}
}

// TestApproveReadonlyReadToolDevices: a read tool is approved unless it
// names a device (a disk, memory, input) or a process's memory, also as
// the target of a link or in the input of a tool the table does not know.
func TestApproveReadonlyReadToolDevices(t *testing.T) {
	p := mustLoad(t, "approve-readonly", nil)
	for _, c := range []struct {
		tool, path string
		want       events.Decision
	}{
		{"Read", "/dev/sda", ""},
		{"view", "/dev/nvme0n1p1", ""},
		{"Read", "/proc/1/mem", ""},
		{"Read", "/proc/kcore", ""},
		{"read_file", "/dev/mem", ""},
		{"Read", "/dev/null", events.Allow},
		{"Read", "/dev/fd/0", events.Allow},
		{"Read", "/proc/cpuinfo", events.Allow},
		{"Read", "src/dev/sda.go", events.Allow},
		{"read_file", "README.md", events.Allow},
	} {
		in := events.Input{Event: events.ApprovalRequest, ToolName: c.tool, Cwd: testRoot, ToolInput: map[string]any{"file_path": c.path, "path": c.path}}
		assert.Equal(t, c.want, p.call(t, in).Decision, "%s %s", c.tool, c.path)
	}
}
