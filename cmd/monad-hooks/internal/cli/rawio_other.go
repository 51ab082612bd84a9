//go:build !linux || race

package cli

import "net"

// rawIO is net.Conn's reads and writes where raw system calls are not
// used: on other systems, and under the race detector, which learns from
// net.Conn's system calls that a write happens before the read that sees
// it (raw system calls hide that, and it reports races that are not).
type rawIO struct{ net.Conn }

func newRawIO(c net.Conn) *rawIO { return nil }
