package garbagecollector

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/informer"
)

// typedMonitors returns the built-in resources the collector watches from
// its construction — the workload kinds and what they own — with the
// factory's shared typed informers, so the pod or ReplicaSet cache the
// other controllers already keep is reused rather than duplicated, and the
// graph holds them before the first discovery. Every other deletable
// resource discovery lists gets a monitor at the first resync
// (monitors.go): a typed informer for a built-in kind (Namespaces,
// Leases), a dynamic one for a custom resource.
func typedMonitors(f *informer.SharedInformerFactory) []monitor {
	return []monitor{
		{resource: client.PodsResource, informer: f.Pods().Informer()},
		{resource: client.ReplicaSetsResource, informer: f.ReplicaSets().Informer()},
		{resource: client.DeploymentsResource, informer: f.Deployments().Informer()},
		{resource: client.ReplicationControllersResource, informer: f.ReplicationControllers().Informer()},
		{resource: client.StatefulSetsResource, informer: f.StatefulSets().Informer()},
		{resource: client.DaemonSetsResource, informer: f.DaemonSets().Informer()},
		{resource: client.JobsResource, informer: f.Jobs().Informer()},
		{resource: client.CronJobsResource, informer: f.CronJobs().Informer()},
		{resource: client.ControllerRevisionsResource, informer: f.ControllerRevisions().Informer()},
		{resource: client.PersistentVolumeClaimsResource, informer: f.PersistentVolumeClaims().Informer()},
		{resource: client.ServicesResource, informer: f.Services().Informer()},
		{resource: client.EndpointsResource, informer: f.Endpoints().Informer()},
		{resource: client.EndpointSlicesResource, informer: f.EndpointSlices().Informer()},
		{resource: client.ConfigMapsResource, informer: f.ConfigMaps().Informer()},
		{resource: client.SecretsResource, informer: f.Secrets().Informer()},
		{resource: client.ServiceAccountsResource, informer: f.ServiceAccounts().Informer()},
	}
}

// errUnknownKind reports an ownerReference to a kind the apiserver does
// not serve, as far as the last discovery knows.
var errUnknownKind = errors.New("unknown kind")

// restMapper resolves an apiVersion and kind to the resource serving it,
// as upstream's REST mapper does for the collector. It knows the built-in
// kinds from the start and learns the rest — custom resources — from each
// discovery (update). Only group and kind are compared: a reference names
// the kind in one version, and any served version reaches the same object
// (upstream's mapper also accepts every served version).
type restMapper struct {
	mu sync.RWMutex
	// byGroupKind maps "group/Kind" ("apps/ReplicaSet", "/Pod",
	// "example.com/Widget") to its resource.
	byGroupKind map[string]client.Resource
}

// newRESTMapper returns a mapper that knows the built-in kinds.
func newRESTMapper() *restMapper {
	m := &restMapper{}
	m.update(nil)
	return m
}

// update replaces what the mapper knows by the built-in kinds plus
// discovered, the resources of the latest discovery. A built-in kind keeps
// its compiled-in resource.
func (m *restMapper) update(discovered []client.Resource) {
	byGroupKind := map[string]client.Resource{}
	for _, r := range discovered {
		byGroupKind[r.Group+"/"+r.Kind] = r
	}
	for _, r := range client.BuiltinResources() {
		byGroupKind[r.Group+"/"+r.Kind] = r
	}
	m.mu.Lock()
	m.byGroupKind = byGroupKind
	m.mu.Unlock()
}

// resourceFor returns the resource serving apiVersion and kind.
func (m *restMapper) resourceFor(apiVersion, kind string) (client.Resource, error) {
	group := ""
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		group = apiVersion[:i]
	}
	m.mu.RLock()
	r, ok := m.byGroupKind[group+"/"+kind]
	m.mu.RUnlock()
	if !ok {
		return client.Resource{}, fmt.Errorf("%w %s in %s", errUnknownKind, kind, apiVersion)
	}
	return r, nil
}

// ownerNamespace is the namespace an owner named by ref lives in, seen from
// a dependent in namespace: the same namespace, or none for a cluster-scoped
// kind. An ownerReference cannot name another namespace. An owner of an
// unknown kind is assumed to share the dependent's namespace.
func (m *restMapper) ownerNamespace(ref api.OwnerReference, namespace string) string {
	if r, err := m.resourceFor(ref.APIVersion, ref.Kind); err == nil && !r.Namespaced {
		return ""
	}
	return namespace
}
