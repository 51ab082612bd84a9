//go:build unix

package shell

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// newProcessGroup makes cmd's process the leader of a new process group,
// whose id is its pid.
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the process group led by p. It returns
// os.ErrProcessDone if the group is gone. A group id cannot be reused while
// any member of the group lives, so this never reaches a stranger while
// the hook has processes left.
func signalGroup(p *os.Process, sig syscall.Signal) error {
	if p == nil || p.Pid <= 0 {
		return os.ErrProcessDone
	}
	err := syscall.Kill(-p.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// signalName names the signal that ended the process, or "".
func signalName(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
