package informer

import (
	"slices"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
)

var (
	podsResource  = errors.Resource{Resource: "pods"}
	nodesResource = errors.Resource{Resource: "nodes"}
)

// podNames returns "namespace/name" of each pod, sorted.
func podNames(pods []*api.Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	slices.Sort(out)
	return out
}

func TestPodListerByNamespaceAndSelector(t *testing.T) {
	pods := []*api.Pod{
		fixturePod("default", "web-1", withLabels("app", "web")),
		fixturePod("default", "web-2", withLabels("app", "web", "tier", "fe")),
		fixturePod("default", "db-1", withLabels("app", "db")),
		fixturePod("prod", "web-1", withLabels("app", "web")),
		fixturePod("prod", "plain"),
	}
	indexers := map[string]Indexers{
		"with the namespace index":    {NamespaceIndex: MetaNamespaceIndexFunc},
		"without the namespace index": {},
	}
	tests := []struct {
		name      string
		namespace string // "-" means the all-namespaces List
		selector  labels.Selector
		want      []string
	}{
		{"all namespaces, everything", "-", labels.Everything(), []string{"default/db-1", "default/web-1", "default/web-2", "prod/plain", "prod/web-1"}},
		{"all namespaces, nil selector", "-", nil, []string{"default/db-1", "default/web-1", "default/web-2", "prod/plain", "prod/web-1"}},
		{"all namespaces, app=web", "-", labels.SelectorFromSet(map[string]string{"app": "web"}), []string{"default/web-1", "default/web-2", "prod/web-1"}},
		{"one namespace, app=web", "default", labels.SelectorFromSet(map[string]string{"app": "web"}), []string{"default/web-1", "default/web-2"}},
		{"one namespace, two labels", "default", labels.SelectorFromSet(map[string]string{"app": "web", "tier": "fe"}), []string{"default/web-2"}},
		{"one namespace, everything", "prod", labels.Everything(), []string{"prod/plain", "prod/web-1"}},
		{"one namespace, Nothing", "prod", labels.Nothing(), []string{}},
		{"empty namespace means all", "", labels.SelectorFromSet(map[string]string{"app": "db"}), []string{"default/db-1"}},
		{"unknown namespace", "staging", labels.Everything(), []string{}},
	}
	for indexName, idxs := range indexers {
		indexer := NewIndexer(MetaNamespaceKeyFunc, idxs)
		for _, p := range pods {
			mustSucceed(t, indexer.Add(p))
		}
		lister := NewLister[*api.Pod](indexer, podsResource)
		for _, tt := range tests {
			t.Run(indexName+"/"+tt.name, func(t *testing.T) {
				var got []*api.Pod
				var err error
				if tt.namespace == "-" {
					got, err = lister.List(tt.selector)
				} else {
					got, err = lister.Namespace(tt.namespace).List(tt.selector)
				}
				if err != nil {
					t.Fatal(err)
				}
				if names := podNames(got); !slices.Equal(names, tt.want) {
					t.Errorf("got %q, want %q", names, tt.want)
				}
			})
		}
	}
}

func TestListerGet(t *testing.T) {
	indexer := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	cached := fixturePod("default", "web")
	mustSucceed(t, indexer.Add(cached))
	node := fixtureNode("node-1")
	mustSucceed(t, indexer.Add(node))

	pods := NewLister[*api.Pod](indexer, podsResource)
	got, err := pods.Namespace("default").Get("web")
	if err != nil {
		t.Fatal(err)
	}
	if got != cached {
		t.Error("Get returned a copy; listers hand out the cached object")
	}

	nodes := NewLister[*api.Node](indexer, nodesResource)
	if n, err := nodes.Get("node-1"); err != nil || n != node {
		t.Errorf("nodes.Get = %v, %v", n, err)
	}

	tests := []struct {
		name    string
		get     func() error
		message string
	}{
		{"namespaced, wrong namespace", func() error { _, err := pods.Namespace("prod").Get("web"); return err }, `pods "web" not found`},
		{"namespaced, missing name", func() error { _, err := pods.Namespace("default").Get("db"); return err }, `pods "db" not found`},
		{"cluster-scoped, missing", func() error { _, err := nodes.Get("node-9"); return err }, `nodes "node-9" not found`},
		{"apps group resource", func() error {
			_, err := NewLister[*api.ReplicaSet](indexer, errors.Resource{Group: "apps", Resource: "replicasets"}).Namespace("default").Get("rs")
			return err
		}, `replicasets.apps "rs" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.get()
			if !errors.IsNotFound(err) {
				t.Fatalf("err = %v, want NotFound", err)
			}
			if err.Error() != tt.message {
				t.Errorf("message = %q, want %q", err.Error(), tt.message)
			}
		})
	}
}

func TestListerWrongTypeIsAnError(t *testing.T) {
	indexer := NewIndexer(MetaNamespaceKeyFunc, nil)
	mustSucceed(t, indexer.Add(fixtureNode("node-1")))
	pods := NewLister[*api.Pod](indexer, podsResource)
	if _, err := pods.List(nil); err == nil {
		t.Error("List over a cache of Nodes as Pods: want an error")
	}
	if _, err := pods.Get("node-1"); err == nil || errors.IsNotFound(err) {
		t.Errorf("Get of a Node as a Pod = %v, want a type error", err)
	}
}

func TestListerByIndex(t *testing.T) {
	indexer := NewIndexer(MetaNamespaceKeyFunc, Indexers{NodeNameIndex: NodeNameIndexFunc})
	for _, p := range []*api.Pod{
		fixturePod("default", "a", withNode("node1")),
		fixturePod("prod", "b", withNode("node1")),
		fixturePod("default", "c", withNode("node2")),
		fixturePod("default", "pending"),
	} {
		mustSucceed(t, indexer.Add(p))
	}
	pods := NewLister[*api.Pod](indexer, podsResource)
	got, err := pods.ByIndex(NodeNameIndex, "node1")
	if err != nil {
		t.Fatal(err)
	}
	if names := podNames(got); !slices.Equal(names, []string{"default/a", "prod/b"}) {
		t.Errorf("pods on node1 = %q", names)
	}
	if got, err := pods.ByIndex(NodeNameIndex, "node3"); err != nil || len(got) != 0 {
		t.Errorf("pods on node3 = %v, %v; want none", got, err)
	}
	if _, err := pods.ByIndex("no-such-index", "x"); err == nil {
		t.Error("ByIndex of an index the cache lacks: want an error")
	}
}
