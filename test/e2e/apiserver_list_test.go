package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"kplane/test/framework"
)

// TestListFeatures: pagination, label and field selectors, dry run,
// deletecollection and server-side tables.
func TestListFeatures(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	for i := 0; i < 7; i++ {
		tier := "web"
		if i%2 == 1 {
			tier = "db"
		}
		mustOK(t, a.Do(t, "POST", "/api/v1/namespaces/default/pods", podJSON(fmt.Sprintf("p%d", i), map[string]string{"tier": tier})), 201)
	}
	mustOK(t, a.Do(t, "POST", "/api/v1/namespaces/default/pods/p3/binding",
		[]byte(`{"metadata":{"name":"p3"},"target":{"kind":"Node","name":"node1"}}`)), 201)

	// Pagination: pages of 3 with continue tokens, same revision throughout.
	var names []string
	cont, rv := "", ""
	for page := 0; ; page++ {
		list := decodeMap(t, mustOK(t, a.Do(t, "GET", "/api/v1/namespaces/default/pods?limit=3&continue="+url.QueryEscape(cont), nil), 200))
		for _, item := range list["items"].([]any) {
			names = append(names, path(item, "metadata", "name").(string))
		}
		if page == 0 {
			rv = path(list, "metadata", "resourceVersion").(string)
			if path(list, "metadata", "remainingItemCount") != 4.0 {
				t.Errorf("remainingItemCount = %v, want 4", path(list, "metadata", "remainingItemCount"))
			}
		} else if got := path(list, "metadata", "resourceVersion"); got != rv {
			t.Errorf("page %d resourceVersion %v, want %v", page, got, rv)
		}
		cont, _ = path(list, "metadata", "continue").(string)
		if cont == "" {
			break
		}
		// A write between pages must not change what later pages show.
		if page == 0 {
			mustOK(t, a.Do(t, "POST", "/api/v1/namespaces/default/pods", podJSON("p9", nil)), 201)
		}
	}
	if strings.Join(names, ",") != "p0,p1,p2,p3,p4,p5,p6" {
		t.Errorf("paged names = %v", names)
	}

	count := func(query string) int {
		list := decodeMap(t, mustOK(t, a.Do(t, "GET", "/api/v1/namespaces/default/pods?"+query, nil), 200))
		return len(list["items"].([]any))
	}
	for query, want := range map[string]int{
		"labelSelector=" + url.QueryEscape("tier=web"):                               4,
		"labelSelector=" + url.QueryEscape("tier in (db)"):                           3,
		"labelSelector=" + url.QueryEscape("!tier"):                                  1,
		"fieldSelector=" + url.QueryEscape("spec.nodeName=node1"):                    1,
		"fieldSelector=" + url.QueryEscape("spec.nodeName="):                         7,
		"fieldSelector=" + url.QueryEscape("metadata.name!=p0,status.phase=Pending"): 7,
	} {
		if got := count(query); got != want {
			t.Errorf("%s: %d items, want %d", query, got, want)
		}
	}

	// Dry run: the answer looks created, nothing is stored.
	mustOK(t, a.Do(t, "POST", "/api/v1/namespaces/default/configmaps?dryRun=All", []byte(`{"metadata":{"name":"dry"}}`)), 201)
	if r := a.Do(t, "GET", "/api/v1/namespaces/default/configmaps/dry", nil); r.Code != 404 {
		t.Errorf("dry-run object was stored: %d", r.Code)
	}

	// Tables: columns and rows, with metadata-only row objects by default.
	table := decodeMap(t, mustOK(t, a.Do(t, "GET", "/api/v1/namespaces/default/pods?labelSelector=tier%3Ddb", nil,
		"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"), 200))
	if table["kind"] != "Table" || path(table, "columnDefinitions", 0, "name") != "Name" || len(table["rows"].([]any)) != 3 {
		t.Errorf("table: %v", table)
	}
	if path(table, "rows", 0, "object", "kind") != "PartialObjectMetadata" || path(table, "rows", 0, "cells", 2) != "Pending" {
		t.Errorf("table row: %v", path(table, "rows", 0))
	}

	// deletecollection with a selector removes exactly the matching pods.
	mustOK(t, a.Do(t, "DELETE", "/api/v1/namespaces/default/pods?labelSelector=tier%3Dweb", nil), 200)
	if got := count(""); got != 4 {
		t.Errorf("after deletecollection %d pods, want 4 (3 db + p9)", got)
	}
}

// TestWatchBookmarksAndTimeout: allowWatchBookmarks brings BOOKMARK events
// with a resourceVersion; timeoutSeconds ends the stream.
func TestWatchBookmarksAndTimeout(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	list := decodeMap(t, mustOK(t, a.Do(t, "GET", "/api/v1/namespaces/default/configmaps", nil), 200))
	rv := path(list, "metadata", "resourceVersion").(string)
	resp := a.Stream(t, ctx, "/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion="+rv)
	defer resp.Body.Close()
	// A write elsewhere moves the store's revision; the bookmark reports it.
	mustOK(t, a.Do(t, "POST", "/api/v1/namespaces/default/secrets", []byte(`{"metadata":{"name":"s"}}`)), 201)
	events := readEvents(t, resp, 1, 10*time.Second)
	got, _ := strconv.Atoi(events[0].Object.Metadata.ResourceVersion)
	start, _ := strconv.Atoi(rv)
	if events[0].Type != "BOOKMARK" || events[0].Object.Kind != "ConfigMap" || got <= start {
		t.Errorf("first event %+v, want a ConfigMap BOOKMARK past %s", events[0], rv)
	}

	began := time.Now()
	short := a.Stream(t, ctx, "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1")
	defer short.Body.Close()
	if got := readEvents(t, short, 100, 10*time.Second); len(got) != 0 {
		t.Errorf("events on an idle watch: %+v", got)
	}
	if elapsed := time.Since(began); elapsed > 8*time.Second {
		t.Errorf("timeoutSeconds=1 watch lasted %v", elapsed)
	}
}
