package api

// This file holds the events.k8s.io/v1 Event: the newer shape of the core
// Event, and the one the newer event recorders write. Both are served from
// the same storage, as upstream does: an Event created through either API
// is one object, read back through the other with its fields renamed —
//
//	core/v1              events.k8s.io/v1
//	involvedObject       regarding
//	message              note
//	reportingComponent   reportingController
//	source               deprecatedSource
//	firstTimestamp       deprecatedFirstTimestamp
//	lastTimestamp        deprecatedLastTimestamp
//	count                deprecatedCount
//
// The apiserver stores the core/v1 form; EventsV1EventFromCore and ToCore
// convert between the two (upstream's pkg/apis/events/v1/conversion.go).

// EventsV1Event is the events.k8s.io/v1 Event: a report that something
// happened to an object (regarding), by a component (reportingController).
// Repeats are folded into series rather than a count. Upstream calls the
// type Event; every kplane type shares one Go package, where core/v1
// already has that name.
type EventsV1Event struct {
	// The kind (Event) and apiVersion (events.k8s.io/v1).
	TypeMeta `json:",inline"`
	// Standard object metadata.
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// When the event first happened. Required.
	EventTime MicroTime `json:"eventTime" protobuf:"bytes,2,opt,name=eventTime"`
	// The repeats of the event, once it has happened more than once.
	Series *EventSeries `json:"series,omitempty" protobuf:"bytes,3,opt,name=series"`
	// The component that reported the event, e.g. "kubernetes.io/kubelet".
	// Required for new events.
	ReportingController string `json:"reportingController,omitempty" protobuf:"bytes,4,opt,name=reportingController"`
	// Which instance of the controller reported it, e.g. the kubelet's node.
	ReportingInstance string `json:"reportingInstance,omitempty" protobuf:"bytes,5,opt,name=reportingInstance"`
	// What was done (or failed), in CamelCase, e.g. "Binding".
	Action string `json:"action,omitempty" protobuf:"bytes,6,opt,name=action"`
	// Why the action was taken, in CamelCase, e.g. "Scheduled".
	Reason string `json:"reason,omitempty" protobuf:"bytes,7,opt,name=reason"`
	// The object the event is about.
	Regarding ObjectReference `json:"regarding,omitempty" protobuf:"bytes,8,opt,name=regarding"`
	// A second object the event involves, e.g. the node a pod was bound to.
	Related *ObjectReference `json:"related,omitempty" protobuf:"bytes,9,opt,name=related"`
	// A human-readable description, at most 1 kB.
	Note string `json:"note,omitempty" protobuf:"bytes,10,opt,name=note"`
	// Normal or Warning.
	Type string `json:"type,omitempty" protobuf:"bytes,11,opt,name=type"`
	// The core/v1 source, kept for events written through that API.
	DeprecatedSource EventSource `json:"deprecatedSource,omitempty" protobuf:"bytes,12,opt,name=deprecatedSource"`
	// The core/v1 firstTimestamp, kept for events written through that API.
	DeprecatedFirstTimestamp Time `json:"deprecatedFirstTimestamp,omitempty" protobuf:"bytes,13,opt,name=deprecatedFirstTimestamp"`
	// The core/v1 lastTimestamp, kept for events written through that API.
	DeprecatedLastTimestamp Time `json:"deprecatedLastTimestamp,omitempty" protobuf:"bytes,14,opt,name=deprecatedLastTimestamp"`
	// The core/v1 count, kept for events written through that API.
	DeprecatedCount int32 `json:"deprecatedCount,omitempty" protobuf:"varint,15,opt,name=deprecatedCount"`
}

// EventsV1EventFromCore returns the events.k8s.io/v1 form of a core/v1
// Event. The result shares no memory with e.
func EventsV1EventFromCore(e *Event) *EventsV1Event {
	e = DeepCopy(e)
	return &EventsV1Event{
		TypeMeta:                 TypeMeta{Kind: "Event", APIVersion: "events.k8s.io/v1"},
		ObjectMeta:               e.ObjectMeta,
		EventTime:                e.EventTime,
		Series:                   e.Series,
		ReportingController:      e.ReportingController,
		ReportingInstance:        e.ReportingInstance,
		Action:                   e.Action,
		Reason:                   e.Reason,
		Regarding:                e.InvolvedObject,
		Related:                  e.Related,
		Note:                     e.Message,
		Type:                     e.Type,
		DeprecatedSource:         e.Source,
		DeprecatedFirstTimestamp: e.FirstTimestamp,
		DeprecatedLastTimestamp:  e.LastTimestamp,
		DeprecatedCount:          e.Count,
	}
}

// ToCore returns the core/v1 form of the event, the form it is stored in.
// The result shares no memory with e.
func (e *EventsV1Event) ToCore() *Event {
	e = DeepCopy(e)
	return &Event{
		TypeMeta:            TypeMeta{Kind: "Event", APIVersion: "v1"},
		ObjectMeta:          e.ObjectMeta,
		InvolvedObject:      e.Regarding,
		Reason:              e.Reason,
		Message:             e.Note,
		Source:              e.DeprecatedSource,
		FirstTimestamp:      e.DeprecatedFirstTimestamp,
		LastTimestamp:       e.DeprecatedLastTimestamp,
		Count:               e.DeprecatedCount,
		Type:                e.Type,
		EventTime:           e.EventTime,
		Series:              e.Series,
		Action:              e.Action,
		Related:             e.Related,
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
	}
}
