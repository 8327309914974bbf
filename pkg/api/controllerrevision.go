package api

// This file is the format of a ControllerRevision's data for DaemonSets and
// StatefulSets. The controllers write it and `kubectl rollout undo` (ctl's
// too) compares it byte for byte, so it is written once, here, for both.

import (
	"encoding/json"
	"fmt"
)

// RevisionData encodes template as a ControllerRevision's data in
// upstream's patch form, {"spec":{"template":{…,"$patch":"replace"}}}: a
// strategic merge patch that replaces the parent's whole template when
// applied, which is what a rollback does.
func RevisionData(template *PodTemplateSpec) (json.RawMessage, error) {
	encoded, err := json.Marshal(template)
	if err != nil {
		return nil, fmt.Errorf("encode pod template: %w", err)
	}
	var fields map[string]any
	if err := json.Unmarshal(encoded, &fields); err != nil {
		return nil, fmt.Errorf("decode pod template: %w", err)
	}
	fields["$patch"] = "replace"
	data, err := json.Marshal(map[string]any{"spec": map[string]any{"template": fields}})
	if err != nil {
		return nil, fmt.Errorf("encode revision data: %w", err)
	}
	return data, nil
}

// TemplateFromRevision decodes the pod template stored in a revision's data
// (the inverse of RevisionData). Controllers use it to make pods of an
// older revision, e.g. a StatefulSet's pods below its partition.
func TemplateFromRevision(revision *ControllerRevision) (*PodTemplateSpec, error) {
	var patch struct {
		Spec struct {
			Template json.RawMessage `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(revision.Data, &patch); err != nil {
		return nil, fmt.Errorf("decode revision %s: %w", revision.Name, err)
	}
	var fields map[string]any
	if err := json.Unmarshal(patch.Spec.Template, &fields); err != nil {
		return nil, fmt.Errorf("decode template of revision %s: %w", revision.Name, err)
	}
	delete(fields, "$patch")
	encoded, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("re-encode template of revision %s: %w", revision.Name, err)
	}
	template := &PodTemplateSpec{}
	if err := json.Unmarshal(encoded, template); err != nil {
		return nil, fmt.Errorf("decode template of revision %s: %w", revision.Name, err)
	}
	return template, nil
}
