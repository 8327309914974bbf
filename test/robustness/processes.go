package robustness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"kplane/pkg/kubeconfig"
)

// process is one binary the run started: it can be killed (-9), stopped
// gracefully (SIGTERM) and started again with the same arguments. Only
// the run's own processes are ever signalled, by PID.
type process struct {
	name string
	path string
	args []string
	log  string
	cmd  *exec.Cmd
	// exited is closed when the running process has been waited for.
	exited chan struct{}
}

// start runs the process, its output appended to its log file.
func (p *process) start() error {
	logFile, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	cmd := exec.Command(p.path, p.args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(exited)
	}()
	p.cmd, p.exited = cmd, exited
	return nil
}

// running reports whether the process was started and has not exited.
func (p *process) running() bool {
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// logTail returns the last lines of the process's log, for error messages:
// a process that exits on its own says why there.
func (p *process) logTail(lines int) string {
	data, err := os.ReadFile(p.log)
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *process) kill() {
	if !p.running() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// stop sends SIGTERM and waits up to grace for a clean exit, then kills.
func (p *process) stop(grace time.Duration) {
	if !p.running() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		p.kill()
	}
}

// Cluster is the control plane a run drives: three bin/etcd members (one
// raft cluster) and one bin/apiserver storing into them, each a process
// of its own so that faults can kill them.
type Cluster struct {
	Members   []*process
	APIServer *process
	// EtcdEndpoints are the members' client URLs.
	EtcdEndpoints []string
	// URL is the apiserver's, fixed for the run so restarts keep it.
	URL string
	// Token and CAPEM come from the admin kubeconfig the apiserver wrote.
	Token string
	CAPEM []byte
}

// StartCluster starts the etcd members and the apiserver from binDir with
// their data and logs in dir, and returns once the apiserver is ready.
func StartCluster(ctx context.Context, binDir, dir string, members int) (*Cluster, error) {
	for _, name := range []string{"etcd", "apiserver"} {
		if _, err := os.Stat(filepath.Join(binDir, name)); err != nil {
			return nil, fmt.Errorf("no %s binary in %s (run `make build` first): %w", name, binDir, err)
		}
	}
	ports, err := freePorts(2*members + 1)
	if err != nil {
		return nil, err
	}
	c := &Cluster{}
	var initial []string
	for i := range members {
		name := fmt.Sprintf("etcd-%d", i+1)
		initial = append(initial, fmt.Sprintf("%s=http://127.0.0.1:%d", name, ports[2*i+1]))
		c.EtcdEndpoints = append(c.EtcdEndpoints, fmt.Sprintf("http://127.0.0.1:%d", ports[2*i]))
	}
	for i := range members {
		name := fmt.Sprintf("etcd-%d", i+1)
		c.Members = append(c.Members, &process{name: name, path: filepath.Join(binDir, "etcd"), log: filepath.Join(dir, name+".log"), args: []string{
			"--name", name, "--data-dir", filepath.Join(dir, name),
			"--listen-client-urls", c.EtcdEndpoints[i],
			"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", ports[2*i+1]),
			"--initial-cluster", strings.Join(initial, ","),
			"--initial-cluster-token", "robustness-" + filepath.Base(dir),
		}})
	}
	port := ports[2*members]
	c.URL = fmt.Sprintf("https://127.0.0.1:%d", port)
	apiDir := filepath.Join(dir, "apiserver")
	c.APIServer = &process{name: "apiserver", path: filepath.Join(binDir, "apiserver"), log: filepath.Join(dir, "apiserver.log"), args: []string{
		"--data-dir", apiDir, "--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(port),
		"--etcd-servers", strings.Join(c.EtcdEndpoints, ","),
		// The debug API serves the compaction fault; the journal must be on.
		"--debug-ring-size", "1000",
		// Periodic compaction too, beside the injected ones: each tick
		// compacts to the revision the previous tick saw.
		"--etcd-compaction-interval", "20s",
	}}
	for _, m := range c.Members {
		if err := m.start(); err != nil {
			c.Stop()
			return nil, err
		}
	}
	if err := c.APIServer.start(); err != nil {
		c.Stop()
		return nil, err
	}
	kc, err := waitForKubeconfig(ctx, filepath.Join(apiDir, "kubeconfig"), c.APIServer)
	if err != nil {
		c.Stop()
		return nil, err
	}
	c.Token, c.CAPEM = kc.Token, kc.CAPEM
	if err := c.WaitReady(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// Stop kills every process of the cluster.
func (c *Cluster) Stop() {
	c.APIServer.kill()
	for _, m := range c.Members {
		m.kill()
	}
}

// HTTPClient returns a client that trusts the cluster's CA.
func (c *Cluster) HTTPClient(timeout time.Duration) (*http.Client, error) {
	tlsConfig, err := (kubeconfig.Resolved{Server: c.URL, CAPEM: c.CAPEM}).TLSConfig()
	if err != nil {
		return nil, fmt.Errorf("TLS config for %s: %w", c.URL, err)
	}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{
		TLSClientConfig:     tlsConfig,
		MaxIdleConnsPerHost: 16,
		// A restarted apiserver is found again at once.
		DialContext: (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
	}}, nil
}

// WaitReady waits until the apiserver answers /readyz with 200.
func (c *Cluster) WaitReady(ctx context.Context) error {
	client, err := c.HTTPClient(2 * time.Second)
	if err != nil {
		return err
	}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	last := "no answer yet"
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+c.Token)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		if !c.APIServer.running() {
			return fmt.Errorf("the apiserver exited before it was ready; the end of %s:\n%s", c.APIServer.log, c.APIServer.logTail(15))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the apiserver at %s is not ready (last: %s; log: %s): %w", c.URL, last, c.APIServer.log, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitForKubeconfig waits for the admin kubeconfig the apiserver writes
// once it serves.
func waitForKubeconfig(ctx context.Context, path string, p *process) (kubeconfig.Resolved, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		if cfg, err := kubeconfig.Load(path); err == nil {
			if r, err := cfg.Resolve(""); err == nil && r.Token != "" {
				return r, nil
			}
		}
		if !p.running() {
			return kubeconfig.Resolved{}, fmt.Errorf("the apiserver exited before writing %s; the end of %s:\n%s", path, p.log, p.logTail(15))
		}
		select {
		case <-ctx.Done():
			return kubeconfig.Resolved{}, fmt.Errorf("no kubeconfig at %s (log: %s): %w", path, p.log, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// freePorts picks n free loopback ports from 20 000–30 000, below Linux's
// ephemeral range, so that a port freed by a killed process is not taken
// by some client's outgoing connection before the restart binds it again.
func freePorts(n int) ([]int, error) {
	var ports []int
	seen := map[int]bool{}
	for attempts := 0; len(ports) < n; attempts++ {
		if attempts > 1000 {
			return nil, errors.New("no free loopback ports in 20000-30000")
		}
		port := 20000 + rand.IntN(10000)
		if seen[port] {
			continue
		}
		seen[port] = true
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		l.Close()
		ports = append(ports, port)
	}
	return ports, nil
}
