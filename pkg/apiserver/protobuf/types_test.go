package protobuf

import (
	"reflect"
	"strings"
	"testing"

	"kplane/pkg/api"
)

// requestKinds are the API types a protobuf request body can hold.
var requestKinds = []any{
	api.Pod{}, api.Binding{}, api.Eviction{}, api.DeleteOptions{}, api.Scale{},
	api.Deployment{}, api.ReplicaSet{}, api.StatefulSet{}, api.DaemonSet{}, api.ControllerRevision{},
	api.Job{}, api.CronJob{}, api.HorizontalPodAutoscaler{}, api.Lease{}, api.EndpointSlice{},
	api.Role{}, api.RoleBinding{}, api.ClusterRole{}, api.ClusterRoleBinding{},
	api.ConfigMap{}, api.Secret{}, api.ServiceAccount{}, api.Event{}, api.Namespace{}, api.Node{},
	api.ResourceQuota{}, api.LimitRange{}, api.ReplicationController{}, api.Service{}, api.Endpoints{},
	api.PersistentVolume{}, api.PersistentVolumeClaim{},
	api.StorageClass{}, api.PriorityClass{},
}

// TestEveryFieldIsTagged walks every struct reachable from requestKinds and
// checks that each field has a protobuf tag whose wire type fits its Go
// type, maps name their key and value, and no number repeats. A field added
// to pkg/api without a tag would otherwise be silently dropped from
// protobuf bodies.
func TestEveryFieldIsTagged(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] || isWellKnown(typ) {
			return
		}
		seen[typ] = true
		if _, err := messageOf(typ); err != nil {
			t.Errorf("%s: %v", typ.Name(), err)
		}
		for i := range typ.NumField() {
			sf := typ.Field(i)
			if sf.Anonymous && sf.Type == reflect.TypeFor[api.TypeMeta]() {
				continue // travels in the envelope, as upstream's does
			}
			tag, ok := sf.Tag.Lookup("protobuf")
			if !ok {
				t.Errorf("%s.%s has no protobuf tag", typ.Name(), sf.Name)
				continue
			}
			if got, want := strings.Split(tag, ",")[0], expectedWireType(sf.Type); got != want {
				t.Errorf("%s.%s: tag says %s, Go type %s travels as %s", typ.Name(), sf.Name, got, sf.Type, want)
			}
			if sf.Type.Kind() == reflect.Map && (sf.Tag.Get("protobuf_key") == "" || sf.Tag.Get("protobuf_val") == "") {
				t.Errorf("%s.%s: a map needs protobuf_key and protobuf_val tags", typ.Name(), sf.Name)
			}
			walk(sf.Type)
		}
	}
	for _, kind := range requestKinds {
		walk(reflect.TypeOf(kind))
	}
	if len(seen) < 100 {
		t.Errorf("walked only %d types; the walk is broken", len(seen))
	}
}

// expectedWireType is the wire type name a field of Go type t has in a tag.
func expectedWireType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer || (t.Kind() == reflect.Slice && !isBytes(t)) {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64:
		return "varint"
	case reflect.Float32:
		return "fixed32"
	case reflect.Float64:
		return "fixed64"
	}
	return "bytes"
}
