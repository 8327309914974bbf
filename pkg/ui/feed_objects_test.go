package ui

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
	"kplane/test/framework/fakeapi"
)

// TestObjectFeedFillsTheHubFromInformers runs the feed's informers against
// fakeapi (which serves lists; its watches fail and are retried quietly)
// and checks that the first list reaches the Hub with kinds and edges, custom
// resources included once their definition is listed.
func TestObjectFeedFillsTheHubFromInformers(t *testing.T) {
	// fakeapi has no CustomResourceDefinitions of its own: serve them as a
	// custom resource, with none stored.
	crontabs := client.Resource{Group: "stable.example.com", Version: "v1", Resource: "crontabs", Kind: "CronTab", Namespaced: true}
	server := fakeapi.New(t, fakeapi.WithCustomResource(customResourceDefinitions), fakeapi.WithCustomResource(crontabs))
	controller := true
	rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web-abc", Namespace: "default", UID: "rs-1"}}
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web-abc-1", Namespace: "default", UID: "pod-1",
		OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-abc", UID: "rs-1", Controller: &controller}}}}
	// A CustomResourceDefinition and one of its objects, owned by the
	// ReplicaSet: the feed discovers the kind from the definition.
	definition := crd(t, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"crontabs.stable.example.com","uid":"crd-1"},
		"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"crontabs","kind":"CronTab"},"versions":[{"name":"v1","served":true,"storage":true}]}}`)
	cronTab := crd(t, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"backup","namespace":"default","uid":"ct-1",
		"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-abc","uid":"rs-1"}]},"spec":{"cronSpec":"0 3 * * *"}}`)
	server.Add(t, rs, pod, definition, cronTab)

	hub := NewHub()
	feed := newObjectFeed(server.Client(), hub, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- feed.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("feed.Run: %v", err)
		}
	}()

	framework.Eventually(t, time.Minute, func() (bool, string) {
		current, _, _, ok := hub.Versions("pod-1")
		if !ok {
			return false, "the hub has no pod-1"
		}
		if _, _, _, ok := hub.Versions("rs-1"); !ok {
			return false, "the hub has no rs-1"
		}
		if current.Kind != "Pod" || current.Object["kind"] != "Pod" || current.Object["apiVersion"] != "v1" {
			return false, "pod-1 without its kind: " + current.Kind
		}
		if len(current.Edges) != 1 || current.Edges[0] != (Edge{From: "rs-1", To: "pod-1", Relation: RelationOwns}) {
			return false, "pod-1's edges are wrong"
		}
		custom, _, _, ok := hub.Versions("ct-1")
		if !ok {
			return false, "the hub has no custom resource ct-1"
		}
		if custom.Kind != "CronTab" || len(custom.Edges) != 1 || custom.Edges[0].From != "rs-1" {
			return false, "ct-1 has the wrong kind or edges"
		}
		return true, ""
	})
}
