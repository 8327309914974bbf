package apiserver_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/debug"
	"kplane/test/framework"
)

// announce writes the endpoint file a component started by the launcher
// writes, so the apiserver finds it in its data dir.
func announce(t *testing.T, dataDir, component, url string) {
	t.Helper()
	if err := debug.WriteEndpoint(debug.EndpointFile(dataDir, component), debug.Endpoint{Component: component, URL: url}); err != nil {
		t.Fatal(err)
	}
}

// closedLoopbackURL is an http URL of a loopback port nothing listens on.
func closedLoopbackURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	return url
}

// TestComponentStatusesProbeTheAnnouncedComponents: componentstatuses
// probes, at each request, the /healthz of the components announced in
// the data dir and etcd: a component answering "ok" is Healthy, one whose
// port is closed is Unhealthy with the dial error, one answering 500 is
// Unhealthy with the status code; every answer carries upstream's
// deprecation warning; a single one is got by name, an unknown name is
// 404, selectors filter, and nothing but get and list is allowed.
func TestComponentStatusesProbeTheAnnouncedComponents(t *testing.T) {
	a := framework.StartAPIServer(t)
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("ok"))
	}))
	t.Cleanup(healthy.Close)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "[-]leaderElection failed", http.StatusInternalServerError)
	}))
	t.Cleanup(failing.Close)
	stopped := closedLoopbackURL(t)
	announce(t, a.Dir, "scheduler", healthy.URL)
	announce(t, a.Dir, "controller-manager", stopped)
	announce(t, a.Dir, "controller-manager-2", failing.URL)

	resp := a.Do(t, http.MethodGet, "/api/v1/componentstatuses", nil)
	if resp.Code != http.StatusOK {
		t.Fatalf("list: %d %s", resp.Code, resp.Body)
	}
	if got := resp.Header.Get("Warning"); got != `299 - "v1 ComponentStatus is deprecated in v1.19+"` {
		t.Errorf("Warning header %q", got)
	}
	var list api.List[api.ComponentStatus]
	if err := json.Unmarshal(resp.Body, &list); err != nil {
		t.Fatal(err)
	}
	if list.Kind != "ComponentStatusList" || list.APIVersion != "v1" {
		t.Errorf("list kind %s %s", list.APIVersion, list.Kind)
	}
	type row struct{ name, status, message, err string }
	var got []row
	for _, cs := range list.Items {
		if len(cs.Conditions) != 1 || cs.Conditions[0].Type != api.ComponentHealthy {
			t.Fatalf("%s: conditions %+v", cs.Name, cs.Conditions)
		}
		c := cs.Conditions[0]
		got = append(got, row{cs.Name, string(c.Status), c.Message, c.Error})
	}
	want := []row{
		{"scheduler", "True", "ok", ""},
		{"controller-manager", "False", "", ""},
		{"controller-manager-2", "False", "HTTP probe failed with statuscode: 500", ""},
		{"etcd-0", "True", "ok", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("items %+v, want %+v", got, want)
	}
	for i := range want {
		if i == 1 {
			// The dial error names the URL and the refusal.
			if got[i].name != want[i].name || got[i].status != "False" ||
				!strings.Contains(got[i].message, stopped+"/healthz") || !strings.Contains(got[i].message, "connection refused") {
				t.Errorf("item %d: %+v, want Unhealthy with a refused dial to %s/healthz", i, got[i], stopped)
			}
			continue
		}
		if got[i] != want[i] {
			t.Errorf("item %d: %+v, want %+v", i, got[i], want[i])
		}
	}

	// One by name, as JSON and as kubectl's Table.
	resp = a.Do(t, http.MethodGet, "/api/v1/componentstatuses/scheduler", nil)
	var one api.ComponentStatus
	if resp.Code != http.StatusOK || json.Unmarshal(resp.Body, &one) != nil || one.Name != "scheduler" || one.Kind != "ComponentStatus" {
		t.Errorf("get scheduler: %d %s", resp.Code, resp.Body)
	}
	resp = a.Do(t, http.MethodGet, "/api/v1/componentstatuses/etcd-0", nil, "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	var table api.Table
	if resp.Code != http.StatusOK || json.Unmarshal(resp.Body, &table) != nil || len(table.Rows) != 1 ||
		len(table.ColumnDefinitions) != 4 || table.Rows[0].Cells[1] != "Healthy" {
		t.Errorf("get etcd-0 as Table: %d %s", resp.Code, resp.Body)
	}
	resp = a.Do(t, http.MethodGet, "/api/v1/componentstatuses/nope", nil)
	if resp.Code != http.StatusNotFound || !strings.Contains(string(resp.Body), `componentstatus \"nope\" not found`) {
		t.Errorf("get nope: %d %s", resp.Code, resp.Body)
	}

	// Selectors filter as on any list.
	for query, wantNames := range map[string]string{
		"fieldSelector=metadata.name%3Dscheduler": "scheduler",
		"labelSelector=tier%3Dcontrol-plane":      "",
		"labelSelector=!tier":                     "scheduler controller-manager controller-manager-2 etcd-0",
	} {
		resp := a.Do(t, http.MethodGet, "/api/v1/componentstatuses?"+query, nil)
		var l api.List[api.ComponentStatus]
		if resp.Code != http.StatusOK || json.Unmarshal(resp.Body, &l) != nil {
			t.Fatalf("?%s: %d %s", query, resp.Code, resp.Body)
		}
		var names []string
		for _, cs := range l.Items {
			names = append(names, cs.Name)
		}
		if strings.Join(names, " ") != wantNames {
			t.Errorf("?%s: %v, want %q", query, names, wantNames)
		}
	}
	if resp := a.Do(t, http.MethodGet, "/api/v1/componentstatuses?fieldSelector=status.phase%3DX", nil); resp.Code != http.StatusBadRequest {
		t.Errorf("unknown field selector: %d %s", resp.Code, resp.Body)
	}

	// Read-only: watch and every write are 405.
	resp = a.Do(t, http.MethodGet, "/api/v1/componentstatuses?watch=1", nil)
	if resp.Code != http.StatusMethodNotAllowed || !strings.Contains(string(resp.Body), `watch is not supported on resources of kind \"componentstatuses\"`) {
		t.Errorf("watch: %d %s", resp.Code, resp.Body)
	}
	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/api/v1/componentstatuses"},
		{http.MethodDelete, "/api/v1/componentstatuses/scheduler"},
		{http.MethodPut, "/api/v1/componentstatuses/scheduler"},
		{http.MethodPatch, "/api/v1/componentstatuses/scheduler"},
	} {
		if resp := a.Do(t, c.method, c.path, []byte(`{}`)); resp.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: %d %s", c.method, c.path, resp.Code, resp.Body)
		}
	}

	// Discovery lists it as kubectl expects: cs, get and list.
	resp = a.Do(t, http.MethodGet, "/api/v1", nil)
	var resources struct {
		APIResources []struct {
			Name, Kind string
			Namespaced bool
			ShortNames []string
			Verbs      []string
		} `json:"resources"`
	}
	if err := json.Unmarshal(resp.Body, &resources); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range resources.APIResources {
		if r.Name == "componentstatuses" {
			found = true
			if r.Kind != "ComponentStatus" || r.Namespaced || strings.Join(r.ShortNames, ",") != "cs" || strings.Join(r.Verbs, ",") != "get,list" {
				t.Errorf("discovery: %+v", r)
			}
		}
	}
	if !found {
		t.Error("componentstatuses is not in /api/v1 discovery")
	}
}

// TestComponentStatusesWithoutAnnouncements: an apiserver whose data dir
// no component announced itself in reports the scheduler and the
// controller-manager Unhealthy, saying so, and etcd Healthy.
func TestComponentStatusesWithoutAnnouncements(t *testing.T) {
	a := framework.StartAPIServer(t)
	resp := a.Do(t, http.MethodGet, "/api/v1/componentstatuses", nil)
	var list api.List[api.ComponentStatus]
	if resp.Code != http.StatusOK || json.Unmarshal(resp.Body, &list) != nil || len(list.Items) != 3 {
		t.Fatalf("list: %d %s", resp.Code, resp.Body)
	}
	for _, cs := range list.Items[:2] {
		c := cs.Conditions[0]
		wantFile := filepath.Join(a.Dir, "debug", cs.Name+".json")
		if c.Status != api.ConditionFalse || !strings.Contains(c.Message, "no address announced in "+wantFile) {
			t.Errorf("%s: %+v", cs.Name, c)
		}
	}
	if etcd := list.Items[2]; etcd.Name != "etcd-0" || etcd.Conditions[0].Status != api.ConditionTrue {
		t.Errorf("etcd: %+v", etcd)
	}
}
