package runtime

import (
	"context"

	"kplane/pkg/kubelet/runtime/simshell"
)

// runCommand runs the container's command in the simulated shell, as its
// PID 1, for a container whose every command the shell knows
// (simshell.RunsAsMainProcess): what it prints goes to the container's
// log, and its status arrives on the returned channel when it ends. ctx
// ending (the container stopped) ends the command.
func (c *simContainer) runCommand(ctx context.Context) <-chan int {
	exit := make(chan int, 1)
	go func() {
		_, argv := c.spec()
		sh := simshell.New(ctx, c.shellEnv(ctx, 1))
		log := simLogWriter{c.logs}
		code, _ := sh.Run(ctx, argv, simshell.Streams{Stdout: log, Stderr: log})
		exit <- code
	}()
	return exit
}

// simLogWriter appends what it is given to a run's log.
type simLogWriter struct{ log *simLog }

// Write appends p to the log.
func (w simLogWriter) Write(p []byte) (int, error) {
	w.log.write(p)
	return len(p), nil
}
