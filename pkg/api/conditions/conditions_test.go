package conditions

import (
	"testing"
	"time"

	"kplane/pkg/api"
)

// TestSetKeepsTransitionTimeUntilTheStatusChanges: a new condition gets
// now; the same status again keeps the first time but takes the new
// reason and message; a new status moves the time.
func TestSetKeepsTransitionTimeUntilTheStatusChanges(t *testing.T) {
	t1 := api.NewTime(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC))
	t2 := api.NewTime(t1.Add(time.Minute))
	t3 := api.NewTime(t1.Add(2 * time.Minute))
	var conds []api.Condition

	Set(&conds, api.Condition{Type: "Ready", Status: "False", Reason: "Starting"}, t1)
	Set(&conds, api.Condition{Type: "Ready", Status: "False", Reason: "StillStarting", Message: "1 of 2"}, t2)
	if len(conds) != 1 {
		t.Fatalf("conditions = %+v, want one", conds)
	}
	if c := conds[0]; !c.LastTransitionTime.Time.Equal(t1.Time) || c.Reason != "StillStarting" || c.Message != "1 of 2" {
		t.Errorf("after the same status again: %+v, want time %v and the new reason", c, t1)
	}
	if IsTrue(conds, "Ready") {
		t.Error("IsTrue with status False")
	}

	Set(&conds, api.Condition{Type: "Ready", Status: "True", Reason: "Ready"}, t3)
	if c := Find(conds, "Ready"); c == nil || !c.LastTransitionTime.Time.Equal(t3.Time) || !IsTrue(conds, "Ready") {
		t.Errorf("after a status change: %+v, want True since %v", c, t3)
	}
	Set(&conds, api.Condition{Type: "Progressing", Status: "True"}, t3)
	if len(conds) != 2 || Find(conds, "Missing") != nil {
		t.Errorf("conditions = %+v, want Ready and Progressing", conds)
	}
}
