package cluster

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/procstat"
)

// StatusReport says what of a local cluster runs.
type StatusReport struct {
	// DataDir is the data dir the report is about.
	DataDir string
	// Running is true while the supervisor or any component is alive.
	Running bool
	// Server is the apiserver URL recorded at start.
	Server string
	// DNS is the address the cluster DNS answers on (its --listen), for
	// `dig @127.0.0.1 -p PORT`; empty when the cluster runs no DNS.
	DNS string
	// MetricsServer is the URL metrics-server serves metrics.k8s.io on
	// (its --secure-port); empty when the cluster runs none.
	MetricsServer string
	// LoadBalancer says which balancer fronts the apiservers of an HA
	// layout and where ("built-in bin/loadbalancer on 127.0.0.1:6443" or
	// "haproxy (DATA_DIR/haproxy.cfg) on …"); empty without one.
	LoadBalancer string
	// Supervisor is the launcher process (`ctl up`, or the background
	// supervisor of a detached cluster).
	Supervisor ComponentStatus
	// Components are the recorded processes: apiserver, scheduler,
	// controller-manager, then the kubelets by node.
	Components []ComponentStatus
	// Nodes are the Node objects and whether each is Ready, as the API
	// reports them; empty if the API could not be asked.
	Nodes []NodeStatus
	// APIError says why the nodes could not be listed.
	APIError string
}

// ComponentStatus is one recorded process.
type ComponentStatus struct {
	Name      string
	PID       int
	Running   bool
	StartedAt time.Time
	Restarts  int
	// Memory is the process's resident memory as /proc reports it; zero
	// (RSS 0) when the process is not running or /proc cannot be read.
	Memory procstat.Memory
}

// NodeStatus is one node as the API shows it.
type NodeStatus struct {
	Name  string
	Ready bool
	// Status is "Ready", or why not ("NotReady: KubeletNotReady").
	Status string
}

// Status reports on the cluster in dataDir: which recorded processes are
// alive (by PID and command line, as Down checks them) and, if the
// apiserver answers, which nodes are Ready. No cluster.json means nothing
// runs; that is a report, not an error.
func Status(dataDir string) (StatusReport, error) {
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return StatusReport{}, fmt.Errorf("data dir %s: %w", dataDir, err)
	}
	report := StatusReport{DataDir: dir}
	state, err := ReadState(dir)
	if errors.Is(err, ErrNotRunning) {
		return report, nil
	}
	if err != nil {
		return report, err
	}
	report.Server = state.Server
	report.Supervisor = componentStatus("supervisor", state.Supervisor)
	report.Running = report.Supervisor.Running
	if rec, ok := state.Components[DNSComponent]; ok {
		report.DNS = flagValue(rec.Args, "--listen")
	}
	if rec, ok := state.Components[MetricsServerComponent]; ok {
		report.MetricsServer = "https://127.0.0.1:" + flagValue(rec.Args, "--secure-port")
	}
	if rec, ok := state.Components[LoadBalancerComponent]; ok {
		report.LoadBalancer = describeLoadBalancer(rec.Args, state.Server)
	}
	for name, rec := range state.Components {
		cs := componentStatus(name, rec)
		report.Components = append(report.Components, cs)
		report.Running = report.Running || cs.Running
	}
	slices.SortFunc(report.Components, func(a, b ComponentStatus) int { return compareComponents(a.Name, b.Name) })

	if report.Running {
		report.Nodes, err = listNodes(layout{dir}.adminKubeconfig())
		if err != nil {
			report.APIError = err.Error()
		}
	}
	return report, nil
}

// flagValue is the value of flag in a recorded command line ("--listen
// ADDR" or "--listen=ADDR"), or "" when it has none.
func flagValue(args []string, flag string) string {
	for i, arg := range args {
		if arg == flag && i+1 < len(args) {
			return args[i+1]
		}
		if value, ok := strings.CutPrefix(arg, flag+"="); ok {
			return value
		}
	}
	return ""
}

// componentStatus checks one recorded process and, while it runs, reads
// its resident memory; an unreadable /proc leaves Memory zero.
func componentStatus(name string, rec ProcessRecord) ComponentStatus {
	cs := ComponentStatus{Name: name, PID: rec.PID, Running: rec.Running(), StartedAt: rec.StartedAt, Restarts: rec.Restarts}
	if cs.Running {
		cs.Memory, _ = procstat.ReadMemory(rec.PID)
	}
	return cs
}

// TotalRSS is the resident memory of the supervisor and every running
// component added up: what the whole local cluster costs the machine.
// Pages of one binary shared by several processes (the kubelets' code) are
// counted once per process, as RSS counts them.
func (r StatusReport) TotalRSS() uint64 {
	total := r.Supervisor.Memory.RSS
	for _, c := range r.Components {
		total += c.Memory.RSS
	}
	return total
}

// listNodes asks the apiserver for the nodes, briefly: a status command
// must answer even when the apiserver does not.
func listNodes(kubeconfigPath string) ([]NodeStatus, error) {
	admin, err := newAdminClient(kubeconfigPath)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	list, err := admin.Nodes().List(ctx, client.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	var nodes []NodeStatus
	for _, n := range list.Items {
		ready, why := nodeReady(n)
		nodes = append(nodes, NodeStatus{Name: n.Name, Ready: ready, Status: why})
	}
	slices.SortFunc(nodes, func(a, b NodeStatus) int { return compareNodeNames(a.Name, b.Name) })
	return nodes, nil
}

// compareComponents orders components the way they start: etcd members,
// the balancer, apiservers, scheduler, controller-manager, then kubelets by
// node.
func compareComponents(a, b string) int {
	rank := func(name string) int {
		switch {
		case IsEtcdComponent(name):
			return -2
		case name == LoadBalancerComponent:
			return -1
		case IsAPIServerComponent(name):
			return 0
		case name == SchedulerComponent:
			return 1
		case name == ControllerManagerComponent:
			return 2
		case strings.HasPrefix(name, "kubelet-"):
			return 4
		default:
			return 3
		}
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	return compareNodeNames(strings.TrimPrefix(a, "kubelet-"), strings.TrimPrefix(b, "kubelet-"))
}

// compareNodeNames puts control-plane first and numbers in numeric order
// (node2 before node10).
func compareNodeNames(a, b string) int {
	key := func(name string) (int, string, int) {
		if name == ControlPlaneNodeName {
			return 0, "", 0
		}
		stem := strings.TrimRight(name, "0123456789")
		n, _ := strconv.Atoi(name[len(stem):])
		return 1, stem, n
	}
	ga, sa, na := key(a)
	gb, sb, nb := key(b)
	switch {
	case ga != gb:
		return ga - gb
	case sa != sb:
		return strings.Compare(sa, sb)
	case na != nb:
		return na - nb
	default:
		return strings.Compare(a, b)
	}
}
