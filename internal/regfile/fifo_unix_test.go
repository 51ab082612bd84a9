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

// TestOpenRefusesWhatIsNotRegular: Open for writing or reading refuses a
// FIFO (with or without a reader) and a device at once, and opens a
// regular file as os.OpenFile does.
func TestOpenRefusesWhatIsNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, err := regfile.Open(fifo, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600) // no reader: ENXIO
	assert.Error(t, err)
	_, err = regfile.Open(fifo, os.O_RDWR|os.O_CREATE, 0o600)
	assert.ErrorIs(t, err, regfile.ErrNotRegular)
	_, err = regfile.Open("/dev/null", os.O_WRONLY, 0)
	assert.ErrorIs(t, err, regfile.ErrNotRegular)
	f, err := regfile.Open(filepath.Join(dir, "log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	require.NoError(t, err)
	_, err = f.WriteString("x\n")
	assert.NoError(t, err)
	assert.NoError(t, f.Close())
}
