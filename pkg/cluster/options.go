package cluster

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"kplane/pkg/debug"
)

// Runtimes a kubelet can run containers with (see pkg/kubelet/runtime).
const (
	// RuntimeSimulated runs nothing: containers only exist as status.
	RuntimeSimulated = "simulated"
	// RuntimeProcess runs a container's command as a local process.
	RuntimeProcess = "process"
)

// MaxControllerManagers is the largest --controller-managers value: one
// leader and two standbys are all a lesson needs.
const MaxControllerManagers = 3

// MaxNodes is the largest --nodes value: node i gets the pod CIDR
// 10.244.<i>.0/24, and the control-plane node has 10.244.0.0/24.
const MaxNodes = 255

// Options say which cluster Up starts and where. DefaultOptions gives the
// values `ctl up` starts from.
type Options struct {
	// DataDir holds everything the cluster keeps: etcd data, PKI, tokens,
	// kubeconfigs, logs and cluster.json.
	DataDir string
	// Nodes is how many worker nodes (node1 … nodeN) run besides the
	// tainted control-plane node. 0 runs the control-plane node only.
	Nodes int
	// Runtime is every kubelet's container runtime: "simulated" or "process".
	Runtime string
	// ControllerManagers is how many controller-managers run, each a
	// candidate in the leader election of the Lease
	// kube-system/kube-controller-manager: the first is
	// "controller-manager", the others "controller-manager-2" and so on.
	// One leads; the others are standbys with warm caches, which is what
	// `ctl fault kill controller-manager` shows. 0 means 1.
	ControllerManagers int
	// Port is the apiserver's secure port; 0 picks a free one (kept for
	// restarts of the apiserver within the same Up). In the HA layout it is
	// every apiserver's port and the load balancer's.
	Port int
	// EtcdMembers is how many etcd members run, each its own process
	// (etcd-1 … etcd-N) in one raft cluster: 1, 3, 5 or 7. 0 means as the
	// data dir was last started, or 1: today's etcd embedded in the one
	// apiserver. See ha.go and docs/high-availability.md.
	EtcdMembers int
	// APIServers is how many apiservers run (apiserver, apiserver-2 …)
	// behind the load balancer. 0 means as last started, or 1. More than
	// one, or more than one etcd member, runs the HA layout.
	APIServers int
	// LoadBalancer picks the HA layout's balancer: "auto" (haproxy when
	// installed, else built-in; also ""), "builtin" or "haproxy".
	LoadBalancer string
	// BinDir holds the apiserver, scheduler, kubelet, controller-manager and
	// ctl binaries. Empty means the directory of the running executable,
	// which is bin/ for `bin/ctl up`.
	BinDir string
	// DefaultStorageClass creates the StorageClass "standard" (provisioner
	// kplane.io/hostpath, marked default) in a cluster that has no class,
	// as kind does (--default-storage-class, default true). Without it,
	// claims without a class bind only to volumes made by hand.
	DefaultStorageClass bool
	// Detach runs the cluster under a background supervisor process
	// (`ctl up --supervise`, from BinDir) instead of this one: Up returns once
	// the cluster is ready and the cluster outlives the caller. Down stops it.
	Detach bool
	// Supervisor marks the process as that background supervisor: component
	// logs go only to DATA_DIR/logs, not to Out.
	Supervisor bool
	// Out receives the launcher's messages and, unless Supervisor is set,
	// every component's log lines with a [component] prefix. Nil discards.
	Out io.Writer
	// Color paints each component's prefix in its own ANSI colour.
	Color bool
	// ReadyTimeout bounds how long Up waits for the apiserver and then for
	// every node to be Ready.
	ReadyTimeout time.Duration
	// VirtualClock runs every component with --virtual-clock: the whole
	// cluster keeps one clock, the wall clock plus an offset that
	// `ctl time advance` moves forward (see pkg/clusterclock).
	VirtualClock bool
	// DebugRingSize is every component's --debug-ring-size: how many
	// records each debug journal keeps (`ctl up --debug-ring-size`,
	// default debug.DefaultRingSize); 0 turns the journals off. The debug
	// servers and their endpoint files in DATA_DIR/debug are there either
	// way.
	DebugRingSize int

	// Verbosity is each named component's --v (`ctl up --v scheduler=4`),
	// by component name: apiserver, scheduler, controller-manager,
	// kubelet-<node>, or "kubelet" for every kubelet. Components not named
	// keep their default.
	Verbosity map[string]int
	// TraceInformers names the components started with --trace-informers
	// (the same names, except the apiserver, which has no informers).
	TraceInformers []string
	// InformerFIFO is the --informer-fifo of every component with
	// informers: "delta" or "real"; "" keeps their default (delta).
	InformerFIFO string
	// ha is the HA layout Up resolved (resolveHA); nil runs the single
	// apiserver with its embedded etcd.
	ha *haLayout

	// MetricResolution is metrics-server's --metric-resolution: how often
	// it scrapes the kubelets (`ctl up --metric-resolution`); 0 means
	// DefaultMetricResolution, upstream's 15 s.
	MetricResolution time.Duration
}

// DefaultOptions returns `ctl up`'s defaults: ./.kplane, two worker nodes,
// the simulated runtime, port 6443, binaries next to the running executable.
func DefaultOptions() Options {
	return Options{
		DataDir:             ".kplane",
		Nodes:               2,
		Runtime:             RuntimeSimulated,
		ControllerManagers:  1,
		Port:                6443,
		ReadyTimeout:        time.Minute,
		DefaultStorageClass: true,
		DebugRingSize:       debug.DefaultRingSize,
	}
}

// Validate checks the options before anything starts.
func (o Options) Validate() error {
	if o.DataDir == "" {
		return errors.New("--data-dir is required")
	}
	if o.DebugRingSize < 0 {
		return fmt.Errorf("--debug-ring-size %d: must be 0 (off) or more", o.DebugRingSize)
	}
	if o.Nodes < 0 || o.Nodes > MaxNodes {
		return fmt.Errorf("--nodes %d out of range 0..%d", o.Nodes, MaxNodes)
	}
	if o.ControllerManagers < 0 || o.ControllerManagers > MaxControllerManagers {
		return fmt.Errorf("--controller-managers %d out of range 1..%d", o.ControllerManagers, MaxControllerManagers)
	}
	if o.Runtime != RuntimeSimulated && o.Runtime != RuntimeProcess {
		return fmt.Errorf("--runtime %q: must be %q or %q", o.Runtime, RuntimeSimulated, RuntimeProcess)
	}
	if o.Port < 0 || o.Port > 65535 {
		return fmt.Errorf("--port %d out of range", o.Port)
	}
	if o.MetricResolution != 0 && o.MetricResolution < time.Second {
		return fmt.Errorf("--metric-resolution %s: must be at least 1s", o.MetricResolution)
	}
	if err := o.validateHA(); err != nil {
		return err
	}
	if o.Detach && o.Supervisor {
		return errors.New("a detached cluster's supervisor cannot detach again")
	}
	return o.validateComponentFlags()
}

// complete fills in what was left empty and makes paths absolute, so that
// the command lines recorded in cluster.json do not depend on the working
// directory of whoever reads them later.
func (o Options) complete() (Options, error) {
	if o.Runtime == "" {
		o.Runtime = RuntimeSimulated
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = time.Minute
	}
	if err := o.Validate(); err != nil {
		return o, err
	}
	dir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return o, fmt.Errorf("data dir %s: %w", o.DataDir, err)
	}
	o.DataDir = dir
	if o.BinDir == "" {
		o.BinDir, err = executableDir()
		if err != nil {
			return o, err
		}
	}
	if o.BinDir, err = filepath.Abs(o.BinDir); err != nil {
		return o, fmt.Errorf("bin dir %s: %w", o.BinDir, err)
	}
	return o, nil
}

// executableDir is the directory of the running binary, symlinks resolved.
func executableDir() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the running executable: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return filepath.Dir(exe), nil
}
