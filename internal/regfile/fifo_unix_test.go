//go:build unix

package regfile_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/internal/regfile"
)

// TestFIFODoesNotBlock: a FIFO without a writer is refused at once; a
// plain open would wait for a writer forever.
func TestFIFODoesNotBlock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(p, 0o600))
	done := make(chan error, 1)
	go func() {
		_, err := regfile.Read(p, 100)
		done <- err
	}()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, regfile.ErrNotRegular)
	case <-time.After(30 * time.Second): // far above the cost
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("Read blocked on a FIFO")
	}
}
