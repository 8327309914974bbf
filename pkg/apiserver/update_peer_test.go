package apiserver_test

import (
	"context"
	"fmt"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// TestUnpinnedPutThroughALaggingPeerSucceeds: a PUT without a
// resourceVersion means "replace whatever is there", so it never answers
// 409, even when it arrives at an apiserver whose watch cache has not yet
// seen the write another apiserver just made. That apiserver's first
// attempt starts from its stale cached copy and loses the compare-and-swap;
// the retry must start again from the body the client sent, not from the
// first attempt's copy, which carries the stale resourceVersion as if the
// client had pinned it. Repeated, so that a lag shows.
func TestUnpinnedPutThroughALaggingPeerSucceeds(t *testing.T) {
	first, second, _ := startPeers(t)
	writer, replacer := first.Client(t, nil), second.Client(t, nil)
	ctx := context.Background()
	if _, err := writer.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "replaced"}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	unpinned := func(data string) *api.ConfigMap {
		return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "replaced", Namespace: "default"}, Data: map[string]string{"by": data}}
	}
	for i := range 150 {
		if _, err := writer.ConfigMaps("default").Update(ctx, unpinned(fmt.Sprintf("first-%d", i)), client.UpdateOptions{}); err != nil {
			t.Fatalf("round %d: unpinned PUT through the first apiserver: %v", i, err)
		}
		want := fmt.Sprintf("second-%d", i)
		got, err := replacer.ConfigMaps("default").Update(ctx, unpinned(want), client.UpdateOptions{})
		if err != nil {
			t.Fatalf("round %d: unpinned PUT through the second apiserver right after: %v, want it to replace the object", i, err)
		}
		if got.Data["by"] != want {
			t.Fatalf("round %d: the second PUT answered data %v, want by=%s", i, got.Data, want)
		}
	}
}
