package ctl

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"kplane/pkg/debug"
	"kplane/pkg/kubeproxy"
)

func TestProxyRulesAsksTheNodesKubeProxy(t *testing.T) {
	var asked string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = r.URL.RequestURI()
		debug.WriteJSON(w, kubeproxy.Rules{Node: "node1", Mode: r.URL.Query().Get("mode"), Text: "*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n"})
	}))
	defer srv.Close()
	access := func(string) (*debug.Client, []debug.Endpoint, error) {
		return &debug.Client{}, []debug.Endpoint{
			{Component: "kube-proxy-node2", URL: "http://127.0.0.1:1"},
			{Component: "kube-proxy-node1", URL: srv.URL},
		}, nil
	}
	var out bytes.Buffer
	err := runProxyRules(context.Background(), &out, access, proxyRulesOptions{node: "node1", mode: "ipvs", service: "default/web"})
	if err != nil {
		t.Fatal(err)
	}
	if asked != kubeproxy.PathRules+"?mode=ipvs&service=default%2Fweb" {
		t.Errorf("asked %s", asked)
	}
	if out.String() != "*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n" {
		t.Errorf("printed %q", out.String())
	}
}

func TestProxyRulesErrors(t *testing.T) {
	withProxies := func(string) (*debug.Client, []debug.Endpoint, error) {
		return &debug.Client{}, []debug.Endpoint{{Component: "kube-proxy-node1"}, {Component: "scheduler"}}, nil
	}
	withoutProxies := func(string) (*debug.Client, []debug.Endpoint, error) {
		return &debug.Client{}, []debug.Endpoint{{Component: "scheduler"}}, nil
	}
	for _, tc := range []struct {
		name   string
		access debugAccess
		o      proxyRulesOptions
		want   string
	}{
		{"no node", withProxies, proxyRulesOptions{mode: "iptables"}, "--node is required"},
		{"bad mode", withProxies, proxyRulesOptions{node: "node1", mode: "userspace"}, `--mode "userspace": must be iptables, nftables or ipvs`},
		{"bad service", withProxies, proxyRulesOptions{node: "node1", mode: "iptables", service: "web"}, "must be namespace/name"},
		{"node without kube-proxy", withProxies, proxyRulesOptions{node: "node7", mode: "iptables"}, `node "node7" has no kube-proxy (kube-proxies found for: node1)`},
		{"cluster without kube-proxy", withoutProxies, proxyRulesOptions{node: "node1", mode: "iptables"}, "no kube-proxy runs in the cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := runProxyRules(context.Background(), &bytes.Buffer{}, tc.access, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
