package metricsserver

import (
	"strings"
	"testing"
	"time"
)

// kubeletResourceMetrics is a /metrics/resource answer in the format
// upstream's kubelet writes (pkg/kubelet/metrics/collectors/resource_metrics.go).
const kubeletResourceMetrics = `# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds
# TYPE container_cpu_usage_seconds_total counter
container_cpu_usage_seconds_total{container="web",namespace="default",pod="web-1"} 4.5 1700000015000
container_cpu_usage_seconds_total{container="sidecar",namespace="default",pod="web-1"} 0.25 1700000015000
container_cpu_usage_seconds_total{container="db",namespace="shop",pod="db-0"} 10 1700000015000
# HELP container_memory_working_set_bytes [STABLE] Current working set of the container in bytes
# TYPE container_memory_working_set_bytes gauge
container_memory_working_set_bytes{container="web",namespace="default",pod="web-1"} 2.097152e+07 1700000015000
container_memory_working_set_bytes{container="sidecar",namespace="default",pod="web-1"} 1.048576e+06 1700000015000
# HELP container_start_time_seconds [STABLE] Start time of the container since unix epoch in seconds
# TYPE container_start_time_seconds gauge
container_start_time_seconds{container="web",namespace="default",pod="web-1"} 1.6999999e+09 1700000015000
container_start_time_seconds{container="sidecar",namespace="default",pod="web-1"} 1.6999999e+09 1700000015000
container_start_time_seconds{container="db",namespace="shop",pod="db-0"} 1.6999999e+09 1700000015000
# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds
# TYPE node_cpu_usage_seconds_total counter
node_cpu_usage_seconds_total 120.5 1700000015000
# HELP node_memory_working_set_bytes [STABLE] Current working set of the node in bytes
# TYPE node_memory_working_set_bytes gauge
node_memory_working_set_bytes 1.073741824e+09 1700000015000
# HELP pod_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the pod in core-seconds
# TYPE pod_cpu_usage_seconds_total counter
pod_cpu_usage_seconds_total{namespace="default",pod="web-1"} 4.75 1700000015000
# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise
# TYPE resource_scrape_error gauge
resource_scrape_error 0
`

func TestDecodeBatchReadsTheKubeletFormat(t *testing.T) {
	batch, err := DecodeBatch(strings.NewReader(kubeletResourceMetrics), time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	at := time.UnixMilli(1700000015000)
	want := MetricsPoint{Timestamp: at, CumulativeCPUNanoSeconds: 120_500_000_000, MemoryWorkingSetBytes: 1 << 30}
	if batch.Node == nil || *batch.Node != want {
		t.Errorf("node point = %+v, want %+v", batch.Node, want)
	}
	web := batch.Pods[PodRef{"default", "web-1"}]
	if len(web) != 2 {
		t.Fatalf("web-1 containers = %+v, want web and sidecar", web)
	}
	wantWeb := MetricsPoint{StartTime: time.Unix(1699999900, 0), Timestamp: at, CumulativeCPUNanoSeconds: 4_500_000_000, MemoryWorkingSetBytes: 20 << 20}
	if web["web"] != wantWeb {
		t.Errorf("web = %+v, want %+v", web["web"], wantWeb)
	}
	if _, ok := batch.Pods[PodRef{"shop", "db-0"}]; ok {
		t.Error("db-0 has no memory figure, yet the pod was kept: an incomplete pod must be left out")
	}
}

func TestDecodeBatchWithoutTimestampsUsesTheScrapeTime(t *testing.T) {
	scraped := time.Unix(1700000100, 0)
	batch, err := DecodeBatch(strings.NewReader("node_cpu_usage_seconds_total 2\nnode_memory_working_set_bytes 100\n"), scraped)
	if err != nil {
		t.Fatal(err)
	}
	if batch.Node == nil || !batch.Node.Timestamp.Equal(scraped) {
		t.Fatalf("node point = %+v, want timestamp %v", batch.Node, scraped)
	}
}

func TestDecodeBatchDropsAnIncompleteNode(t *testing.T) {
	batch, err := DecodeBatch(strings.NewReader("node_cpu_usage_seconds_total 2 1000\n"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if batch.Node != nil {
		t.Errorf("node point = %+v, want none without memory", batch.Node)
	}
}

func TestDecodeBatchRefusesGarbage(t *testing.T) {
	if _, err := DecodeBatch(strings.NewReader("this is { not prometheus\n"), time.Now()); err == nil {
		t.Fatal("no error for text that is not the Prometheus format")
	}
}
