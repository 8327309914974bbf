package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"kplane/pkg/client"
)

// SupervisorArgs is the command line (after the binary) that starts the
// background supervisor of a detached cluster: `ctl up --supervise` with
// the same options. pkg/ctl's up command defines these flags; the
// supervisor runs Up and then waits, like a foreground `ctl up` whose
// terminal is a log file.
func SupervisorArgs(o Options) []string {
	args := []string{"up", "--supervise",
		"--data-dir", o.DataDir,
		"--nodes", strconv.Itoa(o.Nodes),
		"--runtime", o.Runtime,
		"--port", strconv.Itoa(o.Port),
		"--bin-dir", o.BinDir,
		"--ready-timeout", o.ReadyTimeout.String(),
		"--default-storage-class=" + strconv.FormatBool(o.DefaultStorageClass),
		"--controller-managers", strconv.Itoa(max(o.ControllerManagers, 1)),
		"--virtual-clock=" + strconv.FormatBool(o.VirtualClock),
		"--debug-ring-size", strconv.Itoa(o.DebugRingSize),
		"--etcd-members", strconv.Itoa(o.EtcdMembers),
		"--apiservers", strconv.Itoa(o.APIServers),
	}
	if o.LoadBalancer != "" {
		args = append(args, "--load-balancer", o.LoadBalancer)
	}
	if o.MetricResolution > 0 {
		args = append(args, "--metric-resolution", o.MetricResolution.String())
	}
	return append(args, o.componentFlagArgs()...)
}

// detachedCluster is this process's view of a cluster that a background
// supervisor runs.
type detachedCluster struct {
	pid int
	// exited is closed once the supervisor has exited.
	exited chan struct{}
	err    error
}

func (d *detachedCluster) wait() error {
	<-d.exited
	return d.err
}

// upDetached starts `ctl up --supervise` in a session of its own, with its
// output in DATA_DIR/logs/supervisor.log, and waits until it has recorded
// in cluster.json that every node is Ready (and the API agrees). If the
// supervisor exits first, the end of its log says why.
func upDetached(ctx context.Context, o Options, displayDir string, began time.Time) (*Cluster, error) {
	l := layout{o.DataDir}
	if err := refuseIfRunning(o.DataDir, displayDir); err != nil {
		return nil, err
	}
	ctl := filepath.Join(o.BinDir, ctlBinary)
	if !isExecutable(ctl) {
		return nil, fmt.Errorf("%s not found in %s (run `make build` first)", ctlBinary, o.BinDir)
	}
	if err := os.MkdirAll(l.logsDir(), 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", l.logsDir(), err)
	}
	logPath := l.logFile("supervisor")
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", logPath, err)
	}
	cmd := exec.Command(ctl, SupervisorArgs(o)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = supervisorProcAttr()
	err = cmd.Start()
	logFile.Close()
	if err != nil {
		return nil, fmt.Errorf("start the cluster's supervisor: %w", err)
	}
	d := &detachedCluster{pid: cmd.Process.Pid, exited: make(chan struct{})}
	// Waiting reaps the supervisor if it exits while this process lives.
	go func() {
		d.err = cmd.Wait()
		close(d.exited)
	}()

	// The supervisor has its own ReadyTimeout; allow for it to report.
	deadline := began.Add(o.ReadyTimeout + 5*time.Second)
	for {
		if ready(l, d.pid, o.Nodes) {
			break
		}
		select {
		case <-d.exited:
			return nil, fmt.Errorf("the cluster's supervisor exited: %v; last lines of %s:\n%s", d.err, logPath, tail(logPath, 15))
		default:
		}
		if err := sleepUntil(ctx, deadline, 20*time.Millisecond); err != nil {
			_ = syscall.Kill(d.pid, syscall.SIGTERM)
			<-d.exited
			return nil, fmt.Errorf("waiting for the detached cluster to be ready: %w; see %s", err, logPath)
		}
	}

	state, err := ReadState(o.DataDir)
	if err != nil {
		return nil, err
	}
	c := &Cluster{opts: o, displayDir: displayDir, layout: l, server: state.Server,
		readyIn: time.Since(began), detached: d, console: newConsole(o.Out, o.Color, nil)}
	nodes := NodeNames(o.Nodes)
	c.console.say("kplane is ready in %s: %s Ready, apiserver %s (running in the background, supervisor pid %d)",
		c.readyIn.Round(time.Millisecond), count(len(nodes), "node"), c.server, d.pid)
	c.console.say("")
	c.console.say("  kubectl --kubeconfig %s get nodes", filepath.Join(displayDir, "kubeconfig"))
	c.console.say("")
	c.console.say("Logs are in %s. Stop the cluster with `%s down --data-dir %s`.",
		filepath.Join(displayDir, "logs"), displayPath(ctl), displayDir)
	return c, nil
}

// ready reports whether the supervisor with pid has recorded a ready
// cluster and the API shows every node Ready.
func ready(l layout, pid, nodes int) bool {
	state, err := ReadState(l.dir)
	if err != nil || state.Supervisor.PID != pid || state.ReadyAt == nil {
		return false
	}
	admin, err := newAdminClient(l.adminKubeconfig())
	if err != nil {
		return false
	}
	defer admin.Close()
	list, err := admin.Nodes().List(context.Background(), client.ListOptions{})
	return err == nil && len(nodesNotReady(NodeNames(nodes), list.Items)) == 0
}

// displayPath shortens path relative to the working directory when it is
// below it ("bin/ctl" rather than "/home/me/kplane/bin/ctl").
func displayPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return path
}
