package ctl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/test/framework"
)

// The kubectl-like verbs, run in-process against an in-process apiserver
// (no controllers, no nodes): what they print and how they exit. The same
// verbs are compared with the real kubectl in test/e2e/ctl_verbs_test.go.

// runIn runs ctl against the apiserver a, with stdin.
func runIn(t *testing.T, a *framework.APIServer, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append([]string{"--kubeconfig", a.KubeconfigPath()}, args...)
	code := Main(context.Background(), args, IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

// mustRun runs ctl and fails the test unless it exits 0.
func mustRun(t *testing.T, a *framework.APIServer, args ...string) string {
	t.Helper()
	code, out, errOut := runIn(t, a, "", args...)
	if code != 0 {
		t.Fatalf("ctl %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// ages replaces AGE cells, which depend on the clock.
var ages = regexp.MustCompile(`\b\d+(s|m\d*s?|h\d*m?|d\d*h?)\b`)

func TestGetErrorsAsKubectl(t *testing.T) {
	a := framework.StartAPIServer(t)
	tests := []struct {
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{[]string{"get", "po", "nope"}, 1, "", "Error from server (NotFound): pods \"nope\" not found\n"},
		{[]string{"get", "po", "a", "b"}, 1, "", "Error from server (NotFound): pods \"a\" not found\nError from server (NotFound): pods \"b\" not found\n"},
		{[]string{"get", "po", "nope", "--ignore-not-found"}, 0, "", ""},
		{[]string{"get", "foo"}, 1, "", "error: the server doesn't have a resource type \"foo\"\n"},
		{[]string{"get", "po"}, 0, "", "No resources found in default namespace.\n"},
		{[]string{"get", "po", "-n", "kube-system"}, 0, "", "No resources found in kube-system namespace.\n"},
		{[]string{"get", "po", "-A"}, 0, "", "No resources found\n"},
		{[]string{"get", "clusterroles", "-l", "team=none"}, 0, "", "No resources found\n"},
		{[]string{"get", "cm", "-o", "name"}, 0, "", ""},
		{[]string{"get", "cm", "-o", "yaml"}, 0, "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n", ""},
		{[]string{"get", "po", "-o", "foo"}, 1, "", "error: unable to match a printer suitable for the output format \"foo\", allowed formats are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml\n"},
		{[]string{"get", "po", "-o", "jsonpath"}, 1, "", "error: template format specified but no template given\n"},
		{[]string{"get", "po/x", "y"}, 1, "", "error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'ctl get resource/<resource_name>' instead of 'ctl get resource resource/<resource_name>'\n"},
		{[]string{"get", "po", "x", "-A"}, 1, "", "error: a resource cannot be retrieved by name across all namespaces\n"},
		{[]string{"get", "po,svc", "-w"}, 1, "", "error: you may only specify a single resource type\n"},
	}
	for _, tt := range tests {
		code, out, errOut := runIn(t, a, "", tt.args...)
		if code != tt.wantCode || out != tt.wantOut || errOut != tt.wantErr {
			t.Errorf("ctl %s = %d\nstdout %q\nstderr %q\nwant %d\nstdout %q\nstderr %q",
				strings.Join(tt.args, " "), code, out, errOut, tt.wantCode, tt.wantOut, tt.wantErr)
		}
	}
}

func TestGetTablesAndFormats(t *testing.T) {
	a := framework.StartAPIServer(t)
	mustRun(t, a, "create", "configmap", "one", "--from-literal=a=1")
	mustRun(t, a, "create", "configmap", "two")
	mustRun(t, a, "create", "namespace", "lessons")

	out := ages.ReplaceAllString(mustRun(t, a, "get", "cm,ns"), "AGE")
	want := `NAME            DATA   AGE
configmap/one   1      AGE
configmap/two   0      AGE

NAME                        STATUS   AGE
namespace/default           Active   AGE
namespace/kube-node-lease   Active   AGE
namespace/kube-public       Active   AGE
namespace/kube-system       Active   AGE
namespace/lessons           Active   AGE
`
	if out != want {
		t.Errorf("get cm,ns:\n%s\nwant:\n%s", out, want)
	}
	if out := mustRun(t, a, "get", "cm", "one", "-o", "jsonpath={.data.a}"); out != "1" {
		t.Errorf("jsonpath = %q", out)
	}
	if out := mustRun(t, a, "get", "cm", "-o", "jsonpath={.items[*].metadata.name}"); out != "one two" {
		t.Errorf("jsonpath over the list = %q", out)
	}
	if out := mustRun(t, a, "get", "cm/one", "ns/lessons", "-o", "name"); out != "configmap/one\nnamespace/lessons\n" {
		t.Errorf("-o name = %q", out)
	}
	if out := mustRun(t, a, "get", "cm", "one", "-o", "yaml"); !strings.HasPrefix(out, "apiVersion: v1\ndata:\n  a: \"1\"\nkind: ConfigMap\nmetadata:\n") {
		t.Errorf("-o yaml of one object:\n%s", out)
	}
	if out := mustRun(t, a, "get", "cm", "-o", "json"); !strings.Contains(out, "\"kind\": \"List\"") || !strings.Contains(out, "\"name\": \"two\"") {
		t.Errorf("-o json of a list:\n%s", out)
	}
	out = ages.ReplaceAllString(mustRun(t, a, "get", "cm", "-A", "--show-labels", "--field-selector", "metadata.name=one"), "AGE")
	// "0s" is padded to the minimum column width of 6.
	if want := "NAMESPACE   NAME   DATA   AGE   LABELS\ndefault     one    1      AGE    <none>\n"; out != want {
		t.Errorf("get -A --show-labels --field-selector:\n%s\nwant:\n%s", out, want)
	}
}

func TestApplyTwiceThenDelete(t *testing.T) {
	a := framework.StartAPIServer(t)
	dir := t.TempDir()
	manifest := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.26
        ports: [{containerPort: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80}]
`
	path := filepath.Join(dir, "web.yaml")
	write := func(content string) {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(manifest)
	check := func(args []string, want string) {
		t.Helper()
		if out := mustRun(t, a, args...); out != want {
			t.Errorf("ctl %s:\n%s\nwant:\n%s", strings.Join(args, " "), out, want)
		}
	}
	check([]string{"apply", "-f", path, "--dry-run=client"}, "deployment.apps/web created (dry run)\nservice/web created (dry run)\n")
	check([]string{"apply", "-f", path, "--dry-run=server"}, "deployment.apps/web created (server dry run)\nservice/web created (server dry run)\n")
	check([]string{"apply", "-f", path}, "deployment.apps/web created\nservice/web created\n")
	check([]string{"apply", "-f", path}, "deployment.apps/web unchanged\nservice/web unchanged\n")

	// An edit is configured; a field removed from the file is removed from
	// the object, one the file never had (the server's default) stays.
	write(strings.Replace(strings.Replace(manifest, "nginx:1.26", "nginx:1.27", 1), "        ports: [{containerPort: 80}]\n", "", 1))
	check([]string{"apply", "-f", path, "--dry-run=server"}, "deployment.apps/web configured (server dry run)\nservice/web unchanged (server dry run)\n")
	check([]string{"apply", "-f", path}, "deployment.apps/web configured\nservice/web unchanged\n")
	got := mustRun(t, a, "get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports} {.spec.revisionHistoryLimit}")
	if got != "nginx:1.27  10" {
		t.Errorf("after the edit: image, ports, revisionHistoryLimit = %q", got)
	}

	check([]string{"delete", "-f", path}, "deployment.apps \"web\" deleted\nservice \"web\" deleted\n")
	code, _, errOut := runIn(t, a, "", "get", "deploy", "web")
	if code != 1 || errOut != "Error from server (NotFound): deployments.apps \"web\" not found\n" {
		t.Errorf("after delete: %d %q", code, errOut)
	}
}

func TestApplyFromStdinAndErrors(t *testing.T) {
	a := framework.StartAPIServer(t)
	code, out, errOut := runIn(t, a, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: piped\n", "apply", "-f", "-")
	if code != 0 || out != "configmap/piped created\n" || errOut != "" {
		t.Errorf("apply -f -: %d %q %q", code, out, errOut)
	}
	// An object created without apply gets the annotation, with a warning.
	mustRun(t, a, "create", "configmap", "plain")
	code, out, errOut = runIn(t, a, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  a: b\n", "apply", "-f", "-")
	if code != 0 || out != "configmap/plain configured\n" || !strings.HasPrefix(errOut, "Warning: resource configmaps/plain is missing the kubectl.kubernetes.io/last-applied-configuration annotation") {
		t.Errorf("apply over create: %d %q %q", code, out, errOut)
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  a: b\n  c: d: e\n"), 0o600)
	code, _, errOut = runIn(t, a, "", "apply", "-f", bad)
	if want := "error: error parsing " + bad + ": error converting YAML to JSON: yaml: line 7: mapping values are not allowed in this context\n"; code != 1 || errOut != want {
		t.Errorf("malformed file: %d %q, want %q", code, errOut, want)
	}
	code, _, errOut = runIn(t, a, "", "create", "-f", "-", "-n", "other")
	if code != 1 || errOut != "error: no objects passed to create\n" {
		t.Errorf("create from empty stdin: %d %q", code, errOut)
	}
	code, _, errOut = runIn(t, a, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\n", "create", "-f", "-", "-n", "kube-system")
	if want := "error: the namespace from the provided object \"default\" does not match the namespace \"kube-system\". You must pass '--namespace=default' to perform this operation.\n"; code != 1 || errOut != want {
		t.Errorf("namespace mismatch: %d %q", code, errOut)
	}
	code, _, errOut = runIn(t, a, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: piped\n", "create", "-f", "-")
	if want := "Error from server (AlreadyExists): error when creating \"STDIN\": configmaps \"piped\" already exists\n"; code != 1 || errOut != want {
		t.Errorf("create existing: %d %q", code, errOut)
	}
	code, _, errOut = runIn(t, a, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  replicas: 1\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: c}}\n    spec: {containers: [{name: c, image: i}]}\n", "create", "-f", "-")
	if code != 1 || !strings.HasPrefix(errOut, "The Deployment \"x\" is invalid: ") {
		t.Errorf("invalid object: %d %q", code, errOut)
	}
}

func TestDeleteVariants(t *testing.T) {
	a := framework.StartAPIServer(t)
	for _, name := range []string{"a", "b", "c"} {
		mustRun(t, a, "create", "configmap", name)
	}
	mustRun(t, a, "create", "configmap", "labelled", "--dry-run=client", "-o", "yaml") // nothing stored
	code, out, errOut := runIn(t, a, "", "delete", "cm", "a", "nope")
	if code != 1 || out != "configmap \"a\" deleted\n" || errOut != "Error from server (NotFound): configmaps \"nope\" not found\n" {
		t.Errorf("delete a nope: %d %q %q", code, out, errOut)
	}
	if out := mustRun(t, a, "delete", "cm/b", "--dry-run=server"); out != "configmap \"b\" deleted (server dry run)\n" {
		t.Errorf("server dry run: %q", out)
	}
	if out := mustRun(t, a, "delete", "cm", "nope", "--ignore-not-found"); out != "" {
		t.Errorf("--ignore-not-found: %q", out)
	}
	if out := mustRun(t, a, "delete", "cm", "-l", "x=y"); out != "No resources found\n" {
		t.Errorf("empty selector: %q", out)
	}
	// Foreground deletion waits for the garbage collector, which does not
	// run here: the object stays, with a finalizer, so do not wait.
	if out := mustRun(t, a, "delete", "cm", "c", "--cascade=foreground", "--wait=false"); out != "configmap \"c\" deleted\n" {
		t.Errorf("--cascade=foreground: %q", out)
	}
	if got := mustRun(t, a, "get", "cm", "c", "-o", "jsonpath={.metadata.finalizers}"); got != `["foregroundDeletion"]` {
		t.Errorf("foreground deletion finalizers = %q", got)
	}
	if out := mustRun(t, a, "delete", "cm", "b", "--timeout=1s"); out != "configmap \"b\" deleted\n" {
		t.Errorf("delete b: %q", out)
	}
	code, out, errOut = runIn(t, a, "", "delete", "cm", "c", "--timeout=300ms")
	if code != 1 || out != "configmap \"c\" deleted\n" || errOut != "error: timed out waiting for the condition on configmaps/c\n" {
		t.Errorf("waiting for a finalized object: %d %q %q", code, out, errOut)
	}
	for args, want := range map[string]string{
		"delete cm":                      "error: resource(s) were provided, but no name was specified\n",
		"delete cm x --cascade=sideways": "error: invalid cascade value (sideways). Must be \"background\", \"foreground\", or \"orphan\"\n",
		"delete cm x -l a=b":             "error: name cannot be provided when a selector is specified\n",
	} {
		code, _, errOut := runIn(t, a, "", strings.Fields(args)...)
		if code != 1 || errOut != want {
			t.Errorf("ctl %s: %d %q, want %q", args, code, errOut, want)
		}
	}
}

func TestAPIResources(t *testing.T) {
	a := framework.StartAPIServer(t)
	out := mustRun(t, a, "api-resources")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "NAME                         SHORTNAMES   APIVERSION                     NAMESPACED   KIND" {
		t.Errorf("header = %q", lines[0])
	}
	for _, want := range []string{
		"configmaps                   cm           v1                             true         ConfigMap",
		"deployments                  deploy       apps/v1                        true         Deployment",
		"clusterroles                              rbac.authorization.k8s.io/v1   false        ClusterRole",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("api-resources lacks %q:\n%s", want, out)
		}
	}
	if lines[1] != "componentstatuses            cs           v1                             false        ComponentStatus" {
		t.Errorf("first row = %q (core group first, by name)", lines[1])
	}
	if out := mustRun(t, a, "api-resources", "--api-group=apps", "-o", "name"); out != "controllerrevisions.apps\ndaemonsets.apps\ndeployments.apps\nreplicasets.apps\nstatefulsets.apps\n" {
		t.Errorf("apps names:\n%s", out)
	}
	out = mustRun(t, a, "api-resources", "--namespaced=false", "-o", "wide", "--no-headers")
	first := strings.Fields(strings.SplitN(out, "\n", 2)[0])
	if strings.Join(first, " ") != "componentstatuses cs v1 false ComponentStatus get,list" {
		t.Errorf("-o wide:\n%s", out)
	}
	if strings.Contains(out, "pods") {
		t.Errorf("--namespaced=false lists pods:\n%s", out)
	}
}

// syncBuffer is a buffer one goroutine writes while another reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestGetWatchPrintsChanges(t *testing.T) {
	a := framework.StartAPIServer(t)
	mustRun(t, a, "create", "configmap", "before")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int)
	go func() {
		done <- Main(ctx, []string{"--kubeconfig", a.KubeconfigPath(), "get", "cm", "-w", "--output-watch-events"}, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	}()
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		return strings.Contains(out.String(), "before"), out.String()
	})
	mustRun(t, a, "create", "configmap", "after-the-watch-started", "--from-literal=k=v")
	mustRun(t, a, "delete", "configmap", "before")
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		return strings.Contains(out.String(), "DELETED"), out.String()
	})
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("watch ended with %d: %s", code, errOut.String())
	}
	got := ages.ReplaceAllString(out.String(), "AGE")
	want := `EVENT   NAME     DATA   AGE
ADDED   before   0      AGE
ADDED   after-the-watch-started   1      AGE
DELETED   before                    0      AGE
`
	if got != want {
		t.Errorf("watch output:\n%s\nwant:\n%s", got, want)
	}

	// Watching one object by name; --request-timeout ends the watch
	// quietly, as kubectl does.
	mustRun(t, a, "create", "configmap", "other")
	out2 := mustRun(t, a, "get", "cm", "after-the-watch-started", "-w", "--request-timeout=500ms")
	if got, want := ages.ReplaceAllString(out2, "AGE"), "NAME                      DATA   AGE\nafter-the-watch-started   1      AGE\n"; got != want {
		t.Errorf("watch of one object:\n%s\nwant:\n%s", got, want)
	}
}

func TestConfigVerbs(t *testing.T) {
	a := framework.StartAPIServer(t)
	path := filepath.Join(t.TempDir(), "config")
	data, err := os.ReadFile(a.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, data, 0o600)
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), append([]string{"--kubeconfig", path}, args...), IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		return code, out.String(), errOut.String()
	}
	if _, out, _ := run("config", "current-context"); out != "kubernetes-admin@kplane\n" {
		t.Errorf("current-context = %q", out)
	}
	_, out, _ := run("config", "view")
	for _, want := range []string{"    certificate-authority-data: DATA+OMITTED\n", "    token: REDACTED\n", "current-context: kubernetes-admin@kplane\n", "preferences: {}\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("config view lacks %q:\n%s", want, out)
		}
	}
	if _, out, _ := run("config", "view", "--raw"); strings.Contains(out, "REDACTED") {
		t.Errorf("--raw still redacts:\n%s", out)
	}
	if _, out, _ := run("config", "set-context", "--current", "--namespace=kube-system"); out != "Context \"kubernetes-admin@kplane\" modified.\n" {
		t.Errorf("set-context = %q", out)
	}
	want := "CURRENT   NAME                      CLUSTER   AUTHINFO           NAMESPACE\n*         kubernetes-admin@kplane   kplane    kubernetes-admin   kube-system\n"
	if _, out, _ := run("config", "get-contexts"); out != want {
		t.Errorf("get-contexts:\n%s\nwant:\n%s", out, want)
	}
	// The context's namespace is now every verb's default.
	if _, _, errOut := run("get", "pods"); errOut != "No resources found in kube-system namespace.\n" {
		t.Errorf("get pods in the context's namespace: %q", errOut)
	}
	if _, out, _ := run("config", "set-context", "other", "--cluster=kplane", "--user=kubernetes-admin"); out != "Context \"other\" created.\n" {
		t.Errorf("set-context other = %q", out)
	}
	if _, out, _ := run("config", "use-context", "other"); out != "Switched to context \"other\".\n" {
		t.Errorf("use-context = %q", out)
	}
	if _, out, _ := run("config", "view", "--minify", "-o", "jsonpath={.contexts[*].name} {.current-context}"); out != "other other" {
		t.Errorf("view --minify = %q", out)
	}
	if code, _, errOut := run("config", "use-context", "nope"); code != 1 || errOut != "error: no context exists with the name: \"nope\"\n" {
		t.Errorf("use-context nope: %d %q", code, errOut)
	}
}
