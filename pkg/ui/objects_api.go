package ui

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"gopkg.in/yaml.v3"

	"kplane/pkg/debug"
)

// objectDetail is the answer of /api/objects/{uid}: the object as YAML and
// the diff of its last change.
type objectDetail struct {
	Kind string `json:"kind"`
	UID  string `json:"uid"`
	YAML string `json:"yaml"`
	// Diff turns the previous version the server saw into this one; empty
	// when the server has seen a single version.
	Diff []DiffLine `json:"diff"`
	// PreviousResourceVersion is the resourceVersion Diff starts from.
	PreviousResourceVersion string `json:"previousResourceVersion,omitempty"`
}

// serveObject is /api/objects/{uid}: the selected object's YAML and the
// diff of its last change, computed on demand rather than on every update
// that no page looks at.
func (s *Server) serveObject(w http.ResponseWriter, r *http.Request) {
	uid := r.PathValue("uid")
	current, previous, hadPrevious, ok := s.hub.Versions(uid)
	if !ok {
		debug.WriteStatus(w, http.StatusNotFound, "NotFound", fmt.Sprintf("no object with uid %q is in the view", uid))
		return
	}
	detail := objectDetail{Kind: current.Kind, UID: uid}
	text, err := toYAML(current.Object)
	if err != nil {
		debug.WriteStatus(w, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	detail.YAML = text
	if hadPrevious {
		before, err := toYAML(previous.Object)
		if err != nil {
			debug.WriteStatus(w, http.StatusInternalServerError, "InternalError", err.Error())
			return
		}
		detail.Diff, _ = DiffLines(before, text)
		detail.PreviousResourceVersion = stringAt(previous.Object, "metadata", "resourceVersion")
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(detail)
}

// toYAML renders obj as kubectl's -o yaml does: block style, keys sorted.
func toYAML(obj map[string]any) (string, error) {
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(obj); err != nil {
		return "", fmt.Errorf("render yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("render yaml: %w", err)
	}
	return b.String(), nil
}
