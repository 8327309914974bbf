package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"kplane/test/framework"
)

func decodeMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return m
}

const rsJSON = `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs1"},
 "spec":{"replicas":1,"selector":{"matchLabels":{"a":"b"}},
  "template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`

// TestOptimisticConcurrencyAndSubresources: a stale resourceVersion gets 409
// Conflict; generation counts spec changes only; a status write does not
// change spec and a spec write does not change status.
func TestOptimisticConcurrencyAndSubresources(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	base := "/apis/apps/v1/namespaces/default/replicasets"
	created := decodeMap(t, mustOK(t, a.Do(t, "POST", base, []byte(rsJSON)), 201))
	rv1 := path(created, "metadata", "resourceVersion").(string)
	if path(created, "metadata", "generation") != 1.0 {
		t.Fatalf("generation = %v", path(created, "metadata", "generation"))
	}

	// Update spec with the current resourceVersion: generation 2.
	created["spec"].(map[string]any)["replicas"] = 3
	body, _ := json.Marshal(created)
	updated := decodeMap(t, mustOK(t, a.Do(t, "PUT", base+"/rs1", body), 200))
	if path(updated, "metadata", "generation") != 2.0 {
		t.Errorf("generation after spec change = %v, want 2", path(updated, "metadata", "generation"))
	}
	// The same body again carries the now stale resourceVersion: 409.
	r := a.Do(t, "PUT", base+"/rs1", body)
	if r.Code != 409 || path(decodeMap(t, r.Body), "reason") != "Conflict" {
		t.Errorf("stale update: %d %s", r.Code, r.Body)
	}
	if !strings.Contains(string(r.Body), "the object has been modified; please apply your changes to the latest version and try again") {
		t.Errorf("conflict message: %s", r.Body)
	}
	_ = rv1

	// A label change is not a spec change.
	labeled := decodeMap(t, mustOK(t, a.Do(t, "PATCH", base+"/rs1", []byte(`{"metadata":{"labels":{"l":"1"}}}`),
		"Content-Type", "application/merge-patch+json"), 200))
	if path(labeled, "metadata", "generation") != 2.0 {
		t.Errorf("generation after a label change = %v, want 2", path(labeled, "metadata", "generation"))
	}

	// A patch that names another uid is about another object: refused, so an
	// ownerReference patch cannot claim a newer object that reused the name.
	r = a.Do(t, "PATCH", base+"/rs1", []byte(`{"metadata":{"uid":"not-this-one","labels":{"l":"2"}}}`),
		"Content-Type", "application/merge-patch+json")
	if r.Code != 422 || !strings.Contains(string(r.Body), "metadata.uid") {
		t.Errorf("patch with a foreign uid: %d %s; want 422 naming metadata.uid", r.Code, r.Body)
	}
	sameUID := fmt.Sprintf(`{"metadata":{"uid":%q,"labels":{"l":"1"}}}`, path(labeled, "metadata", "uid"))
	mustOK(t, a.Do(t, "PATCH", base+"/rs1", []byte(sameUID), "Content-Type", "application/merge-patch+json"), 200)

	// Status write: spec in the body is ignored, status is stored.
	labeled["status"] = map[string]any{"replicas": 3, "readyReplicas": 2, "observedGeneration": 2}
	labeled["spec"].(map[string]any)["replicas"] = 9
	body, _ = json.Marshal(labeled)
	st := decodeMap(t, mustOK(t, a.Do(t, "PUT", base+"/rs1/status", body), 200))
	if path(st, "spec", "replicas") != 3.0 || path(st, "status", "readyReplicas") != 2.0 || path(st, "metadata", "generation") != 2.0 {
		t.Errorf("after status write: spec.replicas %v status.readyReplicas %v generation %v; want 3, 2, 2",
			path(st, "spec", "replicas"), path(st, "status", "readyReplicas"), path(st, "metadata", "generation"))
	}
	// Spec write: status in the body is ignored.
	st["status"] = map[string]any{"replicas": 0}
	st["spec"].(map[string]any)["replicas"] = 4
	body, _ = json.Marshal(st)
	sp := decodeMap(t, mustOK(t, a.Do(t, "PUT", base+"/rs1", body), 200))
	if path(sp, "spec", "replicas") != 4.0 || path(sp, "status", "readyReplicas") != 2.0 {
		t.Errorf("after spec write: spec.replicas %v status.readyReplicas %v; want 4 and 2", path(sp, "spec", "replicas"), path(sp, "status", "readyReplicas"))
	}
	// A create ignores any status sent with it.
	withStatus := strings.Replace(rsJSON, `"name":"rs1"`, `"name":"rs2"`, 1)
	withStatus = strings.TrimSuffix(strings.TrimSpace(withStatus), "}") + `,"status":{"replicas":5}}`
	c2 := decodeMap(t, mustOK(t, a.Do(t, "POST", base, []byte(withStatus)), 201))
	if path(c2, "status", "replicas") != 0.0 {
		t.Errorf("create kept status %v", path(c2, "status"))
	}
}

// TestFinalizersAndDeletion: an object with finalizers is marked, not removed;
// removing the last finalizer removes it.
func TestFinalizersAndDeletion(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	base := "/api/v1/namespaces/default/configmaps"
	mustOK(t, a.Do(t, "POST", base, []byte(`{"metadata":{"name":"f1","finalizers":["example.com/hold"]}}`)), 201)
	marked := decodeMap(t, mustOK(t, a.Do(t, "DELETE", base+"/f1", nil), 200))
	if path(marked, "metadata", "deletionTimestamp") == nil {
		t.Fatalf("delete with a finalizer did not mark: %v", marked)
	}
	still := decodeMap(t, mustOK(t, a.Do(t, "GET", base+"/f1", nil), 200))
	if path(still, "metadata", "deletionTimestamp") == nil {
		t.Fatal("object lost its deletionTimestamp")
	}
	mustOK(t, a.Do(t, "PATCH", base+"/f1", []byte(`{"metadata":{"finalizers":null}}`), "Content-Type", "application/merge-patch+json"), 200)
	if r := a.Do(t, "GET", base+"/f1", nil); r.Code != 404 {
		t.Errorf("after removing the last finalizer: %d %s", r.Code, r.Body)
	}

	// A running pod's grace period outlasts its finalizers: removing the
	// last one while its kubelet has not confirmed the stop keeps the pod;
	// the kubelet's delete with grace 0 then removes it. And a pod whose
	// kubelet confirmed first goes when its last finalizer is removed.
	pods := "/api/v1/namespaces/default/pods"
	for _, name := range []string{"graceful", "confirmed"} {
		mustOK(t, a.Do(t, "POST", pods, []byte(`{"metadata":{"name":"`+name+`","finalizers":["example.com/hold"]},`+
			`"spec":{"nodeName":"node1","containers":[{"name":"c","image":"nginx"}]}}`)), 201)
		marked = decodeMap(t, mustOK(t, a.Do(t, "DELETE", pods+"/"+name, nil), 200))
		if path(marked, "metadata", "deletionGracePeriodSeconds") != 30.0 {
			t.Errorf("%s: deletionGracePeriodSeconds = %v, want 30", name, path(marked, "metadata", "deletionGracePeriodSeconds"))
		}
	}
	mustOK(t, a.Do(t, "PATCH", pods+"/graceful", []byte(`{"metadata":{"finalizers":null}}`), "Content-Type", "application/merge-patch+json"), 200)
	mustOK(t, a.Do(t, "GET", pods+"/graceful", nil), 200)
	mustOK(t, a.Do(t, "DELETE", pods+"/graceful", []byte(`{"gracePeriodSeconds":0}`)), 200)
	if r := a.Do(t, "GET", pods+"/graceful", nil); r.Code != 404 {
		t.Errorf("graceful pod after the kubelet's confirmation: %d %s", r.Code, r.Body)
	}
	confirmed := decodeMap(t, mustOK(t, a.Do(t, "DELETE", pods+"/confirmed", []byte(`{"gracePeriodSeconds":0}`)), 200))
	if path(confirmed, "metadata", "deletionGracePeriodSeconds") != 0.0 {
		t.Errorf("confirmed pod: deletionGracePeriodSeconds = %v, want 0", path(confirmed, "metadata", "deletionGracePeriodSeconds"))
	}
	mustOK(t, a.Do(t, "PATCH", pods+"/confirmed", []byte(`{"metadata":{"finalizers":null}}`), "Content-Type", "application/merge-patch+json"), 200)
	if r := a.Do(t, "GET", pods+"/confirmed", nil); r.Code != 404 {
		t.Errorf("confirmed pod after its last finalizer: %d %s", r.Code, r.Body)
	}

	// Foreground and orphan propagation add their finalizers.
	mustOK(t, a.Do(t, "POST", "/apis/apps/v1/namespaces/default/replicasets", []byte(rsJSON)), 201)
	fg := decodeMap(t, mustOK(t, a.Do(t, "DELETE", "/apis/apps/v1/namespaces/default/replicasets/rs1",
		[]byte(`{"propagationPolicy":"Foreground"}`)), 200))
	if f := path(fg, "metadata", "finalizers"); f == nil || f.([]any)[0] != "foregroundDeletion" {
		t.Errorf("foreground delete finalizers = %v", f)
	}

	// A namespace is marked Terminating; creating in it is refused.
	mustOK(t, a.Do(t, "POST", "/api/v1/namespaces", []byte(`{"metadata":{"name":"doomed"}}`)), 201)
	ns := decodeMap(t, mustOK(t, a.Do(t, "DELETE", "/api/v1/namespaces/doomed", nil), 200))
	if path(ns, "status", "phase") != "Terminating" {
		t.Errorf("namespace phase after delete = %v", path(ns, "status", "phase"))
	}
	r := a.Do(t, "POST", "/api/v1/namespaces/doomed/configmaps", []byte(`{"metadata":{"name":"x"}}`))
	if r.Code != 403 || !strings.Contains(string(r.Body), "because it is being terminated") {
		t.Errorf("create in terminating namespace: %d %s", r.Code, r.Body)
	}
	r = a.Do(t, "POST", "/api/v1/namespaces/nowhere/configmaps", []byte(`{"metadata":{"name":"x"}}`))
	if r.Code != 404 || !strings.Contains(string(r.Body), `namespaces \"nowhere\" not found`) {
		t.Errorf("create in missing namespace: %d %s", r.Code, r.Body)
	}
	// Finalizing the namespace (what the namespace controller does) removes it.
	fin := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"doomed"},"spec":{"finalizers":[]}}`
	mustOK(t, a.Do(t, "PUT", "/api/v1/namespaces/doomed/finalize", []byte(fin)), 200)
	if r := a.Do(t, "GET", "/api/v1/namespaces/doomed", nil); r.Code != 404 {
		t.Errorf("namespace after finalize: %d %s", r.Code, r.Body)
	}
}

// TestServicesAndBinding: ClusterIPs and node ports are allocated; binding
// assigns a pod to a node once.
func TestServicesAndBinding(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	svc := decodeMap(t, mustOK(t, a.Do(t, "POST", "/api/v1/namespaces/default/services",
		[]byte(`{"metadata":{"name":"np"},"spec":{"type":"NodePort","selector":{"a":"b"},"ports":[{"port":8080,"targetPort":80}]}}`)), 201))
	ip, _ := path(svc, "spec", "clusterIP").(string)
	if !strings.HasPrefix(ip, "10.") || ip == "10.96.0.1" {
		t.Errorf("clusterIP = %q", ip)
	}
	if np, _ := path(svc, "spec", "ports", 0, "nodePort").(float64); np < 30000 || np > 32767 {
		t.Errorf("nodePort = %v", np)
	}
	r := a.Do(t, "POST", "/api/v1/namespaces/default/services",
		[]byte(`{"metadata":{"name":"dup"},"spec":{"clusterIP":"`+ip+`","ports":[{"port":80}]}}`))
	if r.Code != 422 || !strings.Contains(string(r.Body), "already allocated") {
		t.Errorf("duplicate clusterIP: %d %s", r.Code, r.Body)
	}

	mustOK(t, a.Do(t, "POST", "/api/v1/namespaces/default/pods", podJSON("b1", nil)), 201)
	bind := `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"b1"},"target":{"apiVersion":"v1","kind":"Node","name":"node1"}}`
	mustOK(t, a.Do(t, "POST", "/api/v1/namespaces/default/pods/b1/binding", []byte(bind)), 201)
	pod := decodeMap(t, mustOK(t, a.Do(t, "GET", "/api/v1/namespaces/default/pods/b1", nil), 200))
	if path(pod, "spec", "nodeName") != "node1" || path(pod, "status", "conditions", 0, "type") != "PodScheduled" {
		t.Errorf("bound pod: nodeName %v conditions %v", path(pod, "spec", "nodeName"), path(pod, "status", "conditions"))
	}
	if r := a.Do(t, "POST", "/api/v1/namespaces/default/pods/b1/binding", []byte(bind)); r.Code != 409 {
		t.Errorf("second binding: %d %s", r.Code, r.Body)
	}
}

func mustOK(t *testing.T, r framework.Response, code int) []byte {
	t.Helper()
	mustCode(t, r, code)
	return r.Body
}
