package apiserver_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/apiserver"
	"kplane/pkg/auth"
	"kplane/pkg/pki"
	"kplane/test/framework"
)

// startAggregatingServer starts an apiserver whose aggregator checks the
// APIServices often, so that the tests need not wait 30 s for a change the
// watch did not carry (a backend going away).
func startAggregatingServer(t *testing.T) *framework.APIServer {
	t.Helper()
	return framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		o.APIServiceCheckInterval = 100 * time.Millisecond
	})
}

// getAPIService reads an APIService, or fails the test.
func getAPIService(t *testing.T, a *framework.APIServer, name string) (api.APIService, int) {
	t.Helper()
	resp := a.Do(t, http.MethodGet, "/apis/apiregistration.k8s.io/v1/apiservices/"+name, nil)
	var s api.APIService
	if resp.Code == http.StatusOK {
		if err := json.Unmarshal(resp.Body, &s); err != nil {
			t.Fatalf("decode %s: %v", resp.Body, err)
		}
	}
	return s, resp.Code
}

// availableCondition returns the Available condition as "Status/Reason: Message".
func availableCondition(s api.APIService) string {
	for _, c := range s.Status.Conditions {
		if c.Type == api.APIServiceAvailable {
			return fmt.Sprintf("%s/%s: %s", c.Status, c.Reason, c.Message)
		}
	}
	return "none"
}

// waitForCondition waits until the APIService's Available condition reads want.
func waitForCondition(t *testing.T, a *framework.APIServer, name, want string) {
	t.Helper()
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		s, code := getAPIService(t, a, name)
		got := availableCondition(s)
		return code == http.StatusOK && got == want, fmt.Sprintf("%d %s", code, got)
	})
}

// TestLocalAPIServicesAutoregistered: at start the apiserver registers a
// Local APIService for each group/version it serves, with upstream's
// priorities, Available; validation refuses a name that is not
// version.group; a Local one it registered for a group it no longer serves
// goes at the next start, while one a user made stays, and one already as
// desired is not written again.
func TestLocalAPIServicesAutoregistered(t *testing.T) {
	dir := t.TempDir()
	a := framework.StartAPIServerIn(t, dir)

	for name, want := range map[string][2]int32{"v1.": {18000, 1}, "v1.apps": {17800, 15}, "v2.autoscaling": {17500, 30}, "v1.apiregistration.k8s.io": {18000, 15}} {
		s, code := getAPIService(t, a, name)
		if code != http.StatusOK || s.Spec.Service != nil || s.Spec.GroupPriorityMinimum != want[0] || s.Spec.VersionPriority != want[1] {
			t.Errorf("%s: %d %+v, want a Local APIService with priorities %v", name, code, s.Spec, want)
		}
		if got := availableCondition(s); got != "True/Local: Local APIServices are always available" {
			t.Errorf("%s: Available %s, want True/Local", name, got)
		}
	}

	bad := `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"wrong"},"spec":{"group":"example.com","version":"v1","groupPriorityMinimum":100,"versionPriority":10}}`
	resp := a.Do(t, http.MethodPost, "/apis/apiregistration.k8s.io/v1/apiservices", []byte(bad))
	if resp.Code != http.StatusUnprocessableEntity || !strings.Contains(string(resp.Body), "must be `spec.version+\\\".\\\"+spec.group`: \\\"v1.example.com\\\"") {
		t.Errorf("misnamed APIService: %d %s, want 422 naming v1.example.com", resp.Code, resp.Body)
	}

	// A stale Local APIService the apiserver once registered, and one a user made.
	for _, obj := range []string{
		`{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.gone.example.com","labels":{"kube-aggregator.kubernetes.io/automanaged":"onstart"}},"spec":{"group":"gone.example.com","version":"v1","groupPriorityMinimum":100,"versionPriority":10}}`,
		`{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.mine.example.com"},"spec":{"group":"mine.example.com","version":"v1","groupPriorityMinimum":100,"versionPriority":10}}`,
	} {
		if resp := a.Do(t, http.MethodPost, "/apis/apiregistration.k8s.io/v1/apiservices", []byte(obj)); resp.Code != http.StatusCreated {
			t.Fatalf("create: %d %s", resp.Code, resp.Body)
		}
	}
	before, _ := getAPIService(t, a, "v1.apps")
	a.Stop()
	a = framework.StartAPIServerIn(t, dir)
	// An APIService already as desired is not written again at restart.
	if after, _ := getAPIService(t, a, "v1.apps"); after.ResourceVersion != before.ResourceVersion {
		t.Errorf("v1.apps after restart: resourceVersion %s, want %s unchanged", after.ResourceVersion, before.ResourceVersion)
	}
	if _, code := getAPIService(t, a, "v1.gone.example.com"); code != http.StatusNotFound {
		t.Errorf("stale automanaged APIService after restart: %d, want 404", code)
	}
	if _, code := getAPIService(t, a, "v1.mine.example.com"); code != http.StatusOK {
		t.Errorf("user's APIService after restart: %d, want 200", code)
	}
}

// TestAggregatorProxiesToBackend follows an APIService for metrics.k8s.io
// from registration to removal, with a fake metrics-server as the backend:
// ServiceNotFound and a 503 while its Service is missing; Available once the
// Service points at the backend's loopback port; discovery (legacy and
// aggregated) listing the group; get, list and watch proxied with the
// user's identity and the apiserver's client certificate; and a 503 and
// FailedDiscoveryCheck once the backend is gone, its group dropped from
// discovery.
func TestAggregatorProxiesToBackend(t *testing.T) {
	a := startAggregatingServer(t)
	backend := framework.StartFakeMetricsServer(t, a.CACertPEM())
	caBundle, _ := json.Marshal(backend.CABundle)

	apiService := `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1beta1.metrics.k8s.io"},` +
		`"spec":{"service":{"namespace":"kube-system","name":"metrics-server","port":443},"group":"metrics.k8s.io","version":"v1beta1",` +
		`"groupPriorityMinimum":100,"versionPriority":100,"caBundle":` + string(caBundle) + `}}`
	if resp := a.Do(t, http.MethodPost, "/apis/apiregistration.k8s.io/v1/apiservices", []byte(apiService)); resp.Code != http.StatusCreated {
		t.Fatalf("create APIService: %d %s", resp.Code, resp.Body)
	}
	waitForCondition(t, a, "v1beta1.metrics.k8s.io", `False/ServiceNotFound: service/metrics-server in "kube-system" is not present`)
	resp := a.Do(t, http.MethodGet, "/apis/metrics.k8s.io/v1beta1/nodes", nil)
	if resp.Code != http.StatusServiceUnavailable || !strings.Contains(string(resp.Body), `"reason":"ServiceUnavailable"`) ||
		!strings.Contains(string(resp.Body), "the server is currently unable to handle the request") {
		t.Errorf("request for an unavailable APIService: %d %s, want 503 ServiceUnavailable", resp.Code, resp.Body)
	}
	if resp := a.Do(t, http.MethodGet, "/apis/nothing.example.com/v1/things", nil); resp.Code != http.StatusNotFound {
		t.Errorf("unregistered group: %d %s, want 404", resp.Code, resp.Body)
	}

	// The Service has no selector: its targetPort is the backend's loopback port.
	service := fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"metrics-server","namespace":"kube-system"},`+
		`"spec":{"ports":[{"name":"https","port":443,"targetPort":%d}]}}`, backend.Port)
	if resp := a.Do(t, http.MethodPost, "/api/v1/namespaces/kube-system/services", []byte(service)); resp.Code != http.StatusCreated {
		t.Fatalf("create Service: %d %s", resp.Code, resp.Body)
	}
	waitForCondition(t, a, "v1beta1.metrics.k8s.io", "True/Passed: all checks passed")
	check, ok := backend.Last("/apis/metrics.k8s.io/v1beta1")
	if !ok || check.User != "system:kube-aggregator" || check.ClientCommonName != pki.KubeletClientCommonName || !check.ServerNameOK {
		t.Errorf("availability check as seen by the backend: %+v, want system:kube-aggregator over the kubelet-client certificate to metrics-server.kube-system.svc", check)
	}

	t.Run("discovery", func(t *testing.T) {
		var groups struct {
			Groups []struct {
				Name             string
				PreferredVersion struct{ GroupVersion string }
			}
		}
		resp := a.Do(t, http.MethodGet, "/apis", nil)
		_ = json.Unmarshal(resp.Body, &groups)
		if !slices.ContainsFunc(groups.Groups, func(g struct {
			Name             string
			PreferredVersion struct{ GroupVersion string }
		}) bool {
			return g.Name == "metrics.k8s.io" && g.PreferredVersion.GroupVersion == "metrics.k8s.io/v1beta1"
		}) || !strings.Contains(string(resp.Body), `"name":"apps"`) {
			t.Errorf("/apis: %s, want apps and metrics.k8s.io", resp.Body)
		}
		resp = a.Do(t, http.MethodGet, "/apis/metrics.k8s.io", nil)
		if resp.Code != http.StatusOK || !strings.Contains(string(resp.Body), `"kind":"APIGroup"`) || !strings.Contains(string(resp.Body), `"groupVersion":"metrics.k8s.io/v1beta1"`) {
			t.Errorf("/apis/metrics.k8s.io: %d %s, want its APIGroup", resp.Code, resp.Body)
		}
		resp = a.Do(t, http.MethodGet, "/apis/metrics.k8s.io/v1beta1", nil)
		if resp.Code != http.StatusOK || string(resp.Body) != framework.FakeMetricsResourceList {
			t.Errorf("/apis/metrics.k8s.io/v1beta1: %d %s, want the backend's APIResourceList", resp.Code, resp.Body)
		}
		for _, version := range []string{"v2", "v2beta1"} {
			resp = a.Do(t, http.MethodGet, "/apis", nil, "Accept", "application/json;g=apidiscovery.k8s.io;v="+version+";as=APIGroupDiscoveryList")
			var list struct {
				Items []struct {
					Metadata struct{ Name string }
					Versions []struct {
						Version   string
						Resources []struct {
							Resource, Scope, SingularResource string
							ResponseKind                      struct{ Group, Version, Kind string }
						}
					}
				}
			}
			if err := json.Unmarshal(resp.Body, &list); err != nil {
				t.Fatalf("aggregated %s: %v", version, err)
			}
			found := ""
			for _, g := range list.Items {
				if g.Metadata.Name == "metrics.k8s.io" && len(g.Versions) == 1 && len(g.Versions[0].Resources) == 2 {
					r := g.Versions[0].Resources[1]
					found = fmt.Sprintf("%s %s %s %s/%s/%s", r.Resource, r.Scope, r.SingularResource, r.ResponseKind.Group, r.ResponseKind.Version, r.ResponseKind.Kind)
				}
			}
			if found != "pods Namespaced podmetrics metrics.k8s.io/v1beta1/PodMetrics" {
				t.Errorf("aggregated discovery %s: metrics.k8s.io pods read %q in %s", version, found, resp.Body)
			}
		}
	})

	t.Run("get and list with the user's identity", func(t *testing.T) {
		resp := a.Do(t, http.MethodGet, "/apis/metrics.k8s.io/v1beta1/nodes?labelSelector=role%3Dworker", nil,
			"X-Remote-User", "mallory", "X-Remote-Extra-Scopes", "everything")
		if resp.Code != http.StatusOK || string(resp.Body) != framework.FakeNodeMetricsList {
			t.Fatalf("list nodes through the aggregator: %d %s", resp.Code, resp.Body)
		}
		seen, _ := backend.Last("/apis/metrics.k8s.io/v1beta1/nodes")
		if seen.User != "kubernetes-admin" || !slices.Contains(seen.Groups, "system:masters") || seen.Authorization != "" ||
			seen.ExtraSpoofed || seen.ClientCommonName != pki.KubeletClientCommonName || seen.Query != "labelSelector=role%3Dworker" {
			t.Errorf("backend saw %+v, want kubernetes-admin in system:masters from the kubelet-client certificate, no token, no spoofed headers, the query kept", seen)
		}
	})

	t.Run("watch streams", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stream := a.Stream(t, ctx, "/apis/metrics.k8s.io/v1beta1/nodes?watch=true")
		defer stream.Body.Close()
		lines := bufio.NewScanner(stream.Body)
		// The first event arrives while the backend holds the second back:
		// the aggregator flushes as the backend writes.
		if !lines.Scan() || !strings.Contains(lines.Text(), `"type":"ADDED"`) {
			t.Fatalf("first watch event: %q (%v)", lines.Text(), lines.Err())
		}
		close(backend.WatchRelease)
		if !lines.Scan() || !strings.Contains(lines.Text(), `"type":"MODIFIED"`) {
			t.Fatalf("second watch event: %q (%v)", lines.Text(), lines.Err())
		}
	})

	t.Run("upgrade passes through", func(t *testing.T) {
		token, _ := a.Tokens().TokenFor(auth.AdminUserName)
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(a.CACertPEM())
		conn, err := tls.Dial("tcp", strings.TrimPrefix(a.URL(), "https://"), &tls.Config{RootCAs: pool, NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second)) // a guard against a hang, not a measurement
		fmt.Fprintf(conn, "GET /apis/metrics.k8s.io/v1beta1/echo HTTP/1.1\r\nHost: kplane\r\nAuthorization: Bearer %s\r\n"+
			"Connection: Upgrade\r\nUpgrade: kplane-echo\r\n\r\n", token)
		reader := bufio.NewReader(conn)
		resp, err := http.ReadResponse(reader, nil)
		if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
			t.Fatalf("upgrade through the aggregator: %v %v, want 101", resp, err)
		}
		fmt.Fprint(conn, "hello\n")
		if line, err := reader.ReadString('\n'); line != "echo: hello\n" {
			t.Errorf("over the upgraded connection: %q %v, want the backend's echo", line, err)
		}
	})

	t.Run("kubectl", func(t *testing.T) {
		out := a.MustKubectl(t, "get", "apiservices")
		if !strings.Contains(out, "NAME") || !strings.Contains(out, "SERVICE") || !strings.Contains(out, "AVAILABLE") ||
			!containsRow(out, "v1beta1.metrics.k8s.io", "kube-system/metrics-server", "True") || !containsRow(out, "v1.apps", "Local", "True") {
			t.Errorf("kubectl get apiservices:\n%s", out)
		}
		out = a.MustKubectl(t, "api-resources", "--api-group=metrics.k8s.io")
		if !containsRow(out, "nodes", "metrics.k8s.io/v1beta1", "false", "NodeMetrics") || !containsRow(out, "pods", "metrics.k8s.io/v1beta1", "true", "PodMetrics") {
			t.Errorf("kubectl api-resources --api-group=metrics.k8s.io:\n%s", out)
		}
		out = a.MustKubectl(t, "get", "--raw", "/apis/metrics.k8s.io/v1beta1/nodes")
		if strings.TrimSpace(out) != framework.FakeNodeMetricsList {
			t.Errorf("kubectl get --raw: %s", out)
		}
	})

	// The backend goes away: requests get the 503, the check notices, and
	// the group leaves discovery.
	backend.Close()
	resp = a.Do(t, http.MethodGet, "/apis/metrics.k8s.io/v1beta1/nodes", nil)
	if resp.Code != http.StatusServiceUnavailable {
		t.Errorf("backend down: %d %s, want 503", resp.Code, resp.Body)
	}
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		s, _ := getAPIService(t, a, "v1beta1.metrics.k8s.io")
		got := availableCondition(s)
		return strings.HasPrefix(got, "False/FailedDiscoveryCheck: failing or missing response from https://127.0.0.1:"), got
	})
	if resp := a.Do(t, http.MethodGet, "/apis", nil); strings.Contains(string(resp.Body), "metrics.k8s.io") {
		t.Errorf("/apis still lists metrics.k8s.io with its backend gone: %s", resp.Body)
	}
	out := a.MustKubectl(t, "get", "apiservices", "v1beta1.metrics.k8s.io")
	if !containsRow(out, "v1beta1.metrics.k8s.io", "kube-system/metrics-server", "False", "(FailedDiscoveryCheck)") {
		t.Errorf("kubectl get apiservice with its backend gone:\n%s", out)
	}

	// Unregistered, the group is nobody's: the usual 404.
	if resp := a.Do(t, http.MethodDelete, "/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io", nil); resp.Code != http.StatusOK {
		t.Fatalf("delete APIService: %d %s", resp.Code, resp.Body)
	}
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		resp := a.Do(t, http.MethodGet, "/apis/metrics.k8s.io/v1beta1/nodes", nil)
		return resp.Code == http.StatusNotFound, fmt.Sprintf("%d %s", resp.Code, resp.Body)
	})
}

// containsRow reports whether a line of out has exactly these leading fields.
func containsRow(out string, fields ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		if got := strings.Fields(line); len(got) >= len(fields) && slices.Equal(got[:len(fields)], fields) {
			return true
		}
	}
	return false
}
