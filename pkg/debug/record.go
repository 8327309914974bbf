package debug

import (
	"strings"
	"time"
)

// The types of record a journal holds.
const (
	// TypeTrace is one step of an object through a component's machinery:
	// an informer stage, a workqueue move, a sync.
	TypeTrace = "trace"
	// TypeDecision is what a controller or scheduler plugin decided about
	// an object, and why.
	TypeDecision = "decision"
	// TypeWrite is an API write: made by a component's client, or stored
	// by the apiserver (then ResourceVersion is the etcd revision).
	TypeWrite = "write"
	// TypeEvent is something that happened to the component itself: it
	// became leader, a fault was injected, a watch was dropped.
	TypeEvent = "event"
)

// StageSync is the trace stage of a controller's sync of one key; its
// Detail says how it ended (result=ok, result=error err=…, requeue=…).
// The informer's stages (list, watch, delta, store, handler, enqueue,
// queue) are named in package informer.
const StageSync = "sync"

// Record is one entry of a component's journal.
type Record struct {
	// Seq numbers the records of one journal from 1, without gaps; a
	// client asks for "everything after Seq n".
	Seq uint64 `json:"seq"`
	// Time is when the component recorded it, on the component's clock.
	Time time.Time `json:"time"`
	// Component is the process that recorded it: "apiserver",
	// "controller-manager", "scheduler", "kubelet-node1".
	Component string `json:"component"`
	// Type is one of the Type constants.
	Type string `json:"type"`
	// Stage is what happened: an informer stage or "sync" for a trace,
	// the verb (create, update, patch, delete, bind, status) for a write.
	Stage string `json:"stage,omitempty"`
	// Actor is the part of the component that acted: a controller or
	// queue name ("deployment"), a scheduler plugin, an event handler.
	Actor string `json:"actor,omitempty"`
	// Resource is the object's resource, with its group when it has one:
	// "pods", "deployments.apps".
	Resource string `json:"resource,omitempty"`
	// Key is the object's "namespace/name" ("name" if cluster-scoped).
	Key string `json:"key,omitempty"`
	// UID is the object's uid when the recorder knew it.
	UID string `json:"uid,omitempty"`
	// ResourceVersion is the object's resourceVersion at this step.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Owners are the uids in the object's ownerReferences (writes), so a
	// trace can follow a Deployment down to its ReplicaSets and Pods.
	Owners []string `json:"owners,omitempty"`
	// Message says in words what happened or was decided.
	Message string `json:"message,omitempty"`
	// Detail holds space-separated name=value pairs (values have no
	// spaces): the trace's type=ADDED, queue=deployment, event=get ….
	Detail string `json:"detail,omitempty"`
	// Values are a decision's numbers by name ("maxSurge": "3"), for
	// clients that check the arithmetic.
	Values map[string]string `json:"values,omitempty"`
	// Lines are a decision's further explanation, one row each (the
	// scheduler's per-node filter and score table).
	Lines []string `json:"lines,omitempty"`
	// Source is the upstream Kubernetes file whose behaviour the decision
	// mirrors, e.g. "pkg/controller/deployment/rolling.go".
	Source string `json:"source,omitempty"`
}

// Field returns the value of name in r.Detail ("" if absent).
func (r Record) Field(name string) string {
	for _, pair := range strings.Fields(r.Detail) {
		if n, v, ok := strings.Cut(pair, "="); ok && n == name {
			return v
		}
	}
	return ""
}
