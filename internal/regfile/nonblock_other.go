//go:build !unix

package regfile

// oNonblock: opening a FIFO does not wait on systems other than Unix.
const oNonblock = 0
