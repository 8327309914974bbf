package ui

// The why panel: the decision records `ctl why TYPE/NAME` prints, for the
// object selected in the page — each controller's and the scheduler's
// latest decision, and for a pod the scheduler's per-node filter and score
// table as rows (trace.NodeTable). It reads the components' journals
// through their debug APIs with the same code as ctl (package
// debug/trace).
//
// The page polls the route while an object is selected, every 2 s (with
// the trace panel, one request a second): a decision is recorded when a
// controller syncs, and polling the rings is simpler and cheaper than
// streaming every component's journal to every page for the one object
// shown.

import (
	"encoding/json"
	"fmt"
	"net/http"

	"kplane/pkg/client"
	"kplane/pkg/debug"
	"kplane/pkg/debug/trace"
)

// whyAnswer is the answer of /api/debug/why/{uid}.
type whyAnswer struct {
	// Object names the object as ctl does: "deployments.apps default/web".
	Resource string `json:"resource"`
	Key      string `json:"key"`
	// Decisions are each actor's latest decision, oldest first.
	Decisions []decisionView `json:"decisions"`
	// Warnings name the components that did not answer.
	Warnings []string `json:"warnings,omitempty"`
}

// decisionView is one decision record and, for the scheduler's, its lines
// split into the per-node table and the other notes.
type decisionView struct {
	debug.Record
	Nodes []trace.NodeRow `json:"nodes,omitempty"`
	Notes []string        `json:"notes,omitempty"`
}

// serveWhy is /api/debug/why/{uid}: the latest decision of each actor
// about the object with uid.
func (s *Server) serveWhy(w http.ResponseWriter, r *http.Request) {
	ref, ok := s.debugObject(w, r.PathValue("uid"))
	if !ok {
		return
	}
	c, endpoints, err := s.debugAPI()
	if err != nil {
		serveDebugUnavailable(w, err)
		return
	}
	records, errs := trace.Decisions(r.Context(), c, endpoints, ref.resource, ref.key())
	answer := whyAnswer{Resource: ref.resource, Key: ref.key(), Decisions: []decisionView{}, Warnings: componentWarnings(errs)}
	for _, record := range trace.LatestPerActor(records) {
		view := decisionView{Record: record}
		if record.Actor == "scheduler" {
			view.Nodes, view.Notes = trace.NodeTable(record.Lines)
		}
		answer.Decisions = append(answer.Decisions, view)
	}
	answerJSON(w, answer)
}

// debugRef is the selected object as the journals name it.
type debugRef struct {
	// resource is "deployments.apps", "pods".
	resource string
	// namespace is "" for a cluster-scoped object.
	namespace, name, uid string
}

// key is "namespace/name", or "name" when cluster-scoped.
func (d debugRef) key() string { return trace.ObjectKey(d.namespace, d.name) }

// debugObject finds the object with uid in the view and the resource its
// kind is served as; otherwise it answers with a Status and ok is false.
func (s *Server) debugObject(w http.ResponseWriter, uid string) (debugRef, bool) {
	current, _, _, ok := s.hub.Versions(uid)
	if !ok {
		debug.WriteStatus(w, http.StatusNotFound, "NotFound", fmt.Sprintf("no object with uid %q is in the view", uid))
		return debugRef{}, false
	}
	for _, res := range watchedResources {
		if res.Kind == current.Kind {
			return debugRef{
				resource:  groupResource(res),
				namespace: stringAt(current.Object, "metadata", "namespace"),
				name:      stringAt(current.Object, "metadata", "name"),
				uid:       uid,
			}, true
		}
	}
	debug.WriteStatus(w, http.StatusNotFound, "NotFound",
		fmt.Sprintf("the page does not yet follow %s objects through the debug APIs: use ctl why or ctl trace", current.Kind))
	return debugRef{}, false
}

// groupResource is "deployments.apps", or "pods" for the core group: how
// the journals name a resource.
func groupResource(res client.Resource) string {
	if res.Group == "" {
		return res.Resource
	}
	return res.Resource + "." + res.Group
}

// componentWarnings are errs as strings, for an answer's warnings.
func componentWarnings(errs []error) []string {
	var out []string
	for _, err := range errs {
		out = append(out, err.Error())
	}
	return out
}

// answerJSON answers v as JSON.
func answerJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
