package debug

import (
	"testing"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/clock"
)

func TestWriteHookRecordsTheWriteDatedWhenSent(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	j := NewJournal("scheduler", 10, clk)
	hook := j.WriteHook("default-scheduler", func(w client.WriteInfo) string { return "bound " + w.Name })
	hook(client.WriteInfo{Verb: "create", Resource: "pods", Subresource: "binding", Namespace: "default", Name: "web-0",
		ResourceVersion: "42", Took: 3 * time.Millisecond})
	hook(client.WriteInfo{Verb: "create", Resource: "replicasets.apps", Namespace: "default", Name: "web-5d8",
		UID: "u-rs", ResourceVersion: "40", Owners: []string{"u-dep"}, Actor: "deployment"})
	got, _ := j.After(0)
	if len(got) != 2 {
		t.Fatalf("recorded %d records, want 2", len(got))
	}
	bind, create := got[0], got[1]
	if bind.Type != TypeWrite || bind.Stage != "bind" || bind.Actor != "default-scheduler" || bind.Key != "default/web-0" ||
		bind.ResourceVersion != "42" || bind.Message != "bound web-0" || bind.Field("subresource") != "binding" {
		t.Errorf("binding write recorded as %+v", bind)
	}
	if want := time.Unix(1000, 0).Add(-3 * time.Millisecond); !bind.Time.Equal(want) {
		t.Errorf("binding dated %v, want %v (when the request was sent)", bind.Time, want)
	}
	if create.Stage != "create" || create.Actor != "deployment" || create.Resource != "replicasets.apps" ||
		create.UID != "u-rs" || len(create.Owners) != 1 || create.Owners[0] != "u-dep" {
		t.Errorf("ReplicaSet create recorded as %+v", create)
	}
	var off *Journal
	if off.WriteHook("x", nil) != nil {
		t.Error("a nil journal must give a nil hook, so the client skips reporting")
	}
}

func TestWriteStage(t *testing.T) {
	for _, tc := range [][3]string{
		{"create", "", "create"}, {"create", "binding", "bind"}, {"update", "status", "status"},
		{"patch", "status", "status"}, {"update", "scale", "scale"}, {"create", "eviction", "evict"},
		{"deletecollection", "", "deletecollection"},
	} {
		if got := WriteStage(tc[0], tc[1]); got != tc[2] {
			t.Errorf("WriteStage(%q, %q) = %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
}
