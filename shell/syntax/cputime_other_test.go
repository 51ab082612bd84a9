//go:build !linux

package syntax

import "time"

var clockStart = time.Now()

// threadCPU falls back to the wall clock where the thread's CPU clock is
// not read (the timing checks run on Linux).
func threadCPU() time.Duration { return time.Since(clockStart) }
