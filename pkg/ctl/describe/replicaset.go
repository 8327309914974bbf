package describe

import (
	"kplane/pkg/api"
)

// podPhaseCounts counts, by phase, the pods a controller owns: the pods
// its selector matched (related.Pods) whose controller reference names it.
// Upstream's getPodStatusForController skips orphans and pods of other
// controllers the same way.
type podPhaseCounts struct{ running, waiting, succeeded, failed int }

func countPods(pods []api.Pod, ownerUID string) podPhaseCounts {
	var c podPhaseCounts
	for _, pod := range pods {
		ref := controllerRef(pod.ObjectMeta)
		if ref == nil || ref.UID != ownerUID {
			continue
		}
		switch pod.Status.Phase {
		case api.PodRunning:
			c.running++
		case api.PodPending:
			c.waiting++
		case api.PodSucceeded:
			c.succeeded++
		case api.PodFailed:
			c.failed++
		}
	}
	return c
}

func writePodsStatus(w prefixWriter, c podPhaseCounts) {
	w.write(level0, "Pods Status:\t%d Running / %d Waiting / %d Succeeded / %d Failed\n", c.running, c.waiting, c.succeeded, c.failed)
}

// describeReplicaSet prints a ReplicaSet: its selector, who controls it,
// current and desired replicas, its pods by phase, the pod template,
// conditions and Events.
func describeReplicaSet(in Input, s Settings) (string, error) {
	rs, err := decode[api.ReplicaSet](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", rs.Name)
		w.write(level0, "Namespace:\t%s\n", rs.Namespace)
		w.write(level0, "Selector:\t%s\n", formatLabelSelector(rs.Spec.Selector))
		printLabelsMultiline(w, "Labels", rs.Labels)
		printAnnotationsMultiline(w, "Annotations", rs.Annotations)
		if controlledBy := controllerOf(rs.ObjectMeta); controlledBy != "" {
			w.write(level0, "Controlled By:\t%s\n", controlledBy)
		}
		w.write(level0, "Replicas:\t%d current / %d desired\n", rs.Status.Replicas, deref(rs.Spec.Replicas))
		w.write(level0, "Pods Status:\t")
		if in.Related.PodsErr != nil {
			w.write(level0, "error in fetching pods: %s\n", in.Related.PodsErr)
		} else {
			c := countPods(in.Related.Pods, rs.UID)
			w.write(level0, "%d Running / %d Waiting / %d Succeeded / %d Failed\n", c.running, c.waiting, c.succeeded, c.failed)
		}
		describePodTemplate(&rs.Spec.Template, w, s)
		if len(rs.Status.Conditions) > 0 {
			w.write(level0, "Conditions:\n  Type\tStatus\tReason\n")
			w.write(level1, "----\t------\t------\n")
			for _, c := range rs.Status.Conditions {
				w.write(level1, "%v \t%v\t%v\n", c.Type, c.Status, c.Reason)
			}
		}
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}

// describeReplicationController is describeReplicaSet for the older
// ReplicationController, whose selector is a plain label map.
func describeReplicationController(in Input, s Settings) (string, error) {
	rc, err := decode[api.ReplicationController](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", rc.Name)
		w.write(level0, "Namespace:\t%s\n", rc.Namespace)
		w.write(level0, "Selector:\t%s\n", formatLabels(rc.Spec.Selector))
		printLabelsMultiline(w, "Labels", rc.Labels)
		printAnnotationsMultiline(w, "Annotations", rc.Annotations)
		w.write(level0, "Replicas:\t%d current / %d desired\n", rc.Status.Replicas, deref(rc.Spec.Replicas))
		writePodsStatus(w, countPods(in.Related.Pods, rc.UID))
		describePodTemplate(rc.Spec.Template, w, s)
		if len(rc.Status.Conditions) > 0 {
			w.write(level0, "Conditions:\n  Type\tStatus\tReason\n")
			w.write(level1, "----\t------\t------\n")
			for _, c := range rc.Status.Conditions {
				w.write(level1, "%v \t%v\t%v\n", c.Type, c.Status, c.Reason)
			}
		}
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}
