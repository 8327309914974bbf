package endpointslice

// This file records, for the debug journal (what `ctl why svc/x` shows),
// each sync that writes slices or must wait: the Service's pods counted
// into endpoints, and the slices created, updated and deleted. A sync
// whose slices already say it all records nothing.

import (
	"fmt"
	"strconv"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose reconcile this mirrors.
const decisionSource = "pkg/controller/endpointslice/reconciler.go"

// recordPlan records the slices a sync writes, e.g. "Service web selects
// 2 pods → 2 endpoints (1 ready) in slices of at most 100: create 1,
// update 0, delete 0".
func (c *Controller) recordPlan(svc *api.Service, pods []*api.Pod, desired map[api.AddressType]map[string]*endpointGroup, current []*api.EndpointSlice, p plan) {
	if !c.decisions.Enabled() {
		return
	}
	endpoints, ready := 0, 0
	for _, groups := range desired {
		for _, group := range groups {
			for _, ep := range group.endpoints {
				endpoints++
				if ep.Conditions.Ready != nil && *ep.Conditions.Ready {
					ready++
				}
			}
		}
	}
	c.decisions.Record(&svc.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("Service %s selects %d pods → %d endpoints (%d ready) in slices of at most %d: %d slices now, create %d, update %d, delete %d",
			svc.Name, len(pods), endpoints, ready, c.maxPerSlice, len(current), len(p.create), len(p.update), len(p.delete)),
		Values: map[string]string{
			"pods":                 strconv.Itoa(len(pods)),
			"endpoints":            strconv.Itoa(endpoints),
			"ready":                strconv.Itoa(ready),
			"maxEndpointsPerSlice": strconv.Itoa(c.maxPerSlice),
			"slices":               strconv.Itoa(len(current)),
			"create":               strconv.Itoa(len(p.create)),
			"update":               strconv.Itoa(len(p.update)),
			"delete":               strconv.Itoa(len(p.delete)),
		},
		Source: decisionSource,
	})
}

// recordStale records that the sync waits: the slice cache has not yet
// seen this controller's own last writes, and a plan made from it would
// write them twice.
func (c *Controller) recordStale(svc *api.Service) {
	if !c.decisions.Enabled() {
		return
	}
	c.decisions.Record(&svc.ObjectMeta, debug.Decision{
		Message: "the EndpointSlice cache has not seen this controller's last writes → wait and retry",
		Source:  "pkg/controller/endpointslice/endpointslice_controller.go",
	})
}
