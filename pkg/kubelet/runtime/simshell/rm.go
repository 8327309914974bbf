package simshell

// This file is rm, which removes files and (with -r) directories from the
// container's writable layer or a writable volume. A read-only volume's
// files and a mount point stay, as on a real node.

import (
	"context"
	"fmt"
	"path"
)

// cmdRm is rm [-f] [-r] FILE...: busybox's messages, and with -f no word
// about (and no failure for) a file that is not there.
func cmdRm(_ context.Context, sh *Shell, args []string, std stdio) int {
	flags, files, bad := shortFlags(args[1:], "frR")
	if bad != 0 {
		return usage(std, "rm", fmt.Sprintf("unrecognized option: %c", bad))
	}
	force, recursive := flags['f'], flags['r'] || flags['R']
	if len(files) == 0 && !force {
		return usage(std, "rm", "missing operand")
	}
	status := 0
	for _, name := range files {
		if base := path.Base(name); base == "." || base == ".." {
			fmt.Fprintf(std.err, "rm: can't remove '.' or '..'\n")
			status = 1
			continue
		}
		if !sh.removePath(std, name, sh.abs(name), force, recursive) {
			status = 1
		}
	}
	return status
}

// removePath removes p (named name in messages), with recursive what is
// under it first, and reports whether everything went.
func (sh *Shell) removePath(std stdio, name, p string, force, recursive bool) bool {
	info, err := sh.fs.stat(p)
	if err != nil {
		if force && err == errNotExist {
			return true
		}
		fmt.Fprintf(std.err, "rm: can't remove '%s': %v\n", name, err)
		return false
	}
	ok := true
	if info.dir {
		if !recursive {
			fmt.Fprintf(std.err, "rm: '%s' is a directory\n", name)
			return false
		}
		names, _ := sh.fs.list(p)
		for _, child := range names {
			ok = sh.removePath(std, path.Join(name, child), path.Join(p, child), force, recursive) && ok
		}
	}
	if err := sh.fs.remove(p); err != nil {
		if err == errNotEmpty && !ok {
			return false // what is left was already reported
		}
		fmt.Fprintf(std.err, "rm: can't remove '%s': %v\n", name, err)
		return false
	}
	return ok
}
