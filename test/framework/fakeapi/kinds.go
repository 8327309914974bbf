package fakeapi

import (
	"reflect"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// kinds maps each resource kplane serves (its plural, "replicasets") to a
// new, empty object of its Go type; the strategic merge patch reads the
// patch strategies from that type.
var kinds = map[string]func() api.Object{
	"namespaces":                 func() api.Object { return &api.Namespace{} },
	"nodes":                      func() api.Object { return &api.Node{} },
	"pods":                       func() api.Object { return &api.Pod{} },
	"services":                   func() api.Object { return &api.Service{} },
	"endpoints":                  func() api.Object { return &api.Endpoints{} },
	"configmaps":                 func() api.Object { return &api.ConfigMap{} },
	"secrets":                    func() api.Object { return &api.Secret{} },
	"serviceaccounts":            func() api.Object { return &api.ServiceAccount{} },
	"persistentvolumes":          func() api.Object { return &api.PersistentVolume{} },
	"persistentvolumeclaims":     func() api.Object { return &api.PersistentVolumeClaim{} },
	"resourcequotas":             func() api.Object { return &api.ResourceQuota{} },
	"limitranges":                func() api.Object { return &api.LimitRange{} },
	"events":                     func() api.Object { return &api.Event{} },
	"replicationcontrollers":     func() api.Object { return &api.ReplicationController{} },
	"deployments":                func() api.Object { return &api.Deployment{} },
	"replicasets":                func() api.Object { return &api.ReplicaSet{} },
	"statefulsets":               func() api.Object { return &api.StatefulSet{} },
	"daemonsets":                 func() api.Object { return &api.DaemonSet{} },
	"controllerrevisions":        func() api.Object { return &api.ControllerRevision{} },
	"jobs":                       func() api.Object { return &api.Job{} },
	"cronjobs":                   func() api.Object { return &api.CronJob{} },
	"horizontalpodautoscalers":   func() api.Object { return &api.HorizontalPodAutoscaler{} },
	"leases":                     func() api.Object { return &api.Lease{} },
	"endpointslices":             func() api.Object { return &api.EndpointSlice{} },
	"ingresses":                  func() api.Object { return &api.Ingress{} },
	"ingressclasses":             func() api.Object { return &api.IngressClass{} },
	"networkpolicies":            func() api.Object { return &api.NetworkPolicy{} },
	"poddisruptionbudgets":       func() api.Object { return &api.PodDisruptionBudget{} },
	"roles":                      func() api.Object { return &api.Role{} },
	"clusterroles":               func() api.Object { return &api.ClusterRole{} },
	"rolebindings":               func() api.Object { return &api.RoleBinding{} },
	"clusterrolebindings":        func() api.Object { return &api.ClusterRoleBinding{} },
	"storageclasses":             func() api.Object { return &api.StorageClass{} },
	"priorityclasses":            func() api.Object { return &api.PriorityClass{} },
	"apiservices":                func() api.Object { return &api.APIService{} },
	"certificatesigningrequests": func() api.Object { return &api.CertificateSigningRequest{} },
}

// resources indexes client.BuiltinResources by plural.
var resources = func() map[string]client.Resource {
	out := map[string]client.Resource{}
	for _, r := range client.BuiltinResources() {
		out[r.Resource] = r
	}
	return out
}()

// resourcesByType indexes the resources by the Go type of their objects.
var resourcesByType = func() map[reflect.Type]client.Resource {
	out := map[reflect.Type]client.Resource{}
	for plural, newObject := range kinds {
		out[reflect.TypeOf(newObject())] = resources[plural]
	}
	return out
}()

// resourceOf returns the resource that serves obj's Go type.
func resourceOf(obj api.Object) (client.Resource, bool) {
	res, ok := resourcesByType[reflect.TypeOf(obj)]
	return res, ok
}
