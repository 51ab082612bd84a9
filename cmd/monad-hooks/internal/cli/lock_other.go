//go:build !unix

package cli

// lockFile does not lock where flock(2) is not available: runs that share a
// --state file there may lose each other's updates.
func lockFile(string) (unlock func() error, err error) {
	return func() error { return nil }, nil
}
