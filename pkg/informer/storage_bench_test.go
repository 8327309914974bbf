package informer

import (
	"fmt"
	"testing"

	"kplane/pkg/api"
)

// BenchmarkIndexerUpdate measures one cache write with all four standard
// indexes, the cost a shared informer pays per delta.
func BenchmarkIndexerUpdate(b *testing.B) {
	idx := NewIndexer(MetaNamespaceKeyFunc, StandardIndexers())
	pods := make([]*api.Pod, 1000)
	for i := range pods {
		pods[i] = fixturePod(fmt.Sprintf("ns-%d", i%10), fmt.Sprintf("pod-%d", i),
			withNode(fmt.Sprintf("node-%d", i%50)), withOwners(fmt.Sprintf("rs-%d", i%100)),
			withLabels("app", fmt.Sprintf("app-%d", i%20)))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := idx.Update(pods[i%len(pods)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNamespaceListerList measures a namespaced List through the
// namespace index over a 10 000-object cache.
func BenchmarkNamespaceListerList(b *testing.B) {
	idx := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	for i := range 10000 {
		if err := idx.Add(fixturePod(fmt.Sprintf("ns-%d", i%100), fmt.Sprintf("pod-%d", i))); err != nil {
			b.Fatal(err)
		}
	}
	lister := NewLister[*api.Pod](idx, podsResource).Namespace("ns-7")
	b.ReportAllocs()
	for b.Loop() {
		pods, err := lister.List(nil)
		if err != nil || len(pods) != 100 {
			b.Fatalf("List = %d pods, %v", len(pods), err)
		}
	}
}

// BenchmarkDeltaFIFOAddPop measures one delta through the queue.
func BenchmarkDeltaFIFOAddPop(b *testing.B) {
	f := NewDeltaFIFO(DeltaFIFOOptions{})
	pod := fixturePod("default", "web")
	process := func(any, bool) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		if err := f.Add(pod); err != nil {
			b.Fatal(err)
		}
		if _, err := f.Pop(process); err != nil {
			b.Fatal(err)
		}
	}
}
