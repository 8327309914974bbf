package api

// This file holds the core/v1 Event, the record components write when
// something happens to an object ("Scheduled", "Pulled", "ScalingReplicaSet"),
// which kubectl describe lists under Events.

// Event reports something that happened to an object. Repeats of the same
// event are folded into one Event by bumping count and lastTimestamp.
type Event struct {
	TypeMeta       `json:",inline"`
	ObjectMeta     `json:"metadata,omitempty"`
	InvolvedObject ObjectReference  `json:"involvedObject"`
	Reason         string           `json:"reason,omitempty"`
	Message        string           `json:"message,omitempty"`
	Source         EventSource      `json:"source,omitempty"`
	FirstTimestamp Time             `json:"firstTimestamp,omitempty"`
	LastTimestamp  Time             `json:"lastTimestamp,omitempty"`
	Count          int32            `json:"count,omitempty"`
	Type           string           `json:"type,omitempty"`
	EventTime      MicroTime        `json:"eventTime,omitempty"`
	Series         *EventSeries     `json:"series,omitempty"`
	Action         string           `json:"action,omitempty"`
	Related        *ObjectReference `json:"related,omitempty"`
	// ReportingController has no omitempty upstream, so "" is printed.
	ReportingController string `json:"reportingComponent"`
	ReportingInstance   string `json:"reportingInstance"`
}

// The event types.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)

// EventSource names the component (and host) that reported an event.
type EventSource struct {
	Component string `json:"component,omitempty"`
	Host      string `json:"host,omitempty"`
}

// EventSeries counts repeats of an event in the newer events API shape.
type EventSeries struct {
	Count            int32     `json:"count,omitempty"`
	LastObservedTime MicroTime `json:"lastObservedTime,omitempty"`
}
