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

	"kplane/pkg/api"
)

// cmdPs prints PID, USER, TIME and COMMAND for the container's main
// process, the shell (when exec'd beside it) and ps itself.
func cmdPs(_ context.Context, sh *Shell, _ []string, std stdio) int {
	fmt.Fprintln(std.out, "PID   USER     TIME  COMMAND")
	row := func(pid int, cmd string) { fmt.Fprintf(std.out, "%5d %-8s  0:00 %s\n", pid, "root", cmd) }
	if sh.env.PID != 1 {
		row(1, mainCommand(sh.env.Container))
	}
	row(sh.env.PID, "sh")
	row(sh.nextPID, "ps")
	return 0
}

// CommandLine is a container's command line: its command and args, or
// the image's default command when the spec gives neither (busybox and
// alpine run sh). The runtime runs it as the container's main process.
func CommandLine(c *api.Container) []string {
	argv := append(append([]string{}, c.Command...), c.Args...)
	if len(argv) == 0 {
		switch imageName(c.Image) {
		case "busybox", "alpine":
			argv = []string{"sh"}
		}
	}
	return argv
}

// mainCommand is the container's PID 1 command line as ps shows it: its
// CommandLine, except for an image whose default command the spec does
// not override and whose process is known by another name (nginx
// rewrites its own title), or the image's name when nothing else is known.
func mainCommand(c *api.Container) string {
	if len(c.Command) == 0 {
		switch imageName(c.Image) {
		case "nginx":
			return "nginx: master process nginx -g daemon off;"
		case "pause":
			return "/pause"
		}
	}
	if argv := CommandLine(c); len(argv) > 0 {
		return strings.Join(argv, " ")
	}
	return imageName(c.Image)
}

// imageName is an image reference's last path element without its tag
// or digest: "docker.io/library/nginx:1.27" → "nginx".
func imageName(image string) string {
	name := path.Base(image)
	name, _, _ = strings.Cut(name, "@")
	name, _, _ = strings.Cut(name, ":")
	return name
}
