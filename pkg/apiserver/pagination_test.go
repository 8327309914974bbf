package apiserver

import (
	"testing"

	"kplane/pkg/api/fields"
	"kplane/pkg/api/labels"
	"kplane/pkg/store/cache"
)

func TestContinueToken(t *testing.T) {
	token := encodeContinue(42, "/registry/pods/default/p3")
	got, err := decodeContinue(token)
	if err != nil || got.Revision != 42 || got.StartKey != "/registry/pods/default/p3" {
		t.Errorf("round trip: %+v %v", got, err)
	}
	for _, bad := range []string{"!!", "e30", "bm90IGpzb24"} {
		if _, err := decodeContinue(bad); err == nil {
			t.Errorf("token %q accepted", bad)
		}
	}
}

// TestListResultOf: a page cut at its limit gets a continue token naming
// the page's revision and last key, and remainingItemCount only without
// selectors; the last page gets neither.
func TestListResultOf(t *testing.T) {
	entries := []cache.Entry{
		{Key: "/registry/pods/default/p0", Object: &storedObject{}},
		{Key: "/registry/pods/default/p1", Object: &storedObject{}},
	}
	everything := selectors{labels: labels.Everything(), fields: fields.Everything()}
	cut := listResultOf(cache.Page{Entries: entries, Revision: 9, More: true, Remaining: 5}, everything)
	token, err := decodeContinue(cut.next)
	if err != nil || token.Revision != 9 || token.StartKey != "/registry/pods/default/p1" {
		t.Errorf("continue %q: %+v %v, want revision 9 after p1", cut.next, token, err)
	}
	if len(cut.items) != 2 || cut.revision != 9 || cut.remaining == nil || *cut.remaining != 5 {
		t.Errorf("cut page: %d items at %d, remaining %v", len(cut.items), cut.revision, cut.remaining)
	}
	db, _ := labels.Parse("tier=db")
	if filtered := listResultOf(cache.Page{Entries: entries, Revision: 9, More: true, Remaining: 5}, selectors{labels: db, fields: fields.Everything()}); filtered.next == "" || filtered.remaining != nil {
		t.Errorf("filtered page: next %q remaining %v, want a token and no count", filtered.next, filtered.remaining)
	}
	if last := listResultOf(cache.Page{Entries: entries, Revision: 9}, everything); last.next != "" || last.remaining != nil {
		t.Errorf("last page: next %q remaining %v, want neither", last.next, last.remaining)
	}
}
