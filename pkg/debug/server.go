package debug

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/pprof"
	"os"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"kplane/pkg/api"
)

// The debug API's paths, on every component.
const (
	// PathRecords streams the journal as JSON lines (one Record each).
	// Query: after=SEQ (only newer records), follow=true (keep streaming
	// new ones), type=trace,decision (only those types), resource=R and
	// key=K (only that object).
	PathRecords = "/debug/kplane/records"
	// PathQueues answers the live state of every workqueue ([]QueueState).
	PathQueues = "/debug/kplane/queues"
	// PathLeader answers every leader election's state ([]LeaderState).
	PathLeader = "/debug/kplane/leader"
	// PathInfo answers the component's Info.
	PathInfo = "/debug/kplane/info"
)

// Info describes a component's debug API.
type Info struct {
	Component string `json:"component"`
	PID       int    `json:"pid"`
	// RingSize is how many records the journal keeps; LastSeq the newest.
	RingSize int    `json:"ringSize"`
	LastSeq  uint64 `json:"lastSeq"`
}

// Authenticator decides who sent r. It returns the user's name and groups,
// or ok false when r carries no valid credentials.
type Authenticator func(r *http.Request) (user string, groups []string, ok bool)

// AdminGroup is the group whose members may use the debug API: cluster
// administrators (kubectl's admin kubeconfig is in it). The debug API is
// kplane's own, with no resource RBAC could grant, so rather than ask the
// apiserver's authorizer (a SubjectAccessReview) it admits only them.
const AdminGroup = "system:masters"

// Handler serves j's debug API: records, queues, leader, info, the routes
// added with Handle, and, when withMetrics is set, /metrics (the default
// Prometheus registry) and /debug/pprof/. Every request must pass authn as
// a member of AdminGroup: 401 without credentials, 403 without the group.
// A nil authn admits everyone, for components that authenticate before
// the handler (the apiserver).
func (j *Journal) Handler(authn Authenticator, withMetrics bool) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+PathRecords, j.serveRecords)
	mux.HandleFunc("GET "+PathQueues, func(w http.ResponseWriter, _ *http.Request) { WriteJSON(w, j.Queues()) })
	mux.HandleFunc("GET "+PathLeader, func(w http.ResponseWriter, _ *http.Request) { WriteJSON(w, j.Leaders()) })
	mux.HandleFunc("GET "+PathInfo, func(w http.ResponseWriter, _ *http.Request) { WriteJSON(w, j.info()) })
	mux.HandleFunc("POST "+PathFaultDropWatch, j.serveDropWatch)
	if withMetrics {
		mux.Handle("GET /metrics", promhttp.Handler())
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	if j != nil {
		// Everything else goes to the component's own routes, looked up
		// at request time (they answer 404 for what nobody registered).
		mux.Handle("/", j.routes)
	}
	if authn == nil {
		return mux
	}
	return AdminOnly(authn, mux)
}

// AdminOnly serves h to members of AdminGroup only, as authn identifies
// them: 401 without credentials, 403 without the group. Components use it
// for debug routes outside /debug/ (kube-proxy's /proxy/rules).
func AdminOnly(authn Authenticator, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, groups, ok := authn(r)
		if !ok {
			WriteStatus(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
			return
		}
		for _, g := range groups {
			if g == AdminGroup {
				h.ServeHTTP(w, r)
				return
			}
		}
		WriteStatus(w, http.StatusForbidden, "Forbidden", "the debug API is open to cluster administrators (group "+AdminGroup+") only")
	})
}

func (j *Journal) info() Info {
	info := Info{Component: j.Component(), PID: os.Getpid()}
	if j != nil {
		j.mu.Lock()
		info.RingSize, info.LastSeq = int(j.size), j.lastSeq
		j.mu.Unlock()
	}
	return info
}

// serveRecords answers PathRecords.
func (j *Journal) serveRecords(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var after uint64
	if s := q.Get("after"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			WriteStatus(w, http.StatusBadRequest, "BadRequest", "after must be a record sequence number, not "+strconv.Quote(s))
			return
		}
		after = n
	}
	match := recordFilter(q.Get("type"), q.Get("resource"), q.Get("key"))
	w.Header().Set("Content-Type", "application/jsonl")
	enc := json.NewEncoder(w)
	flusher, _ := w.(http.Flusher)
	emit := func(batch []Record) error {
		for i := range batch {
			if !match(&batch[i]) {
				continue
			}
			if err := enc.Encode(&batch[i]); err != nil {
				return err
			}
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	}
	if q.Get("follow") != "true" {
		batch, _ := j.After(after)
		_ = emit(batch)
		return
	}
	if flusher != nil {
		w.WriteHeader(http.StatusOK)
		flusher.Flush()
	}
	_ = j.Follow(r.Context(), after, emit)
}

// recordFilter returns the predicate of a records query.
func recordFilter(types, resource, key string) func(*Record) bool {
	var want map[string]bool
	if types != "" {
		want = map[string]bool{}
		for _, t := range strings.Split(types, ",") {
			want[t] = true
		}
	}
	return func(r *Record) bool {
		return (want == nil || want[r.Type]) &&
			(resource == "" || r.Resource == resource) &&
			(key == "" || r.Key == key)
	}
}

// WriteJSON answers v as indented JSON, as every debug API route does;
// components with routes of their own (the apiserver's etcd browser and
// faults) answer with it too.
func WriteJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// WriteStatus answers with a meta/v1 Status, as the apiserver does, so
// kubectl-style clients print the message.
func WriteStatus(w http.ResponseWriter, code int, reason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   "Failure", Message: message, Reason: reason, Code: int32(code),
	})
}

// contextKey keeps this package's context values apart.
type contextKey struct{}

// WithJournal returns ctx carrying j, for code that gets a context but no
// journal (a client's write hook).
func WithJournal(ctx context.Context, j *Journal) context.Context {
	return context.WithValue(ctx, contextKey{}, j)
}

// JournalFrom returns the journal ctx carries, or nil.
func JournalFrom(ctx context.Context) *Journal {
	j, _ := ctx.Value(contextKey{}).(*Journal)
	return j
}
