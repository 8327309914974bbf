package cache

import (
	"slices"
	"testing"
)

// TestSnapshotIndexFollowsPutAndRemove: an object moves between index
// values as it changes, leaves on delete, and one without a value is not
// filed at all.
func TestSnapshotIndexFollowsPutAndRemove(t *testing.T) {
	node := func(obj any) string { s, _ := obj.(string); return s }
	s := newSnapshot([]Entry{{Key: "/p/b", Object: "n1"}, {Key: "/p/a", Object: "n1"}, {Key: "/p/c", Object: "n2"}, {Key: "/p/d", Object: ""}})
	s.buildIndex(node)
	check := func(value string, want ...string) {
		t.Helper()
		if got := keysOf(s.byIndex(value)); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("byIndex(%q) = %v, want %v", value, got, want)
		}
	}
	check("n1", "/p/a", "/p/b")
	check("n2", "/p/c")
	check("")

	s.put(Entry{Key: "/p/a", Object: "n2"}) // moved
	s.put(Entry{Key: "/p/d", Object: "n1"}) // gained a value
	s.put(Entry{Key: "/p/e", Object: "n3"}) // new
	check("n1", "/p/b", "/p/d")
	check("n2", "/p/a", "/p/c")
	check("n3", "/p/e")

	s.remove("/p/c")
	s.remove("/p/e")
	check("n2", "/p/a")
	check("n3")
	if len(s.index.keys) != 2 {
		t.Errorf("index keeps %d values, want 2 (emptied ones dropped): %v", len(s.index.keys), s.index.keys)
	}

	var plain snapshot
	plain.put(Entry{Key: "/p/a", Object: "n1"})
	if got := plain.byIndex("n1"); got != nil {
		t.Errorf("without an index: %v, want nil", got)
	}
}
