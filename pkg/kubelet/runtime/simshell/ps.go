package simshell

// This file is ps: the container's processes, in busybox's columns. The
// container's own command is PID 1; an exec'd shell and the commands it
// runs come after it. The simulated runtime runs nothing, so these are
// the processes the container would have, not processes of this machine.

import (
	"context"
	"fmt"
	"path"
	"strings"
)

// cmdPs prints PID, USER, TIME and COMMAND for the container's main
// process, the shell (when exec'd beside it) and ps itself.
func cmdPs(_ context.Context, sh *Shell, _ []string, std stdio) int {
	fmt.Fprintln(std.out, "PID   USER     TIME  COMMAND")
	row := func(pid int, cmd string) { fmt.Fprintf(std.out, "%5d %-8s  0:00 %s\n", pid, "root", cmd) }
	if sh.env.PID != 1 {
		row(1, mainCommand(sh.env.Container.Command, sh.env.Container.Args, sh.env.Container.Image))
	}
	row(sh.env.PID, "sh")
	row(sh.nextPID, "ps")
	return 0
}

// mainCommand is the container's PID 1 command line as ps shows it: its
// command and args, or for an image whose default command the spec does
// not override, what that image runs (nginx rewrites its own title).
func mainCommand(command, args []string, image string) string {
	argv := append(append([]string{}, command...), args...)
	if len(command) == 0 {
		switch imageName(image) {
		case "nginx":
			return "nginx: master process nginx -g daemon off;"
		case "busybox", "alpine":
			if len(args) == 0 {
				return "sh"
			}
		case "pause":
			return "/pause"
		}
	}
	if len(argv) == 0 {
		return imageName(image)
	}
	return strings.Join(argv, " ")
}

// imageName is an image reference's last path element without its tag
// or digest: "docker.io/library/nginx:1.27" → "nginx".
func imageName(image string) string {
	name := path.Base(image)
	name, _, _ = strings.Cut(name, "@")
	name, _, _ = strings.Cut(name, ":")
	return name
}
