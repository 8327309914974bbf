package endpointslice

// This file decides which slices to create, update and delete so that a
// Service's slices hold exactly its desired endpoints. It is pure: given
// the Service, its desired endpoint groups and its current slices, it
// returns a plan, and sync carries the plan out. It follows upstream's
// Reconciler (k8s.io/endpointslice, reconcileByPortMapping and finalize):
//
//  1. Each current slice keeps the endpoints still desired (updated in
//     place when their conditions changed) and drops the others; a slice
//     left empty is deleted.
//  2. Endpoints not yet in any slice go first into the slices already
//     being rewritten, fullest first, since those writes happen anyway.
//  3. What is left goes into one untouched slice it fits in, or into new
//     slices of at most maxEndpointsPerSlice endpoints.
//
// Touching as few slices as possible is the point: every write is an
// event every kube-proxy in the cluster receives.

import (
	"cmp"
	"maps"
	"slices"

	"kplane/pkg/api"
)

// plan is what one sync writes. Slices in update are copies of cached
// ones (with their resourceVersion); slices in create have no name yet.
type plan struct {
	create, update, delete []*api.EndpointSlice
}

func (p *plan) add(other plan) {
	p.create = append(p.create, other.create...)
	p.update = append(p.update, other.update...)
	p.delete = append(p.delete, other.delete...)
}

// empty reports whether the plan writes nothing.
func (p plan) empty() bool {
	return len(p.create) == 0 && len(p.update) == 0 && len(p.delete) == 0
}

// planService plans the slices of svc. desired holds, per address type the
// Service uses, its endpoint groups keyed by portsKey; current are the
// Service's slices this controller manages. Slices of an address type the
// Service no longer uses are deleted.
func planService(svc *api.Service, desired map[api.AddressType]map[string]*endpointGroup, current []*api.EndpointSlice, maxPerSlice int) plan {
	byType := map[api.AddressType][]*api.EndpointSlice{}
	var p plan
	for _, slice := range current {
		if _, ok := desired[slice.AddressType]; !ok {
			p.delete = append(p.delete, slice)
			continue
		}
		byType[slice.AddressType] = append(byType[slice.AddressType], slice)
	}
	for _, addressType := range slices.Sorted(maps.Keys(desired)) {
		p.add(planAddressType(svc, addressType, desired[addressType], byType[addressType], maxPerSlice))
	}
	reuseDeletedSlices(svc, &p)
	return p
}

// planAddressType plans the slices of one address type. Slices owned by
// another Service of the same name (deleted and recreated) are deleted;
// the garbage collector would delete them too, but later. A Service with
// no endpoints keeps one empty placeholder slice, so that consumers can
// tell "no endpoints" from "not processed yet".
func planAddressType(svc *api.Service, addressType api.AddressType, groups map[string]*endpointGroup, current []*api.EndpointSlice, maxPerSlice int) plan {
	var p plan
	byPorts := map[string][]*api.EndpointSlice{}
	for _, slice := range current {
		if !ownedBy(slice, svc) {
			p.delete = append(p.delete, slice)
			continue
		}
		key := portsKey(slice.Ports)
		byPorts[key] = append(byPorts[key], slice)
	}
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		p.add(planGroup(svc, addressType, groups[key], byPorts[key], maxPerSlice))
	}
	for _, key := range slices.Sorted(maps.Keys(byPorts)) {
		if _, ok := groups[key]; !ok {
			p.delete = append(p.delete, byPorts[key]...) // nobody offers these ports any more
		}
	}

	if len(p.delete) == len(current) && len(p.create) == 0 {
		// Nothing would remain: keep (or make) the placeholder.
		if len(p.delete) == 1 && ownedBy(p.delete[0], svc) && isPlaceholder(p.delete[0], svc) {
			p.delete = nil
		} else {
			p.create = append(p.create, newSlice(svc, addressType, nil))
		}
	}
	return p
}

// planGroup fits one group of endpoints into the current slices with the
// same ports, in the three steps described at the top of this file.
func planGroup(svc *api.Service, addressType api.AddressType, group *endpointGroup, current []*api.EndpointSlice, maxPerSlice int) plan {
	wanted := make(map[string]*api.Endpoint, len(group.endpoints))
	for i := range group.endpoints {
		wanted[endpointKey(&group.endpoints[i])] = &group.endpoints[i]
	}
	var p plan
	var rewritten, untouched []*api.EndpointSlice

	// 1. Keep what is still wanted.
	current = slices.Clone(current)
	slices.SortFunc(current, func(a, b *api.EndpointSlice) int { return cmp.Compare(a.Name, b.Name) })
	for _, slice := range current {
		var kept []api.Endpoint
		endpointsChanged := false
		for i := range slice.Endpoints {
			key := endpointKey(&slice.Endpoints[i])
			want, ok := wanted[key]
			if !ok {
				continue
			}
			kept = append(kept, *want)
			endpointsChanged = endpointsChanged || !sameEndpoint(want, &slice.Endpoints[i])
			delete(wanted, key)
		}
		labels, labelsChanged := sliceLabels(slice.Labels, svc)
		switch {
		case len(kept) == 0 && len(slice.Endpoints) > 0:
			p.delete = append(p.delete, slice)
		case endpointsChanged || len(kept) != len(slice.Endpoints) || labelsChanged:
			updated := api.DeepCopy(slice)
			updated.Endpoints, updated.Labels = kept, labels
			rewritten = append(rewritten, updated)
		default:
			untouched = append(untouched, slice)
		}
	}

	var remaining []api.Endpoint
	for _, endpoint := range group.endpoints {
		if _, ok := wanted[endpointKey(&endpoint)]; ok {
			remaining = append(remaining, endpoint)
		}
	}
	take := func(slice *api.EndpointSlice) {
		n := min(maxPerSlice-len(slice.Endpoints), len(remaining))
		if n <= 0 {
			return
		}
		slice.Endpoints = append(slice.Endpoints, remaining[:n]...)
		remaining = remaining[n:]
	}

	// 2. Top up the slices being written anyway, fullest first.
	slices.SortStableFunc(rewritten, func(a, b *api.EndpointSlice) int { return cmp.Compare(len(b.Endpoints), len(a.Endpoints)) })
	for _, slice := range rewritten {
		take(slice)
	}

	// 3. One untouched slice that takes all the rest, else new slices.
	for len(remaining) > 0 {
		var target *api.EndpointSlice
		if len(remaining) < maxPerSlice {
			if i := closestFit(untouched, len(remaining), maxPerSlice); i >= 0 {
				target = api.DeepCopy(untouched[i])
				untouched = slices.Delete(untouched, i, i+1)
				rewritten = append(rewritten, target)
			}
		}
		if target == nil {
			target = newSlice(svc, addressType, group.ports)
			p.create = append(p.create, target)
		}
		take(target)
	}
	p.update = append(p.update, rewritten...)
	return p
}

// closestFit returns the index of the slice that n more endpoints would
// leave fullest without overflowing, or -1 (upstream's getSliceToFill).
func closestFit(candidates []*api.EndpointSlice, n, maxPerSlice int) int {
	best, bestRoom := -1, maxPerSlice
	for i, slice := range candidates {
		room := maxPerSlice - len(slice.Endpoints) - n
		if room >= 0 && room < bestRoom {
			best, bestRoom = i, room
		}
	}
	return best
}

// reuseDeletedSlices turns a create and a delete into one update of the
// slice that was to be deleted, when both are of the same address type:
// one write instead of two, and no moment with both or neither slice.
func reuseDeletedSlices(svc *api.Service, p *plan) {
	for i := 0; i < len(p.delete) && len(p.create) > 0; {
		old := p.delete[i]
		created := p.create[len(p.create)-1]
		if old.AddressType != created.AddressType || !ownedBy(old, svc) {
			i++
			continue
		}
		created.Name, created.GenerateName = old.Name, ""
		created.ResourceVersion, created.UID = old.ResourceVersion, old.UID
		p.create = p.create[:len(p.create)-1]
		p.update = append(p.update, created)
		p.delete = slices.Delete(p.delete, i, i+1)
	}
}
