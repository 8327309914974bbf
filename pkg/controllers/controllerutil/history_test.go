package controllerutil

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"kplane/pkg/api"
)

func historyTemplate(image string) *api.PodTemplateSpec {
	return &api.PodTemplateSpec{
		ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: image}}},
	}
}

func historyParent() *api.StatefulSet {
	return &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-web"}}
}

func TestHashRevisionData(t *testing.T) {
	one, two := int32(1), int32(2)
	a, _ := api.RevisionData(historyTemplate("nginx:1"))
	b, _ := api.RevisionData(historyTemplate("nginx:2"))
	tests := []struct {
		name       string
		x, y       []byte
		cx, cy     *int32
		wantEquals bool
	}{
		{"same data", a, a, nil, nil, true},
		{"same data same count", a, a, &one, &one, true},
		{"different data", a, b, nil, nil, false},
		{"collision count changes hash", a, a, nil, &one, false},
		{"different counts", a, a, &one, &two, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hx, hy := HashRevisionData(tt.x, tt.cx), HashRevisionData(tt.y, tt.cy)
			if (hx == hy) != tt.wantEquals {
				t.Errorf("hashes %q and %q: equal=%v, want %v", hx, hy, hx == hy, tt.wantEquals)
			}
			for _, r := range hx {
				if !strings.ContainsRune(safeAlphabet, r) {
					t.Errorf("hash %q has %q outside the safe alphabet", hx, r)
				}
			}
		})
	}
}

func TestNewControllerRevision(t *testing.T) {
	data, _ := api.RevisionData(historyTemplate("nginx:1"))
	parent := historyParent()
	parent.Annotations = map[string]string{"kubernetes.io/change-cause": "image nginx:1"}
	rev := NewControllerRevision(parent, "apps/v1", "StatefulSet", map[string]string{"app": "web"}, data, 3, nil)
	hash := HashRevisionData(data, nil)
	if rev.Name != "web-"+hash {
		t.Errorf("name = %q, want web-%s", rev.Name, hash)
	}
	if rev.Namespace != "default" || rev.Revision != 3 {
		t.Errorf("namespace/revision = %q/%d", rev.Namespace, rev.Revision)
	}
	want := map[string]string{"app": "web", "controller.kubernetes.io/hash": hash}
	if !maps.Equal(rev.Labels, want) {
		t.Errorf("labels = %v, want %v", rev.Labels, want)
	}
	if !IsControlledBy(&rev.ObjectMeta, "uid-web") {
		t.Errorf("ownerReferences = %+v", rev.OwnerReferences)
	}
	// The parent's annotations are copied (kubectl rollout history reads
	// the change-cause there), not shared.
	if rev.Annotations["kubernetes.io/change-cause"] != "image nginx:1" {
		t.Errorf("annotations = %v, want the parent's change-cause", rev.Annotations)
	}
	parent.Annotations["kubernetes.io/change-cause"] = "later"
	if rev.Annotations["kubernetes.io/change-cause"] != "image nginx:1" {
		t.Error("the revision shares its annotations map with the parent")
	}
}

func TestControllerRevisionNameTruncatesParent(t *testing.T) {
	long := strings.Repeat("a", 300)
	if got := ControllerRevisionName(long, "hash"); len(got) != maxRevisionPrefix+len("-hash") {
		t.Errorf("len = %d", len(got))
	}
}

func TestEqualAndFindEqualRevisions(t *testing.T) {
	a, _ := api.RevisionData(historyTemplate("nginx:1"))
	b, _ := api.RevisionData(historyTemplate("nginx:2"))
	one := int32(1)
	r1 := NewControllerRevision(historyParent(), "apps/v1", "StatefulSet", nil, a, 1, nil)
	r2 := NewControllerRevision(historyParent(), "apps/v1", "StatefulSet", nil, b, 2, nil)
	r3 := NewControllerRevision(historyParent(), "apps/v1", "StatefulSet", nil, a, 3, &one)
	// Same JSON with other spacing, as an apiserver might return it.
	spaced := api.DeepCopy(r1)
	spaced.Data = json.RawMessage(strings.ReplaceAll(string(a), ",", ", "))

	if !EqualRevision(r1, r3) {
		t.Error("same data under another collision count should be equal")
	}
	if !EqualRevision(r1, spaced) {
		t.Error("re-encoded data should be equal")
	}
	if EqualRevision(r1, r2) {
		t.Error("different templates reported equal")
	}
	got := FindEqualRevisions([]*api.ControllerRevision{r1, r2, r3}, spaced)
	if len(got) != 2 || got[0] != r1 || got[1] != r3 {
		t.Errorf("FindEqualRevisions = %v", got)
	}
}

func TestSortAndNextRevision(t *testing.T) {
	revs := []*api.ControllerRevision{
		{ObjectMeta: api.ObjectMeta{Name: "c"}, Revision: 3},
		{ObjectMeta: api.ObjectMeta{Name: "b"}, Revision: 1},
		{ObjectMeta: api.ObjectMeta{Name: "a"}, Revision: 1},
		{ObjectMeta: api.ObjectMeta{Name: "d"}, Revision: 2},
	}
	SortRevisions(revs)
	var names []string
	for _, r := range revs {
		names = append(names, r.Name)
	}
	if strings.Join(names, ",") != "a,b,d,c" {
		t.Errorf("order = %v", names)
	}
	if n := NextRevision(revs); n != 4 {
		t.Errorf("NextRevision = %d, want 4", n)
	}
	if n := NextRevision(nil); n != 1 {
		t.Errorf("NextRevision(nil) = %d, want 1", n)
	}
}

func TestRevisionsToTruncate(t *testing.T) {
	revs := func(names ...string) []*api.ControllerRevision {
		var out []*api.ControllerRevision
		for i, n := range names {
			out = append(out, &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: n}, Revision: int64(i + 1)})
		}
		return out
	}
	tests := []struct {
		name  string
		revs  []*api.ControllerRevision
		live  map[string]bool
		limit int
		want  string
	}{
		{"under limit", revs("r1", "r2"), nil, 10, ""},
		{"oldest unused go first", revs("r1", "r2", "r3", "r4"), map[string]bool{"r4": true}, 1, "r1,r2"},
		{"live never deleted", revs("r1", "r2", "r3"), map[string]bool{"r1": true, "r3": true}, 0, "r2"},
		{"limit zero deletes all unused", revs("r1", "r2"), nil, 0, "r1,r2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var names []string
			for _, r := range RevisionsToTruncate(tt.revs, tt.live, tt.limit) {
				names = append(names, r.Name)
			}
			if got := strings.Join(names, ","); got != tt.want {
				t.Errorf("truncate = %q, want %q", got, tt.want)
			}
		})
	}
}

// A DaemonSet's revisions carry the hash under controller-revision-hash, as
// upstream's DaemonSet controller labels them; a StatefulSet's under
// controller.kubernetes.io/hash, as upstream's history package does.
func TestRevisionHashLabelByKind(t *testing.T) {
	data, _ := api.RevisionData(historyTemplate("nginx:1"))
	hash := HashRevisionData(data, nil)
	for kind, want := range map[string]map[string]string{
		"DaemonSet":   {"app": "web", "controller-revision-hash": hash},
		"StatefulSet": {"app": "web", "controller.kubernetes.io/hash": hash},
	} {
		rev := NewControllerRevision(historyParent(), "apps/v1", kind, map[string]string{"app": "web"}, data, 1, nil)
		if !maps.Equal(rev.Labels, want) {
			t.Errorf("%s revision labels = %v, want %v", kind, rev.Labels, want)
		}
		if got := revisionHashLabelOf(rev); got != RevisionHashLabelFor(kind) {
			t.Errorf("%s revision: hash label read back as %q", kind, got)
		}
	}
}
