package informer

// Fixtures shared by the storage tests (store, indexer, DeltaFIFO, listers).

import (
	"testing"

	"kplane/pkg/api"
)

// podOption tweaks a fixture pod.
type podOption func(*api.Pod)

// fixturePod returns a pod in namespace ns (cluster-scoped names are not
// used for pods) with the given options applied.
func fixturePod(ns, name string, opts ...podOption) *api.Pod {
	p := &api.Pod{
		TypeMeta:   api.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func withRV(rv string) podOption { return func(p *api.Pod) { p.ResourceVersion = rv } }

func withNode(node string) podOption { return func(p *api.Pod) { p.Spec.NodeName = node } }

func withLabels(kv ...string) podOption {
	return func(p *api.Pod) {
		p.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func withOwners(uids ...string) podOption {
	return func(p *api.Pod) {
		for _, uid := range uids {
			p.OwnerReferences = append(p.OwnerReferences, api.OwnerReference{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs-" + uid, UID: uid,
			})
		}
	}
}

// fixtureNode returns a cluster-scoped Node.
func fixtureNode(name string, kv ...string) *api.Node {
	n := &api.Node{
		TypeMeta:   api.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: name},
	}
	if len(kv) > 0 {
		n.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
	return n
}

// applyDeltasToCache does what a shared informer does with popped Deltas: bring
// the indexer up to date with each delta in turn.
func applyDeltasToCache(t testing.TB, indexer Indexer, obj any) {
	t.Helper()
	for _, d := range obj.(Deltas) {
		switch d.Type {
		case Added, Updated, Replaced, Sync:
			if err := indexer.Update(d.Object.(api.Object)); err != nil {
				t.Errorf("apply %s: %v", d.Type, err)
			}
		case Deleted:
			o, ok := d.Object.(api.Object)
			if tomb, isTomb := d.Object.(DeletedFinalStateUnknown); isTomb {
				o, ok = tomb.Obj, tomb.Obj != nil
			}
			if ok {
				if err := indexer.Delete(o); err != nil {
					t.Errorf("apply delete: %v", err)
				}
			}
		}
	}
}

// deltaSummary is a Delta reduced to what tests compare: its type, the
// key of its object, its resourceVersion, and whether it is a tombstone.
type deltaSummary struct {
	Type      DeltaType
	Key       string
	RV        string
	Tombstone bool
}

// summarizeDeltas reduces Deltas for comparison.
func summarizeDeltas(t testing.TB, deltas Deltas) []deltaSummary {
	t.Helper()
	out := make([]deltaSummary, 0, len(deltas))
	for _, d := range deltas {
		s := deltaSummary{Type: d.Type}
		key, err := MetaNamespaceKeyFunc(d.Object)
		if err != nil {
			t.Fatalf("key of delta object: %v", err)
		}
		s.Key = key
		switch o := d.Object.(type) {
		case DeletedFinalStateUnknown:
			s.Tombstone = true
			if o.Obj != nil {
				s.RV = o.Obj.GetObjectMeta().ResourceVersion
			}
		case api.Object:
			s.RV = o.GetObjectMeta().ResourceVersion
		}
		out = append(out, s)
	}
	return out
}
