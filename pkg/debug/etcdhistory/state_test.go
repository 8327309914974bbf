package etcdhistory

import (
	"encoding/json"
	"errors"
	"testing"

	"kplane/pkg/debug"
)

func history() debug.EtcdHistory {
	return debug.EtcdHistory{
		Key: "/registry/deployments/default/web", Revision: 60, CompactRevision: 20,
		AtCompaction: &debug.EtcdRevision{Revision: 15, ResourceVersion: "15", Value: json.RawMessage(`{"spec":{"replicas":1}}`)},
		Revisions: []debug.EtcdRevision{
			{Revision: 30, ResourceVersion: "30", Event: debug.EtcdUpdate, Value: json.RawMessage(`{"spec":{"replicas":3}}`)},
			{Revision: 40, ResourceVersion: "40", Event: debug.EtcdDelete},
			{Revision: 50, ResourceVersion: "50", Event: debug.EtcdCreate, Value: json.RawMessage(`{"spec":{"replicas":2}}`)},
		},
	}
}

func TestFindRevisionGivesTheChangeAndTheOneBefore(t *testing.T) {
	cases := []struct {
		revision   int64
		wantBefore int64 // 0: none
	}{
		{15, 0},  // the value kept at compaction: nothing before it is kept
		{30, 15}, // an update: before it, the value at compaction
		{40, 30}, // a delete: before it, the last value
		{50, 0},  // a create after a delete: nothing before it
	}
	for _, c := range cases {
		state, err := FindRevision(history(), c.revision)
		if err != nil {
			t.Fatalf("revision %d: %v", c.revision, err)
		}
		if state.At.Revision != c.revision {
			t.Errorf("revision %d: found %d", c.revision, state.At.Revision)
		}
		var before int64
		if state.Before != nil {
			before = state.Before.Revision
		}
		if before != c.wantBefore {
			t.Errorf("revision %d: before is %d, want %d", c.revision, before, c.wantBefore)
		}
	}
}

func TestFindRevisionSaysWhenCompactionRemovedIt(t *testing.T) {
	_, err := FindRevision(history(), 12)
	var compacted *CompactedError
	if !errors.As(err, &compacted) || compacted.CompactRevision != 20 {
		t.Fatalf("revision 12 before compaction at 20: err %v, want a CompactedError", err)
	}
	if _, err := FindRevision(history(), 35); err == nil || errors.As(err, &compacted) {
		t.Errorf("revision 35, not a write of this key: err %v, want a plain error", err)
	}
}
