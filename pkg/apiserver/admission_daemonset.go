package apiserver

import (
	"encoding/json"
	"strconv"

	"kplane/pkg/api"
)

// daemonSetTemplateGenerationAnnotation is where an apps/v1 DaemonSet shows
// its template generation: a counter upstream's apiserver sets to 1 on
// create and bumps on every update that changes spec.template (and only
// then, unlike metadata.generation, which any spec change bumps). The
// DaemonSet controller labels its pods pod-template-generation with it,
// and its ControllerRevisions copy it with the rest of the DaemonSet's
// annotations.
const daemonSetTemplateGenerationAnnotation = "deprecated.daemonset.template.generation"

// setDaemonSetTemplateGeneration sets the annotation on a DaemonSet being
// written, from the stored one (old, nil on create): whatever value the
// client sent is replaced, since the server owns the counter (upstream
// reads it back into the internal spec.templateGeneration and then
// overwrites that from the stored object). A stored DaemonSet without the
// annotation counts as generation 0.
func setDaemonSetTemplateGeneration(ds, old *api.DaemonSet) {
	generation := int64(1)
	if old != nil {
		generation, _ = strconv.ParseInt(old.Annotations[daemonSetTemplateGenerationAnnotation], 10, 64)
		if templateChanged(&old.Spec.Template, &ds.Spec.Template) {
			generation++
		}
	}
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[daemonSetTemplateGenerationAnnotation] = strconv.FormatInt(generation, 10)
}

// templateChanged compares two pod templates as their JSON, as specChanged
// compares specs: both have been defaulted by then.
func templateChanged(old, template *api.PodTemplateSpec) bool {
	oldJSON, _ := json.Marshal(old)
	newJSON, _ := json.Marshal(template)
	return string(oldJSON) != string(newJSON)
}
