//go:build scale

package scale

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// saveAPIServerHeap writes the apiserver's heap profile (its
// /debug/pprof/heap, served on the secure port as kube-apiserver serves it)
// to $KPLANE_SCALE_PROFILES/apiserver-heap-<pods>.pprof when that variable
// names a directory: `go tool pprof -sample_index inuse_space -top` on it
// shows where the apiserver's memory at that size goes.
func saveAPIServerHeap(ctx context.Context, t *testing.T, sc *scaleCluster, pods int) {
	dir := os.Getenv("KPLANE_SCALE_PROFILES")
	if dir == "" {
		return
	}
	body, err := getBody(ctx, sc.client, "/debug/pprof/heap", nil)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("apiserver-heap-%d.pprof", pods)), body, 0o644)
	}
	if err != nil {
		t.Logf("apiserver heap profile at %d pods: %v", pods, err)
	}
}
