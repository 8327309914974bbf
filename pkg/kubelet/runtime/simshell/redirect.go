package simshell

// This file applies a simple command's output redirections, as ash does
// before it runs the command: "> file" creates or empties the file,
// ">> file" appends to it, "2>&1" and ">&2" point one stream at the other,
// and /dev/null (also /dev/stdout, /dev/stderr) are the devices they are.
// Files go through the container's file system, so a redirection into a
// read-only volume fails as there, with ash's words.

import (
	"context"
	"fmt"
	"io"
)

// openRedirects returns std with cmd's redirections applied and the files
// they write to (to check for write errors once the command has run). ok
// is false when a target could not be opened; ash then has said why, and
// the command does not run.
func (sh *Shell) openRedirects(ctx context.Context, cmd simpleCommand, std stdio) (redirected stdio, files []*redirectFile, ok bool) {
	out, errOut := std.out, std.err
	for _, r := range cmd.redirects {
		target := r.target.expand(sh.lookupVar, func(line string) string { return sh.substitute(ctx, line, std) })
		var w io.Writer
		switch target {
		case "/dev/null":
			w = io.Discard
		case "&1", "/dev/stdout":
			w = out
		case "&2", "/dev/stderr":
			w = errOut
		default:
			f, err := sh.fs.create(sh.abs(target), !r.appendTo)
			if err != nil {
				reason := err.Error()
				if err == errNotExist {
					reason = "nonexistent directory" // ash's own word for ENOENT here
				}
				fmt.Fprintf(std.err, "sh: can't create %s: %s\n", target, reason)
				return std, nil, false
			}
			files = append(files, &redirectFile{name: target, w: f})
			w = f
		}
		if r.fd == 1 {
			out = w
		} else {
			errOut = w
		}
	}
	std.out, std.err = out, errOut
	return std, files, true
}

// redirectFile is a file a redirection writes to.
type redirectFile struct {
	name string
	w    *fileWriter
}

// writeErrors says, after the command named name has run, that a write to
// a redirected file failed (the pod's storage was full), and returns the
// command's status: 1 when one did, as a command whose output could not
// be written fails.
func writeErrors(name string, files []*redirectFile, std stdio, status int) int {
	for _, f := range files {
		if f.w.err != nil {
			fmt.Fprintf(std.err, "%s: write error: %v\n", name, f.w.err)
			if status == 0 {
				status = 1
			}
		}
	}
	return status
}
