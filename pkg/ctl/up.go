package ctl

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/ui"
)

// newUpCommand is `ctl up`: start the local cluster.
func newUpCommand(streams IOStreams) *cobra.Command {
	opts := cluster.DefaultOptions()
	uiOpts := upUIOptions{port: ui.DefaultPort}
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Start a local cluster: apiserver, scheduler, controller-manager and nodes",
		Long: `up starts a local cluster as child processes: the apiserver (with an embedded
etcd), the scheduler, the controller-manager (when bin/controller-manager
exists), and kubelets for a node "control-plane" (tainted
node-role.kubernetes.io/control-plane:NoSchedule) and node1 … nodeN. It
returns to the prompt only when you press Ctrl-C, which stops them all;
with -d the cluster runs in the background until ` + "`ctl down`" + `.

With --etcd-members 3 --apiservers 2 the control plane is highly available,
as kind's HA clusters are: three etcd member processes (etcd-1 … etcd-3) form
one raft cluster, two apiservers (apiserver on 127.0.0.2, apiserver-2 on
127.0.0.3) store in it, and a load balancer on 127.0.0.1:PORT, which every
kubeconfig names, spreads connections over the healthy ones (haproxy when
installed, else kplane's built-in balancer; ` + "`ctl status`" + ` says which).
Kill any one member or apiserver and the cluster keeps working
(docs/high-availability.md). The layout is kept in DATA_DIR/ha.json, so a
later up on the same data dir resumes it.

Each component logs to DATA_DIR/logs/<component>.log; in the foreground the
logs are also shown here, one colour per component. A component that exits
is restarted. Running up again on the same data dir brings the cluster
back with everything it stored.`,
		Example: `  ctl up
  ctl up -d --nodes 3
  ctl up --runtime process --port 0 --data-dir /tmp/kp
  ctl up --v scheduler=4 --trace-informers kubelet-node1 --informer-fifo real
  ctl up --virtual-clock
  ctl up --ui
  ctl up -d --etcd-members 3 --apiservers 2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Out = streams.Out
			opts.Color = isTerminal(streams.Out) && os.Getenv("NO_COLOR") == ""
			return runUp(cmd.Context(), opts, uiOpts, streams)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.DataDir, "data-dir", opts.DataDir, "directory for the cluster's etcd data, PKI, kubeconfigs and logs")
	f.IntVar(&opts.Nodes, "nodes", opts.Nodes, "number of worker nodes besides the control-plane node")
	f.StringVar(&opts.Runtime, "runtime", opts.Runtime, `container runtime of every kubelet: "simulated" or "process"`)
	f.IntVar(&opts.ControllerManagers, "controller-managers", opts.ControllerManagers,
		"how many controller-managers run (1 to 3): one leads, the others (controller-manager-2 …) wait on the Lease as warm standbys")
	f.IntVar(&opts.Port, "port", opts.Port, "apiserver secure port; 0 picks a free port. With several apiservers, every apiserver's port and the load balancer's")
	f.IntVar(&opts.EtcdMembers, "etcd-members", 0,
		"etcd members, each its own process etcd-1 … etcd-N in one raft cluster: 1, 3, 5 or 7 (default: as the data dir was last started, else 1, embedded in the apiserver)")
	f.IntVar(&opts.APIServers, "apiservers", 0,
		fmt.Sprintf("apiservers behind the load balancer, apiserver n on 127.0.0.(n+1) (1 to %d; default: as last started, else 1)", cluster.MaxAPIServers))
	f.StringVar(&opts.LoadBalancer, "load-balancer", cluster.LoadBalancerAuto,
		"the apiservers' load balancer with --apiservers or --etcd-members above 1: auto (haproxy when installed, else built-in), builtin (bin/loadbalancer) or haproxy")
	f.BoolVar(&opts.DefaultStorageClass, "default-storage-class", opts.DefaultStorageClass,
		"create the default StorageClass \"standard\" (provisioner kplane.io/hostpath, volumes under DATA_DIR/volumes) in a cluster without classes, as kind does")
	f.BoolVar(&opts.VirtualClock, "virtual-clock", false,
		"run every component on one cluster clock that `ctl time advance` moves forward, so lease expiry, grace periods and tolerations pass in seconds")
	f.DurationVar(&opts.MetricResolution, "metric-resolution", cluster.DefaultMetricResolution,
		"how often metrics-server scrapes the kubelets (upstream's 15s); shorter makes `kubectl top` and the HPA follow load sooner")
	f.BoolVarP(&opts.Detach, "detach", "d", false, "run the cluster in the background; stop it with `ctl down`")
	f.StringVar(&opts.BinDir, "bin-dir", "", "directory with the component binaries (default: the directory ctl is in)")
	f.DurationVar(&opts.ReadyTimeout, "ready-timeout", opts.ReadyTimeout, "how long to wait for the apiserver and every node to be Ready")
	f.IntVar(&opts.DebugRingSize, "debug-ring-size", opts.DebugRingSize,
		"records each component's debug journal keeps (ctl trace, ctl why); 0 turns the journals off")
	f.Var(componentLevels{&opts.Verbosity}, "v",
		"a component's log verbosity, as component=N (repeatable): apiserver, scheduler, controller-manager, kubelet (every kubelet) or kubelet-<node>; e.g. --v scheduler=4 shows the scheduler's decisions")
	f.StringArrayVar(&opts.TraceInformers, "trace-informers", nil,
		"log each object's path through this component's informers (repeatable; the names of --v except apiserver)")
	f.StringVar(&opts.InformerFIFO, "informer-fifo", "",
		"the queue in every component's informers: delta (DeltaFIFO, the components' default) or real (RealFIFO, upstream's default since Kubernetes 1.33)")
	f.BoolVar(&uiOpts.enabled, "ui", false, "also serve the live web view (`ctl ui`) while the cluster runs in the foreground; it prints a one-time login link")
	f.IntVar(&uiOpts.port, "ui-port", uiOpts.port, "the web view's port with --ui; 0 picks a free one")
	f.BoolVar(&opts.Supervisor, "supervise", false, "run as the background supervisor of a detached cluster (used by -d)")
	_ = f.MarkHidden("supervise")
	return cmd
}

// runUp starts the cluster and, unless it is detached, stays with it until
// Ctrl-C (or SIGTERM) stops it.
func runUp(ctx context.Context, opts cluster.Options, uiOpts upUIOptions, streams IOStreams) error {
	// Ctrl-C, `kill` and a closed terminal all stop the cluster in order.
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stopSignals()
	c, err := cluster.Up(ctx, opts)
	if err != nil {
		return err
	}
	if opts.Detach {
		if uiOpts.enabled {
			fmt.Fprintln(streams.ErrOut, "ctl up: --ui serves the web view only in the foreground; run `ctl ui` beside a detached cluster")
		}
		return nil
	}
	if uiOpts.enabled {
		stopUI := startUpUI(ctx, c.DataDir(), uiOpts.port, streams)
		defer stopUI()
	}
	waited := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			// The cluster stops in order now; a second Ctrl-C gets Go's
			// default behaviour back and ends ctl at once (the children
			// then get SIGTERM from the kernel, see pkg/cluster).
			stopSignals()
		case <-waited:
		}
	}()
	err = c.Wait()
	close(waited)
	if err != nil {
		return err
	}
	fmt.Fprintln(streams.Out, "kplane stopped.")
	return nil
}

// componentLevels is `ctl up --v`: repeatable component=N pairs, gathered
// into the options' Verbosity map as they are parsed.
type componentLevels struct{ levels *map[string]int }

// Set adds one component=N pair.
func (c componentLevels) Set(value string) error {
	parsed, err := cluster.ParseVerbosity([]string{value})
	if err != nil {
		return err
	}
	if *c.levels == nil {
		*c.levels = map[string]int{}
	}
	maps.Copy(*c.levels, parsed)
	return nil
}

// String lists the pairs set so far, sorted.
func (c componentLevels) String() string {
	if c.levels == nil {
		return ""
	}
	var pairs []string
	for _, name := range slices.Sorted(maps.Keys(*c.levels)) {
		pairs = append(pairs, name+"="+strconv.Itoa((*c.levels)[name]))
	}
	return strings.Join(pairs, ",")
}

// Type names the value in help output.
func (componentLevels) Type() string { return "component=N" }
