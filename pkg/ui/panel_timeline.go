package ui

// The Timeline panel: what `ctl timeline` prints — the cluster's Events
// and the writes every component made, merged into one list in time order
// by the same code (package debug/timeline) — and, for any write in it,
// the written object's state as of that write, read from etcd's history
// by the code the etcd panel uses (package etcdhistory).
//
//	GET /api/debug/timeline?uid=U&kinds=event,write
//	        the newest timeline.DefaultLimit entries; uid keeps those
//	        about the object with uid and what it owns (as ctl timeline
//	        --for), kinds the kinds of entry named
//	GET /api/debug/timeline/state?key=K&rv=N
//	        the object stored at etcd key K as of revision N (its YAML),
//	        and the diff from the revision before; 410 Gone when etcd has
//	        compacted N away
//
// Live data: the page polls the list (once a second at most, only while
// the panel is on screen, and not while the user has scrubbed back): the
// list merges every component's journal with the Events, which only a
// read of all of them puts in order, and a write happens many times a
// second on a busy cluster — a typed SSE event per write would cost every
// page the noise whether the panel is looked at or not.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"kplane/pkg/debug"
	"kplane/pkg/debug/etcdhistory"
	"kplane/pkg/debug/timeline"
	"kplane/pkg/debug/trace"
	"kplane/pkg/store/keys"
)

// timelineHistoryLimit is how many of a key's newest changes the state
// route reads: a scrub goes back over the last few minutes, and even a
// busy pod has far fewer writes in them.
const timelineHistoryLimit = 1000

// timelineAnswer is the answer of /api/debug/timeline.
type timelineAnswer struct {
	timeline.Timeline
	// Limit is how many entries the answer keeps at most.
	Limit int `json:"limit"`
	// Object names the object followed (uid=), "" for every object.
	Object string `json:"object,omitempty"`
	// Warnings name the components (or the Events list) that did not
	// answer.
	Warnings []string `json:"warnings,omitempty"`
}

// objectStateAnswer is the answer of /api/debug/timeline/state.
type objectStateAnswer struct {
	Key             string `json:"key"`
	ResourceVersion string `json:"resourceVersion"`
	// Event is what the write did to the key: create, update, delete.
	Event string `json:"event,omitempty"`
	// YAML is the object as of the revision ("" when it deleted it).
	YAML string `json:"yaml"`
	// PreviousResourceVersion is the revision before, and Diff the line
	// diff from its YAML, when etcd still keeps it.
	PreviousResourceVersion string     `json:"previousResourceVersion,omitempty"`
	Diff                    []DiffLine `json:"diff,omitempty"`
}

// serveTimeline answers GET /api/debug/timeline.
func (s *Server) serveTimeline(w http.ResponseWriter, r *http.Request) {
	query := r.URL.Query()
	filter := timeline.Filter{Limit: timeline.DefaultLimit}
	if kinds := query.Get("kinds"); kinds != "" {
		filter.Kinds = strings.Split(kinds, ",")
		for _, kind := range filter.Kinds {
			if !slices.Contains(timeline.Kinds, kind) {
				debug.WriteStatus(w, http.StatusBadRequest, "BadRequest",
					fmt.Sprintf("unknown kind of entry %q: the kinds are %s", kind, strings.Join(timeline.Kinds, ", ")))
				return
			}
		}
	}
	answer := timelineAnswer{Limit: filter.Limit}
	if uid := query.Get("uid"); uid != "" {
		ref, ok := s.debugObject(w, uid)
		if !ok {
			return
		}
		filter.Followed = trace.NewFollowedSet(ref.resource, ref.namespace, ref.name, ref.uid)
		answer.Object = ref.resource + "/" + ref.key()
	}
	c, endpoints, err := s.debugAPI()
	if err != nil {
		serveDebugUnavailable(w, err)
		return
	}
	if s.opts.Client == nil {
		serveDebugUnavailable(w, errors.New("the web view has no client for the apiserver"))
		return
	}
	var errs []error
	answer.Timeline, errs = timeline.Read(r.Context(), c, endpoints, timeline.ListEvents(s.opts.Client), filter)
	answer.Warnings = componentWarnings(errs)
	answerJSON(w, answer)
}

// serveObjectState answers GET /api/debug/timeline/state.
func (s *Server) serveObjectState(w http.ResponseWriter, r *http.Request) {
	key, rv := r.URL.Query().Get("key"), r.URL.Query().Get("rv")
	revision, err := strconv.ParseInt(rv, 10, 64)
	if !strings.HasPrefix(key, keys.Root) || err != nil || revision <= 0 {
		debug.WriteStatus(w, http.StatusBadRequest, "BadRequest",
			fmt.Sprintf("give key=/registry/<resource>/<namespace>/<name> and rv=<resourceVersion>, not key=%q rv=%q", key, rv))
		return
	}
	var h debug.EtcdHistory
	query := url.Values{"key": {key}, "limit": {strconv.Itoa(timelineHistoryLimit)}}
	if err := s.apiserverDebugGet(r.Context(), debug.PathEtcdHistory, query, &h); err != nil {
		serveAPIServerDebugError(w, err)
		return
	}
	state, err := etcdhistory.FindRevision(h, revision)
	var compacted *etcdhistory.CompactedError
	switch {
	case errors.As(err, &compacted):
		debug.WriteStatus(w, http.StatusGone, "Expired", err.Error())
		return
	case err != nil:
		debug.WriteStatus(w, http.StatusNotFound, "NotFound", err.Error())
		return
	}
	answer := objectStateAnswer{Key: key, ResourceVersion: rv, Event: state.At.Event}
	if answer.YAML, err = valueYAML(state.At.Value); err != nil {
		debug.WriteStatus(w, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	if state.Before != nil {
		before, err := valueYAML(state.Before.Value)
		if err != nil {
			debug.WriteStatus(w, http.StatusInternalServerError, "InternalError", err.Error())
			return
		}
		answer.PreviousResourceVersion = state.Before.ResourceVersion
		answer.Diff, _ = DiffLines(before, answer.YAML)
	}
	answerJSON(w, answer)
}

// valueYAML renders a stored value (an object's JSON) as YAML; a delete's
// empty value is "".
func valueYAML(value json.RawMessage) (string, error) {
	if len(value) == 0 {
		return "", nil
	}
	var obj map[string]any
	if err := json.Unmarshal(value, &obj); err != nil {
		return "", fmt.Errorf("decode the stored value: %w", err)
	}
	return toYAML(obj)
}
