// Package cloudcontrollermanager is kplane's cloud-controller-manager: the
// process that runs the controllers which need to talk to a cloud — the
// service-lb, cloud-node, cloud-node-lifecycle and node-route controllers —
// apart from kube-controller-manager, as upstream's
// cmd/cloud-controller-manager (k8s.io/cloud-provider/app) does for
// providers kept out of Kubernetes' own tree.
//
// It is the controller-manager's machinery (package controllermanager: one
// client, one shared informer factory, leader election on a Lease, the
// debug server) with a registry of its own and a cloud: the simulated cloud
// "kplane" (package cloudprovider/simulated), whose debug API `ctl cloud`
// reads and drives. See docs/cloud-controller-manager.md.
package cloudcontrollermanager

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"kplane/pkg/cloudprovider"
	"kplane/pkg/cloudprovider/simulated"
	"kplane/pkg/controllermanager"
	"kplane/pkg/controllers/cloudnode"
	"kplane/pkg/controllers/cloudnodelifecycle"
	"kplane/pkg/controllers/noderoute"
	"kplane/pkg/controllers/servicelb"
)

// Options configure a cloud-controller-manager: the controller-manager's
// options (kubeconfig, --controllers, leader election, bind address, debug
// journal…) and the cloud's.
type Options struct {
	controllermanager.Options

	// CloudProvider names the cloud (--cloud-provider); kplane knows one,
	// "kplane", the simulated cloud.
	CloudProvider string
	// LoadBalancerIPRange is the CIDR load balancer addresses come from
	// (--load-balancer-ip-range, default 198.51.100.0/24, a documentation
	// range: the addresses are labels, never dialed).
	LoadBalancerIPRange string
	// ClusterCIDR is the range of the nodes' pod ranges (--cluster-cidr,
	// comma-separated for dual stack): the routes inside it are the route
	// controller's.
	ClusterCIDR string
	// ConfigureCloudRoutes runs the node-route controller
	// (--configure-cloud-routes, default true, as upstream).
	ConfigureCloudRoutes bool
	// ClusterName is passed to the cloud with every call (--cluster-name,
	// upstream's default "kubernetes"); the simulated cloud prefixes its
	// route names with it.
	ClusterName string
}

// Defaults, with the upstream values they mirror.
const (
	DefaultLeaseName   = "cloud-controller-manager"
	DefaultBindAddress = "127.0.0.1:10258" // cloud-controller-manager's --secure-port
	componentName      = "cloud-controller-manager"
)

// DefaultOptions returns the options of a default cloud-controller-manager
// on the simulated cloud, without a kubeconfig.
func DefaultOptions() Options {
	cm := controllermanager.DefaultOptions()
	cm.Name = componentName
	cm.LeaderElectResourceName = DefaultLeaseName
	cm.BindAddress = DefaultBindAddress
	cm.DebugComponent = componentName
	cm.ConcurrentSyncs = map[string]int{}
	for _, d := range Controllers(nil, Options{}) {
		cm.ConcurrentSyncs[d.Name] = d.DefaultWorkers
	}
	return Options{
		Options:              cm,
		CloudProvider:        simulated.ProviderName,
		LoadBalancerIPRange:  simulated.DefaultLoadBalancerIPRange,
		ConfigureCloudRoutes: true,
		ClusterName:          cloudprovider.DefaultClusterName,
	}
}

// validateCloud reports every problem with the cloud's options at once;
// the controller-manager's are checked when it is built.
func (o *Options) validateCloud() error {
	var errs []error
	if o.CloudProvider != simulated.ProviderName {
		errs = append(errs, fmt.Errorf("--cloud-provider %q: kplane knows one cloud provider, %q (the simulated cloud)", o.CloudProvider, simulated.ProviderName))
	}
	if _, err := netip.ParsePrefix(o.LoadBalancerIPRange); err != nil {
		errs = append(errs, fmt.Errorf("--load-balancer-ip-range %q: %w", o.LoadBalancerIPRange, err))
	}
	if _, err := o.clusterCIDRs(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// clusterCIDRs parses --cluster-cidr.
func (o *Options) clusterCIDRs() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(o.ClusterCIDR, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("--cluster-cidr %q: %w", o.ClusterCIDR, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Run builds the simulated cloud and a controller-manager running the
// cloud controllers on it, and runs it until ctx ends.
func Run(ctx context.Context, opts Options) error {
	if err := opts.validateCloud(); err != nil {
		return fmt.Errorf("%s options: %w", componentName, err)
	}
	cloud, err := simulated.New(opts.LoadBalancerIPRange)
	if err != nil {
		return fmt.Errorf("%s: %w", componentName, err)
	}
	cloud.Register(opts.Journal)
	cm := opts.Options
	cm.Name = componentName
	cm.Registry = Controllers(cloud, opts)
	return controllermanager.Run(ctx, cm)
}

// Controllers is the cloud-controller-manager's registry, in start order,
// with upstream's names, event sources and worker counts, each built over
// cloud. (Called with a nil cloud it serves for the names only.)
func Controllers(cloud cloudprovider.Interface, opts Options) []controllermanager.Descriptor {
	cidrs, _ := opts.clusterCIDRs() // checked by validateCloud
	return []controllermanager.Descriptor{
		// Upstream: --concurrent-node-syncs, default 1.
		{Name: cloudnode.Name, EventSource: cloudnode.EventSource, SyncsFlag: "concurrent-node-syncs", DefaultWorkers: 1,
			New: func(cc controllermanager.ControllerContext) (controllermanager.Controller, error) {
				return cloudnode.New(cc.Client, cc.Informers, cc.Recorder, cloud, cloudnode.Options{Logger: cc.Logger, Clock: cc.Clock})
			}},
		// Upstream runs it with one worker and no flag.
		{Name: cloudnodelifecycle.Name, EventSource: cloudnodelifecycle.EventSource, SyncsFlag: "concurrent-node-lifecycle-syncs", DefaultWorkers: 1,
			New: func(cc controllermanager.ControllerContext) (controllermanager.Controller, error) {
				return cloudnodelifecycle.New(cc.Client, cc.Informers, cc.Recorder, cloud, cloudnodelifecycle.Options{Logger: cc.Logger, Clock: cc.Clock})
			}},
		// Upstream: --concurrent-service-syncs, default 1.
		{Name: servicelb.Name, EventSource: servicelb.EventSource, SyncsFlag: "concurrent-service-syncs", DefaultWorkers: 1,
			New: func(cc controllermanager.ControllerContext) (controllermanager.Controller, error) {
				return servicelb.New(cc.Client, cc.Informers, cc.Recorder, cloud, servicelb.Options{Logger: cc.Logger, Clock: cc.Clock, ClusterName: opts.ClusterName})
			}},
		// Upstream runs it only with --configure-cloud-routes (and
		// --allocate-node-cidrs, which kplane has no use for: the kubelets
		// and the node-lifecycle controller give nodes their ranges).
		{Name: noderoute.Name, EventSource: noderoute.EventSource, SyncsFlag: "concurrent-route-syncs", DefaultWorkers: 1,
			DisabledByDefault: !opts.ConfigureCloudRoutes,
			New: func(cc controllermanager.ControllerContext) (controllermanager.Controller, error) {
				return noderoute.New(cc.Client, cc.Informers, cc.Recorder, cloud, noderoute.Options{Logger: cc.Logger, Clock: cc.Clock,
					ClusterName: opts.ClusterName, ClusterCIDRs: cidrs})
			}},
	}
}
