package apiserver_test

import (
	"context"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/apiserver"
	"kplane/pkg/client"
	"kplane/pkg/debug"
	"kplane/test/framework"
)

// TestJournalRecordsStoredWritesAndFanout: with a debug journal, each
// stored write is a write record carrying the API verb, the user, the
// object's uid and owners, and as resourceVersion the revision the API
// answered with; each change handed to watchers is a "fanout" trace record
// that counts them.
func TestJournalRecordsStoredWritesAndFanout(t *testing.T) {
	j := debug.NewJournal("apiserver", 1000, nil)
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) { o.Journal = j })
	c := a.Client(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, start := j.After(0)

	// One watcher of the namespace's ConfigMaps, open before the writes.
	w, err := c.ConfigMaps("default").Watch(ctx, client.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	owner := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "owner", Namespace: "default"}}
	owner, err = c.ConfigMaps("default").Create(ctx, owner, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dependent := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "dependent", Namespace: "default",
		OwnerReferences: []api.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}}}}
	dependent, err = c.ConfigMaps("default").Create(ctx, dependent, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	patched, err := c.ConfigMaps("default").Patch(ctx, "dependent", client.MergePatchType, []byte(`{"data":{"a":"1"}}`), client.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "dry", Namespace: "default"}},
		client.CreateOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	// The watcher has seen the patch: its fan-out is recorded by now.
	for ev := range w.ResultChan() {
		if ev.Object.GetObjectMeta().ResourceVersion == patched.ResourceVersion {
			break
		}
	}

	records, _ := j.After(start)
	var writes, fanouts []debug.Record
	for _, r := range records {
		if r.Resource != "configmaps" {
			continue
		}
		switch {
		case r.Type == debug.TypeWrite:
			writes = append(writes, r)
		case r.Stage == "fanout":
			fanouts = append(fanouts, r)
		}
	}
	want := []struct{ stage, key, rv, uid string }{
		{"create", "default/owner", owner.ResourceVersion, owner.UID},
		{"create", "default/dependent", dependent.ResourceVersion, dependent.UID},
		{"patch", "default/dependent", patched.ResourceVersion, dependent.UID},
	}
	if len(writes) != len(want) {
		t.Fatalf("write records %+v, want %d (the dry run stores nothing)", writes, len(want))
	}
	for i, wr := range want {
		got := writes[i]
		if got.Stage != wr.stage || got.Key != wr.key || got.ResourceVersion != wr.rv || got.UID != wr.uid || got.Actor != "kubernetes-admin" {
			t.Errorf("write %d = %+v; want stage %s key %s rv %s uid %s by kubernetes-admin", i, got, wr.stage, wr.key, wr.rv, wr.uid)
		}
	}
	if len(writes[1].Owners) != 1 || writes[1].Owners[0] != owner.UID {
		t.Errorf("the dependent's create has owners %v, want [%s]", writes[1].Owners, owner.UID)
	}
	if len(fanouts) != len(want) {
		t.Fatalf("fanout records %+v, want one per stored write", fanouts)
	}
	for i, f := range fanouts {
		if f.ResourceVersion != want[i].rv || f.Key != want[i].key || f.Field("watchers") != "1" {
			t.Errorf("fanout %d = %+v; want rv %s of %s to watchers=1", i, f, want[i].rv, want[i].key)
		}
		// The write is dated when it went to etcd: before the fan-out it
		// caused, so a trace merged by time shows the cause first.
		if !writes[i].Time.Before(f.Time) {
			t.Errorf("write %d is dated %v, not before its fan-out at %v", i, writes[i].Time, f.Time)
		}
	}
	if fanouts[0].Field("type") != "ADDED" || fanouts[2].Field("type") != "MODIFIED" {
		t.Errorf("fanout types %q, %q; want ADDED then MODIFIED", fanouts[0].Field("type"), fanouts[2].Field("type"))
	}
}
