package describe

import (
	"kplane/pkg/api"
)

// describeStatefulSet prints a StatefulSet: its selector, replicas, update
// strategy (with the partition of a rolling update), its pods by phase,
// the pod template, the volume claim templates and Events.
func describeStatefulSet(in Input, s Settings) (string, error) {
	sts, err := decode[api.StatefulSet](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", sts.Name)
		w.write(level0, "Namespace:\t%s\n", sts.Namespace)
		w.write(level0, "CreationTimestamp:\t%s\n", s.timestamp(sts.CreationTimestamp.Time))
		w.write(level0, "Selector:\t%s\n", selectorString(sts.Spec.Selector))
		printLabelsMultiline(w, "Labels", sts.Labels)
		printAnnotationsMultiline(w, "Annotations", sts.Annotations)
		w.write(level0, "Replicas:\t%d desired | %d total\n", deref(sts.Spec.Replicas), sts.Status.Replicas)
		w.write(level0, "Update Strategy:\t%s\n", sts.Spec.UpdateStrategy.Type)
		if ru := sts.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
			w.write(level1, "Partition:\t%d\n", *ru.Partition)
			if ru.MaxUnavailable != nil {
				w.write(level1, "MaxUnavailable:\t%s\n", ru.MaxUnavailable.String())
			}
		}
		writePodsStatus(w, countPods(in.Related.Pods, sts.UID))
		describePodTemplate(&sts.Spec.Template, w, s)
		describeVolumeClaimTemplates(sts.Spec.VolumeClaimTemplates, w)
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}

// describeVolumeClaimTemplates prints the claims each pod of a
// StatefulSet gets: name, class, labels, capacity and access modes.
func describeVolumeClaimTemplates(templates []api.PersistentVolumeClaim, w prefixWriter) {
	if len(templates) == 0 {
		w.write(level0, "Volume Claims:\t<none>\n")
		return
	}
	w.write(level0, "Volume Claims:\n")
	for _, pvc := range templates {
		w.write(level1, "Name:\t%s\n", pvc.Name)
		w.write(level1, "StorageClass:\t%s\n", claimClass(&pvc))
		printLabelsMultilineWithIndent(w, "  ", "Labels", "\t", pvc.Labels)
		printLabelsMultilineWithIndent(w, "  ", "Annotations", "\t", pvc.Annotations)
		if capacity, ok := pvc.Spec.Resources.Requests[api.ResourceStorage]; ok {
			w.write(level1, "Capacity:\t%s\n", capacity.String())
		} else {
			w.write(level1, "Capacity:\t%s\n", "<default>")
		}
		w.write(level1, "Access Modes:\t%s\n", goSlice(pvc.Spec.AccessModes))
	}
}
