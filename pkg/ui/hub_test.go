package ui

import "testing"

func TestHubKeepsThePreviousVersion(t *testing.T) {
	h := NewHub()
	h.Upsert("Pod", pod("u1", "web-1", "Pending"))
	if _, _, hadPrevious, ok := h.Versions("u1"); !ok || hadPrevious {
		t.Fatalf("after one version: ok %v hadPrevious %v", ok, hadPrevious)
	}
	h.Upsert("Pod", pod("u1", "web-1", "Running"))
	current, previous, hadPrevious, ok := h.Versions("u1")
	if !ok || !hadPrevious || stringAt(current.Object, "status", "phase") != "Running" || stringAt(previous.Object, "status", "phase") != "Pending" {
		t.Fatalf("after two versions: current %+v previous %+v", current, previous)
	}
	h.Delete("Pod", pod("u1", "web-1", "Running"))
	if _, _, hadPrevious, ok := h.Versions("u1"); ok || hadPrevious {
		t.Errorf("after delete: ok %v hadPrevious %v, want neither", ok, hadPrevious)
	}
}

func TestHubIgnoresObjectsWithoutUID(t *testing.T) {
	h := NewHub()
	h.Upsert("Pod", map[string]any{"metadata": map[string]any{"name": "x"}})
	if snapshot, seq, _, cancel := h.Subscribe(); len(snapshot) != 0 || seq != 0 {
		t.Errorf("snapshot %+v seq %d, want empty", snapshot, seq)
	} else {
		cancel()
	}
}

func TestHubStripsManagedFields(t *testing.T) {
	h := NewHub()
	obj := pod("u1", "web-1", "Running")
	obj["metadata"].(map[string]any)["managedFields"] = []any{map[string]any{"manager": "kubectl"}}
	h.Upsert("Pod", obj)
	current, _, _, _ := h.Versions("u1")
	if _, has := current.Object["metadata"].(map[string]any)["managedFields"]; has {
		t.Error("the page's copy kept managedFields")
	}
	if _, has := obj["metadata"].(map[string]any)["managedFields"]; !has {
		t.Error("stripping changed the caller's object")
	}
}

func TestHubSubscriberGetsChangesInOrder(t *testing.T) {
	h := NewHub()
	h.Upsert("Pod", pod("u1", "a", "Pending"))
	snapshot, seq, changes, cancel := h.Subscribe()
	defer cancel()
	if len(snapshot) != 1 || seq != 1 {
		t.Fatalf("snapshot %d objects at seq %d, want 1 at 1", len(snapshot), seq)
	}
	h.Upsert("Pod", pod("u2", "b", "Pending"))
	h.Delete("Pod", pod("u1", "a", "Pending"))
	first, second := <-changes, <-changes
	if first.Seq != 2 || first.Type != ChangeUpsert || first.Item.UID != "u2" {
		t.Errorf("first change %+v", first)
	}
	if second.Seq != 3 || second.Type != ChangeDelete || second.Item.UID != "u1" {
		t.Errorf("second change %+v", second)
	}
}

// A subscriber that falls behind by more than subscriberBuffer changes is
// dropped (its channel closed after the buffered changes), not waited for.
func TestHubDropsASubscriberThatFallsBehind(t *testing.T) {
	h := NewHub()
	_, _, changes, cancel := h.Subscribe()
	defer cancel()
	for i := range subscriberBuffer + 1 {
		h.Upsert("Pod", pod("u1", "a", string(rune('A'+i%26))))
	}
	received := 0
	for range changes {
		received++
	}
	if received != subscriberBuffer {
		t.Errorf("received %d changes before the close, want %d", received, subscriberBuffer)
	}
}
