package framework

import "syscall"

// busyLoopProcAttr asks Linux to SIGKILL a busy loop when the test binary
// dies without its cleanup (as pkg/cluster's childProcAttr does for a
// cluster's components). Strictly, the signal comes when the thread that
// started the loop exits; the Go runtime keeps its threads for the life of
// the process unless a goroutine locks one and exits, which tests don't.
func busyLoopProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
