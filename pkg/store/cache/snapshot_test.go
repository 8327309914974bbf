package cache

import (
	"slices"
	"testing"
)

func TestSnapshotListsOnlyThePrefix(t *testing.T) {
	s := newSnapshot([]Entry{
		{Key: "/registry/pods/ns10/a"},
		{Key: "/registry/pods/ns1/b"},
		{Key: "/registry/pods/ns1/a"},
		{Key: "/registry/pods/ns2/a"},
		{Key: "/registry/podsx/ns1/a"},
	})
	tests := []struct {
		prefix string
		want   []string
	}{
		{"/registry/pods/ns1/", []string{"/registry/pods/ns1/a", "/registry/pods/ns1/b"}},
		{"/registry/pods/ns10/", []string{"/registry/pods/ns10/a"}},
		{"/registry/pods/", []string{"/registry/pods/ns1/a", "/registry/pods/ns1/b", "/registry/pods/ns10/a", "/registry/pods/ns2/a"}},
		{"/registry/pods/ns3/", []string{}},
		{"/registry/zzz/", []string{}},
		{"/", []string{"/registry/pods/ns1/a", "/registry/pods/ns1/b", "/registry/pods/ns10/a", "/registry/pods/ns2/a", "/registry/podsx/ns1/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			if got := keysOf(s.list(tt.prefix)); !slices.Equal(got, tt.want) {
				t.Errorf("list(%q) = %v, want %v", tt.prefix, got, tt.want)
			}
		})
	}
}

func TestSnapshotPutRemoveGet(t *testing.T) {
	type step struct {
		op        string // put, remove
		key       string
		revision  int64
		wantPrev  int64 // revision of the replaced/removed entry
		wantExist bool
	}
	steps := []step{
		{op: "put", key: "/r/b", revision: 1},
		{op: "put", key: "/r/a", revision: 2},
		{op: "put", key: "/r/c", revision: 3},
		{op: "put", key: "/r/b", revision: 4, wantPrev: 1, wantExist: true},
		{op: "remove", key: "/r/a", wantPrev: 2, wantExist: true},
		{op: "remove", key: "/r/a"},
		{op: "put", key: "/r/0", revision: 5},
	}
	var s snapshot
	for i, st := range steps {
		var prev Entry
		var existed bool
		switch st.op {
		case "put":
			prev, existed = s.put(Entry{Key: st.key, Revision: st.revision})
		case "remove":
			prev, existed = s.remove(st.key)
		}
		if existed != st.wantExist || prev.Revision != st.wantPrev {
			t.Fatalf("step %d %s %s: got (rev %d, existed %v), want (rev %d, existed %v)",
				i, st.op, st.key, prev.Revision, existed, st.wantPrev, st.wantExist)
		}
	}
	if got, want := keysOf(s.list("/")), []string{"/r/0", "/r/b", "/r/c"}; !slices.Equal(got, want) {
		t.Fatalf("keys = %v, want %v (sorted, no duplicates)", got, want)
	}
	if e, ok := s.get("/r/b"); !ok || e.Revision != 4 {
		t.Errorf("get(/r/b) = %+v, %v; want revision 4", e, ok)
	}
	if _, ok := s.get("/r/a"); ok {
		t.Errorf("get(/r/a) found a removed key")
	}
}

func TestSnapshotListReturnsACopy(t *testing.T) {
	s := newSnapshot([]Entry{{Key: "/r/a", Revision: 1}})
	out := s.list("/r/")
	out[0].Revision = 99
	if e, _ := s.get("/r/a"); e.Revision != 1 {
		t.Fatalf("changing a listed entry changed the snapshot")
	}
}
