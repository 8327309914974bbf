package informer

import (
	"testing"

	"kplane/pkg/api"
)

func TestMetaNamespaceKeyFunc(t *testing.T) {
	tests := []struct {
		name    string
		obj     any
		want    string
		wantErr bool
	}{
		{name: "namespaced object", obj: fixturePod("default", "web"), want: "default/web"},
		{name: "cluster-scoped object", obj: fixtureNode("node-1"), want: "node-1"},
		{name: "tombstone yields its key", obj: DeletedFinalStateUnknown{Key: "default/gone"}, want: "default/gone"},
		{name: "tombstone pointer", obj: &DeletedFinalStateUnknown{Key: "gone"}, want: "gone"},
		{name: "nil", obj: nil, wantErr: true},
		{name: "not an object", obj: "default/web", wantErr: true},
		{name: "object without a name", obj: &api.Pod{}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for fname, fn := range map[string]KeyFunc{
				"MetaNamespaceKeyFunc":                 MetaNamespaceKeyFunc,
				"DeletionHandlingMetaNamespaceKeyFunc": DeletionHandlingMetaNamespaceKeyFunc,
			} {
				got, err := fn(tt.obj)
				if (err != nil) != tt.wantErr {
					t.Fatalf("%s: err = %v, wantErr %v", fname, err, tt.wantErr)
				}
				if got != tt.want {
					t.Errorf("%s = %q, want %q", fname, got, tt.want)
				}
			}
		})
	}
}

func TestSplitMetaNamespaceKey(t *testing.T) {
	tests := []struct {
		key           string
		wantNamespace string
		wantName      string
		wantErr       bool
	}{
		{key: "default/web", wantNamespace: "default", wantName: "web"},
		{key: "node-1", wantName: "node-1"},
		{key: "a/b/c", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			ns, name, err := SplitMetaNamespaceKey(tt.key)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if ns != tt.wantNamespace || name != tt.wantName {
				t.Errorf("got (%q, %q), want (%q, %q)", ns, name, tt.wantNamespace, tt.wantName)
			}
		})
	}
}

func TestSplitUndoesMetaNamespaceKeyFunc(t *testing.T) {
	for _, obj := range []api.Object{fixturePod("kube-system", "dns"), fixtureNode("node-2")} {
		key, err := MetaNamespaceKeyFunc(obj)
		if err != nil {
			t.Fatal(err)
		}
		ns, name, err := SplitMetaNamespaceKey(key)
		if err != nil {
			t.Fatal(err)
		}
		meta := obj.GetObjectMeta()
		if ns != meta.Namespace || name != meta.Name {
			t.Errorf("split(%q) = (%q, %q), want (%q, %q)", key, ns, name, meta.Namespace, meta.Name)
		}
	}
}
