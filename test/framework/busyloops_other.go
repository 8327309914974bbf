//go:build !linux

package framework

import "syscall"

// busyLoopProcAttr: only Linux can tie a child's life to its parent's;
// elsewhere the test's cleanup alone stops the loops.
func busyLoopProcAttr() *syscall.SysProcAttr { return nil }
