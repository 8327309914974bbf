package statefulset

// This file gives a StatefulSet's pods their stable identity, as upstream's
// stateful_set_utils.go does: the name "<set>-<ordinal>", the hostname and
// subdomain that make the pod's DNS name <set>-<ordinal>.<serviceName>, the
// labels that let a Service pick one pod, and the claims
// "<template>-<set>-<ordinal>" its volumes point to. All of it is pure.

import (
	"regexp"
	"strconv"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// ordinalPattern splits a pod name into its set's name and its ordinal;
// the greedy first group lets a set's own name contain dashes and digits.
var ordinalPattern = regexp.MustCompile(`^(.*)-([0-9]+)$`)

// parentAndOrdinal returns the set name and ordinal encoded in a pod's
// name, or ("", -1) for a name that is not "<set>-<ordinal>".
func parentAndOrdinal(podName string) (string, int) {
	m := ordinalPattern.FindStringSubmatch(podName)
	if m == nil {
		return "", -1
	}
	ordinal, err := strconv.ParseInt(m[2], 10, 32)
	if err != nil {
		return "", -1
	}
	return m[1], int(ordinal)
}

// ordinalOf returns the pod's ordinal, -1 if its name has none.
func ordinalOf(pod *api.Pod) int {
	_, ordinal := parentAndOrdinal(pod.Name)
	return ordinal
}

// isMemberOf reports whether pod's name says it belongs to set. Only such
// pods are adopted: an orphan "db-0" is no business of the set "web".
func isMemberOf(set *api.StatefulSet, pod *api.Pod) bool {
	parent, ordinal := parentAndOrdinal(pod.Name)
	return ordinal >= 0 && parent == set.Name
}

// podName is the name of the set's pod with ordinal.
func podName(set *api.StatefulSet, ordinal int) string {
	return set.Name + "-" + strconv.Itoa(ordinal)
}

// claimName is the name of the claim from template for the set's pod with
// ordinal: "<template>-<set>-<ordinal>", e.g. "www-web-0".
func claimName(template *api.PersistentVolumeClaim, set *api.StatefulSet, ordinal int) string {
	return template.Name + "-" + podName(set, ordinal)
}

// startOrdinal is spec.ordinals.start, 0 when unset.
func startOrdinal(set *api.StatefulSet) int {
	if set.Spec.Ordinals != nil {
		return int(set.Spec.Ordinals.Start)
	}
	return 0
}

// replicasOf is spec.replicas, 1 when unset (the API default).
func replicasOf(set *api.StatefulSet) int {
	if set.Spec.Replicas != nil {
		return int(*set.Spec.Replicas)
	}
	return 1
}

// revisionOf is the name of the ControllerRevision pod was made from.
func revisionOf(pod *api.Pod) string {
	return pod.Labels[api.ControllerRevisionHashLabelKey]
}

// newPod builds (does not create) the set's pod with ordinal from
// template, the pod template of revision: the template's labels and spec,
// the fixed name, hostname and subdomain, the identity labels, the
// revision label, volumes pointing to its claims, and the set as its
// controller.
func newPod(set *api.StatefulSet, template *api.PodTemplateSpec, revision string, ordinal int) *api.Pod {
	pod := controllerutil.PodFromTemplate(template, set, controllerutil.NewControllerRef(set, "apps/v1", "StatefulSet"))
	name := podName(set, ordinal)
	pod.GenerateName = ""
	pod.Name = name
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[api.StatefulSetPodNameLabel] = name
	pod.Labels[api.PodIndexLabel] = strconv.Itoa(ordinal)
	pod.Labels[api.ControllerRevisionHashLabelKey] = revision
	// The hostname is the pod's name and the subdomain the governing
	// Service, so cluster DNS answers <name>.<service>.<ns>.svc.
	pod.Spec.Hostname = name
	pod.Spec.Subdomain = set.Spec.ServiceName
	pod.Spec.Volumes = claimVolumes(set, ordinal, pod.Spec.Volumes)
	return pod
}

// claimVolumes returns volumes with one persistentVolumeClaim volume per
// claim template, named like the template (which is what the containers'
// volumeMounts refer to); a template volume of the same name is replaced.
func claimVolumes(set *api.StatefulSet, ordinal int, volumes []api.Volume) []api.Volume {
	if len(set.Spec.VolumeClaimTemplates) == 0 {
		return volumes
	}
	templates := map[string]bool{}
	var out []api.Volume
	for i := range set.Spec.VolumeClaimTemplates {
		t := &set.Spec.VolumeClaimTemplates[i]
		templates[t.Name] = true
		out = append(out, api.Volume{Name: t.Name, VolumeSource: api.VolumeSource{
			PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claimName(t, set, ordinal)},
		}})
	}
	for _, v := range volumes {
		if !templates[v.Name] {
			out = append(out, v)
		}
	}
	return out
}

// newClaims builds the claims of the set's pod with ordinal, one per
// claim template: the template's spec, its labels plus the set's selector
// labels (as upstream, so `kubectl get pvc -l app=…` finds them), and no
// owner — with the default Retain policy they outlive pods and set.
func newClaims(set *api.StatefulSet, ordinal int) []*api.PersistentVolumeClaim {
	var claims []*api.PersistentVolumeClaim
	for i := range set.Spec.VolumeClaimTemplates {
		t := &set.Spec.VolumeClaimTemplates[i]
		claim := &api.PersistentVolumeClaim{
			TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
			ObjectMeta: api.ObjectMeta{
				Name:        claimName(t, set, ordinal),
				Namespace:   set.Namespace,
				Labels:      map[string]string{},
				Annotations: api.DeepCopyValue(t.Annotations),
			},
			Spec: api.DeepCopyValue(t.Spec),
		}
		for k, v := range t.Labels {
			claim.Labels[k] = v
		}
		if set.Spec.Selector != nil {
			for k, v := range set.Spec.Selector.MatchLabels {
				claim.Labels[k] = v
			}
		}
		claims = append(claims, claim)
	}
	return claims
}
