//go:build unix && !linux

package cluster

import "syscall"

// childProcAttr puts a component in a process group of its own; see the
// Linux version, which also stops children when the launcher dies.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// supervisorProcAttr starts a detached cluster's supervisor in a session of
// its own.
func supervisorProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
