package endpoints

// This file records, for the debug journal (what `ctl why svc/x` shows),
// each write a sync decides on: the Service's pods counted into ready and
// not-ready addresses, then create, update or delete. A sync that finds
// the Endpoints already right writes nothing and records nothing.

import (
	"fmt"
	"strconv"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose syncService this mirrors.
const decisionSource = "pkg/controller/endpoint/endpoints_controller.go"

// recordSubsets records the addresses the Service's pods give and what the
// sync does with them, e.g. "Service web selects 3 pods, 2 ready → 2
// addresses, 1 notReadyAddress: update Endpoints".
func (c *Controller) recordSubsets(svc *api.Service, pods []*api.Pod, subsets []api.EndpointSubset, action string) {
	if !c.decisions.Enabled() {
		return
	}
	ready, notReady := distinctAddresses(subsets)
	readyPods := 0
	for _, pod := range pods {
		if controllerutil.IsPodReady(pod) {
			readyPods++
		}
	}
	c.decisions.Record(&svc.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("Service %s selects %d pods, %d ready → %d addresses, %d notReadyAddresses: %s",
			svc.Name, len(pods), readyPods, ready, notReady, action),
		Values: map[string]string{
			"pods":              strconv.Itoa(len(pods)),
			"readyPods":         strconv.Itoa(readyPods),
			"addresses":         strconv.Itoa(ready),
			"notReadyAddresses": strconv.Itoa(notReady),
			"subsets":           strconv.Itoa(len(subsets)),
		},
		Source: decisionSource,
	})
}

// recordServiceGone records the deletion of the Endpoints of a Service
// that no longer exists (once the delete found them: a key synced again
// after they went records nothing more).
func (c *Controller) recordServiceGone(key string) {
	if !c.decisions.Enabled() {
		return
	}
	namespace, name, _ := strings.Cut(key, "/")
	c.decisions.Record(&api.ObjectMeta{Namespace: namespace, Name: name}, debug.Decision{
		Message: "Service is gone → delete its Endpoints",
		Source:  decisionSource,
	})
}

// distinctAddresses counts the distinct ready and not-ready IPs: a pod
// whose ports fall in two subsets appears in both.
func distinctAddresses(subsets []api.EndpointSubset) (ready, notReady int) {
	readyIPs, notReadyIPs := map[string]bool{}, map[string]bool{}
	for _, s := range subsets {
		for _, a := range s.Addresses {
			readyIPs[a.IP] = true
		}
		for _, a := range s.NotReadyAddresses {
			notReadyIPs[a.IP] = true
		}
	}
	return len(readyIPs), len(notReadyIPs)
}
