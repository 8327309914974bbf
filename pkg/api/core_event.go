package api

import "time"

// This file holds the core/v1 Event, the record components write when
// something happens to an object ("Scheduled", "Pulled", "ScalingReplicaSet"),
// which kubectl describe lists under Events.

// Event reports something that happened to an object. Repeats of the same
// event are folded into one Event by bumping count and lastTimestamp.
type Event struct {
	TypeMeta       `json:",inline"`
	ObjectMeta     `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	InvolvedObject ObjectReference  `json:"involvedObject" protobuf:"bytes,2,opt,name=involvedObject"`
	Reason         string           `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	Message        string           `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	Source         EventSource      `json:"source,omitempty" protobuf:"bytes,5,opt,name=source"`
	FirstTimestamp Time             `json:"firstTimestamp,omitempty" protobuf:"bytes,6,opt,name=firstTimestamp"`
	LastTimestamp  Time             `json:"lastTimestamp,omitempty" protobuf:"bytes,7,opt,name=lastTimestamp"`
	Count          int32            `json:"count,omitempty" protobuf:"varint,8,opt,name=count"`
	Type           string           `json:"type,omitempty" protobuf:"bytes,9,opt,name=type"`
	EventTime      MicroTime        `json:"eventTime,omitempty" protobuf:"bytes,10,opt,name=eventTime"`
	Series         *EventSeries     `json:"series,omitempty" protobuf:"bytes,11,opt,name=series"`
	Action         string           `json:"action,omitempty" protobuf:"bytes,12,opt,name=action"`
	Related        *ObjectReference `json:"related,omitempty" protobuf:"bytes,13,opt,name=related"`
	// ReportingController has no omitempty upstream, so "" is printed.
	ReportingController string `json:"reportingComponent" protobuf:"bytes,14,opt,name=reportingComponent"`
	ReportingInstance   string `json:"reportingInstance" protobuf:"bytes,15,opt,name=reportingInstance"`
}

// The event types.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)

// EventSource names the component (and host) that reported an event.
type EventSource struct {
	Component string `json:"component,omitempty" protobuf:"bytes,1,opt,name=component"`
	Host      string `json:"host,omitempty" protobuf:"bytes,2,opt,name=host"`
}

// EventSeries counts repeats of an event in the newer events API shape.
type EventSeries struct {
	Count            int32     `json:"count,omitempty" protobuf:"varint,1,name=count"`
	LastObservedTime MicroTime `json:"lastObservedTime,omitempty" protobuf:"bytes,2,name=lastObservedTime"`
}

// LastObserved is when the event last happened, the time kubectl events
// sorts by: the series' last observation, else lastTimestamp, else
// eventTime (an events.k8s.io/v1 event seen through core/v1 has no
// lastTimestamp).
func (e *Event) LastObserved() time.Time {
	if e.Series != nil {
		return e.Series.LastObservedTime.Time
	}
	if !e.LastTimestamp.IsZero() {
		return e.LastTimestamp.Time
	}
	return e.EventTime.Time
}
