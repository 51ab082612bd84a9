//go:build unix

package shell

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestCaptureBound(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		chunk := make([]byte, 64<<10)
		for range 64 { // 4 MiB
			if _, err := w.Write(chunk); err != nil {
				break
			}
		}
		_ = w.Close()
	}()
	var c capture
	overflows := 0
	c.read(r, 1000, func() { overflows++ })
	_ = r.Close()
	// Growth rounds up to an allocation size class, no further.
	if len(c.buf) != 1000 || cap(c.buf) > 2000 || !c.truncated || overflows != 1 {
		t.Errorf("len %d cap %d truncated %v overflows %d", len(c.buf), cap(c.buf), c.truncated, overflows)
	}
}

// TestCaptureAfterDeadline: a reader that gets to run only after its
// deadline still takes what the pipe holds (a Read past its deadline
// fails without reading).
func TestCaptureAfterDeadline(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll(r, w) // w stays open: a grandchild holding the pipe
	want := strings.Repeat("0123456789", 3000)
	if _, err := w.WriteString(want); err != nil {
		t.Fatal(err)
	}
	if err := r.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	var c capture
	c.read(r, 1<<20, nil)
	if string(c.buf) != want || c.truncated {
		t.Errorf("captured %d bytes, truncated %v", len(c.buf), c.truncated)
	}

	// Over the limit in the buffered part: truncated, bounded.
	if _, err := w.WriteString(want); err != nil {
		t.Fatal(err)
	}
	if err := r.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	var c2 capture
	overflows := 0
	c2.read(r, 100, func() { overflows++ })
	if string(c2.buf) != want[:100] || !c2.truncated || overflows != 1 {
		t.Errorf("captured %q, truncated %v, overflows %d", c2.buf, c2.truncated, overflows)
	}
}
