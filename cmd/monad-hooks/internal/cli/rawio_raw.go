//go:build linux && !race

package cli

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// rawIO reads and writes a connection's socket with raw system calls on
// Go's netpoller (syscall.RawConn), not through net.Conn, whose calls tell
// the scheduler they may block: that wakes the runtime's monitor thread
// (sysmon) on the first call after every idle wait, which then polls
// every 20 µs for a millisecond, a second thread busy for each request on
// 2 cores (BenchmarkServeHTTPRaw: 1.7 context switches of the server per
// request, 1.1 with rawIO, as JSON lines). The socket is non-blocking: a
// read or write that would block returns EAGAIN, and RawConn waits for the
// socket, with its deadlines, as net.Conn does. One goroutine reads and
// one writes (they may be the same, not two of either).
type rawIO struct {
	rc syscall.RawConn
	// The call in progress, for the functions given to rc (made once:
	// a closure per call would allocate).
	rp, wp        []byte
	rn, wn        int
	rerr, werr    syscall.Errno
	readFn, wrtFn func(fd uintptr) bool
}

// newRawIO returns the raw reader and writer of c, or nil when c has no
// socket (net.Pipe in tests).
func newRawIO(c net.Conn) *rawIO {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	r := &rawIO{rc: rc}
	r.readFn, r.wrtFn = r.read, r.write
	return r
}

func (r *rawIO) read(fd uintptr) bool {
	r.rn, r.rerr = rawCall(syscall.SYS_READ, fd, r.rp)
	return r.rerr != syscall.EAGAIN
}

func (r *rawIO) write(fd uintptr) bool {
	r.wn, r.werr = rawCall(syscall.SYS_WRITE, fd, r.wp)
	return r.werr != syscall.EAGAIN
}

// rawCall is the read or write system call trap on fd with p (not
// empty), made again when a signal interrupted it.
func rawCall(trap, fd uintptr, p []byte) (int, syscall.Errno) {
	for {
		n, _, e := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e != syscall.EINTR {
			return int(n), e
		}
	}
}

func (r *rawIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.rp = p
	err := r.rc.Read(r.readFn)
	r.rp = nil
	switch {
	case err != nil:
		return 0, err
	case r.rerr != 0:
		return 0, r.rerr
	case r.rn == 0:
		return 0, io.EOF
	}
	return r.rn, nil
}

func (r *rawIO) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		r.wp = p[written:]
		err := r.rc.Write(r.wrtFn)
		r.wp = nil
		switch {
		case err != nil:
			return written, err
		case r.werr != 0:
			return written, r.werr
		}
		written += r.wn
	}
	return written, nil
}
