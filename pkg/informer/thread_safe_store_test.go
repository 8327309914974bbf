package informer

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"kplane/pkg/api"
)

// objectKeysSorted returns the keys of objs, sorted.
func objectKeysSorted(t testing.TB, objs []api.Object) []string {
	t.Helper()
	keys := make([]string, 0, len(objs))
	for _, o := range objs {
		k, err := MetaNamespaceKeyFunc(o)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkIndexInvariants recomputes every index of idx from its objects and
// fails the test if the maintained index differs in any way: a missing or
// extra key, an empty set left behind, or bookkeeping for a key that is
// gone. It also checks that the public read methods agree.
func checkIndexInvariants(t testing.TB, idx Indexer) {
	t.Helper()
	s := idx.(*threadSafeStore)
	type expectation struct {
		values map[string][]string // value → sorted keys
	}
	want := map[string]expectation{}

	s.lock.RLock()
	for name, fn := range s.index.indexers {
		indices := map[string]keySet{}
		filed := map[string][]string{}
		for key, obj := range s.items {
			vs, err := fn(obj)
			if err != nil {
				t.Fatalf("index %q of %q: %v", name, key, err)
			}
			for _, v := range vs {
				if indices[v] == nil {
					indices[v] = keySet{}
				}
				indices[v][key] = struct{}{}
			}
			if len(vs) > 0 {
				filed[key] = slices.Compact(slices.Sorted(slices.Values(vs)))
			}
		}
		if !reflect.DeepEqual(indices, s.index.indices[name]) {
			t.Errorf("index %q = %v, recomputed from scratch %v", name, s.index.indices[name], indices)
		}
		if !reflect.DeepEqual(filed, s.index.filedUnder[name]) {
			t.Errorf("filedUnder[%q] = %v, recomputed %v", name, s.index.filedUnder[name], filed)
		}
		e := expectation{values: map[string][]string{}}
		for v, set := range indices {
			e.values[v] = slices.Sorted(maps.Keys(set))
		}
		want[name] = e
	}
	s.lock.RUnlock()

	for name, e := range want {
		gotValues := idx.ListIndexFuncValues(name)
		slices.Sort(gotValues)
		if wantValues := slices.Sorted(maps.Keys(e.values)); !slices.Equal(gotValues, wantValues) {
			t.Errorf("ListIndexFuncValues(%q) = %q, want %q", name, gotValues, wantValues)
		}
		for v, keys := range e.values {
			got, err := idx.IndexKeys(name, v)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			if !slices.Equal(got, keys) {
				t.Errorf("IndexKeys(%q, %q) = %q, want %q", name, v, got, keys)
			}
			objs, err := idx.ByIndex(name, v)
			if err != nil {
				t.Fatal(err)
			}
			if got := objectKeysSorted(t, objs); !slices.Equal(got, keys) {
				t.Errorf("ByIndex(%q, %q) = %q, want %q", name, v, got, keys)
			}
		}
	}
}

func TestIndexerAddUpdateDelete(t *testing.T) {
	idx := NewIndexer(MetaNamespaceKeyFunc, StandardIndexers())
	steps := []struct {
		name     string
		do       func() error
		nodeKeys map[string][]string // node name → keys expected in NodeNameIndex
	}{
		{
			name: "add two pods on node-1",
			do: func() error {
				return errors.Join(
					idx.Add(fixturePod("default", "a", withNode("node-1"))),
					idx.Add(fixturePod("default", "b", withNode("node-1"))))
			},
			nodeKeys: map[string][]string{"node-1": {"default/a", "default/b"}},
		},
		{
			name:     "update moves a pod to node-2",
			do:       func() error { return idx.Update(fixturePod("default", "b", withNode("node-2"))) },
			nodeKeys: map[string][]string{"node-1": {"default/a"}, "node-2": {"default/b"}},
		},
		{
			name:     "delete the last pod on node-1 drops the value",
			do:       func() error { return idx.Delete(fixturePod("default", "a")) },
			nodeKeys: map[string][]string{"node-2": {"default/b"}},
		},
		{
			name:     "delete of an unknown key is not an error",
			do:       func() error { return idx.Delete(fixturePod("default", "nobody")) },
			nodeKeys: map[string][]string{"node-2": {"default/b"}},
		},
		{
			name:     "add is a put: adding an existing key replaces it",
			do:       func() error { return idx.Add(fixturePod("default", "b")) },
			nodeKeys: map[string][]string{},
		},
	}
	for _, step := range steps {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		got := map[string][]string{}
		for _, v := range idx.ListIndexFuncValues(NodeNameIndex) {
			keys, _ := idx.IndexKeys(NodeNameIndex, v)
			slices.Sort(keys)
			got[v] = keys
		}
		if !reflect.DeepEqual(got, step.nodeKeys) {
			t.Errorf("%s: node index = %v, want %v", step.name, got, step.nodeKeys)
		}
		checkIndexInvariants(t, idx)
	}
}

func TestIndexerQueries(t *testing.T) {
	idx := NewIndexer(nil, StandardIndexers())
	for _, p := range []*api.Pod{
		fixturePod("default", "a", withOwners("rs1"), withLabels("app", "web")),
		fixturePod("default", "b", withOwners("rs1", "rs2"), withLabels("app", "db")),
		fixturePod("prod", "c", withOwners("rs2"), withLabels("app", "web")),
		fixturePod("prod", "d"),
	} {
		if err := idx.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		query   func() ([]api.Object, error)
		want    []string
		wantErr bool
	}{
		{"ByIndex namespace", func() ([]api.Object, error) { return idx.ByIndex(NamespaceIndex, "prod") }, []string{"prod/c", "prod/d"}, false},
		{"ByIndex owner", func() ([]api.Object, error) { return idx.ByIndex(OwnerUIDIndex, "rs1") }, []string{"default/a", "default/b"}, false},
		{"ByIndex label", func() ([]api.Object, error) { return idx.ByIndex(LabelIndex, "app=web") }, []string{"default/a", "prod/c"}, false},
		{"ByIndex unknown value", func() ([]api.Object, error) { return idx.ByIndex(LabelIndex, "app=none") }, []string{}, false},
		{"ByIndex unknown index", func() ([]api.Object, error) { return idx.ByIndex("color", "red") }, nil, true},
		{"Index unions every value of obj", func() ([]api.Object, error) {
			return idx.Index(OwnerUIDIndex, fixturePod("x", "probe", withOwners("rs1", "rs2")))
		}, []string{"default/a", "default/b", "prod/c"}, false},
		{"Index with one value", func() ([]api.Object, error) {
			return idx.Index(NamespaceIndex, fixturePod("default", "probe"))
		}, []string{"default/a", "default/b"}, false},
		{"Index unknown index", func() ([]api.Object, error) { return idx.Index("color", fixturePod("x", "y")) }, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := tt.query()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if got := objectKeysSorted(t, objs); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := idx.IndexKeys("color", "red"); err == nil {
		t.Error("IndexKeys on an unknown index: want an error")
	}
	if got := idx.ListIndexFuncValues("color"); got != nil {
		t.Errorf("ListIndexFuncValues on an unknown index = %q, want nil", got)
	}
}

func TestIndexerGetAndList(t *testing.T) {
	store := NewStore(MetaNamespaceKeyFunc)
	a := fixturePod("default", "a", withRV("1"))
	n := fixtureNode("node-1")
	for _, o := range []api.Object{a, n} {
		if err := store.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	got, ok, err := store.Get(fixturePod("default", "a"))
	if err != nil || !ok || got != api.Object(a) {
		t.Errorf("Get = %v, %v, %v; want the stored pointer", got, ok, err)
	}
	if got, ok, _ := store.GetByKey("node-1"); !ok || got != api.Object(n) {
		t.Errorf("GetByKey(node-1) = %v, %v", got, ok)
	}
	if _, ok, _ := store.GetByKey("default/zzz"); ok {
		t.Error("GetByKey of a missing key reported it exists")
	}
	keys := store.ListKeys()
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"default/a", "node-1"}) {
		t.Errorf("ListKeys = %q", keys)
	}
	if got := objectKeysSorted(t, store.List()); !slices.Equal(got, []string{"default/a", "node-1"}) {
		t.Errorf("List = %q", got)
	}
	if err := store.Resync(); err != nil {
		t.Errorf("Resync: %v", err)
	}
	var keyErr KeyError
	if err := store.Add(&api.Pod{}); !errors.As(err, &keyErr) {
		t.Errorf("Add of a nameless pod: err = %v, want a KeyError", err)
	}
}

func TestIndexerReplace(t *testing.T) {
	idx := NewIndexer(MetaNamespaceKeyFunc, StandardIndexers())
	for _, p := range []*api.Pod{
		fixturePod("default", "a", withNode("n1")),
		fixturePod("default", "b", withNode("n2")),
	} {
		if err := idx.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	err := idx.Replace([]api.Object{
		fixturePod("default", "b", withNode("n3")),
		fixturePod("prod", "c", withNode("n1")),
	}, "42")
	if err != nil {
		t.Fatal(err)
	}
	if got := objectKeysSorted(t, idx.List()); !slices.Equal(got, []string{"default/b", "prod/c"}) {
		t.Errorf("after Replace, List = %q", got)
	}
	values := idx.ListIndexFuncValues(NodeNameIndex)
	slices.Sort(values)
	if !slices.Equal(values, []string{"n1", "n3"}) {
		t.Errorf("node index values = %q, want [n1 n3]", values)
	}
	checkIndexInvariants(t, idx)
}

// failingIndex fails for pods labelled bad=true.
func failingIndex(obj api.Object) ([]string, error) {
	if obj.GetObjectMeta().Labels["bad"] == "true" {
		return nil, errors.New("cannot index")
	}
	return []string{"ok"}, nil
}

func TestIndexerIndexFuncErrorChangesNothing(t *testing.T) {
	good := fixturePod("default", "a", withRV("1"))
	bad := func() *api.Pod { return fixturePod("default", "a", withRV("2"), withLabels("bad", "true")) }
	tests := []struct {
		name string
		do   func(Indexer) error
	}{
		{"update", func(idx Indexer) error { return idx.Update(bad()) }},
		{"add of another key", func(idx Indexer) error { return idx.Add(fixturePod("default", "z", withLabels("bad", "true"))) }},
		{"replace", func(idx Indexer) error { return idx.Replace([]api.Object{bad()}, "2") }},
		{"add indexers", func(idx Indexer) error {
			if err := idx.Add(fixturePod("default", "y", withLabels("bad", "true"))); err != nil {
				return err
			}
			return idx.AddIndexers(Indexers{"second": failingIndex})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
			if err := idx.Add(good); err != nil {
				t.Fatal(err)
			}
			if tt.name != "add indexers" {
				if err := idx.AddIndexers(Indexers{"check": failingIndex}); err != nil {
					t.Fatal(err)
				}
			}
			if err := tt.do(idx); err == nil {
				t.Fatal("want an error from the failing index function")
			}
			got, _, _ := idx.GetByKey("default/a")
			if got != api.Object(good) {
				t.Errorf("stored object changed to %v", got)
			}
			if _, ok := idx.GetIndexers()["second"]; ok {
				t.Error("a failed AddIndexers left its index behind")
			}
			checkIndexInvariants(t, idx)
		})
	}
}

func TestIndexerAddIndexersToRunningStore(t *testing.T) {
	idx := NewIndexer(MetaNamespaceKeyFunc, Indexers{})
	if err := idx.Add(fixturePod("default", "a", withNode("n1"))); err != nil {
		t.Fatal(err)
	}
	if err := idx.AddIndexers(Indexers{NodeNameIndex: NodeNameIndexFunc}); err != nil {
		t.Fatal(err)
	}
	keys, err := idx.IndexKeys(NodeNameIndex, "n1")
	if err != nil || !slices.Equal(keys, []string{"default/a"}) {
		t.Errorf("existing object not indexed: %q, %v", keys, err)
	}
	if err := idx.AddIndexers(Indexers{NodeNameIndex: NodeNameIndexFunc}); err == nil {
		t.Error("adding an index under a name in use: want an error")
	}
	got := idx.GetIndexers()
	delete(got, NodeNameIndex)
	if _, ok := idx.GetIndexers()[NodeNameIndex]; !ok {
		t.Error("GetIndexers returned the store's own map, not a copy")
	}
	checkIndexInvariants(t, idx)
}

// TestIndexerSurvivesInPlaceMutation shows why the store remembers the
// values each key was filed under: a reader that breaks the rule and
// modifies a cached object must not leave a stale index entry behind.
func TestIndexerSurvivesInPlaceMutation(t *testing.T) {
	idx := NewIndexer(MetaNamespaceKeyFunc, StandardIndexers())
	p := fixturePod("default", "a", withNode("n1"))
	if err := idx.Add(p); err != nil {
		t.Fatal(err)
	}
	p.Spec.NodeName = "n2" // the forbidden in-place change
	if err := idx.Delete(p); err != nil {
		t.Fatal(err)
	}
	if values := idx.ListIndexFuncValues(NodeNameIndex); len(values) != 0 {
		t.Errorf("node index still has %q after delete", values)
	}
}

// randomCacheObject draws an object from a small universe, so that operations
// often hit the same keys and index values.
func randomCacheObject(rng *rand.Rand, rv int) api.Object {
	if rng.IntN(8) == 0 {
		return fixtureNode(fmt.Sprintf("node-%d", rng.IntN(3)), "zone", fmt.Sprint(rng.IntN(2)))
	}
	ns := []string{"default", "prod", "kube-system"}[rng.IntN(3)]
	opts := []podOption{withRV(fmt.Sprint(rv))}
	if node := rng.IntN(4); node > 0 {
		opts = append(opts, withNode(fmt.Sprintf("node-%d", node)))
	}
	var owners []string
	for range rng.IntN(3) {
		owners = append(owners, fmt.Sprintf("uid-%d", rng.IntN(4))) // duplicates on purpose
	}
	opts = append(opts, withOwners(owners...))
	if rng.IntN(3) > 0 {
		opts = append(opts, withLabels("app", fmt.Sprintf("app-%d", rng.IntN(3)), "tier", fmt.Sprint(rng.IntN(2))))
	}
	return fixturePod(ns, fmt.Sprintf("pod-%d", rng.IntN(12)), opts...)
}

// TestIndexerInvariantsRandomized runs random sequences of Add, Update,
// Delete, Replace and AddIndexers and checks after every step that each
// index equals the index recomputed from scratch and that the content
// equals a plain map kept alongside.
func TestIndexerInvariantsRandomized(t *testing.T) {
	for seed := range uint64(5) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 42))
			idx := NewIndexer(MetaNamespaceKeyFunc, Indexers{
				NamespaceIndex: MetaNamespaceIndexFunc,
				OwnerUIDIndex:  OwnerUIDIndexFunc,
			})
			added := false
			model := map[string]api.Object{}
			for step := range 600 {
				var err error
				var desc string
				switch op := rng.IntN(20); {
				case op < 8:
					obj := randomCacheObject(rng, step)
					desc = "add"
					if rng.IntN(2) == 0 {
						err = idx.Add(obj)
					} else {
						desc = "update"
						err = idx.Update(obj)
					}
					key, _ := MetaNamespaceKeyFunc(obj)
					model[key] = obj
				case op < 15:
					obj := randomCacheObject(rng, step)
					desc = "delete"
					err = idx.Delete(obj)
					key, _ := MetaNamespaceKeyFunc(obj)
					delete(model, key)
				case op < 19:
					desc = "replace"
					var list []api.Object
					model = map[string]api.Object{}
					for range rng.IntN(10) {
						obj := randomCacheObject(rng, step)
						list = append(list, obj)
						key, _ := MetaNamespaceKeyFunc(obj)
						model[key] = obj // a later duplicate wins, as in the store
					}
					err = idx.Replace(list, fmt.Sprint(step))
				default:
					if added {
						continue
					}
					desc = "add indexers"
					added = true
					err = idx.AddIndexers(Indexers{NodeNameIndex: NodeNameIndexFunc, LabelIndex: LabelIndexFunc})
				}
				if err != nil {
					t.Fatalf("step %d (%s): %v", step, desc, err)
				}
				if got, want := slices.Sorted(slices.Values(idx.ListKeys())), slices.Sorted(maps.Keys(model)); !slices.Equal(got, want) {
					t.Fatalf("step %d (%s): keys %q, want %q", step, desc, got, want)
				}
				for key, want := range model {
					if got, _, _ := idx.GetByKey(key); got != want {
						t.Fatalf("step %d (%s): %q holds %v, want %v", step, desc, key, got, want)
					}
				}
				checkIndexInvariants(t, idx)
				if t.Failed() {
					t.Fatalf("step %d (%s) broke an index invariant", step, desc)
				}
			}
		})
	}
}

// TestIndexerConcurrentReadersAndWriters is for `go test -race`: writers
// and readers share one indexer, and the indexes must be consistent at
// the end.
func TestIndexerConcurrentReadersAndWriters(t *testing.T) {
	idx := NewIndexer(MetaNamespaceKeyFunc, StandardIndexers())
	lister := NewLister[*api.Pod](idx, podsResource)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range 300 {
				obj := randomCacheObject(rng, i)
				var err error
				switch rng.IntN(10) {
				case 0:
					err = idx.Replace([]api.Object{obj}, fmt.Sprint(i))
				case 1, 2, 3:
					err = idx.Delete(obj)
				default:
					err = idx.Update(obj)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			for range 300 {
				_ = idx.List()
				_ = idx.ListKeys()
				_, _ = idx.ByIndex(NamespaceIndex, "default")
				_, _ = idx.IndexKeys(OwnerUIDIndex, "uid-1")
				_ = idx.ListIndexFuncValues(NodeNameIndex)
				_, _ = idx.Index(LabelIndex, fixturePod("default", "x", withLabels("app", "app-1")))
				_, _, _ = idx.GetByKey("default/pod-1")
				_, _ = lister.Namespace("prod").List(nil)
				_ = idx.GetIndexers()
			}
		})
	}
	wg.Wait()
	checkIndexInvariants(t, idx)
}
