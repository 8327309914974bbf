package kubeproxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/kubeproxy"
	"kplane/pkg/proxy/proxytest"
	"kplane/pkg/proxy/route"
	"kplane/test/framework"
)

const waitTimeout = 30 * time.Second

func TestMain(m *testing.M) { framework.Main(m) }

// startProxy runs a kube-proxy for node1 against a and stops it when the
// test ends.
func startProxy(t *testing.T, a *framework.APIServer) *kubeproxy.Proxier {
	t.Helper()
	opts := kubeproxy.DefaultOptions()
	opts.Kubeconfig = a.KubeconfigPath()
	opts.HostnameOverride = "node1"
	opts.ClusterCIDR = "10.244.0.0/16"
	opts.MetricsBindAddress = "127.0.0.1:0"
	opts.MinSyncPeriod = 0 // every change syncs at once: the test waits for content, not time
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	p, err := kubeproxy.New(opts)
	if err != nil {
		t.Fatalf("kubeproxy.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("kube-proxy Run: %v", err)
		}
	})
	return p
}

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestRulesRoutesAndMetricsFollowTheCluster(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	p := startProxy(t, a)

	svc := proxytest.Service("default", "web", "", "http", 80)
	svc.Spec.Selector = map[string]string{"app": "web"}
	svc, err := c.Services("default").Create(ctx, svc, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	slice := proxytest.Slice("default", "web", "http", 8080,
		proxytest.Backend{IP: "10.244.1.2", Node: "node1", Pod: "web-a"},
		proxytest.Backend{IP: "10.244.1.3", Node: "node1", Pod: "web-b"},
		proxytest.Backend{IP: "10.244.2.2", Node: "node2", Pod: "web-c"})
	slice, err = c.EndpointSlices("default").Create(ctx, slice, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := client.ConfigFromKubeconfig(a.KubeconfigPath(), "")
	if err != nil {
		t.Fatal(err)
	}
	admin := cfg.Token

	rules := func(mode string) string {
		code, body := get(t, p.URL()+kubeproxy.PathRules+"?mode="+mode+"&format=text", admin)
		if code != http.StatusOK {
			return fmt.Sprintf("HTTP %d: %s", code, body)
		}
		return body
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		r := rules("iptables")
		return strings.Contains(r, "--probability 0.3333333333") && strings.Contains(r, "--probability 0.5000000000"), r
	})
	threeRealServers := "TCP  " + svc.Spec.ClusterIP + ":80 rr\n" +
		"  -> 10.244.1.2:8080              Masq    1      0          0\n" +
		"  -> 10.244.1.3:8080              Masq    1      0          0\n" +
		"  -> 10.244.2.2:8080              Masq    1      0          0\n"
	if ipvs := rules("ipvs"); !strings.Contains(ipvs, threeRealServers) {
		t.Errorf("ipvs view:\n%s", ipvs)
	}
	if nft := rules("nftables"); !strings.Contains(nft, "numgen random mod 3 vmap") {
		t.Errorf("nftables view:\n%s", nft)
	}

	// The rules and the debug API are for administrators only; the
	// metrics port's own routes are open.
	if code, _ := get(t, p.URL()+kubeproxy.PathRules, ""); code != http.StatusUnauthorized {
		t.Errorf("rules without a token: HTTP %d, want 401", code)
	}
	if code, body := get(t, p.URL()+"/proxyMode", ""); code != http.StatusOK || body != "iptables" {
		t.Errorf("/proxyMode: %d %q", code, body)
	}
	if code, body := get(t, p.URL()+"/metrics", ""); code != http.StatusOK ||
		!strings.Contains(body, "kubeproxy_sync_proxy_rules_duration_seconds_count") ||
		!strings.Contains(body, "kubeproxy_sync_proxy_rules_last_timestamp_seconds") {
		t.Errorf("/metrics lacks the sync metrics:\n%s", body)
	}

	// Many asks reach every endpoint, each answered with its pod.
	pods := map[string]bool{}
	for range 200 {
		code, body := get(t, p.URL()+route.Path+"?ip="+svc.Spec.ClusterIP+"&port=80&protocol=TCP&sourceIP=10.244.1.9", "")
		var r route.Route
		if err := json.Unmarshal([]byte(body), &r); err != nil || code != http.StatusOK || r.Endpoint == nil {
			t.Fatalf("route: HTTP %d %s", code, body)
		}
		if r.Service != "default/web:http" || len(r.Chains) != 3 || r.Endpoint.Port != 8080 {
			t.Fatalf("route: %+v", r)
		}
		pods[r.Endpoint.PodName] = true
	}
	if len(pods) != 3 {
		t.Errorf("200 connections reached pods %v, want all three", pods)
	}
	if code, body := get(t, p.URL()+route.Path+"?ip=10.96.99.99&port=80", ""); code != http.StatusNotFound || !strings.Contains(body, route.ReasonNoService) {
		t.Errorf("unknown Service: HTTP %d %s", code, body)
	}
	if code, _ := get(t, p.URL()+route.Path+"?ip=nonsense&port=80", ""); code != http.StatusBadRequest {
		t.Errorf("bad ip: HTTP %d, want 400", code)
	}

	// An endpoint turning unready leaves the rules at the next sync.
	if slice, err = c.EndpointSlices("default").Get(ctx, slice.Name, client.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	slice.Endpoints[2].Conditions.Ready = new(false)
	slice.Endpoints[2].Conditions.Serving = new(false)
	if _, err := c.EndpointSlices("default").Update(ctx, slice, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		r := rules("iptables")
		return !strings.Contains(r, "10.244.2.2") && strings.Contains(r, "--probability 0.5000000000") && !strings.Contains(r, "0.3333333333"), r
	})

	// Without endpoints the connection is refused.
	if slice, err = c.EndpointSlices("default").Get(ctx, slice.Name, client.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	slice.Endpoints = nil
	if _, err := c.EndpointSlices("default").Update(ctx, slice, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		code, body := get(t, p.URL()+route.Path+"?ip="+svc.Spec.ClusterIP+"&port=80", "")
		return code == http.StatusServiceUnavailable && strings.Contains(body, route.ReasonNoEndpoints), fmt.Sprintf("HTTP %d %s", code, body)
	})
}
