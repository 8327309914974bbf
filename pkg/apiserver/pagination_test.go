package apiserver

import (
	"fmt"
	"strings"
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

func TestPageFromCache(t *testing.T) {
	var entries []cache.Entry
	for i := 0; i < 7; i++ {
		tier := "web"
		if i%2 == 1 {
			tier = "db"
		}
		name := fmt.Sprintf("p%d", i)
		entries = append(entries, cache.Entry{Key: "/registry/pods/default/" + name, Object: &storedObject{
			labels: map[string]string{"tier": tier},
			fields: map[string]string{"metadata.name": name, "metadata.namespace": "default"},
		}})
	}
	everything := selectors{labels: labels.Everything(), fields: fields.Everything()}
	names := func(r listResult) string {
		var n []string
		for _, so := range r.items {
			n = append(n, so.fields["metadata.name"])
		}
		return strings.Join(n, ",")
	}

	first := pageFromCache(entries, 9, "", 3, everything)
	if names(first) != "p0,p1,p2" || first.next == "" || *first.remaining != 4 {
		t.Fatalf("first page %s next %q remaining %v", names(first), first.next, first.remaining)
	}
	token, _ := decodeContinue(first.next)
	second := pageFromCache(entries, 9, token.StartKey, 3, everything)
	token, _ = decodeContinue(second.next)
	last := pageFromCache(entries, 9, token.StartKey, 3, everything)
	if names(second) != "p3,p4,p5" || names(last) != "p6" || last.next != "" {
		t.Errorf("pages %s / %s (next %q)", names(second), names(last), last.next)
	}

	db, _ := labels.Parse("tier=db")
	filtered := pageFromCache(entries, 9, "", 2, selectors{labels: db, fields: fields.Everything()})
	if names(filtered) != "p1,p3" || filtered.next == "" || filtered.remaining != nil {
		t.Errorf("filtered page %s next %q remaining %v", names(filtered), filtered.next, filtered.remaining)
	}
	if all := pageFromCache(entries, 9, "", 0, everything); len(all.items) != 7 || all.next != "" {
		t.Errorf("unlimited list: %d items, next %q", len(all.items), all.next)
	}
}
