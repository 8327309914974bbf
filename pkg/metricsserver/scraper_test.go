package metricsserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"kplane/pkg/api"
	"kplane/pkg/clock"
)

// staticNodes is a NodeLister over a fixed list.
type staticNodes []*api.Node

func (s staticNodes) List() ([]*api.Node, error) { return s, nil }

// kubeletNode is a node whose kubelet listens at addr, Ready or not.
func kubeletNode(t *testing.T, name, addr string, ready api.ConditionStatus) *api.Node {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(portText)
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: name}}
	n.Status.Addresses = []api.NodeAddress{{Type: api.NodeInternalIP, Address: host}}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(port)
	n.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: ready}}
	return n
}

func TestScrapeAsksReadyLoopbackKubeletsOnly(t *testing.T) {
	asked := make(chan string, 10)
	kubelet := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked <- r.URL.Path
		fmt.Fprint(w, kubeletResourceMetrics)
	}))
	defer kubelet.Close()
	forbidden := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Forbidden (user=x, verb=get, resource=nodes, subresource=metrics)", http.StatusForbidden)
	}))
	defer forbidden.Close()

	elsewhere := kubeletNode(t, "elsewhere", "127.0.0.1:1", api.ConditionTrue)
	elsewhere.Status.Addresses[0].Address = "192.0.2.10"
	s := &scraper{
		nodes: staticNodes{
			kubeletNode(t, "node1", kubelet.Listener.Addr().String(), api.ConditionTrue),
			kubeletNode(t, "down", kubelet.Listener.Addr().String(), api.ConditionUnknown),
			kubeletNode(t, "refused", forbidden.Listener.Addr().String(), api.ConditionTrue),
			elsewhere,
		},
		kubelet: newKubeletClient(nil, nil),
		timeout: 5 * time.Second,
		clock:   clock.Real{},
		metrics: newServerMetrics(NewStore(time.Second)),
	}
	batches, result := s.scrape(context.Background())
	ok, failed := testutil.ToFloat64(s.metrics.requestTotal.WithLabelValues("true")), testutil.ToFloat64(s.metrics.requestTotal.WithLabelValues("false"))
	if ok != 1 || failed != 1 {
		// The non-loopback node fails before any request: only two asked.
		t.Errorf("metrics_server_kubelet_request_total: success %v, failure %v; want 1 and 1", ok, failed)
	}
	if result.Scraped != 1 || result.Failed != 2 {
		t.Errorf("scraped %d, failed %d (%v); want node1 scraped, refused and elsewhere failed, down not asked", result.Scraped, result.Failed, result.Errors)
	}
	if b := batches["node1"]; b == nil || b.Node == nil || len(b.Pods) != 1 {
		t.Errorf("node1 batch %+v", b)
	}
	if got := <-asked; got != "/metrics/resource" {
		t.Errorf("the kubelet was asked for %s", got)
	}
	if len(asked) != 0 {
		t.Errorf("the kubelet was asked %d more times: the NotReady node must not be scraped", len(asked))
	}
	if !strings.Contains(result.Errors["refused"], "403") {
		t.Errorf("refused: %q, want the kubelet's 403", result.Errors["refused"])
	}
	if !strings.Contains(result.Errors["elsewhere"], "only dials kubelets on 127.0.0.1") {
		t.Errorf("elsewhere: %q, want a refusal to dial a non-loopback address", result.Errors["elsewhere"])
	}
}

func TestScrapeGivesUpOnASlowKubelet(t *testing.T) {
	release := make(chan struct{})
	// The kubelet answers only when the test ends. It must not answer
	// when its request's context ends either: under load that came while
	// the client still read, and an empty 200 passed as a scrape (a CI
	// failure: Scraped 1, Failed 0).
	slow := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	defer slow.Close()
	defer close(release)
	s := &scraper{
		nodes:   staticNodes{kubeletNode(t, "slow", slow.Listener.Addr().String(), api.ConditionTrue)},
		kubelet: newKubeletClient(nil, nil),
		timeout: 50 * time.Millisecond,
		clock:   clock.Real{},
	}
	_, result := s.scrape(context.Background())
	// On a loaded machine the 50 ms can run out before the request is
	// sent: a dial cut by the deadline reads "i/o timeout", a request
	// "context deadline exceeded". Either is the scrape timeout.
	msg := result.Errors["slow"]
	if result.Failed != 1 || !(strings.Contains(msg, "deadline") || strings.Contains(msg, "timeout")) {
		t.Errorf("result %+v, want the slow node failed by the scrape timeout", result)
	}
}
