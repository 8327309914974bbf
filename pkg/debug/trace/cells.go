package trace

import (
	"strings"

	"kplane/pkg/debug"
)

// Stages are the stages a trace line can show, in the order an object
// meets them: the apiserver's fan-out, the informers' stages, the workqueue
// and the sync (package informer, debug.StageSync), a decision, and the
// writes by verb or subresource (debug.WriteStage).
var Stages = []string{
	"fanout", "list", "watch", "rewatch", "delta", "pop", "store", "handler", "enqueue", "queue", debug.StageSync, debug.TypeDecision,
	"create", "update", "patch", "delete", "deletecollection", "bind", "status", "scale", "evict", "finalize",
}

// RecordTypes are the records a trace reads: not the components' own
// events (leadership, faults), which concern no object.
const RecordTypes = debug.TypeTrace + "," + debug.TypeDecision + "," + debug.TypeWrite

// Stage is a trace line's STAGE: the record's stage, or "decision" for a
// decision (which has none).
func Stage(r *debug.Record) string {
	if r.Stage == "" {
		return r.Type
	}
	return r.Stage
}

// Detail is a trace line's DETAIL: the message in words first, then the
// name=value pairs, less the queue= or handler= pair the ACTOR column
// already shows.
func Detail(r *debug.Record) string {
	var pairs []string
	for _, pair := range strings.Fields(r.Detail) {
		name, value, _ := strings.Cut(pair, "=")
		if (name == "queue" || name == "handler") && value == r.Actor {
			continue
		}
		pairs = append(pairs, pair)
	}
	detail := strings.Join(pairs, " ")
	switch {
	case r.Message == "":
		return detail
	case detail == "":
		return r.Message
	}
	return r.Message + "  " + detail
}

// ObjectName is how a trace line names r's object: "deployment.apps/web",
// "pod/web-5d8-x7k2p", with the namespace only when it is not namespace.
// kinds turns a resource ("deployments.apps") into the name kubectl prints
// for its objects ("deployment.apps"); a resource it lacks is shown as is.
func ObjectName(r *debug.Record, kinds map[string]string, namespace string) string {
	kind, ok := kinds[r.Resource]
	if !ok {
		kind = r.Resource
	}
	name := r.Key
	if ns, n, found := strings.Cut(r.Key, "/"); found && ns == namespace {
		name = n
	}
	if kind == "" {
		return name
	}
	return kind + "/" + name
}
