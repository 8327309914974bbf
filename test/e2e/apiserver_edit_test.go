package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kplane/test/framework"
)

const webDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
    tier: frontend
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.26
        ports:
        - containerPort: 80
`

// getJSON reads an object with kubectl -o json.
func getJSON(t *testing.T, a *framework.APIServer, args ...string) map[string]any {
	t.Helper()
	var obj map[string]any
	out := a.MustKubectl(t, append([]string{"get", "-o", "json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("kubectl get %v -o json: %v\n%s", args, err, out)
	}
	return obj
}

// path walks a decoded JSON object: path(obj, "spec", "replicas").
func path(obj any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, ok := obj.(map[string]any)
			if !ok {
				return nil
			}
			obj = m[k]
		case int:
			l, ok := obj.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			obj = l[k]
		}
	}
	return obj
}

// TestApplyEditedFile: a second apply of an edited file (image changed, a
// container port added, a label removed) patches the stored object.
func TestApplyEditedFile(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	file := writeFile(t, t.TempDir(), "web.yaml", webDeployment)
	a.MustKubectl(t, "apply", "-f", file)
	before := getJSON(t, a, "deployment", "web")
	if path(before, "metadata", "generation") != 1.0 {
		t.Fatalf("generation after create = %v, want 1", path(before, "metadata", "generation"))
	}

	edited := strings.Replace(webDeployment, "image: nginx:1.26", "image: nginx:1.27", 1)
	edited = strings.Replace(edited, "    tier: frontend\n", "", 1)
	edited = strings.Replace(edited, "        - containerPort: 80\n", "        - containerPort: 80\n        - containerPort: 443\n", 1)
	writeFile(t, filepath.Dir(file), "web.yaml", edited)
	out := a.MustKubectl(t, "apply", "-f", file)
	if !strings.Contains(out, "deployment.apps/web configured") {
		t.Fatalf("second apply: %s", out)
	}
	after := getJSON(t, a, "deployment", "web")
	if got := path(after, "spec", "template", "spec", "containers", 0, "image"); got != "nginx:1.27" {
		t.Errorf("image = %v, want nginx:1.27", got)
	}
	ports := path(after, "spec", "template", "spec", "containers", 0, "ports").([]any)
	if len(ports) != 2 || path(ports, 1, "containerPort") != 443.0 || path(ports, 0, "protocol") != "TCP" {
		t.Errorf("ports = %v, want 80/TCP and 443/TCP", ports)
	}
	labels := path(after, "metadata", "labels").(map[string]any)
	if _, ok := labels["tier"]; ok || labels["app"] != "web" {
		t.Errorf("labels = %v, want only app=web", labels)
	}
	if path(after, "metadata", "generation") != 2.0 {
		t.Errorf("generation after a template change = %v, want 2", path(after, "metadata", "generation"))
	}
	if path(after, "metadata", "uid") != path(before, "metadata", "uid") {
		t.Error("uid changed on apply")
	}
}

// TestKubectlVerbs: scale, label, annotate, patch (three types), edit and
// delete work against the server.
func TestKubectlVerbs(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	a.MustKubectl(t, "apply", "-f", writeFile(t, t.TempDir(), "web.yaml", webDeployment))

	if out := a.MustKubectl(t, "scale", "deployment", "web", "--replicas=3"); !strings.Contains(out, "deployment.apps/web scaled") {
		t.Errorf("scale: %s", out)
	}
	d := getJSON(t, a, "deployment", "web")
	if path(d, "spec", "replicas") != 3.0 || path(d, "metadata", "generation") != 2.0 {
		t.Errorf("after scale: replicas %v generation %v, want 3 and 2", path(d, "spec", "replicas"), path(d, "metadata", "generation"))
	}

	a.MustKubectl(t, "label", "deployment", "web", "team=blue")
	a.MustKubectl(t, "label", "deployment", "web", "tier-")
	a.MustKubectl(t, "annotate", "deployment", "web", "owner=alice")
	d = getJSON(t, a, "deployment", "web")
	if path(d, "metadata", "labels", "team") != "blue" || path(d, "metadata", "labels", "tier") != nil {
		t.Errorf("labels = %v", path(d, "metadata", "labels"))
	}
	if path(d, "metadata", "annotations", "owner") != "alice" {
		t.Errorf("annotations = %v", path(d, "metadata", "annotations"))
	}
	if path(d, "metadata", "generation") != 2.0 {
		t.Errorf("metadata changes bumped generation to %v", path(d, "metadata", "generation"))
	}

	a.MustKubectl(t, "patch", "deployment", "web", "--type=merge", "-p", `{"spec":{"minReadySeconds":5}}`)
	a.MustKubectl(t, "patch", "deployment", "web", "--type=json", "-p", `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.28"}]`)
	a.MustKubectl(t, "patch", "deployment", "web", "--type=strategic", "-p",
		`{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}`)
	d = getJSON(t, a, "deployment", "web")
	if path(d, "spec", "minReadySeconds") != 5.0 {
		t.Errorf("merge patch: minReadySeconds = %v", path(d, "spec", "minReadySeconds"))
	}
	// The strategic patch merges containers by name: the new one is added
	// (in front, as upstream's merge order puts it) and nginx keeps the
	// image the JSON patch gave it.
	images := map[string]any{}
	containers := path(d, "spec", "template", "spec", "containers").([]any)
	for _, c := range containers {
		images[path(c, "name").(string)] = path(c, "image")
	}
	if len(containers) != 2 || images["nginx"] != "nginx:1.28" || images["sidecar"] != "busybox" {
		t.Errorf("after json and strategic patches containers = %v", containers)
	}

	// kubectl edit with EDITOR set to a script that changes the replicas.
	editor := writeFile(t, t.TempDir(), "editor.sh", "#!/bin/sh\nsed -i 's/replicas: 3/replicas: 7/' \"$1\"\n")
	if err := os.Chmod(editor, 0o755); err != nil {
		t.Fatal(err)
	}
	r := a.KubectlEnv(t, []string{"EDITOR=" + editor, "KUBE_EDITOR=" + editor}, "", "edit", "deployment", "web")
	if r.Err != nil || !strings.Contains(r.Stdout, "deployment.apps/web edited") {
		t.Fatalf("edit: %v\n%s\n%s", r.Err, r.Stdout, r.Stderr)
	}
	if got := path(getJSON(t, a, "deployment", "web"), "spec", "replicas"); got != 7.0 {
		t.Errorf("after edit replicas = %v, want 7", got)
	}

	if out := a.MustKubectl(t, "delete", "deployment", "web"); !strings.Contains(out, `deployment.apps "web" deleted`) {
		t.Errorf("delete: %s", out)
	}
	r = a.Kubectl(t, "", "get", "deployment", "web")
	if r.Err == nil || !strings.Contains(r.Stderr, `Error from server (NotFound): deployments.apps "web" not found`) {
		t.Errorf("get after delete: %v %s", r.Err, r.Stderr)
	}
}
