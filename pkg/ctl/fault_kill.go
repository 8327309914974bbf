package ctl

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/pkg/debug"
)

// electionLeases are the Leases the components with a leader election
// compete for: upstream's defaults, which ctl up does not change.
var electionLeases = map[string]string{
	cluster.ControllerManagerComponent: "kube-system/kube-controller-manager",
	cluster.SchedulerComponent:         "kube-system/kube-scheduler",
}

// killOptions are `ctl fault kill`'s flags.
type killOptions struct {
	dataDir string
	signal  string
	leader  bool
	downFor time.Duration
}

// killEnv is what `ctl fault kill` does to the world, so its tests can
// fake it: read the announced endpoints and a Lease's holder, hold a
// component down, signal it.
type killEnv struct {
	endpoints   func(dataDir string) ([]debug.Endpoint, error)
	leaseHolder func(ctx context.Context, dataDir, lease string) (string, error)
	holdDown    func(dataDir, component string, until time.Time) error
	signal      func(dataDir, component string, sig syscall.Signal) (cluster.ProcessRecord, bool, error)
}

// newFaultKillCommand is `ctl fault kill <component>`.
func newFaultKillCommand(streams IOStreams) *cobra.Command {
	o := killOptions{dataDir: cluster.DefaultOptions().DataDir, signal: "TERM", leader: true}
	env := killEnv{endpoints: debug.LocalEndpoints, leaseHolder: leaseHolder, holdDown: cluster.HoldDown, signal: cluster.Signal}
	cmd := &cobra.Command{
		Use:   "kill <component> [--signal KILL|TERM]",
		Short: "Signal a component's process: the leader, for the controller-manager and the scheduler",
		Long: `kill sends a signal to one process of the cluster ctl up started, found by the
PID recorded in DATA_DIR/cluster.json (and only while that PID still runs the
recorded command line). ctl up's supervisor starts it again after about a
second, or after --down-for.

For controller-manager and scheduler, kill picks the leader: the process whose
identity holds the Lease kube-system/kube-controller-manager (or
kube-scheduler). --leader=false kills the process of that exact name instead.
Other components are named as ctl status names them: apiserver,
controller-manager-2, kubelet-node1.

--signal TERM (the default) lets the process stop cleanly: a leader releases
its Lease, so a standby takes over within its retry period (2s). --signal KILL
gives it no such chance: the standby waits until the Lease expires, 15s after
the last renewal.`,
		Example: `  ctl fault kill controller-manager --signal KILL
  ctl fault kill controller-manager --signal KILL --down-for 30s
  ctl fault kill scheduler
  ctl fault kill kubelet-node1`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFaultKill(cmd.Context(), streams.Out, env, o, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.dataDir, "data-dir", o.dataDir, "the cluster's data directory")
	f.StringVar(&o.signal, "signal", o.signal, "the signal to send: TERM (stop cleanly) or KILL (no clean-up)")
	f.BoolVar(&o.leader, "leader", o.leader, "for controller-manager and scheduler, kill whichever process leads; false: the one of that exact name")
	f.DurationVar(&o.downFor, "down-for", 0, "keep the component down this long before the supervisor restarts it (default: restart after about a second)")
	return cmd
}

// parseSignal accepts TERM, KILL, SIGTERM, SIGKILL in any case.
func parseSignal(s string) (syscall.Signal, error) {
	switch strings.TrimPrefix(strings.ToUpper(s), "SIG") {
	case "TERM":
		return syscall.SIGTERM, nil
	case "KILL":
		return syscall.SIGKILL, nil
	}
	return 0, fmt.Errorf("--signal %q: want TERM or KILL", s)
}

func runFaultKill(ctx context.Context, out io.Writer, env killEnv, o killOptions, name string) error {
	sig, err := parseSignal(o.signal)
	if err != nil {
		return err
	}
	if o.downFor < 0 {
		return fmt.Errorf("--down-for %v must not be negative", o.downFor)
	}
	component, lease, candidates := name, "", 0
	if o.leader && electionLeases[name] != "" {
		lease = electionLeases[name]
		if component, candidates, err = leaderComponent(ctx, env, o.dataDir, name, lease); err != nil {
			return err
		}
	}
	if o.downFor > 0 {
		if err := env.holdDown(o.dataDir, component, time.Now().Add(o.downFor)); err != nil {
			return err
		}
	}
	rec, supervised, err := env.signal(o.dataDir, component, sig)
	if err != nil {
		if o.downFor > 0 {
			_ = cluster.ReleaseHoldDown(o.dataDir, component)
		}
		return err
	}

	which := component
	if lease != "" {
		which = fmt.Sprintf("%s, the leader of the Lease %s", component, lease)
	}
	fmt.Fprintf(out, "fault injected: sent SIG%s to %s (pid %d).\n", o.signalName(), which, rec.PID)
	switch {
	case !supervised:
		fmt.Fprintln(out, "No supervisor runs for this cluster (ctl up is gone), so nothing starts it again.")
	case o.downFor > 0:
		fmt.Fprintf(out, "ctl up's supervisor keeps it down for %v, then starts it again.\n", o.downFor)
	default:
		fmt.Fprintln(out, "ctl up's supervisor starts it again in about a second (ctl status shows its RESTARTS).")
	}
	fmt.Fprintln(out)
	fmt.Fprint(out, killHint(component, lease, candidates, sig))
	return nil
}

func (o killOptions) signalName() string {
	return strings.TrimPrefix(strings.ToUpper(o.signal), "SIG")
}

// leaderComponent finds the component whose leader-election identity holds
// lease, by the identities the components announced with their debug
// endpoints, and counts the candidates (the components named kind or
// kind-N) that announced themselves.
func leaderComponent(ctx context.Context, env killEnv, dataDir, kind, lease string) (leader string, candidates int, err error) {
	holder, err := env.leaseHolder(ctx, dataDir, lease)
	if err != nil {
		return "", 0, err
	}
	if holder == "" {
		return "", 0, fmt.Errorf("nobody holds the Lease %s now; name the process to kill (ctl status lists them) with --leader=false", lease)
	}
	endpoints, err := env.endpoints(dataDir)
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

// leaseHolder reads the holderIdentity of the Lease "namespace/name" with
// the admin kubeconfig of the cluster in dataDir.
func leaseHolder(ctx context.Context, dataDir, lease string) (string, error) {
	cfg, err := client.ConfigFromKubeconfig(filepath.Join(dataDir, "kubeconfig"), "")
	if err != nil {
		return "", fmt.Errorf("read the admin kubeconfig: %w", err)
	}
	cfg.UserAgent = "kplane-ctl"
	c, err := client.New(cfg)
	if err != nil {
		return "", err
	}
	defer c.Close()
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
