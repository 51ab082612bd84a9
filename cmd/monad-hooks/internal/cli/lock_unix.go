//go:build unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/monad-hooks/monad-hooks/internal/regfile"
)

// maxLockWait bounds how long a run waits for the lock of a --state file.
// A run that shares the file holds it for one dispatch; one that holds it
// for longer (the agent can: flock FILE.lock sleep 1000 &) would otherwise
// hold every run of a session event until the host's hook timeout, which
// the host reads as "proceed" (Claude Code's default is 60 s).
const maxLockWait = 5 * time.Second

// lockFile takes an exclusive lock on path+".lock" (flock(2), created 0600
// if need be), waiting for it at most maxLockWait, and returns the function
// that releases it. The lock belongs to the open file, so two runs, or two
// goroutines that each call lockFile, exclude each other.
func lockFile(path string) (unlock func() error, err error) {
	f, err := regfile.Open(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("state: lock: %w", err)
	}
	deadline := time.Now().Add(maxLockWait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if err != syscall.EINTR {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, fmt.Errorf("state: lock %s: still held by another process after %v", f.Name(), maxLockWait)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("state: lock %s: %w", f.Name(), err)
	}
	return f.Close, nil // closing the file releases the lock
}
