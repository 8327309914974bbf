package ui

import (
	"encoding/json"
	"sync"
)

// Item is one object as the page receives it.
type Item struct {
	// Kind is the object's kind (Pod, ReplicaSet, a custom kind, …).
	Kind string `json:"kind"`
	// UID names the object across renames and re-creations.
	UID string `json:"uid"`
	// Object is the object as the apiserver serves it, without
	// metadata.managedFields (noise on a teaching page).
	Object map[string]any `json:"object"`
	// Edges are the ownership-graph edges the object contributes (EdgesOf).
	Edges []Edge `json:"edges,omitempty"`
}

// Change is one entry of the stream after the snapshot: an object added or
// changed ("upsert") or gone ("delete", which carries only Kind and UID).
type Change struct {
	// Seq numbers the Hub's changes from 1, in the order they happened.
	Seq  uint64
	Type string
	Item Item
}

// Change types.
const (
	ChangeUpsert = "upsert"
	ChangeDelete = "delete"
)

// subscriberBuffer is how many changes a page may fall behind before the
// Hub drops it. A dropped page reconnects and starts over from a snapshot,
// which is cheaper than the Hub buffering without bound for a stalled tab.
const subscriberBuffer = 4096

// Hub holds the latest and the previous version of every object the feeds
// report, and fans each change out to the subscribed streams.
//
// Invariants: an object is in current iff its last change was an upsert;
// previous[uid] is the version current[uid] replaced, absent for an object
// seen once. A subscriber gets, in order, every change after the snapshot
// it was handed, or its channel is closed (it fell behind by more than
// subscriberBuffer changes, or the Hub was closed).
type Hub struct {
	mu          sync.Mutex
	seq         uint64
	current     map[string]Item
	previous    map[string]Item
	subscribers map[chan Change]bool
}

// NewHub returns an empty Hub.
func NewHub() *Hub {
	return &Hub{current: map[string]Item{}, previous: map[string]Item{}, subscribers: map[chan Change]bool{}}
}

// Upsert records obj (an object of kind as JSON decodes it) as the latest
// version of its UID and tells the subscribers. An object without a UID is
// ignored.
func (h *Hub) Upsert(kind string, obj map[string]any) {
	item, ok := newItem(kind, obj)
	if !ok {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if old, seen := h.current[item.UID]; seen {
		h.previous[item.UID] = old
	}
	h.current[item.UID] = item
	h.publish(ChangeUpsert, item)
}

// Delete forgets the object with obj's UID and tells the subscribers.
func (h *Hub) Delete(kind string, obj map[string]any) {
	uid := stringAt(obj, "metadata", "uid")
	if uid == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.current, uid)
	delete(h.previous, uid)
	h.publish(ChangeDelete, Item{Kind: kind, UID: uid})
}

// publish hands a change to every subscriber; h.mu is held.
func (h *Hub) publish(changeType string, item Item) {
	h.seq++
	change := Change{Seq: h.seq, Type: changeType, Item: item}
	for ch := range h.subscribers {
		select {
		case ch <- change:
		default:
			// Fallen behind: close the stream; the page reconnects and
			// gets a fresh snapshot.
			delete(h.subscribers, ch)
			close(ch)
		}
	}
}

// Subscribe returns every object the Hub holds now, the sequence number of
// the last change they include, and a channel of the changes after it.
// Call cancel when done; it closes the channel if the Hub has not.
func (h *Hub) Subscribe() (snapshot []Item, seq uint64, changes <-chan Change, cancel func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	snapshot = make([]Item, 0, len(h.current))
	for _, item := range h.current {
		snapshot = append(snapshot, item)
	}
	ch := make(chan Change, subscriberBuffer)
	h.subscribers[ch] = true
	cancel = func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.subscribers[ch] {
			delete(h.subscribers, ch)
			close(ch)
		}
	}
	return snapshot, h.seq, ch, cancel
}

// Versions returns the current and the previous version of the object
// with uid; ok is false when the Hub holds no such object, hadPrevious
// when it has seen only one version.
func (h *Hub) Versions(uid string) (current, previous Item, hadPrevious, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	current, ok = h.current[uid]
	previous, hadPrevious = h.previous[uid]
	return current, previous, hadPrevious, ok
}

// newItem builds the page's Item from obj; ok is false without a UID.
func newItem(kind string, obj map[string]any) (Item, bool) {
	uid := stringAt(obj, "metadata", "uid")
	if uid == "" {
		return Item{}, false
	}
	if meta, isMap := obj["metadata"].(map[string]any); isMap {
		if _, has := meta["managedFields"]; has {
			trimmed := make(map[string]any, len(meta))
			for k, v := range meta {
				if k != "managedFields" {
					trimmed[k] = v
				}
			}
			copied := make(map[string]any, len(obj))
			for k, v := range obj {
				copied[k] = v
			}
			copied["metadata"] = trimmed
			obj = copied
		}
	}
	return Item{Kind: kind, UID: uid, Object: obj, Edges: EdgesOf(kind, obj)}, true
}

// toMap converts an informer's object to the JSON map the page receives.
func toMap(obj any) (map[string]any, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}
