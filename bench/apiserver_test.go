// Package bench measures kplane against the workloads W1–W7 of
// docs/performance.md, which also gives upstream's figures and the targets.
// Run with `make bench`; every benchmark reports its own metrics, and the
// write benchmarks measure raw etcd in the same run so the ratio is honest.
package bench

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/apiserver"
	"kplane/pkg/auth"
	"kplane/pkg/store"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// server is an apiserver started for one benchmark.
type server struct {
	*apiserver.Server
	token string
	pool  *x509.CertPool
}

func startServer(b *testing.B) *server {
	b.Helper()
	opts := apiserver.DefaultOptions()
	opts.DataDir, opts.SecurePort, opts.CompactionInterval = b.TempDir(), 0, 0
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := apiserver.Start(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Stop)
	token, _ := s.Tokens().TokenFor(auth.AdminUserName)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.CACertPEM())
	return &server{Server: s, token: token, pool: pool}
}

// newClient returns an HTTPS client with a connection of its own.
func (s *server) newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.pool}, ForceAttemptHTTP2: true,
		MaxIdleConnsPerHost: 4}}
}

func (s *server) do(c *http.Client, method, path string, body []byte) ([]byte, int, error) {
	req, err := http.NewRequest(method, s.URL()+path, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return out, resp.StatusCode, err
}

func configMapBody(name string) []byte {
	return []byte(fmt.Sprintf(`{"metadata":{"name":%q,"labels":{"bench":"w3"}},"data":{"payload":%q}}`, name, strings.Repeat("x", 900)))
}

func podBody(name string) []byte {
	return []byte(fmt.Sprintf(`{"metadata":{"name":%q,"labels":{"app":"bench"}},"spec":{"containers":[{"name":"c","image":"nginx:1.27","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}`, name))
}

// createConcurrently creates total objects with clients concurrent clients
// and returns objects per second.
func (s *server) createConcurrently(b *testing.B, path string, body func(string) []byte, prefix string, clients, total int) float64 {
	b.Helper()
	conns := make([]*http.Client, clients)
	for i := range conns {
		conns[i] = s.newClient()
		if _, _, err := s.do(conns[i], "GET", "/version", nil); err != nil { // connect outside the timing
			b.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	start := time.Now()
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := i; n < total; n += clients {
				out, code, err := s.do(c, "POST", path, body(fmt.Sprintf("%s-%d", prefix, n)))
				if err != nil || code != 201 {
					errs <- fmt.Errorf("create %d: %v %d %s", n, err, code, out)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return float64(total) / elapsed.Seconds()
}

// W3: 2 000 small objects created by 16 concurrent HTTPS clients, as a
// ratio to raw etcd puts of the same size measured in the same run.
func benchmarkCreates(b *testing.B, kind string) {
	const clients, total = 16, 2000
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := startServer(b)
		path, body := "/api/v1/namespaces/default/configmaps", configMapBody
		if kind == "pods" {
			path, body = "/api/v1/namespaces/default/pods", podBody
		}
		raw, err := store.MeasureRawPuts(context.Background(), []string{s.EtcdClientURL()}, clients, total, len(body("sample-00000"))+200)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cpuBefore := processCPU()
		rate := s.createConcurrently(b, path, body, fmt.Sprintf("%s%d", kind, i), clients, total)
		cpu := processCPU() - cpuBefore
		b.StopTimer()
		// The whole process's CPU (apiserver, etcd and the 16 clients)
		// per object created.
		b.ReportMetric(float64(cpu.Microseconds())/total, "cpu-us/create")
		b.ReportMetric(rate, "creates/s")
		b.ReportMetric(raw, "etcd-puts/s")
		b.ReportMetric(rate/raw, "ratio")
	}
}

func BenchmarkW3CreateConfigMaps16Clients(b *testing.B) { benchmarkCreates(b, "configmaps") }
func BenchmarkW3CreatePods16Clients(b *testing.B)       { benchmarkCreates(b, "pods") }

// W4: LIST of 2 000 and 10 000 pods, full JSON and in pages of 500.
func benchmarkList(b *testing.B, pods int, paged bool) {
	s := startServer(b)
	s.createConcurrently(b, "/api/v1/namespaces/default/pods", podBody, "p", 16, pods)
	c := s.newClient()
	b.ResetTimer()
	var durations []time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		count, cont := 0, ""
		for {
			path := "/api/v1/namespaces/default/pods"
			if paged {
				path += "?limit=500"
				if cont != "" {
					path += "&continue=" + cont
				}
			}
			out, code, err := s.do(c, "GET", path, nil)
			if err != nil || code != 200 {
				b.Fatalf("list: %v %d", err, code)
			}
			// Time the server and the transfer, not the client's JSON decoding:
			// read the list's metadata and count the items in the bytes.
			meta, err := listMeta(out)
			if err != nil {
				b.Fatal(err)
			}
			count += bytes.Count(out, []byte(`{"kind":"Pod","apiVersion":"v1"`))
			cont = meta.Continue
			if cont == "" {
				break
			}
		}
		durations = append(durations, time.Since(start))
		if count != pods {
			b.Fatalf("listed %d pods, want %d", count, pods)
		}
	}
	b.ReportMetric(float64(median(durations).Microseconds())/1000, "median-ms")
}

func BenchmarkW4List2000Pods(b *testing.B)       { benchmarkList(b, 2000, false) }
func BenchmarkW4List2000PodsPaged(b *testing.B)  { benchmarkList(b, 2000, true) }
func BenchmarkW4List10000Pods(b *testing.B)      { benchmarkList(b, 10000, false) }
func BenchmarkW4List10000PodsPaged(b *testing.B) { benchmarkList(b, 10000, true) }

// W5: create → ADDED on an already open watch, 200 sequential creates.
//
// Beside the target (p50-ms, p99-ms) and etcd's own sequential put in the
// same run (etcd-put-*), it reports kplane's remainder: watch-path-* is, per
// create, ADDED on the apiserver's watch minus the same change's arrival on a
// plain etcd watch of the prefix (see BenchmarkW5WatchLatencyBreakdown), so
// what etcd's commit and fsync cost is not counted in it; etcd-watch-* is
// that plain watch's own latency for the same creates, the commit's share.
func BenchmarkW5WatchLatency(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := startServer(b)
		ctx, cancel := context.WithCancel(context.Background())
		arrivals := make(chan time.Time, 256)
		resp := openConfigMapWatch(b, ctx, s)
		go readAdded(resp, arrivals)
		etcdSeen, closeEtcdWatch := watchEtcdPrefix(b, ctx, s)
		c := s.newClient()
		var latencies, etcdWatch, watchPath []time.Duration
		b.StartTimer()
		for n := 0; n < 200; n++ {
			start := time.Now()
			if _, code, err := s.do(c, "POST", "/api/v1/namespaces/default/configmaps", configMapBody(fmt.Sprintf("w%d", n))); err != nil || code != 201 {
				b.Fatalf("create: %v %d", err, code)
			}
			added := receiveWithin(b, arrivals, "ADDED event")
			seen := receiveWithin(b, etcdSeen, "etcd watch event")
			latencies = append(latencies, added.Sub(start))
			etcdWatch = append(etcdWatch, seen.Sub(start))
			watchPath = append(watchPath, added.Sub(seen))
		}
		b.StopTimer()
		cancel()
		resp.Body.Close()
		closeEtcdWatch()
		p50, p99 := percentiles(latencies)
		b.ReportMetric(p50, "p50-ms")
		b.ReportMetric(p99, "p99-ms")
		p50, p99 = percentiles(etcdWatch)
		b.ReportMetric(p50, "etcd-watch-p50-ms")
		b.ReportMetric(p99, "etcd-watch-p99-ms")
		p50, p99 = percentiles(watchPath)
		b.ReportMetric(p50, "watch-path-p50-ms")
		b.ReportMetric(p99, "watch-path-p99-ms")
		// The floor under both: one sequential etcd put of the same size,
		// whose fsync every create waits for, measured in the same run.
		p50, p99 = rawPutLatency(b, s.EtcdClientURL(), len(configMapBody("w0")), 200)
		b.ReportMetric(p50, "etcd-put-p50-ms")
		b.ReportMetric(p99, "etcd-put-p99-ms")
	}
}

// rawPutLatency times n sequential etcd puts of size bytes.
func rawPutLatency(b *testing.B, endpoint string, size, n int) (p50, p99 float64) {
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	value := strings.Repeat("x", size)
	var latencies []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		if _, err := c.Put(context.Background(), fmt.Sprintf("/kplane-bench/latency/%d", i), value); err != nil {
			b.Fatal(err)
		}
		latencies = append(latencies, time.Since(start))
	}
	return percentiles(latencies)
}

// percentiles returns the median and 99th percentile in milliseconds.
func percentiles(d []time.Duration) (p50, p99 float64) {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[len(s)/2].Microseconds()) / 1000, float64(s[len(s)*99/100].Microseconds()) / 1000
}

// W1 (apiserver part): fresh data dir → ready (serving, kubeconfig written).
func BenchmarkW1APIServerStartup(b *testing.B) {
	for i := 0; i < b.N; i++ {
		opts := apiserver.DefaultOptions()
		opts.DataDir, opts.SecurePort, opts.CompactionInterval = b.TempDir(), 0, 0
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		start := time.Now()
		s, err := apiserver.Start(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ready-ms")
		b.StopTimer()
		s.Stop()
		b.StartTimer()
	}
}

// listMeta reads the metadata of a list response, which kplane writes
// before the items, without decoding the items.
func listMeta(body []byte) (meta struct{ Continue string }, err error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return meta, fmt.Errorf("list metadata: %w", err)
		}
		if tok == "metadata" {
			err := dec.Decode(&meta)
			return meta, err
		}
	}
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
