package garbagecollector

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"kplane/pkg/client"
	"kplane/pkg/informer"
	"kplane/pkg/restmapper"
)

// This file keeps the set of watched resources in step with discovery, as
// upstream's GarbageCollector.Sync and GraphBuilder.syncMonitors do: every
// resourceResyncPeriod the collector reads discovery again, starts a
// monitor for each new deletable resource (a CustomResourceDefinition was
// established) and stops the monitor of each resource that went away (its
// CRD was deleted).

// monitor pairs a resource the graph watches with its shared informer and
// the registration of the graph builder's handler on it.
type monitor struct {
	resource     client.Resource
	informer     informer.SharedIndexInformer
	registration informer.ResourceEventHandlerRegistration
	// dynamic marks the monitor of a custom resource; only those are ever
	// removed (a built-in resource's monitor stays for the process's life).
	dynamic bool
}

// monitorSet is the collector's monitors by resource.
type monitorSet struct {
	mu       sync.Mutex
	monitors map[client.Resource]*monitor
}

// resources returns the monitored resources, sorted by their String.
func (s *monitorSet) resources() []client.Resource {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]client.Resource, 0, len(s.monitors))
	for r := range s.monitors {
		out = append(out, r)
	}
	sortResources(out)
	return out
}

// ignoredResources are never monitored, as upstream's default
// --gc-ignored-resources: events are many, short-lived and never owners.
var ignoredResources = map[string]bool{
	client.EventsResource.String():         true,
	client.EventsV1EventsResource.String(): true,
}

// deletableResources picks from discovery the resources the collector
// watches: the preferred version of each one that supports delete, list
// and watch (upstream's GetDeletableResources), leaving out the ignored
// ones. Every kind a user can delete in the foreground must be watched,
// built-in or custom: only the collector removes the foregroundDeletion
// finalizer, and it does so for the objects it sees.
func deletableResources(discovered []restmapper.APIResource) []client.Resource {
	var out []client.Resource
	for _, r := range discovered {
		if !r.Preferred || !r.HasVerb("delete") || !r.HasVerb("list") || !r.HasVerb("watch") {
			continue
		}
		res := r.Client()
		if ignoredResources[res.String()] {
			continue
		}
		out = append(out, res)
	}
	return out
}

// informerFor returns the informer a monitor of res uses: the shared typed
// one when the factory has an accessor for res (the Namespaces or Leases
// cache other controllers may keep too), else a dynamic one. dynamic says
// which; only a dynamic monitor is ever removed again.
func (c *Controller) informerFor(res client.Resource) (inf informer.SharedIndexInformer, dynamic bool) {
	if inf, ok := c.informers.BuiltinInformer(res); ok {
		return inf, false
	}
	return c.informers.ForDynamicResource(res).Informer(), !client.IsBuiltin(res)
}

// resyncResult says what one resync changed.
type resyncResult struct {
	added, removed []client.Resource
}

// resyncMonitors reads discovery, updates the REST mapper, adds a monitor
// for each deletable resource it lists that has none, and removes the
// dynamic monitors of custom resources it no longer lists. It
// does not start the new informers: the caller starts them (Run does,
// through the factory's Start), so a unit test can feed them by hand. On a
// discovery failure nothing changes and the error is returned (upstream
// keeps its monitors and tries again at the next period).
func (c *Controller) resyncMonitors(ctx context.Context) (resyncResult, error) {
	discovered, err := c.discover(ctx)
	if err != nil {
		return resyncResult{}, fmt.Errorf("garbage collector discovery: %w", err)
	}
	var known []client.Resource
	for _, r := range discovered {
		if r.Preferred {
			known = append(known, r.Client())
		}
	}
	c.mapper.update(known)

	wanted := map[client.Resource]bool{}
	for _, res := range deletableResources(discovered) {
		wanted[res] = true
	}
	var result resyncResult
	c.monitors.mu.Lock()
	defer c.monitors.mu.Unlock()
	for res := range wanted {
		if _, ok := c.monitors.monitors[res]; ok {
			continue
		}
		inf, dynamic := c.informerFor(res)
		reg, err := inf.AddEventHandler(c.graph.handlerFor(res))
		if err != nil {
			return result, fmt.Errorf("monitor %s: %w", res, err)
		}
		c.monitors.monitors[res] = &monitor{resource: res, informer: inf, registration: reg, dynamic: dynamic}
		result.added = append(result.added, res)
	}
	for res, m := range c.monitors.monitors {
		if !m.dynamic || wanted[res] {
			continue
		}
		if err := m.informer.RemoveEventHandler(m.registration); err != nil {
			c.log.Warn("could not remove the handler of a monitor", "resource", res.String(), "err", err)
		}
		c.informers.RemoveInformer(res)
		delete(c.monitors.monitors, res)
		result.removed = append(result.removed, res)
	}
	sortResources(result.added)
	sortResources(result.removed)
	for _, res := range result.added {
		c.log.Info("monitoring a discovered resource", "resource", res.String())
	}
	for _, res := range result.removed {
		c.log.Info("no longer monitoring a resource discovery stopped listing", "resource", res.String())
	}
	return result, nil
}

func sortResources(rs []client.Resource) {
	slices.SortFunc(rs, func(a, b client.Resource) int { return strings.Compare(a.String(), b.String()) })
}

// monitorsSynced reports whether every current monitor's handler has seen
// its informer's initial list.
func (c *Controller) monitorsSynced() bool {
	c.monitors.mu.Lock()
	defer c.monitors.mu.Unlock()
	for _, m := range c.monitors.monitors {
		if !m.registration.HasSynced() {
			return false
		}
	}
	return true
}

// runResync resyncs the monitors every c.resyncPeriod (on c.clock) until
// ctx ends, starting the informers of the monitors it adds.
func (c *Controller) runResync(ctx context.Context) {
	ticker := c.clock.NewTicker(c.resyncPeriod)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
		}
		result, err := c.resyncMonitors(ctx)
		if err != nil {
			c.log.Warn("monitor resync failed; keeping the current monitors", "err", err)
			continue
		}
		if len(result.added) > 0 {
			c.informers.Start(ctx)
		}
	}
}
