package endpoints

// This file computes what a Service's Endpoints should hold, and puts it in
// the one canonical layout that upstream's RepackSubsets defines
// (pkg/api/v1/endpoints/util.go), so that the same pods always give the
// same bytes and a resync that changes nothing writes nothing.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// desiredSubsets returns the subsets of svc's Endpoints given the pods its
// selector matches. Each pod that may be listed (shouldPodBeInEndpoints)
// contributes its address once per Service port it offers
// (controllerutil.FindPort): among addresses when it is Ready or the Service
// publishes not-ready addresses, among notReadyAddresses otherwise. A
// headless Service without ports lists the addresses alone; any other
// Service without ports lists nothing. The result is repacked (see
// repackSubsets).
func desiredSubsets(svc *api.Service, pods []*api.Pod) []api.EndpointSubset {
	publishNotReady := svc.Spec.PublishNotReadyAddresses
	var pieces []api.EndpointSubset
	for _, pod := range pods {
		if !shouldPodBeInEndpoints(pod, publishNotReady) {
			continue
		}
		addr, ok := podEndpointAddress(svc, pod)
		if !ok {
			continue
		}
		ready := publishNotReady || controllerutil.IsPodReady(pod)
		if len(svc.Spec.Ports) == 0 {
			if svc.Spec.ClusterIP == api.ClusterIPNone {
				pieces = append(pieces, subsetOf(addr, ready, nil))
			}
			continue
		}
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			port, ok := controllerutil.FindPort(pod, sp)
			if !ok {
				continue
			}
			pieces = append(pieces, subsetOf(addr, ready, &api.EndpointPort{
				Name: sp.Name, Port: port, Protocol: controllerutil.ProtocolOrTCP(sp.Protocol), AppProtocol: sp.AppProtocol,
			}))
		}
	}
	return repackSubsets(pieces)
}

// subsetOf is a one-address subset, the unit desiredSubsets builds from.
func subsetOf(addr api.EndpointAddress, ready bool, port *api.EndpointPort) api.EndpointSubset {
	var s api.EndpointSubset
	if ready {
		s.Addresses = []api.EndpointAddress{addr}
	} else {
		s.NotReadyAddresses = []api.EndpointAddress{addr}
	}
	if port != nil {
		s.Ports = []api.EndpointPort{*port}
	}
	return s
}

// addressKey identifies an address: its IP and the pod it stands for (two
// pods may share an IP, e.g. with hostNetwork).
type addressKey struct{ ip, uid string }

func keyOfAddress(a *api.EndpointAddress) addressKey {
	k := addressKey{ip: a.IP}
	if a.TargetRef != nil {
		k.uid = a.TargetRef.UID
	}
	return k
}

// portKey identifies a port by value (EndpointPort has a pointer field, so
// it cannot be a map key itself).
type portKey struct {
	name        string
	port        int32
	protocol    api.Protocol
	appProtocol string
}

func keyOfPort(p *api.EndpointPort) portKey {
	k := portKey{name: p.Name, port: p.Port, protocol: p.Protocol}
	if p.AppProtocol != nil {
		k.appProtocol = "=" + *p.AppProtocol // "=" tells "set to empty" from unset
	}
	return k
}

// noPorts stands for "no ports" while repacking, as upstream's sentinel
// port -1 does, so that the addresses of a port-less headless Service are
// not lost.
var noPorts = portKey{port: -1}

// repackSubsets rearranges subsets of any shape into the canonical layout:
// every address appears once per port; ports whose sets of addresses (and
// their readiness) are identical share one subset; an address that is not
// ready on any subset of a port is not ready for that port (not-ready
// wins). So pods exposing the same ports end up in one subset, and a pod
// lacking one of them in another.
//
// The order is fixed: addresses by IP (bytewise, as upstream) then pod
// UID; ports by name, number, protocol; subsets by their first port (a
// port-less subset first). Upstream orders ports and subsets by a hash of
// their contents instead; any fixed order gives the property that matters,
// that equal inputs give equal output.
func repackSubsets(subsets []api.EndpointSubset) []api.EndpointSubset {
	addresses := map[addressKey]api.EndpointAddress{}
	ports := map[portKey]api.EndpointPort{}
	readyByPort := map[portKey]map[addressKey]bool{}
	record := func(addr *api.EndpointAddress, pk portKey, ready bool) {
		ak := keyOfAddress(addr)
		if _, ok := addresses[ak]; !ok {
			addresses[ak] = api.DeepCopyValue(*addr)
		}
		m := readyByPort[pk]
		if m == nil {
			m = map[addressKey]bool{}
			readyByPort[pk] = m
		}
		if wasReady, seen := m[ak]; !seen || wasReady {
			m[ak] = ready
		}
	}
	for i := range subsets {
		s := &subsets[i]
		keys := []portKey{noPorts}
		if len(s.Ports) > 0 {
			keys = keys[:0]
			for j := range s.Ports {
				pk := keyOfPort(&s.Ports[j])
				ports[pk] = api.DeepCopyValue(s.Ports[j])
				keys = append(keys, pk)
			}
		}
		for _, pk := range keys {
			for j := range s.Addresses {
				record(&s.Addresses[j], pk, true)
			}
			for j := range s.NotReadyAddresses {
				record(&s.NotReadyAddresses[j], pk, false)
			}
		}
	}

	// Group the ports by the exact set of (address, ready) they map to.
	groups := map[string][]portKey{}
	for pk, m := range readyByPort {
		sig := signature(m)
		groups[sig] = append(groups[sig], pk)
	}

	var out []api.EndpointSubset
	for _, pks := range groups {
		var s api.EndpointSubset
		for ak, ready := range readyByPort[pks[0]] {
			if ready {
				s.Addresses = append(s.Addresses, addresses[ak])
			} else {
				s.NotReadyAddresses = append(s.NotReadyAddresses, addresses[ak])
			}
		}
		slices.SortFunc(s.Addresses, compareAddresses)
		slices.SortFunc(s.NotReadyAddresses, compareAddresses)
		for _, pk := range pks {
			if pk != noPorts {
				s.Ports = append(s.Ports, ports[pk])
			}
		}
		slices.SortFunc(s.Ports, comparePorts)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b api.EndpointSubset) int {
		switch {
		case len(a.Ports) == 0 || len(b.Ports) == 0:
			return cmp.Compare(len(a.Ports), len(b.Ports))
		default:
			return comparePorts(a.Ports[0], b.Ports[0])
		}
	})
	return out
}

// signature flattens an address→ready set into a string usable as a map
// key (Go maps cannot key on maps).
func signature(m map[addressKey]bool) string {
	var b strings.Builder
	for _, ak := range slices.SortedFunc(maps.Keys(m), func(x, y addressKey) int {
		return cmp.Or(cmp.Compare(x.ip, y.ip), cmp.Compare(x.uid, y.uid))
	}) {
		b.WriteString(ak.ip)
		b.WriteByte(0)
		b.WriteString(ak.uid)
		if m[ak] {
			b.WriteString("\x00r\x01")
		} else {
			b.WriteString("\x00n\x01")
		}
	}
	return b.String()
}

// compareAddresses orders by IP bytes, then by pod UID (no pod first), as
// upstream's LessEndpointAddress.
func compareAddresses(a, b api.EndpointAddress) int {
	if c := bytes.Compare([]byte(a.IP), []byte(b.IP)); c != 0 {
		return c
	}
	ka, kb := keyOfAddress(&a), keyOfAddress(&b)
	return cmp.Compare(ka.uid, kb.uid)
}

// comparePorts orders ports by name, number, protocol and appProtocol.
func comparePorts(a, b api.EndpointPort) int {
	ka, kb := keyOfPort(&a), keyOfPort(&b)
	return cmp.Or(cmp.Compare(ka.name, kb.name), cmp.Compare(ka.port, kb.port),
		cmp.Compare(ka.protocol, kb.protocol), cmp.Compare(ka.appProtocol, kb.appProtocol))
}

// subsetsEqual reports whether two subset lists say the same thing on the
// wire. Comparing JSON makes nil and empty lists equal, which is how the
// apiserver hands them back.
func subsetsEqual(a, b []api.EndpointSubset) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if string(ja) == "null" {
		ja = []byte("[]")
	}
	if string(jb) == "null" {
		jb = []byte("[]")
	}
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// headlessLabel marks the Endpoints of a Service without a cluster IP, as
// upstream does (v1.IsHeadlessService), so that consumers can tell them
// apart without reading the Service.
const headlessLabel = "service.kubernetes.io/headless"

// desiredLabels are the Service's labels, plus headlessLabel for a
// headless Service.
func desiredLabels(svc *api.Service) map[string]string {
	labels := maps.Clone(svc.Labels)
	if svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == api.ClusterIPNone {
		if labels == nil {
			labels = map[string]string{}
		}
		labels[headlessLabel] = ""
	}
	return labels
}
