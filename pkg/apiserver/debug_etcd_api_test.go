package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/apiserver"
	"kplane/pkg/client"
	"kplane/pkg/debug"
	"kplane/test/framework"
)

// debugAPI starts an apiserver with a journal and serves the journal's
// debug API (with the etcd routes the apiserver registered on it).
func debugAPI(t *testing.T) (*framework.APIServer, *debug.Journal, *debug.Client, debug.Endpoint) {
	t.Helper()
	j := debug.NewJournal("apiserver", 0, nil)
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) { o.Journal = j })
	srv := httptest.NewServer(j.Handler(nil, false))
	t.Cleanup(srv.Close)
	return a, j, &debug.Client{}, debug.Endpoint{Component: "apiserver", URL: srv.URL}
}

// updateConfigMap sets data[k]=v and returns the resourceVersion the API
// answered.
func updateConfigMap(t *testing.T, c *client.Client, cm *api.ConfigMap, value string) *api.ConfigMap {
	t.Helper()
	cm.Data = map[string]string{"k": value}
	out, err := c.ConfigMaps("default").Update(context.Background(), cm, client.UpdateOptions{})
	if err != nil {
		t.Fatalf("update configmap to %s: %v", value, err)
	}
	return out
}

// TestEtcdHistoryRevisionsAreResourceVersions: a ConfigMap created and
// updated three times has four revisions in etcd, each the resourceVersion
// the API answered with; after the compaction fault the history starts at
// the compaction point, which keeps the last value.
func TestEtcdHistoryRevisionsAreResourceVersions(t *testing.T) {
	a, j, dc, ep := debugAPI(t)
	c := a.Client(t, nil)
	ctx := context.Background()

	cm, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "app"}, Data: map[string]string{"k": "v0"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rvs := []string{cm.ResourceVersion}
	for i := 1; i <= 3; i++ {
		cm = updateConfigMap(t, c, cm, fmt.Sprintf("v%d", i))
		rvs = append(rvs, cm.ResourceVersion)
	}

	const key = "/registry/configmaps/default/app"
	var h debug.EtcdHistory
	if err := dc.Get(ctx, ep, debug.PathEtcdHistory+"?key="+key, &h); err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, r := range h.Revisions {
		var obj api.ConfigMap
		if err := json.Unmarshal(r.Value, &obj); err != nil {
			t.Fatalf("revision %d's value is not the ConfigMap's JSON: %v", r.Revision, err)
		}
		got = append(got, fmt.Sprintf("%s %s %s", r.Event, r.ResourceVersion, obj.Data["k"]))
		if fmt.Sprint(r.Revision) != r.ResourceVersion || r.Version != int64(i+1) {
			t.Errorf("revision %d: resourceVersion %q, version %d; want the same number and version %d", r.Revision, r.ResourceVersion, r.Version, i+1)
		}
	}
	want := []string{"create " + rvs[0] + " v0", "update " + rvs[1] + " v1", "update " + rvs[2] + " v2", "update " + rvs[3] + " v3"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("history = %q, want %q (the resourceVersions the API returned)", got, want)
	}

	var compacted debug.CompactResult
	if err := dc.Post(ctx, ep, debug.PathFaultCompact, nil, &compacted); err != nil {
		t.Fatal(err)
	}
	if last, _ := strconv.ParseInt(rvs[3], 10, 64); compacted.Revision <= last {
		t.Fatalf("compacted at %d, not past the last resourceVersion %s", compacted.Revision, rvs[3])
	}
	var after debug.EtcdHistory
	if err := dc.Get(ctx, ep, debug.PathEtcdHistory+"?key="+key, &after); err != nil {
		t.Fatal(err)
	}
	if after.CompactRevision != compacted.Revision || len(after.Revisions) != 0 ||
		after.AtCompaction == nil || after.AtCompaction.ResourceVersion != rvs[3] || after.AtCompaction.Event != "" {
		t.Fatalf("history after the compaction = %+v; want it to start at %d with only the value of resourceVersion %s kept", after, compacted.Revision, rvs[3])
	}

	records, _ := j.After(0)
	var events []string
	for _, r := range records {
		if r.Type == debug.TypeEvent {
			events = append(events, r.Message)
		}
	}
	wantEvent := fmt.Sprintf("compacted etcd at revision %d; dropped %d watches", compacted.Revision, compacted.DroppedWatches)
	if len(events) != 1 || events[0] != wantEvent {
		t.Errorf("journal events = %q, want [%q]", events, wantEvent)
	}
}

// TestEtcdKeysAndGet: keys come in pages with a continue token read at one
// revision, each with the revisions and version the object has; get gives
// the stored JSON; bad requests get a Status.
func TestEtcdKeysAndGet(t *testing.T) {
	a, _, dc, ep := debugAPI(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	first, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "a"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first = updateConfigMap(t, c, first, "x")
	second, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "b"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	var page1, page2 debug.EtcdKeyList
	if err := dc.Get(ctx, ep, debug.PathEtcdKeys+"?prefix=/registry/configmaps/default/&limit=1", &page1); err != nil {
		t.Fatal(err)
	}
	if len(page1.Keys) != 1 || page1.Continue == "" || page1.RemainingKeys != 1 {
		t.Fatalf("first page = %+v, want one key, a continue token and one key remaining", page1)
	}
	if err := dc.Get(ctx, ep, debug.PathEtcdKeys+"?prefix=/registry/configmaps/default/&limit=1&continue="+page1.Continue, &page2); err != nil {
		t.Fatal(err)
	}
	if len(page2.Keys) != 1 || page2.Continue != "" || page2.Revision != page1.Revision {
		t.Fatalf("second page = %+v, want the last key, no continue, read at the first page's revision %d", page2, page1.Revision)
	}
	a1, b1 := page1.Keys[0], page2.Keys[0]
	if a1.Key != "/registry/configmaps/default/a" || fmt.Sprint(a1.ModRevision) != first.ResourceVersion || a1.Version != 2 || a1.CreateRevision >= a1.ModRevision {
		t.Errorf("key a = %+v, want mod revision %s, version 2, created earlier", a1, first.ResourceVersion)
	}
	if b1.Key != "/registry/configmaps/default/b" || fmt.Sprint(b1.ModRevision) != second.ResourceVersion || b1.Version != 1 || b1.ValueSize == 0 {
		t.Errorf("key b = %+v, want mod revision %s, version 1, a value", b1, second.ResourceVersion)
	}

	var value debug.EtcdValue
	if err := dc.Get(ctx, ep, debug.PathEtcdGet+"?key=/registry/configmaps/default/a", &value); err != nil {
		t.Fatal(err)
	}
	var obj api.ConfigMap
	if err := json.Unmarshal(value.Value, &obj); err != nil || obj.Name != "a" || obj.Data["k"] != "x" || value.Version != 2 {
		t.Errorf("get = %+v (%v), want the ConfigMap a with k=x at version 2", value, err)
	}

	for path, want := range map[string]string{
		debug.PathEtcdGet + "?key=/registry/configmaps/default/none": "not found in etcd (404)",
		debug.PathEtcdGet:                         "the key parameter is required",
		debug.PathEtcdHistory:                     "the key parameter is required",
		debug.PathEtcdKeys + "?limit=-1":          "limit must be a number",
		debug.PathEtcdKeys + "?continue=nonsense": "is not one this server handed out (400)",
	} {
		var v any
		if err := dc.Get(ctx, ep, path, &v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("GET %s: %v, want an error containing %q", path, err, want)
		}
	}
}

// TestCompactFaultDropsWatchesAndOldResourceVersionsGetGone: a watch open
// during the fault ends; watching again from its resourceVersion gives an
// ERROR event with a 410 Expired Status, as upstream answers.
func TestCompactFaultDropsWatchesAndOldResourceVersionsGetGone(t *testing.T) {
	a, _, dc, ep := debugAPI(t)
	c := a.Client(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cm, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "app"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=" + cm.ResourceVersion
	open := a.Stream(t, ctx, path)
	defer open.Body.Close()
	if open.StatusCode != http.StatusOK {
		t.Fatalf("watch: %s", open.Status)
	}

	var result debug.CompactResult
	if err := dc.Post(ctx, ep, debug.PathFaultCompact, nil, &result); err != nil {
		t.Fatal(err)
	}
	if result.DroppedWatches < 1 {
		t.Errorf("dropped %d watches, want at least the one open", result.DroppedWatches)
	}
	lines := bufio.NewScanner(open.Body)
	for lines.Scan() {
		t.Errorf("the dropped watch sent %s; it should just end", lines.Text())
	}

	again := a.Stream(t, ctx, path)
	defer again.Body.Close()
	var ev struct {
		Type   string
		Object struct {
			Code   int
			Reason string
		}
	}
	if err := json.NewDecoder(again.Body).Decode(&ev); err != nil {
		t.Fatalf("watch from the compacted resourceVersion: %v", err)
	}
	if ev.Type != "ERROR" || ev.Object.Code != http.StatusGone || ev.Object.Reason != "Expired" {
		t.Fatalf("watch from the compacted resourceVersion %s got %+v, want an ERROR event with a 410 Expired Status", cm.ResourceVersion, ev)
	}

	// An informer now relists "not older than" its resourceVersion and
	// watches from the list's: that must not be compacted too, or a quiet
	// resource's informer would relist forever.
	list, err := c.ConfigMaps("default").List(ctx, client.ListOptions{ResourceVersion: cm.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	if listed, _ := strconv.ParseInt(list.ResourceVersion, 10, 64); listed < result.Revision {
		t.Fatalf("relist answered at resourceVersion %s, older than the compaction at %d", list.ResourceVersion, result.Revision)
	}
	w, err := c.ConfigMaps("default").Watch(ctx, client.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "next"}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := <-w.ResultChan(); got.Type != client.Added || got.Object.GetObjectMeta().Name != "next" {
		t.Fatalf("watch from the relist's resourceVersion %s got %+v, want ADDED next", list.ResourceVersion, got)
	}
}
