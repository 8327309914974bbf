package audit

import (
	"context"
	"strings"
	"testing"

	"kplane/pkg/api"
)

// TestLogRequestObject: the object a handler decoded names the Event's
// object at every level, is recorded as JSON only from the Request level
// on, and is taken when logged, not when the Event is written.
func TestLogRequestObject(t *testing.T) {
	for _, level := range []Level{LevelMetadata, LevelRequest} {
		rec := NewRecord(level)
		ctx := WithRecord(context.Background(), rec)
		cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "named-in-body", Namespace: "default"}, Data: map[string]string{"colour": "blue"}}
		LogRequestObject(ctx, cm)
		cm.Name, cm.UID = "changed-later", "uid-set-by-storage"

		ev := &Event{ObjectRef: &ObjectReference{Resource: "configmaps", Namespace: "default"}}
		if !rec.CompleteEvent(ev) {
			t.Fatalf("%s: CompleteEvent found no logged object", level)
		}
		if ev.ObjectRef.Name != "named-in-body" || ev.ObjectRef.UID != "" {
			t.Errorf("%s: objectRef %+v, want the name from the body and no uid", level, ev.ObjectRef)
		}
		switch {
		case level == LevelMetadata && ev.RequestObject != nil:
			t.Errorf("Metadata: requestObject %s, want none", ev.RequestObject)
		case level == LevelRequest && !strings.Contains(string(ev.RequestObject), `"colour":"blue"`):
			t.Errorf("Request: requestObject %s, want the ConfigMap", ev.RequestObject)
		}
	}
	// Without a record (the request is not audited) nothing happens.
	LogRequestObject(context.Background(), &api.ConfigMap{})
}
