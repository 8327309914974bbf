package simshell

// This file is touch and mkdir, which make files and directories in the
// container's writable layer or a writable volume, in busybox's words
// when they cannot.

import (
	"context"
	"fmt"
)

// cmdTouch is touch [-c] FILE...: it creates each missing file empty
// (not with -c) and sets an existing one's time to now.
func cmdTouch(_ context.Context, sh *Shell, args []string, std stdio) int {
	flags, files, bad := shortFlags(args[1:], "cam")
	if bad != 0 {
		return usage(std, "touch", fmt.Sprintf("unrecognized option: %c", bad))
	}
	if len(files) == 0 {
		return usage(std, "touch", "missing operand")
	}
	status := 0
	for _, name := range files {
		p := sh.abs(name)
		if _, err := sh.fs.stat(p); err != nil && flags['c'] {
			continue
		}
		if err := sh.fs.touch(p); err != nil {
			fmt.Fprintf(std.err, "touch: %s: %v\n", name, err)
			status = 1
		}
	}
	return status
}

// cmdMkdir is mkdir [-p] DIR...: it makes each directory, whose parent
// must exist; with -p it makes the missing parents too, and a directory
// that exists is no error.
func cmdMkdir(_ context.Context, sh *Shell, args []string, std stdio) int {
	flags, dirs, bad := shortFlags(args[1:], "p")
	if bad != 0 {
		return usage(std, "mkdir", fmt.Sprintf("unrecognized option: %c", bad))
	}
	if len(dirs) == 0 {
		return usage(std, "mkdir", "missing operand")
	}
	status := 0
	for _, name := range dirs {
		p := sh.abs(name)
		var err error
		if flags['p'] {
			err = sh.fs.mkdirAll(p)
		} else {
			err = sh.fs.mkdir(p)
		}
		if err != nil {
			fmt.Fprintf(std.err, "mkdir: can't create directory '%s': %v\n", name, err)
			status = 1
		}
	}
	return status
}
