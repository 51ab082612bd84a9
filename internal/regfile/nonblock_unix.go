//go:build unix

package regfile

import "syscall"

// oNonblock opens a FIFO without waiting for a writer.
const oNonblock = syscall.O_NONBLOCK
