package metricsserver_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/metricsserver"
	"kplane/pkg/pki"
	"kplane/test/framework"
)

const waitTimeout = 30 * time.Second

// fakeKubelet serves /metrics/resource as a kubelet does, each answer one
// sample later: 1 s of kubelet time and 0.5 CPU-seconds more for the node
// (500m), 0.25 for the pod's container (250m). It records the client
// certificates it was called with.
type fakeKubelet struct {
	*httptest.Server
	mu      sync.Mutex
	samples int
	callers []string
}

func startFakeKubelet(t *testing.T) *fakeKubelet {
	k := &fakeKubelet{}
	k.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		k.samples++
		n := k.samples
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			k.callers = append(k.callers, r.TLS.PeerCertificates[0].Subject.CommonName)
		}
		k.mu.Unlock()
		if r.URL.Path != "/metrics/resource" {
			http.NotFound(w, r)
			return
		}
		at := int64(1700000000000 + n*1000)
		fmt.Fprintf(w, "node_cpu_usage_seconds_total %g %d\n", 100+0.5*float64(n), at)
		fmt.Fprintf(w, "node_memory_working_set_bytes %d %d\n", 512<<20, at)
		fmt.Fprintf(w, "container_cpu_usage_seconds_total{container=\"web\",namespace=\"default\",pod=\"web\"} %g %d\n", 10+0.25*float64(n), at)
		fmt.Fprintf(w, "container_memory_working_set_bytes{container=\"web\",namespace=\"default\",pod=\"web\"} %d %d\n", 64<<20, at)
	}))
	k.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	k.StartTLS()
	t.Cleanup(k.Close)
	return k
}

func (k *fakeKubelet) lastCaller() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.callers) == 0 {
		return ""
	}
	return k.callers[len(k.callers)-1]
}

// TestMetricsServerScrapesAndServes runs metrics-server against a real
// apiserver and a fake kubelet: it scrapes the Ready node with its client
// certificate, serves NodeMetrics and PodMetrics to a client of the
// cluster CA (as the aggregator calls it), and refuses a caller without a
// certificate.
func TestMetricsServerScrapesAndServes(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	kubelet := startFakeKubelet(t)
	_, portText, _ := net.SplitHostPort(kubelet.Listener.Addr().String())
	port, _ := strconv.Atoi(portText)

	node, err := c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "node1"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Status.Addresses = []api.NodeAddress{{Type: api.NodeInternalIP, Address: "127.0.0.1"}}
	node.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(port)
	node.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}}
	if _, err := c.Nodes().UpdateStatus(ctx, node, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod, err := c.Pods("default").Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.Phase = api.PodRunning
	if _, err := c.Pods("default").UpdateStatus(ctx, pod, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	pkiDir := filepath.Join(a.Dir, "pki")
	serving, err := pki.EnsureAddonCertificate(pkiDir, pki.AddonCertificate{BaseName: "metrics-server", CommonName: "metrics-server",
		Hosts: []string{"metrics-server.kube-system.svc", "127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	clientCert, err := pki.EnsureAddonCertificate(pkiDir, pki.AddonCertificate{BaseName: "metrics-server-client", CommonName: "system:serviceaccount:kube-system:metrics-server"})
	if err != nil {
		t.Fatal(err)
	}
	opts := metricsserver.DefaultOptions()
	opts.Kubeconfig = a.KubeconfigPath()
	opts.SecurePort = 0
	opts.TLSCertFile, opts.TLSPrivateKeyFile = serving.CertFile, serving.KeyFile
	opts.ClientCAFile = filepath.Join(pkiDir, pki.CACertFileName)
	opts.KubeletClientCertificate, opts.KubeletClientKey = clientCert.CertFile, clientCert.KeyFile
	opts.MetricResolution = time.Second
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	m, err := metricsserver.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})

	// The aggregator's view: the apiserver's kubelet-client certificate,
	// verifying metrics-server by the name the APIService's Service gives.
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(a.CACertPEM())
	aggregatorCert, err := tls.LoadX509KeyPair(filepath.Join(pkiDir, pki.KubeletClientCertFileName), filepath.Join(pkiDir, pki.KubeletClientKeyFileName))
	if err != nil {
		t.Fatal(err)
	}
	aggregator := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: roots, ServerName: "metrics-server.kube-system.svc", Certificates: []tls.Certificate{aggregatorCert}}}}
	get := func(hc *http.Client, path string, out any) (int, error) {
		req, _ := http.NewRequest(http.MethodGet, "https://"+m.Addr()+path, nil)
		req.Header.Set("X-Remote-User", "jane")
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if out != nil {
			if err := json.Unmarshal(body, out); err != nil {
				return resp.StatusCode, fmt.Errorf("%v in %s", err, body)
			}
		}
		return resp.StatusCode, nil
	}

	var nm api.NodeMetrics
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		code, err := get(aggregator, "/apis/metrics.k8s.io/v1beta1/nodes/node1", &nm)
		return err == nil && code == 200, fmt.Sprintf("GET nodes/node1: %d %v %+v", code, err, nm)
	})
	if cpu := nm.Usage["cpu"]; cpu.MilliValue() != 500 || nm.Window.Duration != time.Second {
		t.Errorf("node1 cpu %s over %v, want 500m over 1s", cpu.String(), nm.Window)
	}
	var pm api.PodMetrics
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		code, err := get(aggregator, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web", &pm)
		return err == nil && code == 200, fmt.Sprintf("GET pods/web: %d %v %+v", code, err, pm)
	})
	if len(pm.Containers) != 1 || pm.Containers[0].Usage["cpu"].MilliValue() != 250 {
		t.Errorf("pod web %+v, want one container at 250m", pm.Containers)
	}
	if got := kubelet.lastCaller(); got != "system:serviceaccount:kube-system:metrics-server" {
		t.Errorf("the kubelet was called as %q, want metrics-server's client certificate", got)
	}

	// Without a client certificate: 401, but health needs none.
	anonymous := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: "metrics-server.kube-system.svc"}}}
	var status api.Status
	if code, err := get(anonymous, "/apis/metrics.k8s.io/v1beta1/nodes", &status); err != nil || code != 401 || status.Reason != "Unauthorized" {
		t.Errorf("without a certificate: %d %v %+v, want 401 Unauthorized", code, err, status)
	}
	for _, path := range []string{"/healthz", "/livez", "/readyz"} {
		if code, err := get(anonymous, path, nil); err != nil || code != 200 {
			t.Errorf("%s: %d %v, want 200", path, code, err)
		}
	}
}
