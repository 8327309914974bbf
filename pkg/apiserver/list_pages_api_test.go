package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// rawList is a list response with its items kept as the bytes the server
// sent, so that pages can be compared with another list exactly.
type rawList struct {
	Metadata api.ListMeta      `json:"metadata"`
	Items    []json.RawMessage `json:"items"`
}

// getList GETs path and decodes a list, failing on any other answer.
func getList(t *testing.T, a *framework.APIServer, path string) rawList {
	t.Helper()
	resp := a.Do(t, http.MethodGet, path, nil)
	if resp.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.Code, resp.Body)
	}
	var l rawList
	if err := json.Unmarshal(resp.Body, &l); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return l
}

// namesOf returns the metadata.name of each raw item.
func namesOf(t *testing.T, items []json.RawMessage) string {
	t.Helper()
	names := make([]string, len(items))
	for i, item := range items {
		var obj struct {
			Metadata api.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(item, &obj); err != nil {
			t.Fatal(err)
		}
		names[i] = obj.Metadata.Name
	}
	return strings.Join(names, ",")
}

// TestPagedLists runs the list tests below on one apiserver (one start
// instead of three), the compaction last.
func TestPagedLists(t *testing.T) {
	a := framework.StartAPIServer(t)
	t.Run("PagesShowTheFirstPagesRevision", func(t *testing.T) { pagesShowTheFirstPagesRevision(t, a) })
	t.Run("OneNodesPods", func(t *testing.T) { listOneNodesPods(t, a) })
	t.Run("ContinueTokenExpiresWithCompaction", func(t *testing.T) { continueTokenExpiresWithCompaction(t, a) })
}

// pagesShowTheFirstPagesRevision: every page of a paginated LIST
// shows the list as of the first page's resourceVersion, whatever was
// written between the pages — an object created since does not appear, one
// updated since appears as it was, one deleted since still appears — and
// the pages together are exactly the list at that resourceVersion
// (resourceVersionMatch=Exact, read from etcd). remainingItemCount counts
// what the later pages hold; a label selector pages the same way, without
// a count.
func pagesShowTheFirstPagesRevision(t *testing.T, a *framework.APIServer) {
	c := a.Client(t, nil)
	ctx := context.Background()
	cms := c.ConfigMaps("default")
	for i := range 10 {
		tier := "web"
		if i%2 == 1 {
			tier = "db"
		}
		cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("cm%02d", i), Labels: map[string]string{"tier": tier}}, Data: map[string]string{"v": "0"}}
		if _, err := cms.Create(ctx, cm, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	const base = "/api/v1/namespaces/default/configmaps"

	first := getList(t, a, base+"?limit=4")
	rv := first.Metadata.ResourceVersion
	if got := namesOf(t, first.Items); got != "cm00,cm01,cm02,cm03" || first.Metadata.Continue == "" {
		t.Fatalf("first page %s, continue %q", got, first.Metadata.Continue)
	}
	if r := first.Metadata.RemainingItemCount; r == nil || *r != 6 {
		t.Errorf("first page remainingItemCount %v, want 6", r)
	}
	dbFirst := getList(t, a, base+"?limit=2&labelSelector=tier%3Ddb")

	// Writes between the pages: after the first page's key range and inside it.
	if _, err := cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm10", Labels: map[string]string{"tier": "db"}}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm05, err := cms.Get(ctx, "cm05", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm05.Data = map[string]string{"v": "1"}
	if _, err := cms.Update(ctx, cm05, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "cm07", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	second := getList(t, a, base+"?limit=4&continue="+url.QueryEscape(first.Metadata.Continue))
	last := getList(t, a, base+"?limit=4&continue="+url.QueryEscape(second.Metadata.Continue))
	if got := namesOf(t, second.Items) + "|" + namesOf(t, last.Items); got != "cm04,cm05,cm06,cm07|cm08,cm09" {
		t.Errorf("later pages %s, want cm04,cm05,cm06,cm07|cm08,cm09 (cm07 deleted since, cm10 created since)", got)
	}
	if r := second.Metadata.RemainingItemCount; r == nil || *r != 2 {
		t.Errorf("second page remainingItemCount %v, want 2", r)
	}
	if last.Metadata.Continue != "" || last.Metadata.RemainingItemCount != nil {
		t.Errorf("last page continue %q remaining %v, want neither", last.Metadata.Continue, last.Metadata.RemainingItemCount)
	}
	for _, page := range []rawList{second, last} {
		if page.Metadata.ResourceVersion != rv {
			t.Errorf("a later page's resourceVersion %s, want the first page's %s", page.Metadata.ResourceVersion, rv)
		}
	}

	exact := getList(t, a, base+"?resourceVersionMatch=Exact&resourceVersion="+rv)
	var paged []json.RawMessage
	for _, page := range []rawList{first, second, last} {
		paged = append(paged, page.Items...)
	}
	if len(paged) != len(exact.Items) {
		t.Fatalf("pages hold %d items, the list at %s %d", len(paged), rv, len(exact.Items))
	}
	for i := range paged {
		if string(paged[i]) != string(exact.Items[i]) {
			t.Errorf("item %d of the pages differs from the list at %s:\n%s\n%s", i, rv, paged[i], exact.Items[i])
		}
	}

	var dbNames []string
	for page, pages := dbFirst, 0; ; pages++ {
		if page.Metadata.RemainingItemCount != nil {
			t.Errorf("a label-selected page has remainingItemCount %d", *page.Metadata.RemainingItemCount)
		}
		if page.Metadata.ResourceVersion != dbFirst.Metadata.ResourceVersion {
			t.Errorf("a label-selected page at %s, the first at %s", page.Metadata.ResourceVersion, dbFirst.Metadata.ResourceVersion)
		}
		dbNames = append(dbNames, namesOf(t, page.Items))
		if page.Metadata.Continue == "" || pages > 5 {
			break
		}
		page = getList(t, a, base+"?limit=2&labelSelector=tier%3Ddb&continue="+url.QueryEscape(page.Metadata.Continue))
	}
	if got := strings.Join(dbNames, "|"); got != "cm01,cm03|cm05,cm07|cm09" {
		t.Errorf("label-selected pages %s, want cm01,cm03|cm05,cm07|cm09", got)
	}
}

// continueTokenExpiresWithCompaction: once etcd has compacted
// the first page's revision, the next page is 410 Gone, reason Expired, with
// upstream's message — even though the watch cache could still rebuild that
// revision from its history.
func continueTokenExpiresWithCompaction(t *testing.T, a *framework.APIServer) {
	c := a.Client(t, nil)
	ctx := context.Background()
	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "expiry"}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := c.ConfigMaps("expiry").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("cm%d", i)}}, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	const base = "/api/v1/namespaces/expiry/configmaps"
	first := getList(t, a, base+"?limit=1")
	if _, err := c.ConfigMaps("expiry").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "later"}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	current, err := a.Store().CurrentRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rv, _ := strconv.ParseInt(first.Metadata.ResourceVersion, 10, 64); rv >= current {
		t.Fatalf("the first page's revision %d is not older than the store's %d", rv, current)
	}
	if err := a.Store().Compact(ctx, current); err != nil {
		t.Fatal(err)
	}

	resp := a.Do(t, http.MethodGet, base+"?limit=1&continue="+url.QueryEscape(first.Metadata.Continue), nil)
	var status api.Status
	if err := json.Unmarshal(resp.Body, &status); err != nil {
		t.Fatalf("answer %d %s: %v", resp.Code, resp.Body, err)
	}
	if resp.Code != http.StatusGone || status.Code != http.StatusGone || status.Reason != "Expired" ||
		!strings.Contains(status.Message, "The provided continue parameter is too old") {
		t.Errorf("next page after compaction: %d %+v, want 410 Expired, the continue parameter too old", resp.Code, status)
	}
}

// listOneNodesPods: a LIST with fieldSelector=spec.nodeName=X (a
// kubelet's, answered through the watch cache's index of pods by node)
// returns that node's pods in the namespace asked, in key order, paged by
// limit without a remainingItemCount, and leaves out a deleted pod.
func listOneNodesPods(t *testing.T, a *framework.APIServer) {
	c := a.Client(t, nil)
	ctx := context.Background()
	for _, ns := range []string{"a", "b"} {
		if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}}, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 12 {
		ns := []string{"a", "b"}[i%2]
		pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%02d", i)}, Spec: api.PodSpec{
			NodeName:   fmt.Sprintf("n%d", i%3),
			Containers: []api.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}},
		}}
		if _, err := c.Pods(ns).Create(ctx, pod, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Pods("a").Delete(ctx, "p06", client.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	// n0 holds p00 p03 p06 p09; a holds the even ones; p06 is deleted.
	all := getList(t, a, "/api/v1/pods?fieldSelector=spec.nodeName%3Dn0")
	inA := getList(t, a, "/api/v1/namespaces/a/pods?fieldSelector=spec.nodeName%3Dn0")
	if got := namesOf(t, all.Items) + "|" + namesOf(t, inA.Items); got != "p00,p03,p09|p00" {
		t.Errorf("n0's pods (all namespaces | namespace a): %s, want p00,p03,p09|p00", got)
	}
	first := getList(t, a, "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&limit=2")
	if got := namesOf(t, first.Items); got != "p04,p10" || first.Metadata.Continue == "" || first.Metadata.RemainingItemCount != nil {
		t.Fatalf("n1's first page %s, continue %q, remaining %v; want p04,p10 (namespace a first), a token, no count", got, first.Metadata.Continue, first.Metadata.RemainingItemCount)
	}
	rest := getList(t, a, "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&limit=2&continue="+url.QueryEscape(first.Metadata.Continue))
	if got := namesOf(t, rest.Items); got != "p01,p07" || rest.Metadata.Continue != "" {
		t.Errorf("n1's second page %s, continue %q; want p01,p07 and the end", got, rest.Metadata.Continue)
	}
}
