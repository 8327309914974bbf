package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/kubeconfig"
	"kplane/test/framework"
)

// TestDebugAPI: every component of a `ctl up` cluster announces its debug
// API in DATA_DIR/debug, answers it for the admin's token, refuses a
// request without a token (401) and a node's token (403); the scheduler
// and the kubelets serve /metrics and /debug/pprof/ too; the
// controller-manager's journal traces a new ConfigMap through its
// informer and shows its leader election; a restarted component
// announces its new address.
func TestDebugAPI(t *testing.T) {
	c := framework.StartCluster(t, nil)
	ctx := context.Background()
	want := []string{"apiserver", "cloud-controller-manager", "controller-manager", "dns", "kube-proxy-control-plane", "kube-proxy-node1", "kube-proxy-node2",
		"kubelet-control-plane", "kubelet-node1", "kubelet-node2", "metrics-server", "scheduler"}
	var endpoints []debug.Endpoint
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		var err error
		endpoints, err = debug.ReadEndpoints(c.Dir)
		var names []string
		for _, e := range endpoints {
			names = append(names, e.Component)
		}
		return slices.Equal(names, want), fmt.Sprintf("endpoints %v (err %v), want %v", names, err, want)
	})
	byName := map[string]debug.Endpoint{}
	for _, e := range endpoints {
		byName[e.Component] = e
	}

	admin, httpClient := adminDebugClient(t, c.KubeconfigPath())
	nodeToken := kubeconfigToken(t, filepath.Join(c.Dir, "kubeconfigs", cluster.KubeletComponent("node1")+".kubeconfig"))
	for _, e := range endpoints {
		var info debug.Info
		if err := admin.Get(ctx, e, debug.PathInfo, &info); err != nil {
			t.Errorf("%s info: %v", e.Component, err)
		} else if info.Component != e.Component || info.PID != e.PID || info.RingSize != debug.DefaultRingSize {
			t.Errorf("%s info = %+v, want its name, PID %d and ring size %d", e.Component, info, e.PID, debug.DefaultRingSize)
		}
		var queues []debug.QueueState
		if err := admin.Get(ctx, e, debug.PathQueues, &queues); err != nil {
			t.Errorf("%s queues: %v", e.Component, err)
		}
		if e.Component == "controller-manager" && !slices.ContainsFunc(queues, func(q debug.QueueState) bool { return q.Name == "deployment" }) {
			t.Errorf("controller-manager queues = %+v, want one named deployment", queues)
		}
		if code := debugStatus(t, httpClient, e.URL+debug.PathInfo, ""); code != http.StatusUnauthorized {
			t.Errorf("%s without a token: %d, want 401", e.Component, code)
		}
		if code := debugStatus(t, httpClient, e.URL+debug.PathInfo, nodeToken); code != http.StatusForbidden {
			t.Errorf("%s with a node's token: %d, want 403", e.Component, code)
		}
		if code := debugStatus(t, httpClient, e.URL+"/debug/pprof/", admin.Token); code != http.StatusOK {
			t.Errorf("%s /debug/pprof/: %d, want 200", e.Component, code)
		}
	}
	for component, metric := range map[string]string{"scheduler": "go_goroutines", "kubelet-node1": "kubelet_running_pods",
		"kube-proxy-node1": "kubeproxy_sync_proxy_rules_duration_seconds"} {
		body := debugBody(t, httpClient, byName[component].URL+"/metrics", admin.Token)
		if !strings.Contains(body, metric) {
			t.Errorf("%s /metrics has no %s:\n%.500s", component, metric, body)
		}
	}

	// The controller-manager and the scheduler lead (they are alone), and
	// announce the identity they lead with.
	for _, component := range []string{"controller-manager", "scheduler"} {
		e := byName[component]
		framework.Eventually(t, 30*time.Second, func() (bool, string) {
			var leaders []debug.LeaderState
			err := admin.Get(ctx, e, debug.PathLeader, &leaders)
			return err == nil && len(leaders) == 1 && leaders[0].IsLeader && leaders[0].Identity == e.Identity && e.Identity != "",
				fmt.Sprintf("%s leader state %+v (err %v), identity %q", component, leaders, err, e.Identity)
		})
	}

	// A ConfigMap's way into the controller-manager's informer is traced.
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "traced", Namespace: "default"}, Data: map[string]string{"k": "v"}}
	created, err := c.Client(t).ConfigMaps("default").Create(ctx, cm, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		var stages []string
		err := admin.Records(ctx, byName["controller-manager"], debug.RecordQuery{Types: debug.TypeTrace, Key: "default/traced"}, func(r debug.Record) error {
			if r.ResourceVersion == created.ResourceVersion {
				stages = append(stages, r.Stage)
			}
			return nil
		})
		return err == nil && len(stages) > 0, fmt.Sprintf("trace stages at rv %s: %v (err %v)", created.ResourceVersion, stages, err)
	})

	// ctl lists the same endpoints.
	out, err := exec.Command(filepath.Join(framework.BuildBinaries(t), "ctl"), "debug", "endpoints", "--data-dir", c.Dir).CombinedOutput()
	if err != nil {
		t.Fatalf("ctl debug endpoints: %v\n%s", err, out)
	}
	for _, e := range endpoints {
		if !strings.Contains(string(out), e.URL) {
			t.Errorf("ctl debug endpoints does not list %s's %s:\n%s", e.Component, e.URL, out)
		}
	}

	// A restarted component announces itself again, with its new PID.
	old := byName["scheduler"]
	if err := syscall.Kill(old.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		endpoints, err := debug.ReadEndpoints(c.Dir)
		for _, e := range endpoints {
			if e.Component == "scheduler" && e.PID != old.PID {
				var info debug.Info
				err := admin.Get(ctx, e, debug.PathInfo, &info)
				return err == nil && info.PID == e.PID, fmt.Sprintf("restarted scheduler %+v: info %+v, err %v", e, info, err)
			}
		}
		return false, fmt.Sprintf("endpoints %+v (err %v): no scheduler other than PID %d", endpoints, err, old.PID)
	})
}

// adminDebugClient is a debug client with the admin kubeconfig's token and
// an HTTP client that trusts the cluster CA.
func adminDebugClient(t *testing.T, path string) (*debug.Client, *http.Client) {
	t.Helper()
	cfg, err := kubeconfig.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := cfg.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	tlsConfig, err := admin.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}, Timeout: 30 * time.Second}
	return &debug.Client{HTTP: hc, Token: admin.Token}, hc
}

// kubeconfigToken is the bearer token of a kubeconfig's current user.
func kubeconfigToken(t *testing.T, path string) string {
	t.Helper()
	cfg, err := kubeconfig.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	user, err := cfg.Resolve("")
	if err != nil || user.Token == "" {
		t.Fatalf("%s: no token (%v)", path, err)
	}
	return user.Token
}

// debugStatus is the status code of a GET of url with token ("" sends none).
func debugStatus(t *testing.T, hc *http.Client, url, token string) int {
	t.Helper()
	resp := debugGet(t, hc, url, token)
	resp.Body.Close()
	return resp.StatusCode
}

// debugBody is the body of a GET of url with token; not 200 fails the test.
func debugBody(t *testing.T, hc *http.Client, url, token string) string {
	t.Helper()
	resp := debugGet(t, hc, url, token)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	return string(body)
}

func debugGet(t *testing.T, hc *http.Client, url, token string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
