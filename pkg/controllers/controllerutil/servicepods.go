package controllerutil

// This file holds what the controllers that list a Service's pods share —
// the endpoints controller (Endpoints) and the endpointslice controller
// (EndpointSlices): which Services a pod event concerns, and which port a
// Service port reaches on a pod. Both queue Service keys and recompute
// everything in sync, so both must turn a pod event into the same keys;
// upstream's rule is GetPodServiceMemberships,
// GetServicesToUpdateOnPodChange and podEndpointsChanged in
// k8s.io/endpointslice/util, and its port lookup FindPort in
// pkg/api/v1/pod.

import (
	"log/slog"
	"maps"
	"slices"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/informer"
)

// ServicePodHandlers returns the pod event handlers of a controller whose
// queue holds Service keys ("namespace/name"): each event passes to
// enqueue the key of every Service it concerns, read from services (the
// Service cache). A new or deleted pod concerns the Services that select
// it (ServicesForPod); a changed one, those ServicesToUpdateOnPodChange
// names. The handlers only compute keys; the controller's sync does the
// work. log receives lister errors, which lose the event.
func ServicePodHandlers(services *informer.Lister[*api.Service], enqueue func(key string), log *slog.Logger) informer.ResourceEventHandlerFuncs {
	h := &servicePodHandlers{services: services, enqueue: enqueue, log: log}
	return informer.ResourceEventHandlerFuncs{
		AddFunc:    h.addPod,
		UpdateFunc: h.updatePod,
		DeleteFunc: h.deletePod,
	}
}

// servicePodHandlers are the handlers ServicePodHandlers returns.
type servicePodHandlers struct {
	services *informer.Lister[*api.Service]
	enqueue  func(key string)
	log      *slog.Logger
}

// addPod queues the Services that select a new pod.
func (h *servicePodHandlers) addPod(obj api.Object) {
	pod, ok := obj.(*api.Pod)
	if !ok {
		return
	}
	keys, err := ServicesForPod(h.services.Namespace(pod.Namespace), pod)
	h.queue(pod, keys, err)
}

// updatePod queues the Services a pod change concerns (see
// ServicesToUpdateOnPodChange).
func (h *servicePodHandlers) updatePod(oldObj, newObj api.Object) {
	oldPod, ok1 := oldObj.(*api.Pod)
	newPod, ok2 := newObj.(*api.Pod)
	if !ok1 || !ok2 {
		return
	}
	keys, err := ServicesToUpdateOnPodChange(h.services.Namespace(newPod.Namespace), oldPod, newPod)
	h.queue(newPod, keys, err)
}

// deletePod queues the Services that selected a deleted pod. obj may be a
// tombstone when the deletion was only noticed by a relist.
func (h *servicePodHandlers) deletePod(obj any) {
	if pod, ok := informer.DeletedObject[*api.Pod](obj); ok {
		h.addPod(pod)
	}
}

// queue passes keys, the Services an event of pod concerns, to enqueue.
func (h *servicePodHandlers) queue(pod *api.Pod, keys map[string]bool, err error) {
	if err != nil {
		h.log.Error("cannot find the services of a pod", "pod", pod.Namespace+"/"+pod.Name, "err", err)
		return
	}
	for key := range keys {
		h.enqueue(key)
	}
}

// ServicesForPod returns the keys ("namespace/name") of the Services in
// the pod's namespace whose selector matches the pod's labels; services
// lists that namespace. Services without a selector are skipped: their
// Endpoints and EndpointSlices are written by someone else.
func ServicesForPod(services informer.NamespaceLister[*api.Service], pod *api.Pod) (map[string]bool, error) {
	list, err := services.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	for _, svc := range list {
		if len(svc.Spec.Selector) > 0 && labels.SelectorFromSet(svc.Spec.Selector).Matches(pod.Labels) {
			keys[svc.Namespace+"/"+svc.Name] = true
		}
	}
	return keys, nil
}

// ServicesToUpdateOnPodChange returns the keys of the Services to resync
// after a pod changed from oldPod to newPod; services lists the pod's
// namespace. A resync (same resourceVersion) or a change no endpoint
// shows (see podEndpointChanges) concerns none. When only the pod's
// membership changed, the Services that selected it before or after but
// not both (it joined or left them); when its endpoint changed, every
// Service selecting it before or after.
func ServicesToUpdateOnPodChange(services informer.NamespaceLister[*api.Service], oldPod, newPod *api.Pod) (map[string]bool, error) {
	if oldPod.ResourceVersion == newPod.ResourceVersion {
		return nil, nil // a resync: nothing happened
	}
	endpointChanged, membershipChanged := podEndpointChanges(oldPod, newPod)
	if !endpointChanged && !membershipChanged {
		return nil, nil
	}
	current, err := ServicesForPod(services, newPod)
	if err != nil || !membershipChanged {
		return current, err
	}
	previous, err := ServicesForPod(services, oldPod)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for key := range current {
		if endpointChanged || !previous[key] {
			out[key] = true
		}
	}
	for key := range previous {
		if endpointChanged || !current[key] {
			out[key] = true
		}
	}
	return out, nil
}

// podEndpointChanges compares two versions of a pod. endpointChanged says
// the address a Service lists for it may read differently (deletion
// started, readiness flipped, IPs changed); membershipChanged says the
// Services selecting it (labels), or its hostname entry (hostname,
// subdomain), may have changed. Anything else — a new annotation, a
// container restart count — changes no Endpoints or EndpointSlice, and
// upstream ignores it to spare the apiserver.
func podEndpointChanges(oldPod, newPod *api.Pod) (endpointChanged, membershipChanged bool) {
	membershipChanged = !maps.Equal(oldPod.Labels, newPod.Labels) ||
		oldPod.Spec.Hostname != newPod.Spec.Hostname || oldPod.Spec.Subdomain != newPod.Spec.Subdomain
	endpointChanged = (oldPod.DeletionTimestamp == nil) != (newPod.DeletionTimestamp == nil) ||
		IsPodReady(oldPod) != IsPodReady(newPod) ||
		!slices.Equal(PodIPs(oldPod), PodIPs(newPod))
	return endpointChanged, membershipChanged
}

// PodIPs returns the pod's IPs: status.podIPs, or status.podIP when only
// that is set (a kubelet reports both; the single one is the first).
func PodIPs(pod *api.Pod) []string {
	if len(pod.Status.PodIPs) > 0 {
		ips := make([]string, 0, len(pod.Status.PodIPs))
		for _, ip := range pod.Status.PodIPs {
			ips = append(ips, ip.IP)
		}
		return ips
	}
	if pod.Status.PodIP != "" {
		return []string{pod.Status.PodIP}
	}
	return nil
}

// ProtocolOrTCP is a port's protocol, with unset meaning TCP: the default
// of Service ports and container ports alike.
func ProtocolOrTCP(p api.Protocol) api.Protocol {
	if p == "" {
		return api.ProtocolTCP
	}
	return p
}

// FindPort resolves a Service port's targetPort on one pod. A number is
// used as is (unset means the Service port itself, which is what
// defaulting fills in). A name is looked up among the pod's container
// ports with the same protocol — the app containers', then those of
// sidecars (init containers with restartPolicy Always), as upstream's
// FindPort — and ok is false when the pod has no such port: the pod is
// then not a backend for this Service port, while it may be for others.
func FindPort(pod *api.Pod, svcPort *api.ServicePort) (port int32, ok bool) {
	if svcPort.TargetPort.Type != api.IntOrStringString {
		if svcPort.TargetPort.IntVal == 0 {
			return svcPort.Port, true
		}
		return svcPort.TargetPort.IntVal, true
	}
	name, protocol := svcPort.TargetPort.StrVal, ProtocolOrTCP(svcPort.Protocol)
	lookup := func(containers []api.Container, sidecarsOnly bool) (int32, bool) {
		for _, c := range containers {
			if sidecarsOnly && (c.RestartPolicy == nil || *c.RestartPolicy != api.ContainerRestartPolicyAlways) {
				continue
			}
			for _, p := range c.Ports {
				if p.Name == name && ProtocolOrTCP(p.Protocol) == protocol {
					return p.ContainerPort, true
				}
			}
		}
		return 0, false
	}
	if port, ok := lookup(pod.Spec.Containers, false); ok {
		return port, true
	}
	return lookup(pod.Spec.InitContainers, true)
}
