package clusterroleaggregation

import (
	"context"
	"log/slog"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/events"
	"kplane/test/framework/fakeapi"
)

// Fixture tests: ClusterRoles go into the fake apiserver and the
// informer's cache, one sync runs, and the test lists the writes.

func newController(t *testing.T, server *fakeapi.Server) *Controller {
	t.Helper()
	ctrl, err := New(server.Client(), server.Informers(), &events.FakeRecorder{}, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.queue.ShutDown)
	return ctrl
}

func TestSyncWritesTheUnion(t *testing.T) {
	server := fakeapi.New(t)
	ctrl := newController(t, server)
	server.Put(t, aggregated("view", toView),
		labelled("a", toView, verbsOn("pods", "get")),
		labelled("b", toView, verbsOn("services", "get")))

	if err := ctrl.sync(context.Background(), "view"); err != nil {
		t.Fatal(err)
	}
	server.ExpectActions(t, "update clusterroles view")
	sent := fakeapi.Sent[*api.ClusterRole](t, server, "update clusterroles view")
	if len(sent.Rules) != 2 || sent.Rules[0].Resources[0] != "pods" || sent.Rules[1].Resources[0] != "services" {
		t.Fatalf("update sent rules %+v", sent.Rules)
	}
	if sent.AggregationRule == nil {
		t.Fatal("the update dropped the aggregationRule")
	}
}

func TestSyncNoWriteWhenUpToDate(t *testing.T) {
	server := fakeapi.New(t)
	ctrl := newController(t, server)
	view := aggregated("view", toView)
	view.Rules = []api.PolicyRule{verbsOn("pods", "get")}
	server.Put(t, view, labelled("a", toView, verbsOn("pods", "get")))
	if err := ctrl.sync(context.Background(), "view"); err != nil {
		t.Fatal(err)
	}
	server.ExpectActions(t)
}

func TestSyncIgnoresRolesWithoutAggregation(t *testing.T) {
	server := fakeapi.New(t)
	ctrl := newController(t, server)
	server.Put(t, labelled("plain", toView, verbsOn("pods", "get")))
	for _, key := range []string{"plain", "gone"} {
		if err := ctrl.sync(context.Background(), key); err != nil {
			t.Fatalf("sync %s: %v", key, err)
		}
	}
	server.ExpectActions(t)
}
