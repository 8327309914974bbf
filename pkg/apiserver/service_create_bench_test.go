package apiserver_test

import (
	"context"
	"fmt"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// BenchmarkServiceCreate measures one NodePort Service create through the
// API, ClusterIP and node port allocation included (the ranges live in
// etcd: allocator_range.go). Run with -benchtime=500x for a range that
// fills as a busy cluster's does.
func BenchmarkServiceCreate(b *testing.B) {
	a := framework.StartAPIServer(b)
	c := a.Client(b, nil)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("bench-%d", i)}, Spec: api.ServiceSpec{
			Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80}}}}
		if _, err := c.Services("default").Create(ctx, svc, client.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
