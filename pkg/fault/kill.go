package fault

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/pkg/debug"
)

// ElectionLeases are the Leases the components with a leader election
// compete for: upstream's defaults, which ctl up does not change.
var ElectionLeases = map[string]string{
	cluster.ControllerManagerComponent: "kube-system/kube-controller-manager",
	cluster.SchedulerComponent:         "kube-system/kube-scheduler",
}

// Kill is one "kill a component" fault: `ctl fault kill` and the web
// view's Kill the leader button.
type Kill struct {
	// DataDir is the cluster's data directory (its cluster.json names the
	// processes).
	DataDir string
	// Component is a process as ctl status names it (apiserver,
	// controller-manager-2, kubelet-node1), or controller-manager or
	// scheduler with Leader.
	Component string
	// Signal is SIGTERM (stop cleanly: a leader releases its Lease) or
	// SIGKILL.
	Signal syscall.Signal
	// Leader, for controller-manager and scheduler, kills whichever of
	// their processes holds the election Lease.
	Leader bool
	// DownFor keeps the component down that long before ctl up's
	// supervisor restarts it (0: about a second).
	DownFor time.Duration
}

// KillEnv is what a kill does to the world, so tests can fake it: read
// the announced endpoints and a Lease's holder, hold a component down,
// signal it.
type KillEnv struct {
	Endpoints   func(dataDir string) ([]debug.Endpoint, error)
	LeaseHolder func(ctx context.Context, lease string) (string, error)
	HoldDown    func(dataDir, component string, until time.Time) error
	Signal      func(dataDir, component string, sig syscall.Signal) (cluster.ProcessRecord, bool, error)
}

// NewKillEnv is the real world: the endpoints and processes in the data
// directory, the Lease read with c.
func NewKillEnv(c *client.Client) KillEnv {
	return KillEnv{
		Endpoints:   debug.LocalEndpoints,
		LeaseHolder: func(ctx context.Context, lease string) (string, error) { return LeaseHolder(ctx, c, lease) },
		HoldDown:    cluster.HoldDown,
		Signal:      cluster.Signal,
	}
}

// KillResult is what a kill did.
type KillResult struct {
	// Component is the process signalled; Lease the election Lease it led
	// when it was picked as the leader.
	Component string `json:"component"`
	Lease     string `json:"lease,omitempty"`
	PID       int    `json:"pid"`
	Signal    string `json:"signal"`
	// Supervised is whether ctl up's supervisor runs, to start it again.
	Supervised bool `json:"supervised"`
	// Candidates counts the processes competing for Lease, the killed one
	// included.
	Candidates int `json:"candidates,omitempty"`
}

// KillComponent signals k's component (the leader, with k.Leader) and
// returns what it did and the text `ctl fault kill` prints: what happened
// and what to watch for.
func KillComponent(ctx context.Context, env KillEnv, k Kill) (KillResult, string, error) {
	if k.DownFor < 0 {
		return KillResult{}, "", fmt.Errorf("--down-for %v must not be negative", k.DownFor)
	}
	result := KillResult{Component: k.Component, Signal: signalName(k.Signal)}
	if k.Leader && ElectionLeases[k.Component] != "" {
		result.Lease = ElectionLeases[k.Component]
		var err error
		if result.Component, result.Candidates, err = leaderComponent(ctx, env, k.DataDir, k.Component, result.Lease); err != nil {
			return KillResult{}, "", err
		}
	}
	if k.DownFor > 0 {
		if err := env.HoldDown(k.DataDir, result.Component, time.Now().Add(k.DownFor)); err != nil {
			return KillResult{}, "", err
		}
	}
	rec, supervised, err := env.Signal(k.DataDir, result.Component, k.Signal)
	if err != nil {
		if k.DownFor > 0 {
			_ = cluster.ReleaseHoldDown(k.DataDir, result.Component)
		}
		return KillResult{}, "", err
	}
	result.PID, result.Supervised = rec.PID, supervised

	var b strings.Builder
	which := result.Component
	if result.Lease != "" {
		which = fmt.Sprintf("%s, the leader of the Lease %s", result.Component, result.Lease)
	}
	fmt.Fprintf(&b, "fault injected: sent SIG%s to %s (pid %d).\n", result.Signal, which, rec.PID)
	switch {
	case !supervised:
		fmt.Fprintln(&b, "No supervisor runs for this cluster (ctl up is gone), so nothing starts it again.")
	case k.DownFor > 0:
		fmt.Fprintf(&b, "ctl up's supervisor keeps it down for %v, then starts it again.\n", k.DownFor)
	default:
		fmt.Fprintln(&b, "ctl up's supervisor starts it again in about a second (ctl status shows its RESTARTS).")
	}
	fmt.Fprintln(&b)
	b.WriteString(killHint(result.Component, result.Lease, result.Candidates, k.Signal))
	return result, b.String(), nil
}

// ParseSignal accepts TERM, KILL, SIGTERM, SIGKILL in any case.
func ParseSignal(s string) (syscall.Signal, error) {
	switch strings.TrimPrefix(strings.ToUpper(s), "SIG") {
	case "TERM":
		return syscall.SIGTERM, nil
	case "KILL":
		return syscall.SIGKILL, nil
	}
	return 0, fmt.Errorf("--signal %q: want TERM or KILL", s)
}

// signalName is "TERM" or "KILL".
func signalName(sig syscall.Signal) string {
	if sig == syscall.SIGKILL {
		return "KILL"
	}
	return "TERM"
}

// leaderComponent finds the component whose leader-election identity holds
// lease, by the identities the components announced with their debug
// endpoints, and counts the candidates (the components named kind or
// kind-N) that announced themselves.
func leaderComponent(ctx context.Context, env KillEnv, dataDir, kind, lease string) (leader string, candidates int, err error) {
	holder, err := env.LeaseHolder(ctx, lease)
	if err != nil {
		return "", 0, err
	}
	if holder == "" {
		return "", 0, fmt.Errorf("nobody holds the Lease %s now; name the process to kill (ctl status lists them) with --leader=false", lease)
	}
	endpoints, err := env.Endpoints(dataDir)
	if err != nil {
		return "", 0, err
	}
	for _, ep := range endpoints {
		if ep.Component == kind || strings.HasPrefix(ep.Component, kind+"-") {
			candidates++
		}
		if ep.Identity == holder {
			leader = ep.Component
		}
	}
	if leader != "" {
		return leader, candidates, nil
	}
	return "", 0, fmt.Errorf("the Lease %s is held by %q, which no running component announces in %s (a leader that just died keeps it until it expires); name the process to kill with --leader=false",
		lease, holder, filepath.Join(dataDir, debug.EndpointsDir))
}

// LeaseHolder reads the holderIdentity of the Lease "namespace/name"
// ("" when nobody holds it).
func LeaseHolder(ctx context.Context, c *client.Client, lease string) (string, error) {
	namespace, name, _ := strings.Cut(lease, "/")
	l, err := c.Leases(namespace).Get(ctx, name, client.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("read the Lease %s: %w", lease, err)
	}
	if l.Spec.HolderIdentity == nil {
		return "", nil
	}
	return *l.Spec.HolderIdentity, nil
}

// killHint says what to watch for after component got sig; lease is the
// Lease it led (if it was killed as the leader) and candidates how many
// processes compete for it, the killed one included.
func killHint(component, lease string, candidates int, sig syscall.Signal) string {
	var b strings.Builder
	b.WriteString("Watch for:\n")
	switch {
	case lease != "":
		namespace, name, _ := strings.Cut(lease, "/")
		successor := "a standby"
		if candidates <= 1 {
			// No standby: the restarted process is the only candidate.
			successor = "the restarted process"
		}
		if sig == syscall.SIGKILL {
			fmt.Fprintf(&b, "  SIGKILL left the Lease in the dead leader's name: %s takes over only once it\n  expires, 15s after the last renewal (docs/leader-election.md).\n", successor)
		} else {
			fmt.Fprintf(&b, "  SIGTERM let the leader release its Lease as it stopped: %s takes it at its\n  next try, within about 2s.\n", successor)
		}
		if candidates <= 1 && strings.HasPrefix(component, cluster.ControllerManagerComponent) {
			b.WriteString("  (ctl up --controller-managers 2 runs a standby, to watch a failover.)\n")
		}
		fmt.Fprintf(&b, "  ctl get lease %s -n %s -w\n      HOLDER changes to the new leader.\n", name, namespace)
		if strings.HasPrefix(component, cluster.ControllerManagerComponent) {
			b.WriteString("  ctl queues\n      the new leader's queues come alive as its controllers start.\n")
			b.WriteString("  ctl trace deploy/<name>\n      syncs of a Deployment created now come from the new leader.\n")
		} else {
			b.WriteString("  ctl get pods -w\n      pods created meanwhile stay Pending until a scheduler leads again.\n")
		}
	case strings.HasPrefix(component, "kubelet-"):
		node := strings.TrimPrefix(component, "kubelet-")
		fmt.Fprintf(&b, "  ctl get node %s -w\n      its heartbeats stop while the kubelet is down; it turns NotReady only if that lasts\n      longer than the 50s grace period (--down-for 60s, or ctl fault pause-kubelet %s).\n", node, node)
	case component == cluster.APIServerComponent:
		b.WriteString("  every client's requests fail and every watch breaks until it is back.\n")
		b.WriteString("  ctl trace <kind>/<name>\n      each informer watches again from its last resourceVersion once the apiserver answers.\n")
		b.WriteString("  ctl get lease -n kube-system -w\n      leaders that cannot renew for 10s (their renew deadline) give up leading.\n")
	default:
		b.WriteString("  ctl status\n      the component's RESTARTS count.\n")
	}
	return b.String()
}
