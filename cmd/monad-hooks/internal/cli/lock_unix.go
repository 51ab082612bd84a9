//go:build unix

package cli

import (
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on path+".lock" (flock(2), created 0600
// if need be), waiting for it, and returns the function that releases it.
// The lock belongs to the open file, so two runs, or two goroutines that
// each call lockFile, exclude each other.
func lockFile(path string) (unlock func() error, err error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("state: lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("state: lock %s: %w", f.Name(), err)
	}
	return f.Close, nil // closing the file releases the lock
}
