package describe

import (
	"kplane/pkg/api"
)

// describeDaemonSet prints a DaemonSet: its selector and node selector,
// how many nodes should run its pod and how many do (up to date,
// available, misscheduled), its pods by phase, the pod template and
// Events.
func describeDaemonSet(in Input, s Settings) (string, error) {
	ds, err := decode[api.DaemonSet](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", ds.Name)
		// kubectl 1.32 prints no Namespace line for a DaemonSet.
		w.write(level0, "Selector:\t%s\n", selectorString(ds.Spec.Selector))
		w.write(level0, "Node-Selector:\t%s\n", formatLabels(ds.Spec.Template.Spec.NodeSelector))
		printLabelsMultiline(w, "Labels", ds.Labels)
		printAnnotationsMultiline(w, "Annotations", ds.Annotations)
		w.write(level0, "Desired Number of Nodes Scheduled: %d\n", ds.Status.DesiredNumberScheduled)
		w.write(level0, "Current Number of Nodes Scheduled: %d\n", ds.Status.CurrentNumberScheduled)
		w.write(level0, "Number of Nodes Scheduled with Up-to-date Pods: %d\n", ds.Status.UpdatedNumberScheduled)
		w.write(level0, "Number of Nodes Scheduled with Available Pods: %d\n", ds.Status.NumberAvailable)
		w.write(level0, "Number of Nodes Misscheduled: %d\n", ds.Status.NumberMisscheduled)
		writePodsStatus(w, countPods(in.Related.Pods, ds.UID))
		describePodTemplate(&ds.Spec.Template, w, s)
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}
