package ui

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/informer"
	"kplane/pkg/store/keys"
)

// watchedResources are the kinds the page draws: nodes and their pods, the
// workload controllers and what they own, Services with their
// EndpointSlices, PersistentVolumeClaims, and Events (shown beside the
// object they involve). Custom resources join at run time (feed_crds.go).
var watchedResources = []client.Resource{
	client.NodesResource,
	client.PodsResource,
	client.DeploymentsResource,
	client.ReplicaSetsResource,
	client.StatefulSetsResource,
	client.DaemonSetsResource,
	client.JobsResource,
	client.CronJobsResource,
	client.ServicesResource,
	client.EndpointSlicesResource,
	client.PersistentVolumeClaimsResource,
	client.PersistentVolumesResource,
	client.EventsResource,
}

// objectFeed feeds the Hub from informers: the same shared informer
// factory, reflectors and DeltaFIFOs that the controller-manager's
// controllers use, with handlers that — like a controller's — do nothing
// but hand the object on.
type objectFeed struct {
	factory *informer.SharedInformerFactory
	hub     *Hub
	logger  *slog.Logger
	// segments is each watched kind's part of its etcd keys (package
	// keys): its plural, or group/plural for a custom resource, by
	// apiVersion and kind ("apps/v1 Deployment").
	segments sync.Map
}

// newObjectFeed returns a feed of the cluster behind c into hub. Its
// informers are dynamic (objects as JSON maps), so a kind is drawn the same
// way whether kplane has a Go type for it or it is a custom resource.
func newObjectFeed(c *client.Client, hub *Hub, logger *slog.Logger) *objectFeed {
	factory := informer.NewSharedInformerFactory(c, 0, informer.WithLogger(logger))
	return &objectFeed{factory: factory, hub: hub, logger: logger}
}

// watch registers the informer of res with handlers feeding the Hub. The
// next factory.Start runs it. segment is res's part of its etcd keys.
func (f *objectFeed) watch(res client.Resource, segment string) error {
	f.segments.Store(res.GroupVersion()+" "+res.Kind, segment)
	inf := f.factory.ForDynamicResource(res)
	_, err := inf.Informer().AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc:    func(obj api.Object) { f.upsert(res, obj) },
		UpdateFunc: func(_, obj api.Object) { f.upsert(res, obj) },
		DeleteFunc: func(obj any) {
			if u, ok := informer.DeletedObject[*api.CustomObject](obj); ok && u != nil {
				f.hub.Delete(res.Kind, map[string]any{"metadata": map[string]any{"uid": string(u.UID)}})
			}
		},
	})
	if err != nil {
		return fmt.Errorf("watch %s: %w", res.Resource, err)
	}
	return nil
}

// upsert hands obj to the Hub with its kind and apiVersion filled in (list
// items and watch events may leave them out).
func (f *objectFeed) upsert(res client.Resource, obj api.Object) {
	m, err := toMap(obj)
	if err != nil {
		f.logger.Warn("encode object for the page", "resource", res.Resource, "err", err)
		return
	}
	m["kind"] = res.Kind
	m["apiVersion"] = res.GroupVersion()
	f.hub.Upsert(res.Kind, m)
}

// etcdKey is the etcd key of a streamed object, as the apiserver lays
// keys out (package keys): the page cannot tell a custom resource's
// /registry/<group>/<plural>/ from a built-in's /registry/<plural>/.
func (f *objectFeed) etcdKey(item Item) (string, bool) {
	apiVersion, _ := item.Object["apiVersion"].(string)
	segment, ok := f.segments.Load(apiVersion + " " + item.Kind)
	if !ok {
		return "", false
	}
	return keys.Object(segment.(string), stringAt(item.Object, "metadata", "namespace"), stringAt(item.Object, "metadata", "name")), true
}

// Run starts the built-in kinds' informers and the custom-resource
// discovery, then blocks until ctx ends and shuts the informers down.
func (f *objectFeed) Run(ctx context.Context) error {
	defer f.factory.Shutdown()
	for _, res := range watchedResources {
		if err := f.watch(res, res.Resource); err != nil {
			return err
		}
	}
	if err := f.watchCustomResources(ctx); err != nil {
		return err
	}
	f.factory.Start(ctx)
	<-ctx.Done()
	return nil
}
