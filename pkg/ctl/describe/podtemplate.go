package describe

import "kplane/pkg/api"

// describePodTemplate prints the "Pod Template:" section of a workload:
// the template's labels and annotations, containers (without status),
// volumes, node selector and tolerations, indented under the heading.
func describePodTemplate(template *api.PodTemplateSpec, w prefixWriter, s Settings) {
	w.write(level0, "Pod Template:\n")
	if template == nil {
		w.write(level1, "<unset>")
		return
	}
	printLabelsMultiline(w, "  Labels", template.Labels)
	if len(template.Annotations) > 0 {
		printAnnotationsMultiline(w, "  Annotations", template.Annotations)
	}
	if template.Spec.ServiceAccountName != "" {
		w.write(level1, "Service Account:\t%s\n", template.Spec.ServiceAccountName)
	}
	if len(template.Spec.InitContainers) > 0 {
		describeContainers("Init Containers", template.Spec.InitContainers, nil, nil, w, "  ", s)
	}
	describeContainers("Containers", template.Spec.Containers, nil, nil, w, "  ", s)
	describeVolumes(template.Spec.Volumes, w, "  ", s)
	describeTopologySpreadConstraints(template.Spec.TopologySpreadConstraints, w, "  ")
	if template.Spec.PriorityClassName != "" {
		w.write(level1, "Priority Class Name:\t%s\n", template.Spec.PriorityClassName)
	}
	printLabelsMultiline(w, "  Node-Selectors", template.Spec.NodeSelector)
	printTolerationsMultiline(w, "  Tolerations", template.Spec.Tolerations)
}
