package describe

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"kplane/pkg/api"
)

// Input is one object to describe and everything fetched alongside it.
type Input struct {
	// Object is the object as the server returned it.
	Object map[string]any
	// Events are the Events about the object. They are printed only when
	// Settings.ShowEvents is set; then an empty list prints "Events: <none>".
	Events []api.Event
	// Related holds the other objects some kinds show.
	Related Related
}

// Related are the objects a describer shows besides the object itself.
// Which fields a kind reads is documented on each; the `ctl describe`
// verb fetches only those (pkg/ctl/describe_related.go).
type Related struct {
	// Pods are, for a ReplicaSet, ReplicationController, StatefulSet or
	// DaemonSet, the pods its selector matches (only those it controls
	// are counted); for a Node, its non-terminated pods; for a
	// PersistentVolumeClaim, the pods of its namespace (those mounting
	// the claim are listed).
	Pods []api.Pod
	// PodsErr is why the pods could not be listed; a ReplicaSet prints it
	// in place of its pod counts, as kubectl does.
	PodsErr error
	// ReplicaSets are, for a Deployment, the ReplicaSets its selector
	// matches; those it controls are split into the new one (same pod
	// template) and the old ones.
	ReplicaSets []api.ReplicaSet
	// EndpointSlices are, for a Service, the slices labelled
	// kubernetes.io/service-name with its name (none: "<none>").
	EndpointSlices []api.EndpointSlice
	// Lease is, for a Node, its heartbeat Lease in kube-node-lease;
	// LeaseErr is why it could not be read.
	Lease    *api.Lease
	LeaseErr error
	// ResourceQuotas and LimitRanges are, for a Namespace, the policies in
	// it; nil when the server does not serve the resource.
	ResourceQuotas *[]api.ResourceQuota
	LimitRanges    *[]api.LimitRange
	// Secrets are, for a ServiceAccount, the Secrets of its namespace;
	// nil when they could not be listed.
	Secrets *[]api.Secret
}

// Settings are the renderer's inputs that are not objects.
type Settings struct {
	// ShowEvents prints the Events section (--show-events, default true).
	ShowEvents bool
	// Now is the instant ages are measured from (kubectl's time.Since).
	Now time.Time
	// Location is the zone timestamps are printed in; kubectl prints the
	// local time. Nil means time.Local.
	Location *time.Location
}

// describer renders one kind.
type describer func(in Input, s Settings) (string, error)

// describers maps "<group>/<Kind>" ("apps/Deployment", "/Pod") to its
// describer; kinds not listed get the generic one, as in kubectl's
// describerMap.
var describers = map[string]describer{
	"/Pod":                                describePod,
	"/ReplicationController":              describeReplicationController,
	"/Service":                            describeService,
	"/Endpoints":                          describeEndpoints,
	"discovery.k8s.io/EndpointSlice":      describeEndpointSlice,
	"/Node":                               describeNode,
	"/Namespace":                          describeNamespace,
	"/ConfigMap":                          describeConfigMap,
	"/Secret":                             describeSecret,
	"/ServiceAccount":                     describeServiceAccount,
	"/PersistentVolume":                   describePersistentVolume,
	"/PersistentVolumeClaim":              describePersistentVolumeClaim,
	"/ResourceQuota":                      describeResourceQuota,
	"/LimitRange":                         describeLimitRange,
	"apps/ReplicaSet":                     describeReplicaSet,
	"apps/Deployment":                     describeDeployment,
	"apps/StatefulSet":                    describeStatefulSet,
	"apps/DaemonSet":                      describeDaemonSet,
	"batch/Job":                           describeJob,
	"batch/CronJob":                       describeCronJob,
	"autoscaling/HorizontalPodAutoscaler": describeHorizontalPodAutoscaler,

	"rbac.authorization.k8s.io/Role":               describeRole,
	"rbac.authorization.k8s.io/ClusterRole":        describeClusterRole,
	"rbac.authorization.k8s.io/RoleBinding":        describeRoleBinding,
	"rbac.authorization.k8s.io/ClusterRoleBinding": describeClusterRoleBinding,
}

// Describe renders in.Object as `kubectl describe` does.
func Describe(in Input, s Settings) (string, error) {
	if s.Location == nil {
		s.Location = time.Local
	}
	apiVersion, _ := in.Object["apiVersion"].(string)
	kind, _ := in.Object["kind"].(string)
	group, _, _ := strings.Cut(apiVersion, "/")
	if !strings.Contains(apiVersion, "/") {
		group = ""
	}
	if d, ok := describers[group+"/"+kind]; ok {
		return d(in, s)
	}
	return describeGeneric(in, s), nil
}

// decode converts the object to its Go type, by way of its JSON.
func decode[T any](obj map[string]any) (*T, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode object: %w", err)
	}
	out := new(T)
	if err := json.Unmarshal(data, out); err != nil {
		kind, _ := obj["kind"].(string)
		return nil, fmt.Errorf("decode %s: %w", kind, err)
	}
	return out, nil
}
