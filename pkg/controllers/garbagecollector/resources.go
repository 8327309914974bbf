package garbagecollector

import (
	"errors"
	"fmt"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/informer"
)

// monitor pairs a resource the graph watches with its shared informer.
type monitor struct {
	resource client.Resource
	informer informer.SharedIndexInformer
}

// monitors returns the resources whose objects become nodes of the graph:
// the workload kinds and what they own. They are the factory's shared typed
// informers, so the pod or ReplicaSet cache the other controllers already
// keep is reused rather than duplicated. Upstream's collector watches every
// deletable resource it discovers; kplane's list is fixed. An owner of
// another kind (a Node, a Namespace) still works: it appears as a virtual
// node that the attemptToDelete worker checks against the apiserver.
func monitors(f *informer.SharedInformerFactory) []monitor {
	return []monitor{
		{client.PodsResource, f.Pods().Informer()},
		{client.ReplicaSetsResource, f.ReplicaSets().Informer()},
		{client.DeploymentsResource, f.Deployments().Informer()},
		{client.ReplicationControllersResource, f.ReplicationControllers().Informer()},
		{client.StatefulSetsResource, f.StatefulSets().Informer()},
		{client.DaemonSetsResource, f.DaemonSets().Informer()},
		{client.JobsResource, f.Jobs().Informer()},
		{client.CronJobsResource, f.CronJobs().Informer()},
		{client.ControllerRevisionsResource, f.ControllerRevisions().Informer()},
		{client.PersistentVolumeClaimsResource, f.PersistentVolumeClaims().Informer()},
		{client.ServicesResource, f.Services().Informer()},
		{client.EndpointsResource, f.Endpoints().Informer()},
		{client.EndpointSlicesResource, f.EndpointSlices().Informer()},
		{client.ConfigMapsResource, f.ConfigMaps().Informer()},
		{client.SecretsResource, f.Secrets().Informer()},
		{client.ServiceAccountsResource, f.ServiceAccounts().Informer()},
	}
}

// resourcesByGroupKind maps "group/Kind" ("apps/ReplicaSet", "/Pod") to the
// resource that serves it. kplane serves one version of each kind, so an
// ownerReference is resolved by group and kind and its version is not
// checked (upstream's REST mapper would also accept any served version).
var resourcesByGroupKind = func() map[string]client.Resource {
	m := map[string]client.Resource{}
	for _, r := range client.BuiltinResources() {
		m[r.Group+"/"+r.Kind] = r
	}
	return m
}()

// errUnknownKind reports an ownerReference to a kind kplane does not serve.
var errUnknownKind = errors.New("unknown kind")

// resourceFor returns the resource serving apiVersion and kind.
func resourceFor(apiVersion, kind string) (client.Resource, error) {
	group := ""
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		group = apiVersion[:i]
	}
	r, ok := resourcesByGroupKind[group+"/"+kind]
	if !ok {
		return client.Resource{}, fmt.Errorf("%w %s in %s", errUnknownKind, kind, apiVersion)
	}
	return r, nil
}

// ownerNamespace is the namespace an owner named by ref lives in, seen from
// a dependent in namespace: the same namespace, or none for a cluster-scoped
// kind. An ownerReference cannot name another namespace.
func ownerNamespace(ref api.OwnerReference, namespace string) string {
	if r, err := resourceFor(ref.APIVersion, ref.Kind); err == nil && !r.Namespaced {
		return ""
	}
	return namespace
}
