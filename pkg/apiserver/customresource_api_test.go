package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/test/framework"
)

const crontabs = "/apis/stable.example.com/v1/namespaces/default/crontabs"

// establishCRD creates a CRD and waits until it is Established.
func establishCRD(t *testing.T, a *framework.APIServer, body []byte) api.CustomResourceDefinition {
	t.Helper()
	resp := a.Do(t, http.MethodPost, crdPath, body)
	if resp.Code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", resp.Code, resp.Body)
	}
	name := decodeCRD(t, resp.Body).Name
	var crd api.CustomResourceDefinition
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		crd = decodeCRD(t, a.Do(t, http.MethodGet, crdPath+"/"+name, nil).Body)
		return api.IsCRDConditionTrue(&crd, api.Established), fmt.Sprintf("conditions %+v", crd.Status.Conditions)
	})
	return crd
}

// object decodes a JSON object response into a map, or fails the test.
func object(t *testing.T, resp framework.Response, wantCode int) map[string]any {
	t.Helper()
	if resp.Code != wantCode {
		t.Fatalf("got %d %s, want %d", resp.Code, resp.Body, wantCode)
	}
	obj, err := api.DecodeObjectMap(resp.Body)
	if err != nil {
		t.Fatalf("decode %s: %v", resp.Body, err)
	}
	return obj
}

// field reads a dotted path of a JSON map.
func field(obj map[string]any, path string) any {
	var current any = obj
	for _, part := range strings.Split(path, ".") {
		m, ok := current.(map[string]any)
		if !ok {
			return nil
		}
		current = m[part]
	}
	return current
}

// TestCustomResourceServed: an Established CRD's objects are served like a
// built-in kind's: create (a status sent is dropped), get, list with
// label and field selectors (selectableFields too), a Table with the
// printer columns, /status that changes status only, generation counting
// other changes, merge patch, strategic merge refused with 415, the scale
// subresource reading and writing the CRD's paths, discovery, and a
// Local APIService for the group/version as upstream registers one.
func TestCustomResourceServed(t *testing.T) {
	a := framework.StartAPIServer(t)
	crd := establishCRD(t, a, crontabCRD(nil))
	if !api.IsCRDConditionTrue(&crd, api.NamesAccepted) || crd.Status.AcceptedNames.Kind != "CronTab" || crd.Status.AcceptedNames.Plural != "crontabs" {
		t.Fatalf("status = %+v, want names accepted", crd.Status)
	}
	if c := api.FindCRDCondition(&crd, api.Established); c.Reason != "InitialNamesAccepted" {
		t.Errorf("Established = %+v, want reason InitialNamesAccepted", c)
	}

	created := object(t, a.Do(t, http.MethodPost, crontabs, []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab",
		"metadata":{"name":"nightly","labels":{"tier":"batch"}},"spec":{"cronSpec":"0 3 * * *","image":"backup:1","replicas":1},"status":{"replicas":9}}`)), http.StatusCreated)
	if field(created, "status") != nil || field(created, "metadata.generation") != int64(1) || field(created, "spec.replicas") != int64(1) {
		t.Errorf("created = %v; want no status, generation 1, spec.replicas 1", created)
	}
	object(t, a.Do(t, http.MethodPost, crontabs, []byte(`{"metadata":{"name":"hourly"},"spec":{"cronSpec":"0 * * * *","image":"report:2","replicas":2}}`)), http.StatusCreated)

	got := object(t, a.Do(t, http.MethodGet, crontabs+"/nightly", nil), http.StatusOK)
	if got["apiVersion"] != "stable.example.com/v1" || got["kind"] != "CronTab" || field(got, "spec.image") != "backup:1" {
		t.Errorf("get = %v", got)
	}

	for query, want := range map[string][]string{
		"":                                      {"hourly", "nightly"},
		"?labelSelector=tier%3Dbatch":           {"nightly"},
		"?fieldSelector=metadata.name%3Dhourly": {"hourly"},
		"?fieldSelector=spec.image%3Dreport:2":  {"hourly"},
	} {
		list := object(t, a.Do(t, http.MethodGet, crontabs+query, nil), http.StatusOK)
		var names []string
		for _, item := range list["items"].([]any) {
			names = append(names, field(item.(map[string]any), "metadata.name").(string))
		}
		if list["kind"] != "CronTabList" || !slices.Equal(names, want) {
			t.Errorf("list%s: kind %v, names %v; want CronTabList %v", query, list["kind"], names, want)
		}
	}
	resp := a.Do(t, http.MethodGet, crontabs+"?fieldSelector=spec.cronSpec%3Dx", nil)
	if resp.Code != http.StatusBadRequest {
		t.Errorf("field selector on a field that is not selectable: %d %s, want 400", resp.Code, resp.Body)
	}

	resp = a.Do(t, http.MethodGet, crontabs, nil, "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	var table api.Table
	if err := json.Unmarshal(resp.Body, &table); err != nil {
		t.Fatalf("table: %d %s", resp.Code, resp.Body)
	}
	var columns []string
	for _, c := range table.ColumnDefinitions {
		columns = append(columns, c.Name)
	}
	if !slices.Equal(columns, []string{"Name", "Spec", "Replicas", "Age"}) || len(table.Rows) != 2 {
		t.Fatalf("table columns %v with %d rows, want Name Spec Replicas Age and 2", columns, len(table.Rows))
	}
	if cells := table.Rows[1].Cells; cells[0] != "nightly" || cells[1] != "0 3 * * *" || cells[2] != float64(1) {
		t.Errorf("row = %v, want nightly, 0 3 * * *, 1, age", cells)
	}

	// /status changes status only; the main resource keeps status.
	updated := object(t, a.Do(t, http.MethodPut, crontabs+"/nightly/status", []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab",
		"metadata":{"name":"nightly"},"spec":{"cronSpec":"changed","image":"backup:1","replicas":7},"status":{"replicas":1,"labelSelector":"tier=batch"}}`)), http.StatusOK)
	if field(updated, "spec.cronSpec") != "0 3 * * *" || field(updated, "status.replicas") != int64(1) || field(updated, "metadata.generation") != int64(1) {
		t.Errorf("after /status: %v; want spec unchanged, status.replicas 1, generation 1", updated)
	}
	patched := object(t, a.Do(t, http.MethodPatch, crontabs+"/nightly", []byte(`{"spec":{"image":"backup:2"},"status":{"replicas":5}}`),
		"Content-Type", "application/merge-patch+json"), http.StatusOK)
	if field(patched, "spec.image") != "backup:2" || field(patched, "status.replicas") != int64(1) || field(patched, "metadata.generation") != int64(2) {
		t.Errorf("after merge patch: %v; want image backup:2, status kept, generation 2", patched)
	}
	resp = a.Do(t, http.MethodPatch, crontabs+"/nightly", []byte(`{"spec":{"image":"x"}}`), "Content-Type", "application/strategic-merge-patch+json")
	if resp.Code != http.StatusUnsupportedMediaType {
		t.Errorf("strategic merge patch: %d %s, want 415", resp.Code, resp.Body)
	}

	scale := object(t, a.Do(t, http.MethodGet, crontabs+"/nightly/scale", nil), http.StatusOK)
	if scale["kind"] != "Scale" || field(scale, "spec.replicas") != int64(1) || field(scale, "status.replicas") != int64(1) || field(scale, "status.selector") != "tier=batch" {
		t.Errorf("scale = %v", scale)
	}
	object(t, a.Do(t, http.MethodPatch, crontabs+"/nightly/scale", []byte(`{"spec":{"replicas":4}}`), "Content-Type", "application/merge-patch+json"), http.StatusOK)
	got = object(t, a.Do(t, http.MethodGet, crontabs+"/nightly", nil), http.StatusOK)
	if field(got, "spec.replicas") != int64(4) || field(got, "metadata.generation") != int64(3) {
		t.Errorf("after scale: %v; want spec.replicas 4, generation 3", got)
	}

	discovery := object(t, a.Do(t, http.MethodGet, "/apis/stable.example.com/v1", nil), http.StatusOK)
	var served []string
	for _, r := range discovery["resources"].([]any) {
		entry := r.(map[string]any)
		served = append(served, entry["name"].(string))
		if entry["name"] == "crontabs" && (entry["kind"] != "CronTab" || !slices.Contains(toStrings(entry["categories"]), "all") || !slices.Contains(toStrings(entry["shortNames"]), "ct")) {
			t.Errorf("discovery entry = %v", entry)
		}
	}
	if !slices.Equal(served, []string{"crontabs", "crontabs/status", "crontabs/scale"}) {
		t.Errorf("discovery lists %v", served)
	}
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		s, code := getAPIService(t, a, "v1.stable.example.com")
		return code == http.StatusOK && s.Spec.Service == nil && s.Spec.GroupPriorityMinimum == 1000 && s.Spec.VersionPriority == 100 &&
			s.Labels["kube-aggregator.kubernetes.io/automanaged"] == "true", fmt.Sprintf("%d %+v", code, s)
	})
	groups := a.Do(t, http.MethodGet, "/apis", nil, "Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	if !strings.Contains(string(groups.Body), `"stable.example.com"`) {
		t.Errorf("aggregated discovery does not list the group: %s", groups.Body)
	}
}

// toStrings turns a JSON array into strings.
func toStrings(v any) []string {
	var out []string
	items, _ := v.([]any)
	for _, item := range items {
		s, _ := item.(string)
		out = append(out, s)
	}
	return out
}

// TestCustomResourceWatchAndCRDDeletion: a watch sees ADDED, MODIFIED and
// DELETED in order; deleting the CRD marks it Terminating, refuses new
// objects with upstream's 405, deletes every object — waiting for one
// held by its own finalizer — and only then lets the CRD, its paths and
// its APIService go.
func TestCustomResourceWatchAndCRDDeletion(t *testing.T) {
	a := framework.StartAPIServer(t)
	establishCRD(t, a, crontabCRD(nil))

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stream := a.Stream(t, ctx, crontabs+"?watch=1")
	defer stream.Body.Close()
	events := make(chan string, 16)
	go func() {
		lines := bufio.NewScanner(stream.Body)
		for lines.Scan() {
			var ev struct {
				Type   string
				Object map[string]any
			}
			if json.Unmarshal(lines.Bytes(), &ev) == nil {
				events <- ev.Type + " " + fmt.Sprint(field(ev.Object, "metadata.name"))
			}
		}
		close(events)
	}()
	object(t, a.Do(t, http.MethodPost, crontabs, []byte(`{"metadata":{"name":"a"},"spec":{"replicas":1}}`)), http.StatusCreated)
	object(t, a.Do(t, http.MethodPatch, crontabs+"/a", []byte(`{"spec":{"replicas":2}}`), "Content-Type", "application/merge-patch+json"), http.StatusOK)
	a.Do(t, http.MethodDelete, crontabs+"/a", nil)
	for _, want := range []string{"ADDED a", "MODIFIED a", "DELETED a"} {
		select {
		case got := <-events:
			if got != want {
				t.Fatalf("event %q, want %q", got, want)
			}
		case <-ctx.Done():
			t.Fatalf("no %q event", want)
		}
	}

	object(t, a.Do(t, http.MethodPost, crontabs, []byte(`{"metadata":{"name":"free"},"spec":{"replicas":1}}`)), http.StatusCreated)
	object(t, a.Do(t, http.MethodPost, crontabs, []byte(`{"metadata":{"name":"held","finalizers":["example.com/hold"]},"spec":{"replicas":1}}`)), http.StatusCreated)

	resp := a.Do(t, http.MethodDelete, crdPath+"/crontabs.stable.example.com", nil)
	crd := decodeCRD(t, resp.Body)
	if resp.Code != http.StatusOK || crd.DeletionTimestamp == nil || !slices.Contains(crd.Finalizers, api.CustomResourceCleanupFinalizer) || !api.IsCRDConditionTrue(&crd, api.Terminating) {
		t.Fatalf("delete CRD: %d %s; want it marked, with the cleanup finalizer and Terminating", resp.Code, resp.Body)
	}
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		resp := a.Do(t, http.MethodPost, crontabs, []byte(`{"metadata":{"name":"late"}}`))
		return resp.Code == http.StatusMethodNotAllowed && strings.Contains(statusMessage(resp.Body), "create is not allowed while custom resource definition is terminating"),
			fmt.Sprintf("%d %s", resp.Code, resp.Body)
	})
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		free := a.Do(t, http.MethodGet, crontabs+"/free", nil)
		held := object(t, a.Do(t, http.MethodGet, crontabs+"/held", nil), http.StatusOK)
		return free.Code == http.StatusNotFound && field(held, "metadata.deletionTimestamp") != nil, fmt.Sprintf("free %d, held %v", free.Code, held)
	})
	crd = decodeCRD(t, a.Do(t, http.MethodGet, crdPath+"/crontabs.stable.example.com", nil).Body)
	if c := api.FindCRDCondition(&crd, api.Terminating); c == nil || c.Reason != "InstanceDeletionInProgress" {
		t.Errorf("Terminating = %+v while an object is held, want InstanceDeletionInProgress", c)
	}

	object(t, a.Do(t, http.MethodPatch, crontabs+"/held", []byte(`{"metadata":{"finalizers":null}}`), "Content-Type", "application/merge-patch+json"), http.StatusOK)
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		crdResp := a.Do(t, http.MethodGet, crdPath+"/crontabs.stable.example.com", nil)
		list := a.Do(t, http.MethodGet, crontabs, nil)
		disc := a.Do(t, http.MethodGet, "/apis/stable.example.com/v1", nil)
		_, apiService := getAPIService(t, a, "v1.stable.example.com")
		return crdResp.Code == http.StatusNotFound && list.Code == http.StatusNotFound && disc.Code == http.StatusNotFound && apiService == http.StatusNotFound,
			fmt.Sprintf("crd %d, list %d, discovery %d, apiservice %d", crdResp.Code, list.Code, disc.Code, apiService)
	})
}

// TestCRDNameConflictsAndVersions: a second CRD of the group asking for
// a kind already accepted gets NamesAccepted False and is not served (as
// upstream, the condition names the last conflict found, the listKind); a CRD with two served versions stores objects in its
// storage version and serves them in each version's apiVersion, under
// upstream's etcd key.
func TestCRDNameConflictsAndVersions(t *testing.T) {
	a := framework.StartAPIServer(t)
	establishCRD(t, a, crontabCRD(func(c *api.CustomResourceDefinition) {
		v2 := c.Spec.Versions[0]
		v2.Name, v2.Storage = "v2", false
		c.Spec.Versions = append(c.Spec.Versions, v2)
	}))
	resp := a.Do(t, http.MethodPost, crdPath, crontabCRD(func(c *api.CustomResourceDefinition) {
		c.Name, c.Spec.Names.Plural, c.Spec.Names.Singular, c.Spec.Names.ShortNames = "crontabs2.stable.example.com", "crontabs2", "crontab2", nil
	}))
	if resp.Code != http.StatusCreated {
		t.Fatalf("create second CRD: %d %s", resp.Code, resp.Body)
	}
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		crd := decodeCRD(t, a.Do(t, http.MethodGet, crdPath+"/crontabs2.stable.example.com", nil).Body)
		c := api.FindCRDCondition(&crd, api.NamesAccepted)
		established := api.FindCRDCondition(&crd, api.Established)
		return c != nil && c.Status == api.ConditionFalse && c.Reason == "ListKindConflict" && c.Message == `"CronTabList" is already in use` &&
				established != nil && established.Status == api.ConditionFalse && established.Reason == "NotAccepted",
			fmt.Sprintf("%+v", crd.Status.Conditions)
	})
	if resp := a.Do(t, http.MethodGet, "/apis/stable.example.com/v1/crontabs2", nil); resp.Code != http.StatusNotFound {
		t.Errorf("the conflicting CRD is served: %d", resp.Code)
	}

	created := object(t, a.Do(t, http.MethodPost, "/apis/stable.example.com/v2/namespaces/default/crontabs",
		[]byte(`{"apiVersion":"stable.example.com/v2","kind":"CronTab","metadata":{"name":"x"},"spec":{"replicas":1}}`)), http.StatusCreated)
	if created["apiVersion"] != "stable.example.com/v2" {
		t.Errorf("created through v2 = %v", created)
	}
	got := object(t, a.Do(t, http.MethodGet, crontabs+"/x", nil), http.StatusOK)
	if got["apiVersion"] != "stable.example.com/v1" || field(got, "spec.replicas") != int64(1) {
		t.Errorf("read through v1 = %v", got)
	}
	kv, err := a.Server.Store().Get(context.Background(), "/registry/stable.example.com/crontabs/default/x")
	if err != nil || !strings.Contains(string(kv.Value), `"apiVersion":"stable.example.com/v1"`) {
		t.Errorf("stored %s (%v), want it under upstream's key in the storage version", kv.Value, err)
	}
}

// TestCustomResourceAfterRestartPagesAndCollections: a restarted server
// serves the CRDs that were Established as soon as it is ready; lists
// page with limit and continue; deletecollection with a label selector
// deletes the matching objects only.
func TestCustomResourceAfterRestartPagesAndCollections(t *testing.T) {
	dir := t.TempDir()
	first := framework.StartAPIServerIn(t, dir)
	establishCRD(t, first, crontabCRD(nil))
	for i, name := range []string{"a", "b", "c"} {
		body := fmt.Sprintf(`{"metadata":{"name":%q,"labels":{"even":"%t"}},"spec":{"replicas":%d}}`, name, i%2 == 0, i)
		object(t, first.Do(t, http.MethodPost, crontabs, []byte(body)), http.StatusCreated)
	}
	first.Stop()

	a := framework.StartAPIServerIn(t, dir)
	page := object(t, a.Do(t, http.MethodGet, crontabs+"?limit=2", nil), http.StatusOK)
	items, _ := page["items"].([]any)
	next, _ := field(page, "metadata.continue").(string)
	if len(items) != 2 || next == "" || field(page, "metadata.remainingItemCount") != int64(1) {
		t.Fatalf("first page after restart = %v; want 2 items, a continue token and 1 remaining", page)
	}
	rest := object(t, a.Do(t, http.MethodGet, crontabs+"?limit=2&continue="+next, nil), http.StatusOK)
	if items, _ := rest["items"].([]any); len(items) != 1 || field(items[0].(map[string]any), "metadata.name") != "c" {
		t.Errorf("second page = %v, want c", rest)
	}

	object(t, a.Do(t, http.MethodDelete, crontabs+"?labelSelector=even%3Dtrue", nil), http.StatusOK)
	list := object(t, a.Do(t, http.MethodGet, crontabs, nil), http.StatusOK)
	if items, _ := list["items"].([]any); len(items) != 1 || field(items[0].(map[string]any), "metadata.name") != "b" {
		t.Errorf("after deletecollection: %v, want only b", list)
	}
}

// TestCustomResourceRBAC: RBAC rules name a custom resource like any
// other: a Role granting get and list on crontabs lets bob read them and
// nothing else.
func TestCustomResourceRBAC(t *testing.T) {
	a := framework.StartAPIServer(t)
	establishCRD(t, a, crontabCRD(nil))
	object(t, a.Do(t, http.MethodPost, crontabs, []byte(`{"metadata":{"name":"x"},"spec":{"replicas":1}}`)), http.StatusCreated)
	bob := a.TokenFor(t, auth.User{Name: "bob"})
	if resp := a.DoWithToken(t, bob, http.MethodGet, crontabs+"/x", nil); resp.Code != http.StatusForbidden {
		t.Fatalf("bob before the Role: %d %s, want 403", resp.Code, resp.Body)
	}
	object(t, a.Do(t, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", []byte(`{"metadata":{"name":"crontab-reader"},
		"rules":[{"apiGroups":["stable.example.com"],"resources":["crontabs"],"verbs":["get","list"]}]}`)), http.StatusCreated)
	object(t, a.Do(t, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", []byte(`{"metadata":{"name":"bob-reads"},
		"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"crontab-reader"},"subjects":[{"kind":"User","name":"bob"}]}`)), http.StatusCreated)
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		resp := a.DoWithToken(t, bob, http.MethodGet, crontabs+"/x", nil)
		return resp.Code == http.StatusOK, fmt.Sprintf("%d %s", resp.Code, resp.Body)
	})
	if resp := a.DoWithToken(t, bob, http.MethodDelete, crontabs+"/x", nil); resp.Code != http.StatusForbidden {
		t.Errorf("bob deleting: %d %s, want 403", resp.Code, resp.Body)
	}
}
