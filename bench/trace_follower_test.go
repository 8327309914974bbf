package bench

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kplane/pkg/debug"
	"kplane/pkg/kubeconfig"
	"kplane/test/framework"
)

// traceFollower stands for `ctl trace deploy/<name>` during a W6 run: one
// goroutine per component follows every record its journal adds, over the
// component's debug API, and keeps those of the Deployment, its
// ReplicaSet and its pods (their keys start with the Deployment's name).
// It reads everything and filters on its side, as a trace that must find
// objects it does not know yet (the pods) has to.
type traceFollower struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	kept   atomic.Int64
	// lost counts records the ring dropped before the follower read them
	// (gaps in the sequence numbers): a trace would miss those.
	lost atomic.Int64
	mu   sync.Mutex
	errs []error
}

// followTrace starts following the journals of every component of dc,
// from their newest record on (what happens next, as ctl trace without
// --since), keeping the records of the Deployment namespace/name.
func followTrace(b *testing.B, dc deploymentCluster, namespace, name string) *traceFollower {
	b.Helper()
	want := []string{"apiserver", "controller-manager", "kubelet-control-plane", hollowKubelet, "scheduler"}
	var endpoints []debug.Endpoint
	framework.Eventually(b, 30*time.Second, func() (bool, string) {
		var err error
		endpoints, err = debug.ReadEndpoints(dc.dir)
		var names []string
		for _, e := range endpoints {
			names = append(names, e.Component)
		}
		return slices.Equal(names, want), fmt.Sprintf("debug endpoints %v (err %v), want %v", names, err, want)
	})
	c := adminDebugClient(b, dc.kubeconfig)
	deployment := namespace + "/" + name
	podsAndReplicaSets := deployment + "-"
	ctx, cancel := context.WithCancel(context.Background())
	f := &traceFollower{cancel: cancel}
	for _, ep := range endpoints {
		var info debug.Info
		if err := c.Get(ctx, ep, debug.PathInfo, &info); err != nil {
			b.Fatal(err)
		}
		f.wg.Go(func() {
			last := info.LastSeq
			err := c.Records(ctx, ep, debug.RecordQuery{After: info.LastSeq, Follow: true}, func(r debug.Record) error {
				if r.Seq > last+1 {
					f.lost.Add(int64(r.Seq - last - 1))
				}
				last = r.Seq
				if r.Key == deployment || strings.HasPrefix(r.Key, podsAndReplicaSets) {
					f.kept.Add(1)
				}
				return nil
			})
			if err != nil && ctx.Err() == nil {
				f.mu.Lock()
				f.errs = append(f.errs, err)
				f.mu.Unlock()
			}
		})
	}
	b.Cleanup(func() { cancel(); f.wg.Wait() })
	return f
}

// stop ends the follower and returns how many records it kept and how
// many the rings dropped before it read them. A stream that broke during
// the run fails the benchmark: the trace would have.
func (f *traceFollower) stop(b *testing.B) (kept, lost int64) {
	b.Helper()
	f.cancel()
	f.wg.Wait()
	if len(f.errs) > 0 {
		b.Fatalf("following the journals: %v", f.errs)
	}
	if f.kept.Load() == 0 {
		b.Fatal("the follower kept no record of the Deployment or its pods")
	}
	return f.kept.Load(), f.lost.Load()
}

// adminDebugClient is a debug API client with the admin kubeconfig's
// token, trusting the cluster CA (the apiserver serves its debug API over
// https).
func adminDebugClient(b *testing.B, path string) *debug.Client {
	b.Helper()
	cfg, err := kubeconfig.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	admin, err := cfg.Resolve("")
	if err != nil {
		b.Fatal(err)
	}
	tlsConfig, err := admin.TLSConfig()
	if err != nil {
		b.Fatal(err)
	}
	return &debug.Client{HTTP: &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}}, Token: admin.Token}
}
