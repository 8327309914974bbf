package apiserver_test

import (
	"context"
	"fmt"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// BenchmarkPodBinding measures one pods/binding through the API, the
// scheduler's write: the pods are created before the timer starts, so
// allocs/op and the CPU profile are the binding's alone.
func BenchmarkPodBinding(b *testing.B) {
	a := framework.StartAPIServer(b)
	c := a.Client(b, nil)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("bench-%d", i), Labels: map[string]string{"app": "bench"}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
		if _, err := c.Pods("default").Create(ctx, pod, client.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		binding := &api.Binding{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("bench-%d", i)},
			Target: api.ObjectReference{Kind: "Node", Name: "node-a"}}
		if err := c.Bind(ctx, binding); err != nil {
			b.Fatal(err)
		}
	}
}
