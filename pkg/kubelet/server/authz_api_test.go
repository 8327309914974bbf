package server_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/kubelet/server"
	"kplane/pkg/kubelet/stats"
	"kplane/pkg/pki"
	"kplane/test/framework"
)

// TestKubeletAuthorizedByRBAC runs the kubelet's server against a real
// apiserver with Node,RBAC and the bootstrap policy, asking its
// SubjectAccessReviews as the node itself (system:node:node1): the
// apiserver's kubelet-client identity may read stats, metrics-server only
// metrics, alice nothing — until a ClusterRole grants her nodes/stats,
// which the kubelet sees once her cached denial (30 s) has expired.
func TestKubeletAuthorizedByRBAC(t *testing.T) {
	a := framework.StartAPIServer(t)
	admin := a.Client(t, nil)
	node := a.ClientAs(t, auth.NodeUser("node1"), nil)
	fake := clock.NewFake(time.Now())
	s, err := server.New(server.Options{ClientCAPEM: a.CACertPEM(), NodeName: "node1",
		Reviewer: node, Clock: fake, Logger: slog.New(slog.DiscardHandler),
		Summaries: func(name string) (*stats.Summary, error) {
			return &stats.Summary{Node: stats.NodeStats{NodeName: name}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port, err := s.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pkiDir := filepath.Join(a.Dir, "pki")
	certFor := func(user string, groups ...string) tls.Certificate {
		t.Helper()
		issued, err := pki.IssueUserCertificate(pkiDir, user, groups)
		if err != nil {
			t.Fatal(err)
		}
		pair, err := tls.X509KeyPair(issued.CertPEM, issued.KeyPEM)
		if err != nil {
			t.Fatal(err)
		}
		return pair
	}
	kubeletClient, err := tls.LoadX509KeyPair(filepath.Join(pkiDir, pki.KubeletClientCertFileName), filepath.Join(pkiDir, pki.KubeletClientKeyFileName))
	if err != nil {
		t.Fatal(err)
	}
	get := func(cert tls.Certificate, path string) (int, string) {
		t.Helper()
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{Certificates: []tls.Certificate{cert}, InsecureSkipVerify: true}}}
		defer c.CloseIdleConnections()
		resp, err := c.Get(fmt.Sprintf("https://127.0.0.1:%d%s", port, path))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	alice := certFor("alice")
	metricsServer := certFor(auth.MetricsServerUserName)
	for _, tt := range []struct {
		who      string
		cert     tls.Certificate
		path     string
		wantCode int
		wantBody string
	}{
		{"kube-apiserver-kubelet-client", kubeletClient, "/stats/summary", http.StatusOK, ""},
		{"metrics-server", metricsServer, "/metrics/resource", http.StatusOK, ""},
		{"metrics-server", metricsServer, "/stats/summary", http.StatusForbidden,
			"Forbidden (user=system:serviceaccount:kube-system:metrics-server, verb=get, resource=nodes, subresource=stats)\n"},
		{"alice", alice, "/stats/summary", http.StatusForbidden, "Forbidden (user=alice, verb=get, resource=nodes, subresource=stats)\n"},
	} {
		if code, body := get(tt.cert, tt.path); code != tt.wantCode || tt.wantBody != "" && body != tt.wantBody {
			t.Errorf("%s GET %s: %d %q, want %d %q", tt.who, tt.path, code, body, tt.wantCode, tt.wantBody)
		}
	}

	if _, err := admin.ClusterRoles().Create(ctx, &api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: "node-stats-reader"},
		Rules: []api.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"nodes/stats"}}}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.ClusterRoleBindings().Create(ctx, &api.ClusterRoleBinding{ObjectMeta: api.ObjectMeta{Name: "alice-node-stats"},
		RoleRef:  api.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "node-stats-reader"},
		Subjects: []api.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "alice"}}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if code, _ := get(alice, "/stats/summary"); code != http.StatusForbidden {
		t.Errorf("alice within the 30 s of her cached denial: %d, want 403", code)
	}
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		// Past the cached denial; again each try, in case the apiserver's
		// RBAC view had not caught up with the binding yet.
		fake.Step(30 * time.Second)
		code, body := get(alice, "/stats/summary")
		return code == http.StatusOK, fmt.Sprintf("alice after the grant: %d %s", code, body)
	})
}
