package informer

// Benchmarks of the informer pipeline itself, with the network and JSON
// decoding taken out (the client's benchmarks cover those):
//
//	go test -run '^$' -bench . -benchmem ./pkg/informer
//
// BenchmarkInformerEventThroughput reports events/s: watch events pushed
// through reflector → DeltaFIFO → indexer → processor → one handler.
// BenchmarkInformerMemoryPer10kPods reports MiB: the heap an informer's cache
// of 10 000 realistic pods (decoded from JSON as the client does) holds, and
// how much of that is the cache's own bookkeeping rather than the pods.

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// chanListWatch lists nothing and hands out one watch whose events the
// benchmark sends itself.
type chanListWatch struct {
	list   []api.Object
	events chan client.Event
}

func (l *chanListWatch) List(context.Context, client.ListOptions) ([]api.Object, string, error) {
	list := l.list
	l.list = nil // the informer's cache must be the only holder
	return list, "1", nil
}

func (l *chanListWatch) Watch(context.Context, client.ListOptions) (client.Watcher, error) {
	return chanWatcher(l.events), nil
}

type chanWatcher chan client.Event

func (w chanWatcher) ResultChan() <-chan client.Event { return w }
func (w chanWatcher) Stop()                           {}

// countingHandler counts notifications and closes done at want.
type countingHandler struct {
	n    atomic.Int64
	want int64
	done chan struct{}
}

func (h *countingHandler) bump() {
	if h.n.Add(1) == h.want {
		close(h.done)
	}
}
func (h *countingHandler) OnAdd(api.Object, bool)   { h.bump() }
func (h *countingHandler) OnUpdate(_, _ api.Object) { h.bump() }
func (h *countingHandler) OnDelete(any)             { h.bump() }

func BenchmarkInformerEventThroughput(b *testing.B) { benchmarkEventThroughput(b) }

// benchmarkEventThroughput pushes b.N watch events through one informer
// built with opts and reports events/s.
func benchmarkEventThroughput(b *testing.B, opts ...Option) {
	const distinctPods = 10_000
	lw := &chanListWatch{events: make(chan client.Event, 1024)}
	inf := NewSharedIndexInformer(lw, &api.Pod{}, 0, Indexers{NamespaceIndex: MetaNamespaceIndexFunc}, append([]Option{WithLogger(quietLogger)}, opts...)...)
	h := &countingHandler{want: int64(b.N), done: make(chan struct{})}
	if _, err := inf.AddEventHandler(h); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		inf.Run(ctx)
	}()
	if !WaitForCacheSync(ctx, inf.HasSynced) {
		b.Fatal("no sync")
	}
	template := realisticPod(0)

	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	// The feeder stands for the client's decoding goroutine: it makes a new
	// object per event (a shallow copy with a new name and version).
	go func() {
		for i := range b.N {
			p := *template
			p.Name = "web-" + strconv.Itoa(i%distinctPods)
			p.ResourceVersion = strconv.Itoa(i + 2)
			typ := client.Modified
			if i < distinctPods {
				typ = client.Added
			}
			lw.events <- client.Event{Type: typ, Object: &p}
		}
	}()
	<-h.done
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	cancel()
	<-stopped
}

// realisticPod decodes a pod as a ReplicaSet-owned, scheduled, running pod
// looks on the wire, so its memory is laid out as a cached pod's is.
func realisticPod(i int) *api.Pod {
	var p api.Pod
	if err := json.Unmarshal(fmt.Appendf(nil, realisticPodJSON, i, i, i%256, i), &p); err != nil {
		panic(err)
	}
	return &p
}

const realisticPodJSON = `{
  "kind": "Pod", "apiVersion": "v1",
  "metadata": {
    "name": "web-7d4b9c8f5-%05d", "generateName": "web-7d4b9c8f5-", "namespace": "default",
    "uid": "6f1c2a3b-0d4e-4f5a-9b8c-%012d", "resourceVersion": "104857",
    "creationTimestamp": "2026-01-01T10:00:00Z",
    "labels": {"app": "web", "pod-template-hash": "7d4b9c8f5", "tier": "frontend"},
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d4b9c8f5",
      "uid": "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d", "controller": true, "blockOwnerDeletion": true}]
  },
  "spec": {
    "volumes": [{"name": "kube-api-access-x7k2p", "projected": {"defaultMode": 420, "sources": [
      {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
      {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}]}}],
    "containers": [{
      "name": "web", "image": "nginx:1.27",
      "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}],
      "env": [{"name": "TIER", "value": "frontend"}],
      "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
      "volumeMounts": [{"name": "kube-api-access-x7k2p", "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
      "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
      "imagePullPolicy": "IfNotPresent"
    }],
    "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
    "serviceAccountName": "default", "serviceAccount": "default", "nodeName": "node-%03d",
    "securityContext": {}, "schedulerName": "default-scheduler",
    "tolerations": [
      {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
      {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
    "priority": 0, "enableServiceLinks": true, "preemptionPolicy": "PreemptLowerPriority"
  },
  "status": {
    "phase": "Running",
    "conditions": [
      {"type": "Initialized", "status": "True", "lastTransitionTime": "2026-01-01T10:00:01Z"},
      {"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T10:00:03Z"},
      {"type": "ContainersReady", "status": "True", "lastTransitionTime": "2026-01-01T10:00:03Z"},
      {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-01-01T10:00:00Z"}],
    "hostIP": "10.0.0.12", "hostIPs": [{"ip": "10.0.0.12"}],
    "podIP": "10.244.1.%d", "podIPs": [{"ip": "10.244.1.7"}],
    "startTime": "2026-01-01T10:00:00Z",
    "containerStatuses": [{
      "name": "web", "state": {"running": {"startedAt": "2026-01-01T10:00:02Z"}}, "lastState": {},
      "ready": true, "restartCount": 0, "image": "docker.io/library/nginx:1.27",
      "imageID": "docker.io/library/nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
      "containerID": "containerd://4f9c1e2d3b4a59687c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b", "started": true}],
    "qosClass": "Burstable"
  }
}`

func BenchmarkInformerMemoryPer10kPods(b *testing.B) {
	const pods = 10_000
	// total is the heap the cache holds; overhead the part that is not the
	// pod objects themselves (map entries, keys, the namespace index).
	var total, overhead []float64
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		var before, objectsOnly, after runtime.MemStats
		runtime.ReadMemStats(&before)
		list := make([]api.Object, pods)
		for i := range list {
			list[i] = realisticPod(i)
		}
		runtime.GC()
		runtime.ReadMemStats(&objectsOnly)
		lw := &chanListWatch{list: list, events: make(chan client.Event)}
		list = nil
		inf := NewSharedIndexInformer(lw, &api.Pod{}, 0, Indexers{NamespaceIndex: MetaNamespaceIndexFunc}, WithLogger(quietLogger))
		ctx, cancel := context.WithCancel(context.Background())
		stopped := make(chan struct{})
		b.StartTimer()
		go func() {
			defer close(stopped)
			inf.Run(ctx)
		}()
		if !WaitForCacheSync(ctx, inf.HasSynced) {
			b.Fatal("no sync")
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		if n := len(inf.GetStore().ListKeys()); n != pods {
			b.Fatalf("cache holds %d pods", n)
		}
		total = append(total, mib(before, after))
		overhead = append(overhead, mib(objectsOnly, after))
		runtime.KeepAlive(inf)
		cancel()
		<-stopped
		b.StartTimer()
	}
	b.ReportMetric(mean(total), "MiB/10k-pods")
	b.ReportMetric(mean(overhead), "cache-overhead-MiB/10k-pods")
}

// mib is the heap growth from m0 to m1 in MiB.
func mib(m0, m1 runtime.MemStats) float64 {
	return float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / (1 << 20)
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
