package validation

import (
	"encoding/json"
	"testing"

	"kplane/pkg/api"
)

func TestValidatePodBinding(t *testing.T) {
	tests := []struct {
		target api.ObjectReference
		want   []fieldErr
	}{
		{api.ObjectReference{Kind: "Node", Name: "node1"}, nil},
		{api.ObjectReference{Name: "node1"}, nil},
		{api.ObjectReference{Kind: "Node"}, []fieldErr{{required, "target.name"}}},
		{api.ObjectReference{Kind: "Pod", Name: "node1"}, []fieldErr{{notSupported, "target.kind"}}},
	}
	for _, tt := range tests {
		expectFields(t, ValidatePodBinding(&api.Binding{Target: tt.target}), tt.want...)
	}
}

func TestValidateScale(t *testing.T) {
	expectFields(t, ValidateScale(&api.Scale{Spec: api.ScaleSpec{Replicas: 3}}))
	expectMessages(t, ValidateScale(&api.Scale{Spec: api.ScaleSpec{Replicas: -1}}),
		"spec.replicas: Invalid value: -1: must be greater than or equal to 0")
}

func TestValidateControllerRevision(t *testing.T) {
	rev := &api.ControllerRevision{
		ObjectMeta: api.ObjectMeta{Name: "nginx-ds-bdf578756", Namespace: "default", ResourceVersion: "3"},
		Data:       json.RawMessage(`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27.0"}]}}}}`),
		Revision:   1,
	}
	expectFields(t, ValidateCreate(rev))

	same := asStored(rev)
	same.Data = json.RawMessage(`{ "spec": {"template":{"spec":{"containers":[{"image":"nginx:1.27.0","name":"nginx"}]}}} }`)
	expectFields(t, ValidateUpdate(same, rev))

	// A rollback re-numbers an old revision: the number may change.
	renumbered := asStored(rev)
	renumbered.Revision = 2
	expectFields(t, ValidateUpdate(renumbered, rev))

	changed := asStored(rev)
	changed.Data = json.RawMessage(`{"spec":{}}`)
	changed.Revision = 2
	expectFields(t, ValidateUpdate(changed, rev), fieldErr{invalid, "data"})

	rev.Revision = -1
	expectFields(t, ValidateCreate(rev), fieldErr{invalid, "revision"})
}
