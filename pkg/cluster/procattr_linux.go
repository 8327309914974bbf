package cluster

import "syscall"

// childProcAttr puts a component in a process group of its own, so that
// Ctrl-C in the terminal reaches only the launcher, which then stops the
// components in order (kubelets before the apiserver) instead of all of
// them dying at once. Pdeathsig asks Linux to send SIGTERM to the child if
// the launcher itself dies without stopping it (kill -9, a crashed test),
// so no orphaned cluster is left behind. (Strictly, Linux sends it when the
// thread that started the child exits; the Go runtime keeps its threads for
// the life of the process unless a goroutine locks one and exits, which this
// package never does.)
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// supervisorProcAttr starts a detached cluster's supervisor in a session of
// its own: no controlling terminal, so closing the terminal (SIGHUP) does
// not reach it, and it outlives the `ctl up -d` that started it.
func supervisorProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
