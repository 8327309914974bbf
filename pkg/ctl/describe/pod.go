package describe

import (
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/fieldpath"
)

// mirrorPodAnnotation marks a mirror pod (the API copy of a static pod);
// its value is the static pod's UID, which its Events are recorded under.
const mirrorPodAnnotation = "kubernetes.io/config.mirror"

// describePod prints a pod as kubectl does: where it runs and since when,
// its labels, phase and IPs, who controls it, each container's image,
// state and mounts, the conditions, volumes, QoS class, node selector,
// tolerations and Events.
func describePod(in Input, s Settings) (string, error) {
	pod, err := decode[api.Pod](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", pod.Name)
		w.write(level0, "Namespace:\t%s\n", pod.Namespace)
		if pod.Spec.Priority != nil {
			w.write(level0, "Priority:\t%d\n", *pod.Spec.Priority)
		}
		if pod.Spec.PriorityClassName != "" {
			w.write(level0, "Priority Class Name:\t%s\n", pod.Spec.PriorityClassName)
		}
		if rc := pod.Spec.RuntimeClassName; rc != nil && *rc != "" {
			w.write(level0, "Runtime Class Name:\t%s\n", *rc)
		}
		if pod.Spec.ServiceAccountName != "" {
			w.write(level0, "Service Account:\t%s\n", pod.Spec.ServiceAccountName)
		}
		if pod.Spec.NodeName == "" {
			w.write(level0, "Node:\t<none>\n")
		} else {
			w.write(level0, "Node:\t%s\n", pod.Spec.NodeName+"/"+pod.Status.HostIP)
		}
		if pod.Status.StartTime != nil {
			w.write(level0, "Start Time:\t%s\n", s.timestamp(pod.Status.StartTime.Time))
		}
		printLabelsMultiline(w, "Labels", pod.Labels)
		printAnnotationsMultiline(w, "Annotations", pod.Annotations)
		if pod.DeletionTimestamp != nil && pod.Status.Phase != api.PodFailed && pod.Status.Phase != api.PodSucceeded {
			w.write(level0, "Status:\tTerminating (lasts %s)\n", s.since(pod.DeletionTimestamp.Time))
			w.write(level0, "Termination Grace Period:\t%ds\n", deref(pod.DeletionGracePeriodSeconds))
		} else {
			w.write(level0, "Status:\t%s\n", pod.Status.Phase)
		}
		if pod.Status.Reason != "" {
			w.write(level0, "Reason:\t%s\n", pod.Status.Reason)
		}
		if pod.Status.Message != "" {
			w.write(level0, "Message:\t%s\n", pod.Status.Message)
		}
		if sc := pod.Spec.SecurityContext; sc != nil && sc.SeccompProfile != nil {
			w.write(level0, "SeccompProfile:\t%s\n", sc.SeccompProfile.Type)
			if sc.SeccompProfile.Type == "Localhost" {
				w.write(level0, "LocalhostProfile:\t%s\n", deref(sc.SeccompProfile.LocalhostProfile))
			}
		}
		w.write(level0, "IP:\t%s\n", pod.Status.PodIP)
		if len(pod.Status.PodIPs) == 0 {
			w.write(level0, "IPs:\t<none>\n")
		} else {
			w.write(level0, "IPs:\n")
			for _, ip := range pod.Status.PodIPs {
				w.write(level1, "IP:\t%s\n", ip.IP)
			}
		}
		if controlledBy := controllerOf(pod.ObjectMeta); controlledBy != "" {
			w.write(level0, "Controlled By:\t%s\n", controlledBy)
		}
		if pod.Status.NominatedNodeName != "" {
			w.write(level0, "NominatedNodeName:\t%s\n", pod.Status.NominatedNodeName)
		}
		if pod.Spec.Resources != nil {
			w.write(level0, "Resources:\n")
			describeResources(pod.Spec.Resources, w, level1)
		}
		resolve := podFieldResolver(pod)
		if len(pod.Spec.InitContainers) > 0 {
			describeContainers("Init Containers", pod.Spec.InitContainers, pod.Status.InitContainerStatuses, resolve, w, "", s)
		}
		describeContainers("Containers", pod.Spec.Containers, pod.Status.ContainerStatuses, resolve, w, "", s)
		if len(pod.Spec.EphemeralContainers) > 0 {
			var ephemeral []api.Container
			for _, ec := range pod.Spec.EphemeralContainers {
				ephemeral = append(ephemeral, ec.Container)
			}
			describeContainers("Ephemeral Containers", ephemeral, pod.Status.EphemeralContainerStatuses, resolve, w, "", s)
		}
		if len(pod.Spec.ReadinessGates) > 0 {
			w.write(level0, "Readiness Gates:\n  Type\tStatus\n")
			for _, g := range pod.Spec.ReadinessGates {
				status := "<none>"
				for _, c := range pod.Status.Conditions {
					if c.Type == g.ConditionType {
						status = string(c.Status)
						break
					}
				}
				w.write(level1, "%v \t%v \n", g.ConditionType, status)
			}
		}
		if len(pod.Status.Conditions) > 0 {
			w.write(level0, "Conditions:\n  Type\tStatus\n")
			for _, c := range pod.Status.Conditions {
				w.write(level1, "%v \t%v \n", c.Type, c.Status)
			}
		}
		describeVolumes(pod.Spec.Volumes, w, "", s)
		w.write(level0, "QoS Class:\t%s\n", podQOS(pod))
		printLabelsMultiline(w, "Node-Selectors", pod.Spec.NodeSelector)
		printTolerationsMultiline(w, "Tolerations", pod.Spec.Tolerations)
		describeTopologySpreadConstraints(pod.Spec.TopologySpreadConstraints, w, "")
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}

// describeTopologySpreadConstraints prints one line per constraint:
// "zone:DoNotSchedule when max skew 1 is exceeded for selector app=web".
func describeTopologySpreadConstraints(tscs []api.TopologySpreadConstraint, w prefixWriter, space string) {
	if len(tscs) == 0 {
		return
	}
	sorted := slices.Clone(tscs)
	slices.SortFunc(sorted, func(a, b api.TopologySpreadConstraint) int { return strings.Compare(a.TopologyKey, b.TopologyKey) })
	w.write(level0, "%sTopology Spread Constraints:\t", space)
	for i, tsc := range sorted {
		if i != 0 {
			w.write(level0, "%s", space)
			w.write(level0, "%s", "\t")
		}
		w.write(level0, "%s:", tsc.TopologyKey)
		w.write(level0, "%v", tsc.WhenUnsatisfiable)
		w.write(level0, " when max skew %d is exceeded", tsc.MaxSkew)
		if tsc.LabelSelector != nil {
			w.write(level0, " for selector %s", formatLabelSelector(tsc.LabelSelector))
		}
		w.write(level0, "\n")
	}
}

// podFieldResolver gives the value of a downward-API environment
// variable from the pod's fields, as the kubelet would set it.
func podFieldResolver(pod *api.Pod) envResolver {
	return func(e api.EnvVar) string {
		value, _ := fieldpath.PodFieldValue(pod, e.ValueFrom.FieldRef.FieldPath)
		return value
	}
}
