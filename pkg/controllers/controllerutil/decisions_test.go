package controllerutil

import (
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

func TestDecisionLogFillsTheObjectAndSkipsRepeats(t *testing.T) {
	j := debug.NewJournal("controller-manager", 100, nil)
	l := NewDecisionLog(j, "deployment", "deployments.apps")
	meta := &api.ObjectMeta{Namespace: "default", Name: "web", UID: "u1", ResourceVersion: "7"}

	l.Record(meta, debug.Decision{Message: "new 0 → 3", Source: "rolling.go"})
	l.Record(meta, debug.Decision{Message: "new 0 → 3", Source: "rolling.go"}) // the same again
	l.Record(meta, debug.Decision{Message: "new 0 → 3", Lines: []string{"a line"}})
	l.Forget("default/web")
	l.Record(meta, debug.Decision{Message: "new 0 → 3", Lines: []string{"a line"}}) // new after Forget

	records, _ := j.After(0)
	if len(records) != 3 {
		t.Fatalf("recorded %d decisions, want 3 (one repeat skipped): %+v", len(records), records)
	}
	r := records[0]
	if r.Type != debug.TypeDecision || r.Actor != "deployment" || r.Resource != "deployments.apps" ||
		r.Key != "default/web" || r.UID != "u1" || r.ResourceVersion != "7" || r.Source != "rolling.go" {
		t.Errorf("record = %+v, want the object's key, uid and resourceVersion filled in", r)
	}
}

func TestDecisionLogWithoutJournalIsNil(t *testing.T) {
	l := NewDecisionLog(nil, "deployment", "deployments.apps")
	if l != nil || l.Enabled() {
		t.Fatalf("NewDecisionLog(nil) = %v, want a nil, disabled log", l)
	}
	l.Record(&api.ObjectMeta{Name: "x"}, debug.Decision{Message: "m"}) // must not panic
	l.Forget("x")
}
