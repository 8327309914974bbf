//go:build !linux

package netns

import "syscall"

// childProcAttr: only Linux can tie a child's life to its parent's (and
// only Linux has network namespaces).
func childProcAttr() *syscall.SysProcAttr { return nil }
