// Package regfile reads and opens regular files, bounded: a path that names
// anything else (a FIFO, a device, a socket, a folder) is an error at once,
// never an open that waits for a writer (or a reader) or a read that never
// ends (/dev/zero), and a file larger than the bound is an error without
// being read whole. It is how monad-hooks reads and writes files that
// someone other than its user may have put in place (a project's
// configuration, scripts, state, audit log, lock).
//
// Its functions are safe for concurrent use.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular marks a path that is not a regular file (after symbolic
// links). It matches fs.ErrInvalid too.
var ErrNotRegular error = notRegular{}

// notRegular is ErrNotRegular: a type, not fmt.Errorf, whose first call at
// package initialisation was a twentieth of every start of the CLI
// (BenchmarkCLIRunNoStdlib).
type notRegular struct{}

func (notRegular) Error() string { return "not a regular file: " + fs.ErrInvalid.Error() }
func (notRegular) Unwrap() error { return fs.ErrInvalid }

// ErrTooLarge marks a file larger than the bound of Read.
var ErrTooLarge = errors.New("file too large")

// Open opens the file at path with flag (os.O_WRONLY|os.O_APPEND|os.O_CREATE,
// say) and perm, as os.OpenFile does, but refuses at once, without waiting,
// a path that is not a regular file (an error matching ErrNotRegular; a
// FIFO that no one reads is the operating system's error, ENXIO).
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|oNonblock, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Read returns the content of the regular file at path, at most max bytes.
// A path that is not a regular file is an error matching ErrNotRegular
// (opening it does not block: a FIFO is opened non-blocking, then refused);
// a file longer than max is an error matching ErrTooLarge. Other errors are
// those of the operating system (fs.ErrNotExist, fs.ErrPermission, ...),
// wrapped in an *fs.PathError.
func Read(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	size := fi.Size()
	if size > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %d bytes, more than %d", ErrTooLarge, size, max)}
	}
	// The size is a hint: the file may grow while it is read.
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)}
	}
	return b, nil
}
