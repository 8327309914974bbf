package timeline

import (
	"strings"
	"sync"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/store/keys"
)

// The kinds of entry.
const (
	// KindEvent is an Event about an object, as `ctl events` lists it.
	KindEvent = "event"
	// KindWrite is an API write: who sent it, the verb, the object and
	// the resourceVersion (etcd revision) it produced.
	KindWrite = "write"
)

// Kinds are every kind of entry, in the order the filters show them.
var Kinds = []string{KindEvent, KindWrite}

// Entry is one line of the timeline: an Event or a write.
type Entry struct {
	// ID names the entry for good across reads of the journals: a write is
	// "<component>#<seq>" of the record it came from, an Event
	// "event/<uid>/<resourceVersion>" (a repeat is a new entry).
	ID string `json:"id"`
	// Time is when the write was sent (the apiserver's time when only it
	// recorded the write), or when the Event was last seen.
	Time time.Time `json:"time"`
	// Kind is KindEvent or KindWrite.
	Kind string `json:"kind"`

	// Namespace and Name name the object written, or the Event's
	// involvedObject.
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// UID is the object's uid when known.
	UID string `json:"uid,omitempty"`

	// Component is the process that made the write ("controller-manager",
	// "kubelet-node1"; "apiserver" for a write only the apiserver
	// recorded, such as kubectl's), Actor the part of it that acted
	// ("deployment", "scheduler") and User the name the apiserver
	// authenticated it as. For an Event, Component is who reported it.
	Component string `json:"component,omitempty"`
	Actor     string `json:"actor,omitempty"`
	User      string `json:"user,omitempty"`
	// Verb is a write's stage: create, update, patch, delete, bind,
	// status, scale, evict (debug.WriteStage).
	Verb string `json:"verb,omitempty"`
	// Resource is a write's resource with its group ("deployments.apps").
	Resource string `json:"resource,omitempty"`
	// ResourceVersion is the one the write produced: etcd's revision of
	// the object's key, so the object's state as of this entry can be read
	// from etcd's history at that revision (EtcdKey). For an Event, the
	// involved object's resourceVersion the reporter saw, if it said.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// EtcdKey is the key a write's object is stored under.
	EtcdKey string `json:"etcdKey,omitempty"`
	// Stored says the apiserver's journal also recorded storing the write.
	Stored bool `json:"stored,omitempty"`

	// ObjectKind is an Event's involvedObject.kind ("Deployment").
	ObjectKind string `json:"objectKind,omitempty"`
	// Type (Normal, Warning), Reason, Message and Count are an Event's;
	// FirstTime is when it was first seen.
	Type      string    `json:"type,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	Message   string    `json:"message,omitempty"`
	Count     int32     `json:"count,omitempty"`
	FirstTime time.Time `json:"firstTime,omitzero"`
}

// Who is the WHO cell: "controller-manager/deployment" for a component's
// write, the user for a write only the apiserver recorded, the reporter
// of an Event.
func (e *Entry) Who() string {
	switch {
	case e.Kind == KindEvent || e.Actor == "":
		return e.Component
	case e.Component == "apiserver":
		return e.Actor
	}
	return e.Component + "/" + e.Actor
}

// What is the WHAT cell: a write's verb, an Event's type and reason.
func (e *Entry) What() string {
	if e.Kind == KindEvent {
		return e.Type + " " + e.Reason
	}
	return e.Verb
}

// Object is the OBJECT cell: "deployments.apps/web" for a write,
// "Deployment/web" for an Event, as kubectl events names it.
func (e *Entry) Object() string {
	if e.Kind == KindEvent {
		return e.ObjectKind + "/" + e.Name
	}
	return e.Resource + "/" + e.Name
}

// Key is "namespace/name", or "name" when cluster-scoped.
func (e *Entry) Key() string {
	if e.Namespace == "" {
		return e.Name
	}
	return e.Namespace + "/" + e.Name
}

// etcdKey is where the apiserver stores the object resource/key: a
// built-in kind under its plural without the group; a custom resource (a
// group no built-in kind has), and a CustomResourceDefinition itself,
// under <group>/<plural>, as package keys lays them out.
func etcdKey(resource, key string) string {
	plural, group, _ := strings.Cut(resource, ".")
	segment := plural
	if group != "" && !builtinGroups()[group] {
		segment = keys.CustomResource(group, plural)
	}
	namespace, name, namespaced := strings.Cut(key, "/")
	if !namespaced {
		return keys.Object(segment, "", namespace)
	}
	return keys.Object(segment, namespace, name)
}

// builtinGroups are the API groups of kplane's built-in kinds.
var builtinGroups = sync.OnceValue(func() map[string]bool {
	groups := map[string]bool{}
	for _, r := range client.BuiltinResources() {
		groups[r.Group] = true
	}
	return groups
})
