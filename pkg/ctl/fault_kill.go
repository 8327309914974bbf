package ctl

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/fault"
)

// killOptions are `ctl fault kill`'s flags.
type killOptions struct {
	dataDir string
	signal  string
	leader  bool
	downFor time.Duration
}

// newFaultKillCommand is `ctl fault kill <component>`.
func newFaultKillCommand(streams IOStreams) *cobra.Command {
	o := killOptions{dataDir: cluster.DefaultOptions().DataDir, signal: "TERM", leader: true}
	env := fault.KillEnv{Endpoints: debug.LocalEndpoints, HoldDown: cluster.HoldDown, Signal: cluster.Signal}
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
			env.LeaseHolder = func(ctx context.Context, lease string) (string, error) { return leaseHolder(ctx, o.dataDir, lease) }
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

// runFaultKill is `ctl fault kill name`: fault.KillComponent, printed.
func runFaultKill(ctx context.Context, out io.Writer, env fault.KillEnv, o killOptions, name string) error {
	sig, err := fault.ParseSignal(o.signal)
	if err != nil {
		return err
	}
	_, text, err := fault.KillComponent(ctx, env, fault.Kill{DataDir: o.dataDir, Component: name, Signal: sig, Leader: o.leader, DownFor: o.downFor})
	if err != nil {
		return err
	}
	fmt.Fprint(out, text)
	return nil
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
	return fault.LeaseHolder(ctx, c, lease)
}
