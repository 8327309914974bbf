package debug

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"
)

// fakeDropper stands for one informer factory.
type fakeDropper struct {
	resources []string
	calls     int
}

func (f *fakeDropper) DropWatches() []string { f.calls++; return f.resources }

func TestDropWatchRouteAsksEveryRegisteredFactory(t *testing.T) {
	j := NewJournal("scheduler", 10, nil)
	pods := &fakeDropper{resources: []string{"pods"}}
	nodes := &fakeDropper{resources: []string{"nodes", "pods"}}
	j.RegisterWatches(pods)
	j.RegisterWatches(nodes)
	srv := httptest.NewServer(j.Handler(nil, false))
	defer srv.Close()

	var got DropWatchResult
	if err := (&Client{}).Post(context.Background(), Endpoint{Component: "scheduler", URL: srv.URL}, PathFaultDropWatch, struct{}{}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Component != "scheduler" || !slices.Equal(got.Resources, []string{"nodes", "pods"}) || pods.calls != 1 || nodes.calls != 1 {
		t.Errorf("answer %+v after %d and %d calls; want scheduler's nodes and pods, each factory asked once", got, pods.calls, nodes.calls)
	}
	records, _ := j.After(0)
	if len(records) != 1 || records[0].Type != TypeEvent || records[0].Stage != "drop-watch" {
		t.Errorf("records %+v, want one drop-watch event", records)
	}
}

func TestDropWatchWithoutInformersSaysSo(t *testing.T) {
	j := NewJournal("apiserver", 10, nil)
	srv := httptest.NewServer(j.Handler(nil, false))
	defer srv.Close()
	var got DropWatchResult
	if err := (&Client{}).Post(context.Background(), Endpoint{Component: "apiserver", URL: srv.URL}, PathFaultDropWatch, struct{}{}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Resources == nil || len(got.Resources) != 0 {
		t.Errorf("answer %+v, want an empty (not null) list of resources", got)
	}
}
