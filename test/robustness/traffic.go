package robustness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Traffic is the run's writers: Clients goroutines, each picking a random
// ConfigMap among Keys names in each namespace and a random operation. Ops
// with preconditions use the resourceVersion the client last saw for the
// key, which is often stale because the other clients write the same keys,
// so a good share of them conflict — that is the point.
//
// The mix, as a share of operations: create 25 %, update 25 % (always with
// metadata.resourceVersion), merge patch 20 % (half with a resourceVersion),
// delete 15 % (half with preconditions), list 15 % (one in five each:
// consistent, resourceVersion=0 served from the watch cache, at least a
// resourceVersion the client saw, exactly such a resourceVersion from
// etcd's history, and consistent in pages of 4 with continue tokens).
type Traffic struct {
	api        *apiClient
	namespaces []string
	keys       int
	// remaining counts the operations still to run; below zero, clients stop.
	remaining atomic.Int64
	next      atomic.Int64

	mu  sync.Mutex
	ops []Operation
}

func newTraffic(api *apiClient, namespaces []string, keys int, operations int64) *Traffic {
	t := &Traffic{api: api, namespaces: namespaces, keys: keys}
	t.remaining.Store(operations)
	return t
}

// Run runs client number id until ctx ends or the operations are used up.
func (t *Traffic) Run(ctx context.Context, id int) {
	rng := rand.New(rand.NewPCG(uint64(id), uint64(time.Now().UnixNano())))
	known := map[string]int64{} // key → the resourceVersion this client last saw
	for ctx.Err() == nil && t.remaining.Add(-1) >= 0 {
		op := t.one(ctx, id, rng, known)
		if ctx.Err() != nil && op.Outcome != Acknowledged && op.Code == 0 {
			// Cut short by the end of the run, not by a fault: still an
			// operation whose outcome is unknown, recorded as such.
			op.Err = "the run ended: " + op.Err
		}
		t.record(op)
		if op.Outcome == Unknown {
			// The apiserver is probably down; do not spin.
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func (t *Traffic) record(op Operation) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ops = append(t.ops, op)
}

// Operations returns every operation recorded so far.
func (t *Traffic) Operations() []Operation {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Operation(nil), t.ops...)
}

// newValue returns a value no other operation of the run writes.
func (t *Traffic) newValue(client int) string {
	return fmt.Sprintf("%sc%d-%d", valuePrefix, client, t.next.Add(1))
}

// one picks and runs one operation.
func (t *Traffic) one(ctx context.Context, id int, rng *rand.Rand, known map[string]int64) Operation {
	ns := t.namespaces[rng.IntN(len(t.namespaces))]
	op := Operation{Client: id, Namespace: ns, Name: fmt.Sprintf("cm-%d", rng.IntN(t.keys))}
	key := ConfigMapKey(ns, op.Name)
	rv := known[key]
	base := "/api/v1/namespaces/" + ns + "/configmaps"
	var method, path, contentType string
	var body []byte
	switch p := rng.IntN(100); {
	case p < 25 || (p < 50 && rv == 0):
		op.Kind, op.Value = OpCreate, t.newValue(id)
		method, path = http.MethodPost, base
		body = configMapJSON(ns, op.Name, 0, op.Value)
	case p < 50:
		op.Kind, op.Value, op.Precondition = OpUpdate, t.newValue(id), rv
		method, path = http.MethodPut, base+"/"+op.Name
		body = configMapJSON(ns, op.Name, rv, op.Value)
	case p < 70:
		op.Kind, op.Value = OpPatch, t.newValue(id)
		if rv != 0 && rng.IntN(2) == 0 {
			op.Precondition = rv
		}
		method, path, contentType = http.MethodPatch, base+"/"+op.Name, "application/merge-patch+json"
		body = mergePatchJSON(op.Precondition, op.Value)
	case p < 85:
		op.Kind = OpDelete
		method, path = http.MethodDelete, base+"/"+op.Name
		if rv != 0 && rng.IntN(2) == 0 {
			op.Precondition = rv
			body = []byte(`{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"resourceVersion":"` + strconv.FormatInt(rv, 10) + `"}}`)
		}
	default:
		return t.list(ctx, op, rng, known)
	}
	if contentType == "" && body != nil {
		contentType = "application/json"
	}

	op.Start = time.Now()
	reqCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	code, answer, err := t.api.do(reqCtx, method, path, contentType, body)
	cancel()
	op.End = time.Now()
	op.Code = code
	switch {
	case err != nil || code == 0:
		op.Outcome, op.Err = Unknown, errString(err)
	case code >= 500:
		op.Outcome, op.Err = Unknown, statusMessage(code, answer)
	case code >= 400:
		op.Outcome, op.Err = Refused, statusMessage(code, answer)
		if code == http.StatusNotFound && op.Kind != OpList {
			delete(known, key)
		}
	default:
		obj, decodeErr := decodeObject(answer)
		if decodeErr != nil {
			op.Outcome, op.Err = Unknown, decodeErr.Error()
			break
		}
		op.Outcome = Acknowledged
		if obj.Kind != "Status" {
			op.ResourceVersion = obj.resourceVersion()
		}
		switch op.Kind {
		case OpList:
			op.Items = obj.items()
			for k, it := range op.Items {
				known[k] = it.ResourceVersion
			}
		case OpDelete:
			delete(known, key)
		default:
			known[key] = op.ResourceVersion
		}
	}
	return op
}

func configMapJSON(namespace, name string, rv int64, value string) []byte {
	meta := map[string]any{"name": name, "namespace": namespace}
	if rv != 0 {
		meta["resourceVersion"] = strconv.FormatInt(rv, 10)
	}
	data, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": map[string]string{"v": value}})
	return data
}

func mergePatchJSON(rv int64, value string) []byte {
	patch := map[string]any{"data": map[string]string{"v": value}}
	if rv != 0 {
		patch["metadata"] = map[string]string{"resourceVersion": strconv.FormatInt(rv, 10)}
	}
	data, _ := json.Marshal(patch)
	return data
}

func statusMessage(code int, answer []byte) string {
	if obj, err := decodeObject(answer); err == nil && obj.Message != "" {
		return fmt.Sprintf("%d %s", code, obj.Message)
	}
	return fmt.Sprintf("%d %.100s", code, answer)
}

func errString(err error) string {
	if err == nil {
		return "no answer"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out: " + err.Error()
	}
	return err.Error()
}

// list runs one of the five kinds of list (see Traffic) and records it.
func (t *Traffic) list(ctx context.Context, op Operation, rng *rand.Rand, known map[string]int64) Operation {
	op.Kind, op.Name, op.Pages = OpList, "", 1
	base := "/api/v1/namespaces/" + op.Namespace + "/configmaps"
	var seen []int64
	for _, rv := range known {
		seen = append(seen, rv)
	}
	query, limit := "", 0
	switch flavor := rng.IntN(5); {
	case flavor == 1:
		op.ListResourceVersion, query = "0", "?resourceVersion=0"
	case flavor == 2 && len(seen) > 0:
		op.ListResourceVersion, op.ListMatch = strconv.FormatInt(slices.Max(seen), 10), "NotOlderThan"
		query = "?resourceVersion=" + op.ListResourceVersion + "&resourceVersionMatch=NotOlderThan"
	case flavor == 3 && len(seen) > 0:
		op.ListResourceVersion, op.ListMatch = strconv.FormatInt(seen[rng.IntN(len(seen))], 10), "Exact"
		query = "?resourceVersion=" + op.ListResourceVersion + "&resourceVersionMatch=Exact"
	case flavor == 4:
		limit = 4
	}

	op.Start = time.Now()
	op.Items = map[string]ObjectState{}
	next := ""
	for {
		path := base + query
		if limit > 0 {
			path += "?limit=" + strconv.Itoa(limit)
			if next != "" {
				path += "&continue=" + url.QueryEscape(next)
			}
		}
		reqCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		code, answer, err := t.api.do(reqCtx, http.MethodGet, path, "", nil)
		cancel()
		op.Code = code
		if outcome, why := classify(code, answer, err); outcome != Acknowledged {
			op.End, op.Outcome, op.Err, op.Items = time.Now(), outcome, why, nil
			return op
		}
		obj, err := decodeObject(answer)
		if err != nil {
			op.End, op.Outcome, op.Err, op.Items = time.Now(), Unknown, err.Error(), nil
			return op
		}
		if next != "" && obj.resourceVersion() != op.ResourceVersion {
			// Every page of one list is read at its first page's revision.
			op.PagesDisagree = fmt.Sprintf("page %d answered at resourceVersion %d, the first at %d", op.Pages, obj.resourceVersion(), op.ResourceVersion)
		}
		op.ResourceVersion = obj.resourceVersion()
		maps.Copy(op.Items, obj.items())
		if next = obj.Metadata.Continue; next == "" {
			break
		}
		op.Pages++
	}
	op.End, op.Outcome = time.Now(), Acknowledged
	for k, it := range op.Items {
		known[k] = it.ResourceVersion
	}
	return op
}

// classify turns an answer into an outcome, and says why when it is not
// Acknowledged.
func classify(code int, answer []byte, err error) (Outcome, string) {
	switch {
	case err != nil || code == 0:
		return Unknown, errString(err)
	case code >= 500:
		return Unknown, statusMessage(code, answer)
	case code >= 400:
		return Refused, statusMessage(code, answer)
	}
	return Acknowledged, ""
}
