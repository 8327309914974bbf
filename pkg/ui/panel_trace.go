package ui

// The trace panel: the pipeline `ctl trace TYPE/NAME --since …` prints
// for the object selected in the page — its etcd write, the apiserver's
// fan-out to the watchers, each informer's stages, the workqueue, the
// syncs and decisions, and the writes they made, down the ownership chain
// (a Deployment's ReplicaSets and Pods, up to each kubelet's status
// write), merged from every component's journal into one ordered story
// with the same code as ctl (package debug/trace).
//
// The page polls the route every 2 s while an object is selected (see
// panel_why.go for why polling): each answer is what the journals' rings
// still hold, so a refresh also shows what happened before the object was
// selected, as `ctl trace --since` does.

import (
	"net/http"
	"time"

	"kplane/pkg/debug/trace"
)

// maxTraceSteps bounds one answer: a Deployment rolled out on a large
// cluster leaves thousands of records; the page shows the newest.
const maxTraceSteps = 500

// traceAnswer is the answer of /api/debug/trace/{uid}.
type traceAnswer struct {
	Resource string `json:"resource"`
	Key      string `json:"key"`
	// Steps are the records about the object and what it owns, oldest
	// first: the newest maxTraceSteps of them.
	Steps []traceStep `json:"steps"`
	// Omitted counts the older steps left out.
	Omitted int `json:"omitted,omitempty"`
	// Warnings name the components that did not answer.
	Warnings []string `json:"warnings,omitempty"`
}

// traceStep is one line of `ctl trace`: its columns, and a decision's
// further lines.
type traceStep struct {
	Time time.Time `json:"time"`
	// Offset is seconds since the first step shown, ctl's TIME column.
	Offset          float64  `json:"offset"`
	Component       string   `json:"component"`
	Stage           string   `json:"stage"`
	Actor           string   `json:"actor,omitempty"`
	Object          string   `json:"object"`
	ResourceVersion string   `json:"resourceVersion,omitempty"`
	Detail          string   `json:"detail,omitempty"`
	Lines           []string `json:"lines,omitempty"`
}

// serveTrace is /api/debug/trace/{uid}: the trace of the object with uid
// and what it owns, from what the components' journals still hold.
func (s *Server) serveTrace(w http.ResponseWriter, r *http.Request) {
	ref, ok := s.debugObject(w, r.PathValue("uid"))
	if !ok {
		return
	}
	c, endpoints, err := s.debugAPI()
	if err != nil {
		serveDebugUnavailable(w, err)
		return
	}
	followed := trace.NewFollowedSet(ref.resource, ref.namespace, ref.name, ref.uid)
	records, errs := trace.Recorded(r.Context(), c, endpoints, followed)
	answer := traceAnswer{Resource: ref.resource, Key: ref.key(), Steps: []traceStep{}, Warnings: componentWarnings(errs)}
	if len(records) > maxTraceSteps {
		answer.Omitted = len(records) - maxTraceSteps
		records = records[answer.Omitted:]
	}
	for i := range records {
		record := &records[i]
		answer.Steps = append(answer.Steps, traceStep{
			Time:            record.Time,
			Offset:          record.Time.Sub(records[0].Time).Seconds(),
			Component:       record.Component,
			Stage:           trace.Stage(record),
			Actor:           record.Actor,
			Object:          trace.ObjectName(record, nil, ref.namespace),
			ResourceVersion: record.ResourceVersion,
			Detail:          trace.Detail(record),
			Lines:           record.Lines,
		})
	}
	answerJSON(w, answer)
}
