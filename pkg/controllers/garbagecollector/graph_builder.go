package garbagecollector

import (
	"log/slog"
	"sync"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// graphBuilder keeps the ownership graph in step with the informers and
// feeds the two queues. Each informer event becomes a graph change (graph.go
// decides what it means), and the uids the change affects are queued.
//
// Upstream's GraphBuilder funnels the events of all its informers through
// one "graphChanges" queue drained by a single goroutine. kplane applies
// each event directly in the informer's handler under one mutex instead:
// the graph has the same single-writer guarantee, and once every handler
// has synced the graph holds the whole initial state before the first
// worker runs.
type graphBuilder struct {
	log *slog.Logger

	// mu guards graph. Informer handlers write under it; workers take
	// copies (graph.view) under it and release it before any request.
	mu    sync.Mutex
	graph *graph

	attemptToDelete *workqueue.Queue[string]
	attemptToOrphan *workqueue.Queue[string]
}

// handlerFor returns the event handler for one monitored resource.
func (gb *graphBuilder) handlerFor(res client.Resource) informer.ResourceEventHandler {
	return informer.ResourceEventHandlerFuncs{
		AddFunc: func(obj api.Object) {
			gb.observe(res, nil, obj)
		},
		UpdateFunc: func(oldObj, newObj api.Object) {
			gb.observe(res, oldObj, newObj)
		},
		DeleteFunc: func(obj any) {
			o, ok := informer.DeletedObject[api.Object](obj)
			if !ok || o == nil {
				gb.log.Warn("deletion without an object; ignored", "resource", res.String(), "object", obj)
				return
			}
			gb.observeDeletion(o.GetObjectMeta().UID)
		},
	}
}

// observe applies an add (oldObj nil) or an update of obj, a res.
func (gb *graphBuilder) observe(res client.Resource, oldObj, obj api.Object) {
	meta := obj.GetObjectMeta()
	identity := objectReference{
		APIVersion: res.GroupVersion(),
		Kind:       res.Kind,
		Namespace:  meta.Namespace,
		Name:       meta.Name,
		UID:        meta.UID,
	}
	var old *api.ObjectMeta
	if oldObj != nil {
		old = oldObj.GetObjectMeta()
	}
	gb.mu.Lock()
	changes := gb.graph.observe(identity, old, meta)
	gb.mu.Unlock()
	gb.enqueue(changes)
}

// observeDeletion applies an informer's report that the object with uid is
// gone.
func (gb *graphBuilder) observeDeletion(uid string) {
	gb.mu.Lock()
	changes := gb.graph.observeDeletion(uid)
	gb.mu.Unlock()
	gb.enqueue(changes)
}

// removeVirtual drops a virtual node the apiserver says does not exist.
func (gb *graphBuilder) removeVirtual(uid string) {
	gb.mu.Lock()
	changes := gb.graph.removeVirtual(uid)
	gb.mu.Unlock()
	gb.enqueue(changes)
}

// view returns a copy of the node with uid.
func (gb *graphBuilder) view(uid string) (nodeView, bool) {
	gb.mu.Lock()
	defer gb.mu.Unlock()
	return gb.graph.view(uid)
}

func (gb *graphBuilder) enqueue(changes queueChanges) {
	for _, uid := range changes.toDelete {
		gb.attemptToDelete.Add(uid)
	}
	for _, uid := range changes.toOrphan {
		gb.attemptToOrphan.Add(uid)
	}
}
