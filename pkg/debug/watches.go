package debug

import (
	"net/http"
	"slices"
)

// PathFaultDropWatch is the fault route every component serves: a POST
// ends the watch of each of its informers, as a broken connection would
// (`ctl fault drop-watch`). It answers a DropWatchResult.
const PathFaultDropWatch = "/debug/kplane/fault/drop-watch"

// WatchDropper is a set of informers whose watches can be ended on
// purpose (informer.SharedInformerFactory implements it).
type WatchDropper interface {
	// DropWatches ends every running watch and returns the resources
	// whose watch it ended.
	DropWatches() []string
}

// DropWatchResult is the answer of PathFaultDropWatch.
type DropWatchResult struct {
	// Component is the component whose watches were dropped.
	Component string `json:"component"`
	// Resources are the resources whose watch was ended, sorted; empty for
	// a component without informers (the apiserver).
	Resources []string `json:"resources"`
}

// RegisterWatches makes d's informers answer PathFaultDropWatch. A
// component with several informer factories registers each.
func (j *Journal) RegisterWatches(d WatchDropper) {
	if j == nil || d == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.watches = append(j.watches, d)
}

// DropWatches records the fault as an event, then ends the watch of every
// informer registered with RegisterWatches, and returns the resources
// whose watch it ended, sorted. The event comes first so that in the
// journal it precedes every rewatch it causes: an informer may watch
// again before DropWatches returns.
func (j *Journal) DropWatches() []string {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	droppers := slices.Clone(j.watches)
	j.mu.Unlock()
	message := "no informer was watching: nothing to drop"
	if len(droppers) > 0 {
		message = "fault injected: ending the watch of every informer; each watches again from its last resourceVersion"
	}
	j.Add(Record{Type: TypeEvent, Stage: "drop-watch", Message: message})
	var resources []string
	for _, d := range droppers {
		resources = append(resources, d.DropWatches()...)
	}
	slices.Sort(resources)
	return slices.Compact(resources)
}

// serveDropWatch answers PathFaultDropWatch.
func (j *Journal) serveDropWatch(w http.ResponseWriter, _ *http.Request) {
	resources := j.DropWatches()
	if resources == nil {
		resources = []string{}
	}
	WriteJSON(w, DropWatchResult{Component: j.Component(), Resources: resources})
}
