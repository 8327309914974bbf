package apiserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"kplane/test/framework"
)

// applyDeployment sends a server-side apply of the Deployment "web" as
// manager, with spec the applied configuration's spec (YAML, indented by
// two spaces).
func applyDeployment(t *testing.T, a *framework.APIServer, manager, query, spec string) framework.Response {
	t.Helper()
	path := "/apis/apps/v1/namespaces/default/deployments/web?fieldManager=" + manager + query
	return a.Do(t, http.MethodPatch, path, []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n"+spec),
		"Content-Type", "application/apply-patch+yaml")
}

// webSpec is alice's Deployment spec, with replicas and extra spec lines.
func webSpec(replicas, extra string) string {
	return "  replicas: " + replicas + "\n" + extra + `  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports: [{containerPort: 80}]
`
}

// containerNames lists the names of a Deployment's containers.
func containerNames(deployment map[string]any) []string {
	var names []string
	containers, _ := field(deployment, "spec.template.spec.containers").([]any)
	for _, c := range containers {
		name, _ := c.(map[string]any)["name"].(string)
		names = append(names, name)
	}
	return names
}

// TestBuiltinServerSideApply: an apply creates a Deployment, defaulted and
// validated as any create, and records the applier's fields, a port keyed
// by its number and defaulted protocol as upstream; another manager
// changing replicas gets upstream's 409, and takes them with force; a
// second manager's container merges by name beside the first's; a field
// left out of the next apply is removed; a merge patch on an applied
// object is recorded as an Update; an apply to /status owns status only;
// invalid applied objects are refused as invalid.
func TestBuiltinServerSideApply(t *testing.T) {
	a := framework.StartAPIServer(t)

	created := object(t, applyDeployment(t, a, "alice", "", webSpec("2", "  minReadySeconds: 5\n")), http.StatusCreated)
	if field(created, "spec.strategy.type") != "RollingUpdate" {
		t.Errorf("strategy = %v, want the default RollingUpdate", field(created, "spec.strategy"))
	}
	alice := managerEntry(created, "alice", "Apply")
	if alice == nil || alice["apiVersion"] != "apps/v1" {
		t.Fatalf("managedFields = %v, want an Apply entry of alice", field(created, "metadata.managedFields"))
	}
	fields := fieldsOf(t, alice)
	for _, want := range []string{`"f:replicas":{}`, `"f:minReadySeconds":{}`, `"k:{\"name\":\"nginx\"}"`,
		`"k:{\"containerPort\":80,\"protocol\":\"TCP\"}"`, `"f:selector":{}`} {
		if !strings.Contains(fields, want) {
			t.Errorf("alice's fieldsV1 %s lacks %s", fields, want)
		}
	}
	// The same apply again writes nothing, though the live port has a
	// defaulted protocol the applied one leaves out.
	again := object(t, applyDeployment(t, a, "alice", "", webSpec("2", "  minReadySeconds: 5\n")), http.StatusOK)
	if field(again, "metadata.resourceVersion") != field(created, "metadata.resourceVersion") {
		t.Errorf("a no-op apply wrote the object")
	}

	resp := applyDeployment(t, a, "bob", "", "  replicas: 3\n")
	if want := `Apply failed with 1 conflict: conflict with "alice": .spec.replicas`; resp.Code != http.StatusConflict || statusMessage(resp.Body) != want {
		t.Errorf("bob's apply: %d %q, want 409 %q", resp.Code, statusMessage(resp.Body), want)
	}
	forced := object(t, applyDeployment(t, a, "bob", "&force=true", "  replicas: 3\n"), http.StatusOK)
	if field(forced, "spec.replicas") != int64(3) {
		t.Errorf("replicas after force = %v, want 3", field(forced, "spec.replicas"))
	}
	if entry := managerEntry(forced, "alice", "Apply"); entry == nil || strings.Contains(fieldsOf(t, entry), `"f:replicas"`) {
		t.Errorf("alice still owns replicas after bob's forced apply: %v", entry)
	}

	// carol's sidecar merges beside alice's nginx, keyed by name.
	merged := object(t, applyDeployment(t, a, "carol", "", `  template:
    spec:
      containers:
      - name: sidecar
        image: busybox
`), http.StatusOK)
	if got := containerNames(merged); len(got) != 2 || got[0] != "nginx" || got[1] != "sidecar" {
		t.Errorf("containers = %v, want nginx and sidecar", got)
	}

	// alice stops applying minReadySeconds (and replicas, now bob's).
	removed := object(t, applyDeployment(t, a, "alice", "", webSpec("3", "")), http.StatusOK)
	if v := field(removed, "spec.minReadySeconds"); v != nil && v != int64(0) {
		t.Errorf("minReadySeconds = %v, want it removed", v)
	}
	if got := containerNames(removed); len(got) != 2 {
		t.Errorf("containers = %v, want carol's sidecar kept", got)
	}

	// A merge patch on an applied object is its writer's Update.
	patched := object(t, a.Do(t, http.MethodPatch, "/apis/apps/v1/namespaces/default/deployments/web?fieldManager=dave",
		[]byte(`{"spec":{"paused":true}}`), "Content-Type", "application/merge-patch+json"), http.StatusOK)
	if entry := managerEntry(patched, "dave", "Update"); !strings.Contains(fieldsOf(t, entry), `"f:paused"`) {
		t.Errorf("managedFields = %v, want dave's Update owning paused", field(patched, "metadata.managedFields"))
	}

	// An apply to /status changes and owns status only.
	status := object(t, a.Do(t, http.MethodPatch, "/apis/apps/v1/namespaces/default/deployments/web/status?fieldManager=counter",
		[]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 9\nstatus:\n  readyReplicas: 1\n"),
		"Content-Type", "application/apply-patch+yaml"), http.StatusOK)
	if field(status, "status.readyReplicas") != int64(1) || field(status, "spec.replicas") != int64(3) {
		t.Errorf("after the status apply: status %v, replicas %v; want readyReplicas 1 and replicas 3", field(status, "status"), field(status, "spec.replicas"))
	}
	if entry := managerEntry(status, "counter", "Apply"); entry == nil || entry["subresource"] != "status" || strings.Contains(fieldsOf(t, entry), "f:spec") {
		t.Errorf("counter's entry = %v, want an Apply through status owning status only", entry)
	}

	resp = applyDeployment(t, a, "alice", "&force=true", webSpec("-1", ""))
	if resp.Code != http.StatusUnprocessableEntity {
		t.Errorf("apply of replicas -1: %d %s, want 422", resp.Code, resp.Body)
	}
}

// TestBuiltinServerSideApplyServicePorts: a Service's ports are keyed by
// port and protocol, so a UDP port of the same number is another item.
func TestBuiltinServerSideApplyServicePorts(t *testing.T) {
	a := framework.StartAPIServer(t)
	apply := func(manager, ports string, wantCode int) map[string]any {
		t.Helper()
		return object(t, a.Do(t, http.MethodPatch, "/api/v1/namespaces/default/services/dns?fieldManager="+manager,
			[]byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: dns\nspec:\n  selector: {app: dns}\n  ports: "+ports+"\n"),
			"Content-Type", "application/apply-patch+yaml"), wantCode)
	}
	apply("alice", `[{name: dns-tcp, port: 53}]`, http.StatusCreated)
	svc := apply("bob", `[{name: dns-udp, port: 53, protocol: UDP}]`, http.StatusOK)
	if ports, _ := field(svc, "spec.ports").([]any); len(ports) != 2 {
		t.Errorf("ports = %v, want TCP and UDP 53", field(svc, "spec.ports"))
	}
}

// fieldsOf is a managedFields entry's fieldsV1 as JSON, for substring
// checks.
func fieldsOf(t *testing.T, entry map[string]any) string {
	t.Helper()
	if entry == nil {
		return ""
	}
	encoded, err := json.Marshal(entry["fieldsV1"])
	if err != nil {
		t.Fatal(err)
	}
	return string(encoded)
}
