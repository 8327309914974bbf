package robustness

import "syscall"

// childProcAttr asks Linux to SIGKILL a started process when the test
// binary that started it dies (a crash, a timeout's panic, kill -9), as
// pkg/cluster's childProcAttr does, so that no component outlives the
// test. The setting survives the exec of `ip netns exec`, so it reaches
// the component itself. (Linux sends it when the thread that started the
// child exits; the Go runtime keeps its threads for the life of the
// process unless a goroutine locks one and exits, which no test does.)
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
