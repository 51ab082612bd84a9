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

// readNow reads what the pollable file f holds, without waiting: 0 and an
// error (EAGAIN) if it holds nothing, 0 and nil at EOF.
func readNow(f *os.File, p []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	if err := rc.Read(func(fd uintptr) bool {
		n, rerr = syscall.Read(int(fd), p)
		return true // never wait
	}); err != nil {
		return 0, err
	}
	return max(n, 0), rerr
}
