//go:build !unix

package shell

import (
	"io"
	"os"
	"os/exec"
)

type signal int

const (
	sigTerm signal = iota
	sigKill
)

// newProcessGroup does nothing: process groups are a Unix notion.
func newProcessGroup(*exec.Cmd) {}

// signalGroup kills p alone: without process groups its children survive.
func signalGroup(p *os.Process, _ signal) error {
	if p == nil {
		return os.ErrProcessDone
	}
	return p.Kill()
}

// signalName returns "": only Unix reports signals.
func signalName(*os.ProcessState) string { return "" }

// readNow reads nothing: without a non-blocking read, what a pipe holds
// when its deadline passes is lost.
func readNow(*os.File, []byte) (int, error) { return 0, io.EOF }
