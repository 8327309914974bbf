package apiserver_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
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

// fakeMetricsServer stands in for metrics-server behind the aggregator: an
// HTTPS server with a certificate for metrics-server.kube-system.svc from a
// CA of its own, which demands a client certificate of the cluster CA (the
// apiserver's) and records what each request carried.
type fakeMetricsServer struct {
	*httptest.Server
	// CABundle is the PEM of the CA that signed the server's certificate,
	// what the APIService's caBundle must hold.
	CABundle []byte
	// Port is the loopback port it listens on: the Service's targetPort.
	Port int

	mu       sync.Mutex
	requests []seenRequest
	// watchRelease, when a watch is open, lets its second event go.
	watchRelease chan struct{}
}

// seenRequest is what the backend saw of one request.
type seenRequest struct {
	Path, Query                string
	User                       string
	Groups                     []string
	Authorization              string
	ClientCommonName           string
	ExtraSpoofed, ServerNameOK bool
}

const fakeNodeMetricsList = `{"kind":"NodeMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[{"metadata":{"name":"node-1"},"timestamp":"2026-01-01T00:00:00Z","window":"15s","usage":{"cpu":"250m","memory":"512Mi"}}]}`

const fakeResourceList = `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"metrics.k8s.io/v1beta1","resources":[` +
	`{"name":"nodes","singularName":"","namespaced":false,"kind":"NodeMetrics","verbs":["get","list"]},` +
	`{"name":"pods","singularName":"","namespaced":true,"kind":"PodMetrics","verbs":["get","list"]}]}`

func startFakeMetricsServer(t *testing.T, clusterCA []byte) *fakeMetricsServer {
	t.Helper()
	caPEM, serving := newServingCert(t, "metrics-server.kube-system.svc")
	clients := x509.NewCertPool()
	if !clients.AppendCertsFromPEM(clusterCA) {
		t.Fatal("cluster CA: no PEM certificate")
	}
	f := &fakeMetricsServer{CABundle: caPEM, watchRelease: make(chan struct{})}
	f.Server = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.Server.TLS = &tls.Config{Certificates: []tls.Certificate{serving}, ClientCAs: clients,
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
	f.Server.StartTLS()
	t.Cleanup(f.Server.Close)
	f.Port = f.Server.Listener.Addr().(*net.TCPAddr).Port
	return f
}

func (f *fakeMetricsServer) serve(w http.ResponseWriter, r *http.Request) {
	seen := seenRequest{Path: r.URL.Path, Query: r.URL.RawQuery, User: r.Header.Get("X-Remote-User"),
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
		fmt.Fprint(w, fakeResourceList)
	case r.URL.Path == "/apis/metrics.k8s.io/v1beta1/nodes" && r.URL.Query().Get("watch") == "true":
		// A watch: one event at once, the second only when the test says,
		// so the test sees the first arrive while the stream stays open.
		fmt.Fprintln(w, `{"type":"ADDED","object":{"kind":"NodeMetrics","metadata":{"name":"node-1"}}}`)
		w.(http.Flusher).Flush()
		select {
		case <-f.watchRelease:
		case <-r.Context().Done():
			return
		}
		fmt.Fprintln(w, `{"type":"MODIFIED","object":{"kind":"NodeMetrics","metadata":{"name":"node-1"}}}`)
	case r.URL.Path == "/apis/metrics.k8s.io/v1beta1/nodes":
		fmt.Fprint(w, fakeNodeMetricsList)
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
	}
}

// last returns the last request the backend saw for path.
func (f *fakeMetricsServer) last(path string) (seenRequest, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.requests) - 1; i >= 0; i-- {
		if f.requests[i].Path == path {
			return f.requests[i], true
		}
	}
	return seenRequest{}, false
}

// newServingCert makes a CA and a serving certificate it signed for host.
func newServingCert(t *testing.T, host string) (caPEM []byte, serving tls.Certificate) {
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
