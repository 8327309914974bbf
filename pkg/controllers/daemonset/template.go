package daemonset

import (
	"strconv"

	"kplane/pkg/api"
)

// Labels and annotations of upstream's DaemonSet machinery.
const (
	// PodTemplateGenerationLabel holds the template generation a daemon
	// pod was made from (upstream's extensions.DaemonSetTemplateGenerationKey).
	PodTemplateGenerationLabel = "pod-template-generation"
	// TemplateGenerationAnnotation is where the apiserver keeps a
	// DaemonSet's template generation (bumped on every template change),
	// as upstream's does.
	TemplateGenerationAnnotation = "deprecated.daemonset.template.generation"
)

// templateGeneration returns ds's template generation: upstream's
// annotation, which the apiserver sets to 1 on create and bumps on every
// template change, or metadata.generation for a DaemonSet stored before
// kplane's apiserver kept the annotation. metadata.generation moves on
// every spec change, template or not, so a pod labelled with the current
// value was made from the current template, which is all isPodUpdated
// needs (a stale value only makes it fall back to the revision hash).
func templateGeneration(ds *api.DaemonSet) int64 {
	if v, ok := ds.Annotations[TemplateGenerationAnnotation]; ok {
		if g, err := strconv.ParseInt(v, 10, 64); err == nil {
			return g
		}
	}
	return ds.Generation
}

// podTemplateForNode is the template the controller creates ds's pod on
// nodeName from (upstream's CreatePodTemplate plus the node affinity
// syncNodes adds): the DaemonSet's template with the revision labels, the
// daemon tolerations, and a required node affinity to nodeName in place of
// spec.nodeName, so that the scheduler binds it.
func podTemplateForNode(ds *api.DaemonSet, hash string, nodeName string) *api.PodTemplateSpec {
	template := api.DeepCopyValue(ds.Spec.Template)
	labels := make(map[string]string, len(template.Labels)+2)
	for k, v := range template.Labels {
		labels[k] = v
	}
	labels[PodTemplateGenerationLabel] = strconv.FormatInt(templateGeneration(ds), 10)
	if hash != "" {
		labels[api.ControllerRevisionHashLabelKey] = hash
	}
	template.Labels = labels
	addDaemonTolerations(&template.Spec)
	template.Spec.Affinity = pinToNode(template.Spec.Affinity, nodeName)
	return &template
}
