package validation

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"kplane/pkg/api"
)

// newObjectForKind returns an empty object of a kind, for decoding.
func newObjectForKind(kind string) (api.Object, bool) {
	objects := map[string]func() api.Object{
		"Pod":                     func() api.Object { return &api.Pod{} },
		"Service":                 func() api.Object { return &api.Service{} },
		"Endpoints":               func() api.Object { return &api.Endpoints{} },
		"Namespace":               func() api.Object { return &api.Namespace{} },
		"Node":                    func() api.Object { return &api.Node{} },
		"ConfigMap":               func() api.Object { return &api.ConfigMap{} },
		"Secret":                  func() api.Object { return &api.Secret{} },
		"ServiceAccount":          func() api.Object { return &api.ServiceAccount{} },
		"PersistentVolume":        func() api.Object { return &api.PersistentVolume{} },
		"PersistentVolumeClaim":   func() api.Object { return &api.PersistentVolumeClaim{} },
		"ResourceQuota":           func() api.Object { return &api.ResourceQuota{} },
		"LimitRange":              func() api.Object { return &api.LimitRange{} },
		"Event":                   func() api.Object { return &api.Event{} },
		"ReplicationController":   func() api.Object { return &api.ReplicationController{} },
		"Deployment":              func() api.Object { return &api.Deployment{} },
		"ReplicaSet":              func() api.Object { return &api.ReplicaSet{} },
		"StatefulSet":             func() api.Object { return &api.StatefulSet{} },
		"DaemonSet":               func() api.Object { return &api.DaemonSet{} },
		"ControllerRevision":      func() api.Object { return &api.ControllerRevision{} },
		"Job":                     func() api.Object { return &api.Job{} },
		"CronJob":                 func() api.Object { return &api.CronJob{} },
		"HorizontalPodAutoscaler": func() api.Object { return &api.HorizontalPodAutoscaler{} },
		"Lease":                   func() api.Object { return &api.Lease{} },
		"EndpointSlice":           func() api.Object { return &api.EndpointSlice{} },
		"Ingress":                 func() api.Object { return &api.Ingress{} },
		"IngressClass":            func() api.Object { return &api.IngressClass{} },
		"NetworkPolicy":           func() api.Object { return &api.NetworkPolicy{} },
		"PodDisruptionBudget":     func() api.Object { return &api.PodDisruptionBudget{} },
		"Role":                    func() api.Object { return &api.Role{} },
		"ClusterRole":             func() api.Object { return &api.ClusterRole{} },
		"RoleBinding":             func() api.Object { return &api.RoleBinding{} },
		"ClusterRoleBinding":      func() api.Object { return &api.ClusterRoleBinding{} },
		"StorageClass":            func() api.Object { return &api.StorageClass{} },
		"PriorityClass":           func() api.Object { return &api.PriorityClass{} },
	}
	newObj, ok := objects[kind]
	if !ok {
		return nil, false
	}
	return newObj(), true
}

// clusterScoped lists the kinds that live outside namespaces.
var clusterScoped = map[string]bool{
	"Namespace": true, "Node": true, "PersistentVolume": true, "ClusterRole": true, "ClusterRoleBinding": true,
	"IngressClass": true,
	"StorageClass": true, "PriorityClass": true,
}

// decodeDocument turns one YAML document into its typed object, the way the
// apiserver will see it: YAML to JSON, JSON into the Go type, the namespace
// filled in from the request ("default") and the defaults applied.
func decodeDocument(doc string) (api.Object, error) {
	var generic map[string]any
	if err := yaml.Unmarshal([]byte(doc), &generic); err != nil {
		return nil, fmt.Errorf("parse yaml: %w", err)
	}
	data, err := json.Marshal(generic)
	if err != nil {
		return nil, fmt.Errorf("yaml to json: %w", err)
	}
	kind, _ := generic["kind"].(string)
	obj, ok := newObjectForKind(kind)
	if !ok {
		return nil, fmt.Errorf("unknown kind %q", kind)
	}
	if err := json.Unmarshal(data, obj); err != nil {
		return nil, fmt.Errorf("decode %s: %w", kind, err)
	}
	if meta := obj.GetObjectMeta(); !clusterScoped[kind] && meta.Namespace == "" {
		meta.Namespace = "default"
	}
	api.SetDefaults(obj)
	return obj, nil
}

// decode is decodeDocument for test tables; it fails the test on error.
func decode[T api.Object](t *testing.T, doc string) T {
	t.Helper()
	obj, err := decodeDocument(strings.TrimSpace(doc))
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, doc)
	}
	typed, ok := obj.(T)
	if !ok {
		t.Fatalf("decoded a %T, want %T", obj, typed)
	}
	return typed
}

// asStored returns a copy of obj as the store would hand it back: with a
// resourceVersion, so that it can be the "old" side of an update.
func asStored[T api.Object](obj T) T {
	stored := api.DeepCopy(obj)
	stored.GetObjectMeta().ResourceVersion = "1"
	return stored
}
