package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/debug"
	"kplane/pkg/debug/etcdhistory"
	"kplane/pkg/store/keys"
)

// The etcd panel: what `ctl etcd ls` and `ctl etcd history` print, read
// from the same place — the apiserver's etcd debug routes (only the
// apiserver talks to etcd), reached with the admin's client as ctl reaches
// them with the kubeconfig — and explained by the same code (package
// etcdhistory: the paging, the CHANGE column).
//
//	GET /api/debug/etcd/keys?prefix=P      every key under P (default
//	                                       /registry/), with a count per
//	                                       resource prefix
//	GET /api/debug/etcd/history?key=K      K's MVCC history with each
//	                                       revision's change
//	GET /api/debug/etcd/history?uid=U      the same for the key of the
//	                                       object the page shows as U (the
//	                                       server knows which kinds are
//	                                       custom resources, stored under
//	                                       /registry/<group>/<plural>/)
//
// Live data: the panel polls its routes (once a second at most, only while
// it is visible and only when the stream reported a change): etcd's
// revision moves with every write in the cluster, far too often for a
// typed SSE event per write to be worth its noise.

// etcdKeysView is the keys panel's answer: the listing and its counts.
type etcdKeysView struct {
	debug.EtcdKeyList
	// Prefixes count the keys per resource, /registry/<resource>/
	// (custom resources: /registry/<group>/<resource>/), in key order.
	Prefixes []etcdPrefixCount `json:"prefixes"`
}

// etcdPrefixCount is how many keys share one resource prefix.
type etcdPrefixCount struct {
	Prefix string `json:"prefix"`
	Count  int    `json:"count"`
}

// etcdHistoryView is a key's history with the CHANGE of each revision,
// Changes[i] belonging to Revisions[i].
type etcdHistoryView struct {
	debug.EtcdHistory
	Changes []string `json:"changes"`
}

// serveEtcdKeys answers GET /api/debug/etcd/keys.
func (s *Server) serveEtcdKeys(w http.ResponseWriter, r *http.Request) {
	prefix := r.URL.Query().Get("prefix")
	if prefix == "" {
		prefix = keys.Root
	}
	if !strings.HasPrefix(prefix, keys.Root) {
		debug.WriteStatus(w, http.StatusBadRequest, "BadRequest", fmt.Sprintf("prefix %q is not under %s", prefix, keys.Root))
		return
	}
	list, err := etcdhistory.ListKeys(r.Context(), s.apiserverDebugGet, prefix)
	if err != nil {
		serveAPIServerDebugError(w, err)
		return
	}
	writeJSON(w, etcdKeysView{EtcdKeyList: list, Prefixes: countByResource(list.Keys)})
}

// serveEtcdHistory answers GET /api/debug/etcd/history.
func (s *Server) serveEtcdHistory(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Query().Get("key")
	if uid := r.URL.Query().Get("uid"); uid != "" {
		item, _, _, ok := s.hub.Versions(uid)
		if ok {
			key, ok = s.feed.etcdKey(item)
		}
		if !ok {
			debug.WriteStatus(w, http.StatusNotFound, "NotFound", fmt.Sprintf("the page shows no object with uid %q", uid))
			return
		}
	}
	if !strings.HasPrefix(key, keys.Root) {
		debug.WriteStatus(w, http.StatusBadRequest, "BadRequest", fmt.Sprintf("key %q is not under %s: give key=/registry/<resource>/<namespace>/<name>", key, keys.Root))
		return
	}
	var h debug.EtcdHistory
	if err := s.apiserverDebugGet(r.Context(), debug.PathEtcdHistory, url.Values{"key": {key}}, &h); err != nil {
		serveAPIServerDebugError(w, err)
		return
	}
	writeJSON(w, etcdHistoryView{EtcdHistory: h, Changes: etcdhistory.Changes(h)})
}

// apiserverDebugGet calls one of the apiserver's debug routes with the
// server's client, as ctl does with the kubeconfig's.
func (s *Server) apiserverDebugGet(ctx context.Context, path string, query url.Values, v any) error {
	if s.opts.Client == nil {
		return errors.New("the web view has no client for the apiserver")
	}
	_, body, err := s.opts.Client.Do(ctx, http.MethodGet, path+"?"+query.Encode(), nil, nil)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("decode the apiserver's answer to %s: %w", path, err)
	}
	return nil
}

// serveAPIServerDebugError passes the apiserver's Status on (a missing
// key is its 404), or says the debug API cannot be reached.
func serveAPIServerDebugError(w http.ResponseWriter, err error) {
	var statusErr *apierrors.StatusError
	if errors.As(err, &statusErr) {
		st := statusErr.Status()
		debug.WriteStatus(w, int(st.Code), string(st.Reason), st.Message)
		return
	}
	serveDebugUnavailable(w, err)
}

// countByResource counts keys per resource prefix: the key minus its
// namespace and name (cluster-scoped: minus its name).
func countByResource(list []debug.EtcdKey) []etcdPrefixCount {
	counts := map[string]int{}
	for _, k := range list {
		counts[resourcePrefix(k.Key)]++
	}
	out := make([]etcdPrefixCount, 0, len(counts))
	for p, n := range counts {
		out = append(out, etcdPrefixCount{Prefix: p, Count: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Prefix < out[j].Prefix })
	return out
}

// resourcePrefix is /registry/<resource>/ of a key, or
// /registry/<group>/<resource>/ for a custom resource (its segment after
// /registry/ has a dot).
func resourcePrefix(key string) string {
	parts := strings.Split(strings.TrimPrefix(key, keys.Root), "/")
	n := 1
	if strings.Contains(parts[0], ".") && len(parts) > 2 {
		n = 2
	}
	if len(parts) <= n {
		return keys.Root
	}
	return keys.Root + strings.Join(parts[:n], "/") + "/"
}

// writeJSON answers 200 with v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
