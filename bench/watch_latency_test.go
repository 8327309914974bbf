package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"kplane/pkg/store/keys"
)

// BenchmarkW5WatchLatencyBreakdown is W5's diagnostic (not a target): the
// same 200 sequential creates, with each one's time split where a client can
// see it, so that W5's remainder above etcd's own put is located:
//
//   - response: the create's round trip (HTTPS request, handler, etcd put
//     committed, response written and read);
//   - etcd-watch: create sent → the change arrives on a plain etcd watch of
//     the same prefix opened by the benchmark (etcd's commit and its watch
//     notify, no kplane code on the way back);
//   - added: create sent → ADDED read from the apiserver's watch (W5);
//   - watch-path: added − etcd-watch for the same create: kplane's watch
//     path (the apiserver's own etcd watch, the watch cache's decode,
//     dispatch and watcher goroutine, the handler's encode and flush, HTTP/2
//     and TLS to the client) beyond what a bare etcd watcher would see.
//
// It also counts the garbage collections during the timed part (the
// apiserver, etcd and the clients share this process), and logs the slowest
// creates' splits, which is where the p99 comes from.
func BenchmarkW5WatchLatencyBreakdown(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := startServer(b)
		ctx, cancel := context.WithCancel(context.Background())

		added := make(chan time.Time, 256)
		resp := openConfigMapWatch(b, ctx, s)
		go readAdded(resp, added)

		etcdSeen, closeEtcdWatch := watchEtcdPrefix(b, ctx, s)

		c := s.newClient()
		var splits []createSplit
		var gcBefore runtime.MemStats
		runtime.ReadMemStats(&gcBefore)
		b.StartTimer()
		for n := 0; n < 200; n++ {
			start := time.Now()
			if _, code, err := s.do(c, "POST", "/api/v1/namespaces/default/configmaps", configMapBody(fmt.Sprintf("w%d", n))); err != nil || code != 201 {
				b.Fatalf("create: %v %d", err, code)
			}
			responded := time.Now()
			split := createSplit{response: responded.Sub(start)}
			split.etcdWatch = receiveWithin(b, etcdSeen, "etcd watch event").Sub(start)
			split.added = receiveWithin(b, added, "ADDED event").Sub(start)
			splits = append(splits, split)
		}
		b.StopTimer()
		var gcAfter runtime.MemStats
		runtime.ReadMemStats(&gcAfter)
		cancel()
		resp.Body.Close()
		closeEtcdWatch()

		report := func(name string, of func(createSplit) time.Duration) {
			var d []time.Duration
			for _, sp := range splits {
				d = append(d, of(sp))
			}
			p50, p99 := percentiles(d)
			b.ReportMetric(p50, name+"-p50-ms")
			b.ReportMetric(p99, name+"-p99-ms")
		}
		report("response", func(sp createSplit) time.Duration { return sp.response })
		report("etcd-watch", func(sp createSplit) time.Duration { return sp.etcdWatch })
		report("added", func(sp createSplit) time.Duration { return sp.added })
		report("watch-path", func(sp createSplit) time.Duration { return sp.added - sp.etcdWatch })
		b.ReportMetric(float64(gcAfter.NumGC-gcBefore.NumGC), "gc-cycles")

		slices.SortFunc(splits, func(x, y createSplit) int { return int(y.added - x.added) })
		for _, sp := range splits[:3] {
			b.Logf("slow create: added %v = etcd watch %v + watch path %v (response %v)",
				sp.added, sp.etcdWatch, sp.added-sp.etcdWatch, sp.response)
		}
	}
}

// createSplit is where one W5 create's time went, each measured from when
// the create was sent.
type createSplit struct {
	response  time.Duration // the create's response read
	etcdWatch time.Duration // the change seen on a plain etcd watch
	added     time.Duration // ADDED read from the apiserver's watch
}

// openConfigMapWatch opens W5's watch on the default namespace's ConfigMaps.
func openConfigMapWatch(b *testing.B, ctx context.Context, s *server) *http.Response {
	b.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL()+"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := s.newClient().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	return resp
}

// readAdded sends the time each ADDED line is read, until the stream ends.
func readAdded(resp *http.Response, added chan<- time.Time) {
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"ADDED"`)) {
			added <- time.Now()
		}
	}
}

// watchEtcdPrefix opens a plain etcd watch of the default namespace's
// ConfigMaps, bypassing kplane, and sends the time each change arrives on
// it. It returns once etcd has registered the watch; closeWatch ends it.
func watchEtcdPrefix(b *testing.B, ctx context.Context, s *server) (seen <-chan time.Time, closeWatch func()) {
	b.Helper()
	etcdClient, err := clientv3.New(clientv3.Config{Endpoints: []string{s.EtcdClientURL()}, DialTimeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	times := make(chan time.Time, 256)
	events := etcdClient.Watch(ctx, keys.Prefix("configmaps", "default"), clientv3.WithPrefix(), clientv3.WithCreatedNotify())
	<-events // the created notification: the watch is registered
	go func() {
		for r := range events {
			for range r.Events {
				times <- time.Now()
			}
		}
	}()
	return times, func() { _ = etcdClient.Close() }
}

// receiveWithin returns the next time from ch, failing the benchmark if
// none arrives within 5 s.
func receiveWithin(b *testing.B, ch <-chan time.Time, what string) time.Time {
	b.Helper()
	select {
	case at := <-ch:
		return at
	case <-time.After(5 * time.Second):
		b.Fatalf("no %s within 5 s", what)
		return time.Time{}
	}
}
