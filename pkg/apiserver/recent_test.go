package apiserver

import "testing"

// TestRecentWritesAreTakenByTheirOwnResource: two resources share the etcd
// keys of Events (core/v1 and events.k8s.io/v1). A write is handed only to
// the watch cache of the resource it was made through; the other cache
// gets nil and decodes the change in its own form, and a stale entry is
// dropped.
func TestRecentWritesAreTakenByTheirOwnResource(t *testing.T) {
	core := &resource{plural: "events"}
	eventsV1 := &resource{group: "events.k8s.io", plural: "events", conversion: eventsV1Conversion}
	const key = "/registry/events/default/web.1"
	var rw recentWrites

	rw.remember(key, &storedObject{res: eventsV1, revision: 7})
	if so := rw.take(core, key, 7); so != nil {
		t.Fatalf("the core cache took an events.k8s.io/v1 write")
	}
	if so := rw.take(eventsV1, key, 7); so == nil || so.revision != 7 {
		t.Fatalf("the events.k8s.io/v1 cache did not get its own write: %v", so)
	}
	if so := rw.take(eventsV1, key, 7); so != nil {
		t.Fatalf("a write was handed out twice")
	}

	rw.remember(key, &storedObject{res: core, revision: 8})
	if so := rw.take(eventsV1, key, 9); so != nil {
		t.Fatalf("a write at revision 8 was handed out for revision 9")
	}
	if so := rw.take(core, key, 8); so != nil {
		t.Fatalf("a stale entry survived a take at a later revision")
	}
}
