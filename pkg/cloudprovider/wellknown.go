package cloudprovider

// The taints, labels and finalizer the cloud controllers and the kubelet
// agree on, with upstream's names (k8s.io/cloud-provider/api and
// k8s.io/api/core/v1's well_known_labels.go).
const (
	// TaintExternalCloudProvider is put on a node by a kubelet started with
	// --cloud-provider=external, NoSchedule, until the cloud node controller
	// has filled in what the cloud knows of the machine.
	TaintExternalCloudProvider = "node.cloudprovider.kubernetes.io/uninitialized"
	// TaintNodeShutdown marks a NotReady node whose machine the cloud
	// reports shut down (NoSchedule): its pods will not come back on their
	// own, but the node is not deleted.
	TaintNodeShutdown = "node.cloudprovider.kubernetes.io/shutdown"

	// LabelInstanceType and LabelInstanceTypeBeta carry the machine's size;
	// upstream's cloud node controller still sets the beta label too.
	LabelInstanceType     = "node.kubernetes.io/instance-type"
	LabelInstanceTypeBeta = "beta.kubernetes.io/instance-type"
	// LabelZoneBeta and LabelRegionBeta are the deprecated names of the
	// machine's failure domain labels (api.LabelTopologyZone and
	// api.LabelTopologyRegion), which upstream still sets beside them.
	LabelZoneBeta   = "failure-domain.beta.kubernetes.io/zone"
	LabelRegionBeta = "failure-domain.beta.kubernetes.io/region"
	// LabelExcludeFromLoadBalancers keeps a node out of every load
	// balancer's node set, whatever its value.
	LabelExcludeFromLoadBalancers = "node.kubernetes.io/exclude-from-external-load-balancers"

	// LoadBalancerCleanupFinalizer holds a Service of type LoadBalancer
	// until its load balancer is deleted, so a deleted Service never leaves
	// a load balancer behind.
	LoadBalancerCleanupFinalizer = "service.kubernetes.io/load-balancer-cleanup"
)
