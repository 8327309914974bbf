package cache

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkListPageOneNode measures a LIST of one node's pods (a kubelet's)
// among 100 000 pods on 1 000 nodes, the scale run's size: walking every
// pod with the field selector's Match, and through the index of pods by
// node (PageOptions.IndexValue). CPU only: run it niced.
func BenchmarkListPageOneNode(b *testing.B) {
	const pods, nodes = 100000, 1000
	s := newFakeStore()
	for i := range pods {
		if _, err := s.Create(context.Background(), fmt.Sprintf("/registry/pods/ns%d/pod-%06d", i%10, i), fmt.Appendf(nil, "node-%03d", i%nodes)); err != nil {
			b.Fatal(err)
		}
	}
	byNode := func(obj any) string { return obj.(testObject).Value }
	ctx, cancel := context.WithCancel(context.Background())
	c := New(s, "/registry/pods/", decodeTestObject, quiet(Options{Index: byNode}))
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	<-c.Ready()
	defer func() { cancel(); <-done }()
	match := func(obj any) bool { return byNode(obj) == "node-042" }

	for _, indexed := range []bool{false, true} {
		b.Run(fmt.Sprintf("indexed=%v", indexed), func(b *testing.B) {
			opts := PageOptions{Match: match}
			if indexed {
				opts.IndexValue = "node-042"
			}
			rev := c.Revision()
			b.ReportAllocs()
			for b.Loop() {
				page, err := c.ListPage(context.Background(), "/registry/pods/", rev, opts)
				if err != nil || len(page.Entries) != pods/nodes {
					b.Fatalf("ListPage = %d entries, %v", len(page.Entries), err)
				}
			}
		})
	}
}
