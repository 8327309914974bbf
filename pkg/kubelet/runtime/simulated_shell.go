package runtime

// This file connects the simulated runtime to its shell (package simshell):
// `kubectl exec` into a simulated container runs the shell, and a
// container whose spec has stdin: true and whose command is a shell
// (`kubectl run -it t --image=busybox -- sh`) has a shell session as its
// main process, which `kubectl attach` joins; when that shell exits, the
// container exits with its status.

import (
	"context"
	"errors"
	"fmt"
	"io"

	"kplane/pkg/api"
	"kplane/pkg/kubelet/runtime/simshell"
)

// simulatedHTTP is what a simulated pod answers when the shell's curl or
// wget reaches it. It is the one place the shell meets the simulated
// runtime's HTTP answers: SimulatedHTTPResponse (simhttp.go) writes
// nginx's welcome page naming the pod, the same page port-forward serves.
var simulatedHTTP simshell.HTTPResponder = SimulatedHTTPResponse

// shellSettings are the node's settings the simulated shell needs, from
// Config.
type shellSettings struct {
	nodeName, nodeIP          string
	clusterDNS, clusterDomain string
	dnsAddress                string
	kubeProxyAddress          string
	cluster                   simshell.Cluster
}

func shellSettingsFrom(cfg Config) shellSettings {
	return shellSettings{nodeName: cfg.NodeName, nodeIP: cfg.NodeIP, clusterDNS: cfg.ClusterDNS, clusterDomain: cfg.ClusterDomain,
		dnsAddress: cfg.DNSAddress, kubeProxyAddress: cfg.KubeProxyAddress, cluster: cfg.Cluster}
}

// Exec runs cmd in the simulated shell: a shell (`sh`, `sh -c '…'`) or
// one of its commands (`hostname`, `cat /etc/resolv.conf`). A command it
// does not know is a missing executable (ErrCommandNotFound, exit 127).
func (c *simContainer) Exec(ctx context.Context, cmd []string, streams Streams) (int, error) {
	select {
	case <-c.done:
		return 0, fmt.Errorf("container %s is not running", c.name)
	default:
	}
	drainResizes(ctx, streams.Resize)
	sh := simshell.New(ctx, c.shellEnv(ctx, 0)) // an exec'd process: the shell's default PID
	code, err := sh.Run(ctx, cmd, shellStreams(streams))
	var notFound *simshell.NotFoundError
	if errors.As(err, &notFound) {
		return 127, &commandNotFoundError{notFound}
	}
	return code, err
}

// commandNotFoundError is the shell's not-found error, which is an
// ErrCommandNotFound.
type commandNotFoundError struct{ err *simshell.NotFoundError }

// Error is the shell's message; Unwrap makes it an ErrCommandNotFound.
func (e *commandNotFoundError) Error() string { return e.err.Error() }
func (e *commandNotFoundError) Unwrap() error { return ErrCommandNotFound }

// Attach joins the container's own streams. For an interactive shell
// container the client gets the shell session (a fresh one: the simulated
// shell keeps no state between attaches but the files it wrote); its exit, or the end of its
// input, ends the container with the shell's status. A client that
// detaches (ctx ends) leaves the container running unless its spec has
// stdinOnce, whose stdin closes with the first client. For any other
// container, Attach streams what it prints from now on until it exits.
func (c *simContainer) Attach(ctx context.Context, streams Streams) error {
	spec, argv := c.spec()
	if !spec.Stdin || !simshell.IsShellCommand(argv) {
		return c.followOutput(ctx, streams)
	}
	if !c.session.TryLock() {
		return fmt.Errorf("container %s: another client is attached to its shell (kplane's simulated shell takes one at a time)", c.name)
	}
	defer c.session.Unlock()
	if streams.Stdin == nil {
		select {
		case <-ctx.Done():
		case <-c.done:
		}
		return nil
	}
	drainResizes(ctx, streams.Resize)
	sh := simshell.New(ctx, c.shellEnv(ctx, 1))
	code, _ := sh.Run(ctx, argv, shellStreams(streams))
	if ctx.Err() == nil || spec.StdinOnce {
		select {
		case c.shellExit <- code:
		default:
		}
	}
	return nil
}

// followOutput copies what the container prints from now on to the
// client's stdout until the container exits or the client leaves.
func (c *simContainer) followOutput(ctx context.Context, streams Streams) error {
	out := streams.Stdout
	if out == nil {
		out = io.Discard
	}
	c.logs.mu.Lock()
	r := &simLogReader{log: c.logs, follow: true, off: len(c.logs.buf), quit: make(chan struct{})}
	c.logs.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { r.Close() })
	defer stop()
	_, err := io.Copy(out, r)
	return err
}

// spec returns the container's spec in the latest pod and its command
// line (command and args, or the image's default: a busybox image runs sh).
func (c *simContainer) spec() (*api.Container, []string) {
	c.mu.Lock()
	pod := c.pod
	c.mu.Unlock()
	spec := findContainerSpec(pod, c.name)
	return spec, simshell.CommandLine(spec)
}

// isInteractiveShell reports whether a container's main process is an
// interactive shell: stdin: true and a shell command. Such a container
// waits for its input instead of running to completion.
func isInteractiveShell(spec *api.Container) bool {
	return spec.Stdin && simshell.IsShellCommand(simshell.CommandLine(spec))
}

// findContainerSpec finds a container of pod by name (init and ephemeral
// containers too); an unknown name gives an empty spec with that name.
func findContainerSpec(pod *api.Pod, name string) *api.Container {
	for _, list := range [][]api.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	for i := range pod.Spec.EphemeralContainers {
		if pod.Spec.EphemeralContainers[i].Name == name {
			return &pod.Spec.EphemeralContainers[i].Container
		}
	}
	return &api.Container{Name: name}
}

// shellEnv is what the shell knows about this container; pid is the
// shell's PID in ps (1: the container's own process; 0: the default for
// an exec'd one).
func (c *simContainer) shellEnv(ctx context.Context, pid int) simshell.Env {
	c.mu.Lock()
	pod := c.pod
	c.mu.Unlock()
	spec := findContainerSpec(pod, c.name)
	s := c.shell
	return simshell.Env{
		Pod: pod, Container: spec, Environ: simContainerEnv(ctx, s.cluster, pod, spec),
		NodeIP: s.nodeIP, ClusterDNS: s.clusterDNS, ClusterDomain: s.clusterDomain,
		DNSAddress: s.dnsAddress, KubeProxyAddress: s.kubeProxyAddress,
		Cluster: s.cluster, HTTP: simulatedHTTP, Now: c.clock.Now, After: c.clock.After, PID: pid,
		Storage: c.storage, Layer: c.layer,
	}
}

// drainResizes reads and drops a session's terminal sizes until the
// session ends: the simulated shell does not lay out its output by
// width, but the client's resize messages must not pile up behind it.
func drainResizes(ctx context.Context, resizes <-chan TerminalSize) {
	if resizes == nil {
		return
	}
	go func() {
		for {
			select {
			case _, ok := <-resizes:
				if !ok {
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
}

// shellStreams turns a session's streams into the shell's.
func shellStreams(s Streams) simshell.Streams {
	return simshell.Streams{Stdin: s.Stdin, Stdout: s.Stdout, Stderr: s.Stderr, TTY: s.TTY}
}
