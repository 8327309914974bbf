package describe

import (
	"fmt"
	"slices"
	"strings"

	"kplane/pkg/api"
)

// betaStorageClassAnnotation is the storage class annotation that came
// before spec.storageClassName; when present it wins, as in kubectl.
const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"

func volumeClass(pv *api.PersistentVolume) string {
	if class, ok := pv.Annotations[betaStorageClassAnnotation]; ok {
		return class
	}
	return pv.Spec.StorageClassName
}

func claimClass(pvc *api.PersistentVolumeClaim) string {
	if class, ok := pvc.Annotations[betaStorageClassAnnotation]; ok {
		return class
	}
	return deref(pvc.Spec.StorageClassName)
}

// describePersistentVolume prints a PersistentVolume: class, phase, the
// claim bound to it, reclaim policy, access modes, capacity, node
// affinity, where the storage is, and Events.
func describePersistentVolume(in Input, s Settings) (string, error) {
	pv, err := decode[api.PersistentVolume](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", pv.Name)
		printLabelsMultiline(w, "Labels", pv.Labels)
		printAnnotationsMultiline(w, "Annotations", pv.Annotations)
		w.write(level0, "Finalizers:\t%v\n", goSlice(pv.Finalizers))
		w.write(level0, "StorageClass:\t%s\n", volumeClass(pv))
		if pv.DeletionTimestamp != nil {
			w.write(level0, "Status:\tTerminating (lasts %s)\n", s.since(pv.DeletionTimestamp.Time))
		} else {
			w.write(level0, "Status:\t%v\n", pv.Status.Phase)
		}
		if pv.Spec.ClaimRef != nil {
			w.write(level0, "Claim:\t%s\n", pv.Spec.ClaimRef.Namespace+"/"+pv.Spec.ClaimRef.Name)
		} else {
			w.write(level0, "Claim:\t%s\n", "")
		}
		w.write(level0, "Reclaim Policy:\t%v\n", pv.Spec.PersistentVolumeReclaimPolicy)
		w.write(level0, "Access Modes:\t%s\n", accessModesString(pv.Spec.AccessModes))
		if pv.Spec.VolumeMode != nil {
			w.write(level0, "VolumeMode:\t%v\n", *pv.Spec.VolumeMode)
		}
		storage := pv.Spec.Capacity[api.ResourceStorage]
		w.write(level0, "Capacity:\t%s\n", storage.String())
		printVolumeNodeAffinity(w, pv.Spec.NodeAffinity)
		w.write(level0, "Message:\t%s\n", pv.Status.Message)
		w.write(level0, "Source:\n")
		src := pv.Spec.PersistentVolumeSource
		switch {
		case src.HostPath != nil:
			printHostPathVolumeSource(src.HostPath, w)
		case src.NFS != nil:
			printNFSVolumeSource(src.NFS, w)
		case src.ISCSI != nil:
			printISCSIVolumeSource(src.ISCSI, w)
		case src.Local != nil:
			w.write(level2, "Type:\tLocalVolume (a persistent volume backed by local storage on a node)\n"+
				"    Path:\t%v\n", src.Local.Path)
		case src.FC != nil:
			printFCVolumeSource(src.FC, w)
		case src.CSI != nil:
			w.write(level2, "Type:\tCSI (a Container Storage Interface (CSI) volume source)\n"+
				"    Driver:\t%v\n"+
				"    FSType:\t%v\n"+
				"    VolumeHandle:\t%v\n"+
				"    ReadOnly:\t%v\n", src.CSI.Driver, src.CSI.FSType, src.CSI.VolumeHandle, src.CSI.ReadOnly)
			printVolumeAttributes(w, src.CSI.VolumeAttributes)
		default:
			w.write(level1, "<unknown>\n")
		}
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}

// printVolumeNodeAffinity prints the nodes a volume can be reached from,
// one term per line: "Term 0: kubernetes.io/hostname in [node1]".
func printVolumeNodeAffinity(w prefixWriter, affinity *api.VolumeNodeAffinity) {
	w.write(level0, "Node Affinity:\t")
	if affinity == nil || affinity.Required == nil {
		w.writeLine("<none>")
		return
	}
	w.writeLine("")
	w.write(level1, "Required Terms:\t")
	terms := affinity.Required.NodeSelectorTerms
	if len(terms) == 0 {
		w.writeLine("<none>")
		return
	}
	w.writeLine("")
	for i, term := range terms {
		w.write(level2, "%s:%s", fmt.Sprintf("Term %v", i), "\t")
		if len(term.MatchExpressions) == 0 {
			w.writeLine("<none>")
			continue
		}
		for j, req := range term.MatchExpressions {
			if j != 0 {
				w.write(level2, "%s", "\t")
			}
			expr := fmt.Sprintf("%s %s", req.Key, strings.ToLower(string(req.Operator)))
			if len(req.Values) > 0 {
				expr = fmt.Sprintf("%s [%s]", expr, strings.Join(req.Values, ", "))
			}
			w.write(level0, "%s\n", expr)
		}
	}
}

// describePersistentVolumeClaim prints a claim: class, phase, the volume
// it is bound to, capacity and access modes, the pods using it,
// conditions and Events.
func describePersistentVolumeClaim(in Input, s Settings) (string, error) {
	pvc, err := decode[api.PersistentVolumeClaim](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		printPersistentVolumeClaim(w, pvc, true, s)
		printPodsMultiline(w, "Used By", podsUsingClaim(pvc, in.Related.Pods))
		if len(pvc.Status.Conditions) > 0 {
			w.write(level0, "Conditions:\n")
			w.write(level1, "Type\tStatus\tLastProbeTime\tLastTransitionTime\tReason\tMessage\n")
			w.write(level1, "----\t------\t-----------------\t------------------\t------\t-------\n")
			for _, c := range pvc.Status.Conditions {
				w.write(level1, "%v \t%v \t%s \t%s \t%v \t%v\n", c.Type, c.Status,
					s.timestamp(c.LastProbeTime.Time), s.timestamp(c.LastTransitionTime.Time), c.Reason, c.Message)
			}
		}
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}

// printPersistentVolumeClaim prints a claim's fields; full is false for
// the claim template of an ephemeral volume, which has no name, phase or
// finalizers yet.
func printPersistentVolumeClaim(w prefixWriter, pvc *api.PersistentVolumeClaim, full bool, s Settings) {
	if full {
		w.write(level0, "Name:\t%s\n", pvc.Name)
		w.write(level0, "Namespace:\t%s\n", pvc.Namespace)
	}
	w.write(level0, "StorageClass:\t%s\n", claimClass(pvc))
	if full {
		if pvc.DeletionTimestamp != nil {
			w.write(level0, "Status:\tTerminating (lasts %s)\n", s.since(pvc.DeletionTimestamp.Time))
		} else {
			w.write(level0, "Status:\t%v\n", pvc.Status.Phase)
		}
	}
	w.write(level0, "Volume:\t%s\n", pvc.Spec.VolumeName)
	printLabelsMultiline(w, "Labels", pvc.Labels)
	printAnnotationsMultiline(w, "Annotations", pvc.Annotations)
	if full {
		w.write(level0, "Finalizers:\t%v\n", goSlice(pvc.Finalizers))
	}
	// Capacity and access modes are the bound volume's; an unbound claim
	// shows neither.
	capacity, accessModes := "", ""
	if pvc.Spec.VolumeName != "" {
		accessModes = accessModesString(pvc.Status.AccessModes)
		storage := pvc.Status.Capacity[api.ResourceStorage]
		capacity = storage.String()
	}
	w.write(level0, "Capacity:\t%s\n", capacity)
	w.write(level0, "Access Modes:\t%s\n", accessModes)
	if pvc.Spec.VolumeMode != nil {
		w.write(level0, "VolumeMode:\t%v\n", *pvc.Spec.VolumeMode)
	}
	if ds := pvc.Spec.DataSource; ds != nil {
		w.write(level0, "DataSource:\n")
		if ds.APIGroup != nil {
			w.write(level1, "APIGroup:\t%v\n", *ds.APIGroup)
		}
		w.write(level1, "Kind:\t%v\n", ds.Kind)
		w.write(level1, "Name:\t%v\n", ds.Name)
	}
}

// podsUsingClaim are the pods that mount the claim, plus a pod that owns
// it (the pod of an ephemeral volume), as kubectl's getPodsForPVC finds
// them.
func podsUsingClaim(pvc *api.PersistentVolumeClaim, pods []api.Pod) []api.Pod {
	var out []api.Pod
	for _, pod := range pods {
		for _, v := range pod.Spec.Volumes {
			if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == pvc.Name {
				out = append(out, pod)
			}
		}
	}
	for _, ref := range pvc.OwnerReferences {
		if ref.Kind != "Pod" {
			continue
		}
		i := slices.IndexFunc(pods, func(p api.Pod) bool { return p.UID == ref.UID })
		if i < 0 || slices.ContainsFunc(out, func(p api.Pod) bool { return p.UID == ref.UID }) {
			continue
		}
		out = append(out, pods[i])
	}
	return out
}

// printPodsMultiline prints pod names sorted, one per line, or <none>.
func printPodsMultiline(w prefixWriter, title string, pods []api.Pod) {
	w.write(level0, "%s:\t", title)
	if len(pods) == 0 {
		w.writeLine("<none>")
		return
	}
	names := make([]string, len(pods))
	for i, p := range pods {
		names[i] = p.Name
	}
	slices.Sort(names)
	for i, name := range names {
		if i != 0 {
			w.write(level0, "\t")
		}
		w.write(level0, "%s\n", name)
	}
}
