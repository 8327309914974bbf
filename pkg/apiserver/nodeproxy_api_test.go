package apiserver_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/kubelet/runtime"
	"kplane/pkg/kubelet/server"
	"kplane/pkg/kubelet/stats"
	"kplane/test/framework"
)

// statsOnlyKubelet is a kubelet backend with no pods whose Summary names
// the node it was asked for.
type statsOnlyKubelet struct{}

func (statsOnlyKubelet) FindContainer(namespace, pod, _ string, _ bool) (runtime.Container, error) {
	return nil, server.NotFoundf("pod %s/%s does not exist", namespace, pod)
}

func (statsOnlyKubelet) FindPod(namespace, pod string) (*api.Pod, runtime.Runtime, error) {
	return nil, nil, server.NotFoundf("pod %s/%s does not exist", namespace, pod)
}

func (statsOnlyKubelet) Summary(nodeName string) (*stats.Summary, error) {
	return &stats.Summary{Node: stats.NodeStats{NodeName: nodeName}}, nil
}

// TestNodeProxy: GET nodes/<node>/proxy/<path> reaches the node's kubelet
// (naming the node in the Host header, for hollow nodes) and passes its
// answer back as is — what `kubectl get --raw …/proxy/stats/summary`
// shows; an unknown node is a 404, a write a 405.
func TestNodeProxy(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The kubelet's own authorization is not under test here: it allows all.
	allowAll := accessReviewerFunc(func(_ context.Context, review *api.SubjectAccessReview) (*api.SubjectAccessReview, error) {
		review.Status.Allowed = true
		return review, nil
	})
	port, err := server.StartServer(ctx, a.CACertPEM(), allowAll, nil, statsOnlyKubelet{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	node, err := c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "node1"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Status.Addresses = []api.NodeAddress{{Type: api.NodeInternalIP, Address: "127.0.0.1"}}
	node.Status.DaemonEndpoints.KubeletEndpoint.Port = port
	if _, err := c.Nodes().UpdateStatus(ctx, node, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	resp := a.Do(t, http.MethodGet, "/api/v1/nodes/node1/proxy/stats/summary", nil)
	var summary stats.Summary
	if resp.Code != http.StatusOK || json.Unmarshal(resp.Body, &summary) != nil || summary.Node.NodeName != "node1" {
		t.Errorf("proxy/stats/summary: %d %s", resp.Code, resp.Body)
	}
	resp = a.Do(t, http.MethodGet, "/api/v1/nodes/node1/proxy/metrics/resource", nil)
	if resp.Code != http.StatusOK || !strings.Contains(string(resp.Body), "resource_scrape_error 0\n") ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("proxy/metrics/resource: %d %s %s", resp.Code, resp.Header.Get("Content-Type"), resp.Body)
	}
	// The kubelet's own errors come back as they are.
	resp = a.Do(t, http.MethodGet, "/api/v1/nodes/node1/proxy/containerLogs/default/web/app", nil)
	if resp.Code != http.StatusNotFound || string(resp.Body) != "pod default/web does not exist\n" {
		t.Errorf("proxy of a kubelet 404: %d %q", resp.Code, resp.Body)
	}
	resp = a.Do(t, http.MethodGet, "/api/v1/nodes/nope/proxy/stats/summary", nil)
	if resp.Code != http.StatusNotFound || !strings.Contains(string(resp.Body), `nodes \"nope\" not found`) {
		t.Errorf("unknown node: %d %s", resp.Code, resp.Body)
	}
	resp = a.Do(t, http.MethodPost, "/api/v1/nodes/node1/proxy/stats/summary", nil)
	if resp.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST through the node proxy: %d %s", resp.Code, resp.Body)
	}

	// The real kubectl reads it the way the docs show.
	out := a.MustKubectl(t, "get", "--raw", "/api/v1/nodes/node1/proxy/stats/summary")
	if !strings.Contains(out, `"nodeName": "node1"`) {
		t.Errorf("kubectl get --raw …/proxy/stats/summary printed %q", out)
	}
	discovery := a.Do(t, http.MethodGet, "/api/v1", nil)
	if !strings.Contains(string(discovery.Body), `"name":"nodes/proxy"`) {
		t.Errorf("discovery does not list nodes/proxy: %s", discovery.Body)
	}
}

// accessReviewerFunc adapts a function to the kubelet server's
// AccessReviewer.
type accessReviewerFunc func(ctx context.Context, review *api.SubjectAccessReview) (*api.SubjectAccessReview, error)

// ReviewAccess calls f.
func (f accessReviewerFunc) ReviewAccess(ctx context.Context, review *api.SubjectAccessReview) (*api.SubjectAccessReview, error) {
	return f(ctx, review)
}
