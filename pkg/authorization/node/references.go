package node

import "kplane/pkg/api"

// objectKind names the kinds of object a kubelet may reach through its
// pods (upstream's vertex types).
type objectKind string

const (
	kindPod            objectKind = "pod"
	kindSecret         objectKind = "secret"
	kindConfigMap      objectKind = "configmap"
	kindPVC            objectKind = "persistentvolumeclaim"
	kindPV             objectKind = "persistentvolume"
	kindServiceAccount objectKind = "serviceaccount"
	// Upstream also has ResourceClaims, ResourceSlices and
	// VolumeAttachments; kplane serves none of them.
)

// related reports whether some pod bound to nodeName references the
// object of kind in namespace with name — upstream's hasPathFrom, walked
// from the node's side: the node's pods, what each pod names, and the
// PersistentVolumes bound to the pods' claims (with their CSI secrets).
func related(src Source, nodeName string, kind objectKind, namespace, name string) bool {
	for _, pod := range src.PodsOnNode(nodeName) {
		if podReferences(src, pod, kind, namespace, name) {
			return true
		}
	}
	return false
}

// podReferences reports whether pod uses the object.
func podReferences(src Source, pod *api.Pod, kind objectKind, namespace, name string) bool {
	inPodNamespace := pod.Namespace == namespace
	switch kind {
	case kindPod:
		return inPodNamespace && pod.Name == name
	case kindServiceAccount:
		return inPodNamespace && serviceAccountOf(pod) == name
	case kindSecret:
		if inPodNamespace && contains(PodSecretNames(pod), name) {
			return true
		}
		// A bound PersistentVolume's CSI secrets may live anywhere.
		for _, pv := range podVolumes(src, pod) {
			for _, ref := range pvSecretRefs(pv) {
				if ref.Namespace == namespace && ref.Name == name {
					return true
				}
			}
		}
		return false
	case kindConfigMap:
		return inPodNamespace && contains(PodConfigMapNames(pod), name)
	case kindPVC:
		return inPodNamespace && contains(podClaimNames(pod), name)
	case kindPV:
		for _, pv := range podVolumes(src, pod) {
			if pv.Name == name {
				return true
			}
		}
		return false
	}
	return false
}

// serviceAccountOf is the pod's ServiceAccount, "default" when unset (the
// ServiceAccount admission plugin fills it in at create).
func serviceAccountOf(pod *api.Pod) string {
	if pod.Spec.ServiceAccountName != "" {
		return pod.Spec.ServiceAccountName
	}
	if pod.Spec.DeprecatedServiceAccount != "" {
		return pod.Spec.DeprecatedServiceAccount
	}
	return "default"
}

// allContainers is every container of the pod: init, regular, ephemeral.
func allContainers(pod *api.Pod) []api.Container {
	out := make([]api.Container, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers)+len(pod.Spec.EphemeralContainers))
	out = append(out, pod.Spec.InitContainers...)
	out = append(out, pod.Spec.Containers...)
	for _, ec := range pod.Spec.EphemeralContainers {
		out = append(out, ec.Container)
	}
	return out
}

// PodSecretNames lists the secrets the pod names in its own namespace:
// image pull secrets, envFrom and env of every container, secret and
// projected volumes, and CSI volumes' nodePublishSecretRef (upstream's
// VisitPodSecretNames).
func PodSecretNames(pod *api.Pod) []string {
	var names []string
	for _, ref := range pod.Spec.ImagePullSecrets {
		names = append(names, ref.Name)
	}
	for _, c := range allContainers(pod) {
		for _, from := range c.EnvFrom {
			if from.SecretRef != nil {
				names = append(names, from.SecretRef.Name)
			}
		}
		for _, env := range c.Env {
			if env.ValueFrom != nil && env.ValueFrom.SecretKeyRef != nil {
				names = append(names, env.ValueFrom.SecretKeyRef.Name)
			}
		}
	}
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.Secret != nil:
			names = append(names, v.Secret.SecretName)
		case v.Projected != nil:
			for _, src := range v.Projected.Sources {
				if src.Secret != nil {
					names = append(names, src.Secret.Name)
				}
			}
		case v.CSI != nil && v.CSI.NodePublishSecretRef != nil:
			names = append(names, v.CSI.NodePublishSecretRef.Name)
		}
	}
	return names
}

// PodConfigMapNames lists the configmaps the pod names: envFrom and env of
// every container, configMap and projected volumes (upstream's
// VisitPodConfigmapNames).
func PodConfigMapNames(pod *api.Pod) []string {
	var names []string
	for _, c := range allContainers(pod) {
		for _, from := range c.EnvFrom {
			if from.ConfigMapRef != nil {
				names = append(names, from.ConfigMapRef.Name)
			}
		}
		for _, env := range c.Env {
			if env.ValueFrom != nil && env.ValueFrom.ConfigMapKeyRef != nil {
				names = append(names, env.ValueFrom.ConfigMapKeyRef.Name)
			}
		}
	}
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.ConfigMap != nil:
			names = append(names, v.ConfigMap.Name)
		case v.Projected != nil:
			for _, src := range v.Projected.Sources {
				if src.ConfigMap != nil {
					names = append(names, src.ConfigMap.Name)
				}
			}
		}
	}
	return names
}

// podClaimNames lists the PersistentVolumeClaims the pod uses: named
// ones, and the claim of each generic ephemeral volume, which is called
// <pod>-<volume>.
func podClaimNames(pod *api.Pod) []string {
	var names []string
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil:
			names = append(names, v.PersistentVolumeClaim.ClaimName)
		case v.Ephemeral != nil:
			names = append(names, pod.Name+"-"+v.Name)
		}
	}
	return names
}

// podVolumes returns the PersistentVolumes bound to the pod's claims.
func podVolumes(src Source, pod *api.Pod) []*api.PersistentVolume {
	var pvs []*api.PersistentVolume
	for _, claimName := range podClaimNames(pod) {
		pvc, ok := src.PersistentVolumeClaim(pod.Namespace, claimName)
		if !ok || pvc.Spec.VolumeName == "" {
			continue
		}
		if pv, ok := src.PersistentVolume(pvc.Spec.VolumeName); ok {
			pvs = append(pvs, pv)
		}
	}
	return pvs
}

// pvSecretRefs lists the secrets a PersistentVolume's CSI source names
// (upstream's VisitPVSecretNames).
func pvSecretRefs(pv *api.PersistentVolume) []api.SecretReference {
	csi := pv.Spec.CSI
	if csi == nil {
		return nil
	}
	var refs []api.SecretReference
	for _, ref := range []*api.SecretReference{csi.ControllerPublishSecretRef, csi.NodeStageSecretRef,
		csi.NodePublishSecretRef, csi.ControllerExpandSecretRef, csi.NodeExpandSecretRef} {
		if ref != nil {
			refs = append(refs, *ref)
		}
	}
	return refs
}

func contains(list []string, name string) bool {
	for _, s := range list {
		if s == name {
			return true
		}
	}
	return false
}
