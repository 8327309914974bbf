package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"
)

// process is one component while the cluster runs: its command line, its
// log file, and the run of it currently in progress. When a run ends the
// supervisor starts a new run with the same command line.
type process struct {
	component
	// logFile is DATA_DIR/logs/<name>.log, opened for appending, shared by
	// every run and closed when the cluster stops.
	logFile *os.File
	// stream and prefix say where log lines go besides the file; stream
	// is nil for a detached cluster.
	stream *console
	prefix string

	mu sync.Mutex
	// current is the latest run; nil before the first start.
	current *run
	// restarts counts runs after the first.
	restarts int
}

// run is one execution of a process.
type run struct {
	pid     int
	args    []string
	started time.Time
	// done is closed when the process has exited; err is then its exit
	// error (nil for exit status 0).
	done chan struct{}
	err  error
	// copied is closed when its output has been copied to the end.
	copied chan struct{}
	// output is the read end of the pipe the process writes to.
	output *os.File
}

// start runs the process once more. Its stdout and stderr go into one pipe
// that copyLines reads, so the log file and the console see the lines in
// the order the component wrote them.
func (p *process) start() (*run, error) {
	p.mu.Lock()
	args := slices.Clone(p.args)
	p.mu.Unlock()

	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", p.name, err)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("start %s: %w", p.name, err)
	}
	// The child has its own copy of the write end; closing ours lets the
	// reader see EOF when the child exits.
	pw.Close()

	r := &run{pid: cmd.Process.Pid, args: args, started: time.Now(),
		done: make(chan struct{}), copied: make(chan struct{}), output: pr}
	go func() {
		defer close(r.copied)
		copyLines(pr, p.logFile, p.stream, p.prefix)
		pr.Close()
	}()
	go func() {
		r.err = cmd.Wait()
		close(r.done)
	}()

	p.mu.Lock()
	if p.current != nil {
		p.restarts++
	}
	p.current = r
	p.mu.Unlock()
	return r, nil
}

// latest returns the current run and the restart count.
func (p *process) latest() (*run, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.current, p.restarts
}

// setPort pins the apiserver's --secure-port to the port it actually
// listens on, so that a restart keeps the URL every kubeconfig names.
func (p *process) setPort(port string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i := slices.Index(p.args, "--secure-port"); i >= 0 && i+1 < len(p.args) {
		p.args[i+1] = port
	}
}

// exited reports whether the run has ended.
func (r *run) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// exitReason says how a run ended, in os/exec's words ("exit status 2",
// "signal: killed").
func (r *run) exitReason() string {
	if r.err == nil {
		return "exit status 0"
	}
	return r.err.Error()
}

// signal sends sig to the run's process unless it has already exited (the
// PID might belong to someone else by then).
func (r *run) signal(sig syscall.Signal) {
	if r.exited() {
		return
	}
	// Until Wait has reaped it, the PID cannot be reused, so it is safe
	// to signal. An error (ESRCH: it just exited) leaves nothing to do.
	_ = syscall.Kill(r.pid, sig)
}

// closeOutput gives up on copying the rest of the run's output. A
// grandchild that inherited the pipe (a container of the process runtime
// that outlived its kubelet) could otherwise keep the copier alive.
func (r *run) closeOutput(wait time.Duration) {
	select {
	case <-r.copied:
	case <-time.After(wait):
		r.output.Close()
		<-r.copied
	}
}
