package framework

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// FakeMetricsServer stands in for metrics-server behind the aggregator: an
// HTTPS server with a certificate for metrics-server.kube-system.svc from a
// CA of its own, which demands a client certificate of the cluster CA (the
// apiserver's) and records what each request carried.
type FakeMetricsServer struct {
	*httptest.Server
	// CABundle is the PEM of the CA that signed the server's certificate,
	// what the APIService's caBundle must hold.
	CABundle []byte
	// Port is the loopback port it listens on: the Service's targetPort.
	Port int

	mu       sync.Mutex
	requests []SeenRequest
	// WatchRelease, closed by the test, lets an open watch send its
	// second event.
	WatchRelease chan struct{}
}

// SeenRequest is what the backend saw of one request: the path and query,
// the identity headers, whether a client-chosen X-Remote-Extra header got
// through, the client certificate's common name, and whether the TLS
// ServerName was the Service's DNS name.
type SeenRequest struct {
	Path, Query                string
	User                       string
	Groups                     []string
	Authorization              string
	ClientCommonName           string
	ExtraSpoofed, ServerNameOK bool
}

// FakeNodeMetricsList is the backend's answer to a list of nodes.
const FakeNodeMetricsList = `{"kind":"NodeMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[{"metadata":{"name":"node-1"},"timestamp":"2026-01-01T00:00:00Z","window":"15s","usage":{"cpu":"250m","memory":"512Mi"}}]}`

// FakeMetricsResourceList is the backend's discovery document for
// metrics.k8s.io/v1beta1: nodes and pods.
const FakeMetricsResourceList = `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"metrics.k8s.io/v1beta1","resources":[` +
	`{"name":"nodes","singularName":"","namespaced":false,"kind":"NodeMetrics","verbs":["get","list"]},` +
	`{"name":"pods","singularName":"","namespaced":true,"kind":"PodMetrics","verbs":["get","list"]}]}`

// StartFakeMetricsServer starts the fake backend on a free loopback port,
// trusting client certificates of clusterCA; it stops when the test ends.
func StartFakeMetricsServer(t testing.TB, clusterCA []byte) *FakeMetricsServer {
	t.Helper()
	caPEM, serving := newServingCert(t, "metrics-server.kube-system.svc")
	clients := x509.NewCertPool()
	if !clients.AppendCertsFromPEM(clusterCA) {
		t.Fatal("cluster CA: no PEM certificate")
	}
	f := &FakeMetricsServer{CABundle: caPEM, WatchRelease: make(chan struct{})}
	f.Server = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.Server.TLS = &tls.Config{Certificates: []tls.Certificate{serving}, ClientCAs: clients,
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
	f.Server.StartTLS()
	t.Cleanup(f.Server.Close)
	f.Port = f.Server.Listener.Addr().(*net.TCPAddr).Port
	return f
}

func (f *FakeMetricsServer) serve(w http.ResponseWriter, r *http.Request) {
	seen := SeenRequest{Path: r.URL.Path, Query: r.URL.RawQuery, User: r.Header.Get("X-Remote-User"),
		Groups: r.Header.Values("X-Remote-Group"), Authorization: r.Header.Get("Authorization"),
		ExtraSpoofed: r.Header.Get("X-Remote-Extra-Scopes") != "", ServerNameOK: r.TLS.ServerName == "metrics-server.kube-system.svc"}
	if len(r.TLS.PeerCertificates) > 0 {
		seen.ClientCommonName = r.TLS.PeerCertificates[0].Subject.CommonName
	}
	f.mu.Lock()
	f.requests = append(f.requests, seen)
	f.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/apis/metrics.k8s.io/v1beta1":
		fmt.Fprint(w, FakeMetricsResourceList)
	case r.URL.Path == "/apis/metrics.k8s.io/v1beta1/nodes" && r.URL.Query().Get("watch") == "true":
		// A watch: one event at once, the second only when the test says,
		// so the test sees the first arrive while the stream stays open.
		fmt.Fprintln(w, `{"type":"ADDED","object":{"kind":"NodeMetrics","metadata":{"name":"node-1"}}}`)
		w.(http.Flusher).Flush()
		select {
		case <-f.WatchRelease:
		case <-r.Context().Done():
			return
		}
		fmt.Fprintln(w, `{"type":"MODIFIED","object":{"kind":"NodeMetrics","metadata":{"name":"node-1"}}}`)
	case r.URL.Path == "/apis/metrics.k8s.io/v1beta1/echo" && r.Header.Get("Upgrade") == "kplane-echo":
		// An upgraded connection (as exec and port-forward use): after the
		// 101 the backend echoes one line back.
		conn, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprint(rw, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: kplane-echo\r\n\r\n")
		_ = rw.Flush()
		line, err := rw.ReadString('\n')
		if err != nil {
			return
		}
		fmt.Fprint(rw, "echo: "+line)
		_ = rw.Flush()
	case r.URL.Path == "/apis/metrics.k8s.io/v1beta1/nodes":
		fmt.Fprint(w, FakeNodeMetricsList)
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
	}
}

// Manifests returns the Service and APIService that register the backend
// as metrics-server does: Service kube-system/metrics-server without a
// selector, port 443 → the backend's loopback port, and APIService
// v1beta1.metrics.k8s.io trusting the backend's CA.
func (f *FakeMetricsServer) Manifests() string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: metrics-server
  namespace: kube-system
spec:
  ports:
  - name: https
    port: 443
    targetPort: %d
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.metrics.k8s.io
spec:
  service:
    namespace: kube-system
    name: metrics-server
    port: 443
  group: metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  caBundle: %s
`, f.Port, base64.StdEncoding.EncodeToString(f.CABundle))
}

// Last returns the last request the backend saw for path.
func (f *FakeMetricsServer) Last(path string) (SeenRequest, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.requests) - 1; i >= 0; i-- {
		if f.requests[i].Path == path {
			return f.requests[i], true
		}
	}
	return SeenRequest{}, false
}

// newServingCert makes a CA and a serving certificate it signed for host.
func newServingCert(t testing.TB, host string) (caPEM []byte, serving tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fake-metrics-server-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: host},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), DNSNames: []string{host},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
