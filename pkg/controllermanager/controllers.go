package controllermanager

import (
	"context"
	"log/slog"

	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/bootstrapsigner"
	"kplane/pkg/controllers/clusterroleaggregation"
	"kplane/pkg/controllers/cronjob"
	"kplane/pkg/controllers/csrapproving"
	"kplane/pkg/controllers/csrsigning"
	"kplane/pkg/controllers/daemonset"
	"kplane/pkg/controllers/deployment"
	"kplane/pkg/controllers/disruption"
	"kplane/pkg/controllers/endpoints"
	"kplane/pkg/controllers/endpointslice"
	"kplane/pkg/controllers/garbagecollector"
	"kplane/pkg/controllers/hostpathprovisioner"
	"kplane/pkg/controllers/job"
	"kplane/pkg/controllers/namespace"
	"kplane/pkg/controllers/nodelifecycle"
	"kplane/pkg/controllers/persistentvolume"
	"kplane/pkg/controllers/podautoscaler"
	"kplane/pkg/controllers/replicaset"
	"kplane/pkg/controllers/replicationcontroller"
	"kplane/pkg/controllers/resourcequota"
	"kplane/pkg/controllers/rootcacertpublisher"
	"kplane/pkg/controllers/serviceaccount"
	"kplane/pkg/controllers/serviceaccounttoken"
	"kplane/pkg/controllers/statefulset"
	"kplane/pkg/controllers/tainteviction"
	"kplane/pkg/controllers/tokencleaner"
	"kplane/pkg/events"
	"kplane/pkg/informer"
)

// Controller is what the manager runs: anything with the controller
// contract's Run, which waits for its caches, syncs keys with workers
// goroutines and returns when ctx ends.
type Controller interface {
	Run(ctx context.Context, workers int)
}

// ControllerContext is what a controller's constructor gets from the
// manager: one client, the informer factory every controller shares, an
// event recorder that reports as this controller, and the manager's logger,
// clock and options.
type ControllerContext struct {
	Client    *client.Client
	Informers *informer.SharedInformerFactory
	// Recorder records Events with source.component set to the
	// controller's Descriptor.EventSource ("deployment-controller"…).
	Recorder events.EventRecorder
	// Logger is the manager's; controllers add their own "controller"
	// attribute.
	Logger *slog.Logger
	Clock  clock.Clock
	// Options are the manager's, for settings some controller needs
	// (NodeMonitorGracePeriod for node-lifecycle).
	Options Options
	// RootCA is the PEM of the cluster's CA, from the manager's kubeconfig
	// (certificate-authority or certificate-authority-data), which the
	// root-ca-cert-publisher publishes in every namespace.
	RootCA []byte
	// ClientFor returns the client that acts as another kube-system
	// ServiceAccount, for a controller that does the work of an upstream
	// controller kplane folds into it (the job controller's TTL deletes
	// act as ttl-after-finished-controller); without
	// --use-service-account-credentials it is the manager's own client.
	ClientFor func(serviceAccount string) *client.Client
}

// TTLAfterFinishedServiceAccount is the ServiceAccount of upstream's
// ttl-after-finished controller, whose work kplane's job controller does:
// its TTL deletes act as this account.
const TTLAfterFinishedServiceAccount = "ttl-after-finished-controller"

// clientFor is cc.ClientFor, or cc.Client when the context has none (tests
// that build a ControllerContext by hand).
func (cc ControllerContext) clientFor(serviceAccount string) *client.Client {
	if cc.ClientFor == nil {
		return cc.Client
	}
	return cc.ClientFor(serviceAccount)
}

// Descriptor describes one controller the manager can run.
type Descriptor struct {
	// Name is the controller's --controllers name, upstream's spelling.
	Name string
	// EventSource is the source.component of the Events it records, as
	// `kubectl get events` shows it: upstream's "deployment-controller",
	// "replicaset-controller", "replication-controller",
	// "endpoint-controller", "garbage-collector-controller"…
	EventSource string
	// ServiceAccount is the kube-system ServiceAccount the controller acts
	// as under --use-service-account-credentials, upstream's name for it
	// ("replicaset-controller", "generic-garbage-collector"); the bootstrap
	// policy binds system:controller:<ServiceAccount> to it.
	ServiceAccount string
	// SyncsFlag is the flag that sets its worker count, without dashes
	// ("concurrent-deployment-syncs"); DefaultWorkers is that flag's
	// upstream default.
	SyncsFlag      string
	DefaultWorkers int
	// DisabledByDefault keeps the controller out of "*"; it runs only when
	// --controllers names it (upstream: bootstrapsigner, tokencleaner).
	DisabledByDefault bool
	// New builds the controller and registers its informers on
	// cc.Informers. It must not start them: the manager starts the factory
	// once every controller has registered.
	New func(cc ControllerContext) (Controller, error)
}

// registry lists the controllers kplane implements, in start order. Adding
// one is one line here (plus its import).
//
// Upstream kube-controller-manager's --controllers names, for reference
// (* = kplane has it, (c) = kplane runs it in the cloud-controller-manager,
// as upstream does with an external cloud provider; see CloudControllers):
//
//	attachdetach, bootstrapsigner* (off by default), cloud-node-lifecycle(c),
//	clusterrole-aggregation*, cronjob, csrapproving*, csrcleaner, csrsigning*,
//	daemonset, deployment*, disruption*, endpoint*, endpointslice*,
//	endpointslicemirroring, ephemeral-volume, garbagecollector*,
//	horizontalpodautoscaling*, job, legacy-serviceaccount-token-cleaner,
//	namespace*, nodeipam, nodelifecycle*, persistentvolume-binder*,
//	persistentvolume-expander, persistentvolumeclaim-protection,
//	persistentvolume-protection, pod-garbage-collector, replicaset*,
//	replicationcontroller*, resourcequota*, root-ca-cert-publisher*, route(c),
//	service(c), serviceaccount*, serviceaccount-token*, statefulset,
//	taint-eviction-controller*, tokencleaner* (off by default), ttl,
//	ttl-after-finished.
//
// Their worker flags: --concurrent-replicaset-syncs (5),
// --concurrent-rc-syncs (5), --concurrent-deployment-syncs (5),
// --concurrent-gc-syncs (20), --concurrent-namespace-syncs (10),
// --concurrent-endpoint-syncs (5), --concurrent-resource-quota-syncs (5), --concurrent-service-endpoint-syncs (5,
// the endpointslice controller's), --concurrent-serviceaccount-syncs (1).
var registry = []Descriptor{
	{Name: "replicaset", ServiceAccount: "replicaset-controller", EventSource: "replicaset-controller", SyncsFlag: "concurrent-replicaset-syncs", DefaultWorkers: 5,
		New: func(cc ControllerContext) (Controller, error) {
			return replicaset.New(cc.Client, cc.Informers, cc.Recorder, replicaset.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	{Name: "replicationcontroller", ServiceAccount: "replication-controller", EventSource: "replication-controller", SyncsFlag: "concurrent-rc-syncs", DefaultWorkers: 5,
		New: func(cc ControllerContext) (Controller, error) {
			return replicationcontroller.New(cc.Client, cc.Informers, cc.Recorder, replicationcontroller.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	{Name: "deployment", ServiceAccount: "deployment-controller", EventSource: "deployment-controller", SyncsFlag: "concurrent-deployment-syncs", DefaultWorkers: 5,
		New: func(cc ControllerContext) (Controller, error) {
			return deployment.New(cc.Client, cc.Informers, cc.Recorder, deployment.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	{Name: "garbagecollector", ServiceAccount: "generic-garbage-collector", EventSource: "garbage-collector-controller", SyncsFlag: "concurrent-gc-syncs", DefaultWorkers: garbagecollector.DefaultWorkers,
		New: func(cc ControllerContext) (Controller, error) {
			return garbagecollector.New(cc.Client, cc.Informers, cc.Recorder, garbagecollector.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	{Name: "namespace", ServiceAccount: "namespace-controller", EventSource: "namespace-controller", SyncsFlag: "concurrent-namespace-syncs", DefaultWorkers: 10,
		New: func(cc ControllerContext) (Controller, error) {
			return namespace.New(cc.Client, cc.Informers, cc.Recorder, namespace.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	{Name: endpoints.Name, ServiceAccount: "endpoint-controller", EventSource: "endpoint-controller", SyncsFlag: "concurrent-endpoint-syncs", DefaultWorkers: 5,
		New: func(cc ControllerContext) (Controller, error) {
			return endpoints.New(cc.Client, cc.Informers, cc.Recorder, endpoints.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	{Name: endpointslice.Name, ServiceAccount: "endpointslice-controller", EventSource: "endpoint-slice-controller", SyncsFlag: "concurrent-service-endpoint-syncs", DefaultWorkers: 5,
		New: func(cc ControllerContext) (Controller, error) {
			return endpointslice.New(cc.Client, cc.Informers, cc.Recorder, endpointslice.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	{Name: serviceaccount.Name, ServiceAccount: "service-account-controller", EventSource: "serviceaccount-controller", SyncsFlag: "concurrent-serviceaccount-syncs", DefaultWorkers: 1,
		New: func(cc ControllerContext) (Controller, error) {
			return serviceaccount.New(cc.Client, cc.Informers, cc.Recorder, serviceaccount.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	// Upstream runs the aggregator with five workers and no flag.
	{Name: clusterroleaggregation.Name, ServiceAccount: "clusterrole-aggregation-controller", SyncsFlag: "concurrent-clusterrole-aggregation-syncs", DefaultWorkers: 5,
		New: func(cc ControllerContext) (Controller, error) {
			return clusterroleaggregation.New(cc.Client, cc.Informers, cc.Recorder, clusterroleaggregation.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	// Upstream runs the publisher with one worker and no flag.
	// serviceaccount-token runs as the controller-manager itself, never as
	// a ServiceAccount, as upstream (other controllers' ServiceAccount
	// credentials may need it); without a signing key it is off.
	{Name: serviceaccounttoken.Name, SyncsFlag: "concurrent-serviceaccount-token-syncs", DefaultWorkers: 5,
		New: newServiceAccountTokenController},
	{Name: rootcacertpublisher.Name, ServiceAccount: "root-ca-cert-publisher", SyncsFlag: "concurrent-root-ca-cert-publisher-syncs", DefaultWorkers: 1,
		New: func(cc ControllerContext) (Controller, error) {
			return rootcacertpublisher.New(cc.Client, cc.Informers, cc.Recorder, rootcacertpublisher.Options{Logger: cc.Logger, Clock: cc.Clock, RootCA: cc.RootCA})
		}},
	{Name: "statefulset", ServiceAccount: "statefulset-controller", EventSource: "statefulset-controller", SyncsFlag: "concurrent-statefulset-syncs", DefaultWorkers: 5,
		New: func(cc ControllerContext) (Controller, error) {
			return statefulset.New(cc.Client, cc.Informers, cc.Recorder, statefulset.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	{Name: "daemonset", ServiceAccount: "daemon-set-controller", EventSource: "daemonset-controller", SyncsFlag: "concurrent-daemonset-syncs", DefaultWorkers: 2,
		New: func(cc ControllerContext) (Controller, error) {
			return daemonset.New(cc.Client, cc.Informers, cc.Recorder, daemonset.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	{Name: "job", ServiceAccount: "job-controller", EventSource: "job-controller", SyncsFlag: "concurrent-job-syncs", DefaultWorkers: 5,
		New: func(cc ControllerContext) (Controller, error) {
			return job.New(cc.Client, cc.Informers, cc.Recorder, job.Options{Logger: cc.Logger, Clock: cc.Clock,
				TTLClient: cc.clientFor(TTLAfterFinishedServiceAccount)})
		}},
	{Name: "cronjob", ServiceAccount: "cronjob-controller", EventSource: "cronjob-controller", SyncsFlag: "concurrent-cron-job-syncs", DefaultWorkers: 5,
		New: func(cc ControllerContext) (Controller, error) {
			return cronjob.New(cc.Client, cc.Informers, cc.Recorder, cronjob.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	// Upstream has no worker flag for the binder and runs one worker per
	// queue; kplane's flag exists because every controller has one, and
	// defaults to upstream's 1.
	{Name: persistentvolume.Name, ServiceAccount: "persistent-volume-binder", EventSource: "persistentvolume-controller", SyncsFlag: "concurrent-persistentvolume-binder-syncs", DefaultWorkers: 1,
		New: func(cc ControllerContext) (Controller, error) {
			return persistentvolume.New(cc.Client, cc.Informers, cc.Recorder, persistentvolume.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	// Node lifecycle and taint eviction go by upstream's full names (the
	// second has no short alias; "nodelifecycle" is the first's). Upstream
	// has no worker flags for them and runs 8 workers each; the flags exist
	// because every kplane controller has one.
	{Name: nodelifecycle.Name, ServiceAccount: "node-controller", EventSource: nodelifecycle.EventSource, SyncsFlag: "concurrent-node-lifecycle-syncs", DefaultWorkers: nodelifecycle.DefaultWorkers,
		New: func(cc ControllerContext) (Controller, error) {
			return nodelifecycle.New(cc.Client, cc.Informers, cc.Recorder, nodelifecycle.Options{Logger: cc.Logger, Clock: cc.Clock,
				NodeMonitorGracePeriod: cc.Options.NodeMonitorGracePeriod})
		}},
	// Upstream's taint-eviction controller acts as node-controller: it
	// "uses existing cluster role from node-controller" (its client is
	// ClientOrDie("node-controller")), so no role of its own exists.
	{Name: tainteviction.Name, ServiceAccount: "node-controller", EventSource: tainteviction.Name, SyncsFlag: "concurrent-taint-eviction-syncs", DefaultWorkers: tainteviction.DefaultWorkers,
		New: func(cc ControllerContext) (Controller, error) {
			return tainteviction.New(cc.Client, cc.Informers, cc.Recorder, tainteviction.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	{Name: podautoscaler.Name, ServiceAccount: "horizontal-pod-autoscaler", EventSource: podautoscaler.EventSource, SyncsFlag: "concurrent-horizontal-pod-autoscaler-syncs",
		DefaultWorkers: podautoscaler.DefaultWorkers,
		New: func(cc ControllerContext) (Controller, error) {
			return podautoscaler.New(cc.Client, cc.Informers, cc.Recorder, podautoscaler.Options{Logger: cc.Logger, Clock: cc.Clock,
				Tunables: cc.Options.HPA.Tunables})
		}},
	// Upstream's resourcequota controller records no Events.
	{Name: resourcequota.Name, ServiceAccount: "resourcequota-controller", SyncsFlag: "concurrent-resource-quota-syncs", DefaultWorkers: resourcequota.DefaultWorkers,
		New: func(cc ControllerContext) (Controller, error) {
			return resourcequota.New(cc.Client, cc.Informers, cc.Recorder, resourcequota.Options{Logger: cc.Logger, Clock: cc.Clock,
				SyncPeriod: cc.Options.ResourceQuotaSyncPeriod})
		}},
	// Upstream runs the disruption controller with one worker and no flag;
	// its Events come from "controllermanager".
	{Name: disruption.Name, ServiceAccount: "disruption-controller", EventSource: disruption.EventSource, SyncsFlag: "concurrent-disruption-syncs", DefaultWorkers: disruption.DefaultWorkers,
		New: func(cc ControllerContext) (Controller, error) {
			return disruption.New(cc.Client, cc.Informers, cc.Recorder, disruption.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	// Node joining (docs/join-nodes.md). Upstream has no worker flags for
	// these; the flags exist because every kplane controller has one. The
	// bootstrap signer and token cleaner are off in "*" as upstream
	// (kubeadm turns them on, and so does `ctl up`); the CSR approver and
	// signer are on, the signer only with --cluster-signing-* files.
	{Name: bootstrapsigner.Name, ServiceAccount: "bootstrap-signer", SyncsFlag: "concurrent-bootstrapsigner-syncs", DefaultWorkers: 1, DisabledByDefault: true,
		New: func(cc ControllerContext) (Controller, error) {
			return bootstrapsigner.New(cc.Client, cc.Informers, cc.Recorder, bootstrapsigner.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	{Name: tokencleaner.Name, ServiceAccount: "token-cleaner", SyncsFlag: "concurrent-tokencleaner-syncs", DefaultWorkers: 1, DisabledByDefault: true,
		New: func(cc ControllerContext) (Controller, error) {
			return tokencleaner.New(cc.Client, cc.Informers, cc.Recorder, tokencleaner.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	{Name: csrapproving.Name, ServiceAccount: "certificate-controller", SyncsFlag: "concurrent-csrapproving-syncs", DefaultWorkers: 5,
		New: func(cc ControllerContext) (Controller, error) {
			return csrapproving.New(cc.Client, cc.Informers, cc.Recorder, csrapproving.Options{Logger: cc.Logger, Clock: cc.Clock})
		}},
	{Name: csrsigning.Name, ServiceAccount: "certificate-controller", SyncsFlag: "concurrent-csrsigning-syncs", DefaultWorkers: 5,
		New: newCSRSigningController},
	// The hostpath provisioner is not an upstream controller: on kind the
	// same job is done by the local-path provisioner, a Deployment the
	// cluster tool installs. So it is off in "*", and `ctl up` turns it on
	// with a volumes directory in the cluster's data dir. Its events'
	// source is its provisioner name, as external provisioners report.
	{Name: hostpathprovisioner.Name, ServiceAccount: "hostpath-provisioner", EventSource: hostpathprovisioner.ProvisionerName, SyncsFlag: "concurrent-hostpath-provisioner-syncs",
		DefaultWorkers: 1, DisabledByDefault: true,
		New: func(cc ControllerContext) (Controller, error) {
			return hostpathprovisioner.New(cc.Client, cc.Informers, cc.Recorder, hostpathprovisioner.Options{Logger: cc.Logger, Clock: cc.Clock,
				VolumesDir: cc.Options.HostPathVolumesDir})
		}},
}

// Controllers returns the registered controllers, in start order.
func Controllers() []Descriptor {
	return append([]Descriptor(nil), registry...)
}
