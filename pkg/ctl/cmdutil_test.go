package ctl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/restmapper"
)

// The pure parts of the shared plumbing: error wording, -o and --dry-run,
// argument forms, the kubeconfig search, the last-applied annotation.

func TestPrintErrorLikeKubectl(t *testing.T) {
	invalid := apierrors.NewInvalid("Deployment", "apps", "web", apierrors.FieldErrorList{
		apierrors.Required("spec.selector", ""),
		apierrors.Invalid("spec.replicas", -1, "must be greater than or equal to 0"),
	})
	oneInvalid := apierrors.NewInvalid("Pod", "", "p", apierrors.FieldErrorList{apierrors.Required("spec.containers", "")})
	refused := &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api", Err: fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED)}
	tests := []struct {
		err  error
		want string
	}{
		{apierrors.NewNotFound(apierrors.Resource{Resource: "pods"}, "nope"), "Error from server (NotFound): pods \"nope\" not found\n"},
		{fmt.Errorf("wrapped: %w", apierrors.NewAlreadyExists(apierrors.Resource{Group: "apps", Resource: "deployments"}, "web")), "Error from server (AlreadyExists): deployments.apps \"web\" already exists\n"},
		{apierrors.NewUnauthorized(""), "error: You must be logged in to the server (Unauthorized)\n"},
		{oneInvalid, "The Pod \"p\" is invalid: spec.containers: Required value\n"},
		{invalid, "The Deployment \"web\" is invalid: \n* spec.selector: Required value\n* spec.replicas: Invalid value: -1: must be greater than or equal to 0\n"},
		{&apierrors.StatusError{ErrStatus: api.Status{Status: "Failure", Reason: apierrors.ReasonInvalid, Code: 422, Message: "the patch removes a missing key"}},
			"The request is invalid: the patch removes a missing key\n"},
		{refused, "The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?\n"},
		{&url.Error{Op: "Get", URL: "https://x", Err: errors.New("tls: bad certificate")}, "Unable to connect to the server: tls: bad certificate\n"},
		{&restmapper.NoResourceMatchError{Resource: "foo"}, "error: the server doesn't have a resource type \"foo\"\n"},
		{errors.New("something else"), "error: something else\n"},
		{errorList{apierrors.NewNotFound(apierrors.Resource{Resource: "pods"}, "a"), errors.New("plain")}, "Error from server (NotFound): pods \"a\" not found\nplain\n"},
		{sourceError("creating", "pod.yaml", apierrors.NewAlreadyExists(apierrors.Resource{Resource: "pods"}, "x")), "Error from server (AlreadyExists): error when creating \"pod.yaml\": pods \"x\" already exists\n"},
		{bracketedErrors{errors.New("a"), errors.New("b")}, "error: [a, b]\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		printError(&out, tt.err)
		if out.String() != tt.want {
			t.Errorf("printError(%v):\n got %q\nwant %q", tt.err, out.String(), tt.want)
		}
	}
}

func TestParseOutputAndDryRun(t *testing.T) {
	for value, want := range map[string]string{"": "", "wide": "wide", "yaml": "yaml", "jsonpath={.kind}": "jsonpath"} {
		out, err := parseOutput(value, "wide", "name", "yaml", "json")
		if err != nil || out.name != want {
			t.Errorf("parseOutput(%q) = %q, %v", value, out.name, err)
		}
	}
	if _, err := parseOutput("wide", "name", "yaml"); err == nil || err.Error() != `unable to match a printer suitable for the output format "wide", allowed formats are: go-template,go-template-file,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,yaml` {
		t.Errorf("a format the verb does not take: %v", err)
	}
	if _, err := parseOutput("jsonpath={.a", "yaml"); err == nil {
		t.Error("a broken template was accepted")
	}
	for value, want := range map[string]dryRunStrategy{"none": "", "client": "client", "server": "server", "true": "client"} {
		got, err := parseDryRun(value)
		if err != nil || got != want {
			t.Errorf("parseDryRun(%q) = %q, %v", value, got, err)
		}
	}
	if _, err := parseDryRun("unchanged"); err == nil || !strings.HasPrefix(err.Error(), "--dry-run flag without a value") {
		t.Errorf("a bare --dry-run: %v", err)
	}
	if dryRunStrategy("server").suffix() != " (server dry run)" || dryRunStrategy("client").suffix() != " (dry run)" {
		t.Error("dry-run suffixes")
	}
}

func TestResolveArgs(t *testing.T) {
	m := restmapper.New([]restmapper.APIResource{
		{Version: "v1", Name: "pods", SingularName: "pod", Kind: "Pod", ShortNames: []string{"po"}, Namespaced: true, Categories: []string{"all"}, Preferred: true},
		{Version: "v1", Name: "services", SingularName: "service", Kind: "Service", ShortNames: []string{"svc"}, Namespaced: true, Categories: []string{"all"}, Preferred: true},
		{Group: "apps", Version: "v1", Name: "deployments", SingularName: "deployment", Kind: "Deployment", ShortNames: []string{"deploy"}, Namespaced: true, Categories: []string{"all"}, Preferred: true},
	})
	summary := func(targets []target) string {
		var parts []string
		for _, t := range targets {
			parts = append(parts, t.resource.GroupResource()+"="+strings.Join(t.names, "+"))
		}
		return strings.Join(parts, " ")
	}
	for args, want := range map[string]string{
		"po":                        "pods=",
		"po,svc a b":                "pods=a+b services=a+b",
		"all":                       "pods= services= deployments.apps=",
		"deploy/web svc/a svc/b":    "deployments.apps=web services=a+b",
		"Deployment.apps web":       "deployments.apps=web",
		"pods/a deployments.apps/b": "pods=a deployments.apps=b",
	} {
		targets, err := resolveArgs(m, strings.Fields(args), "ctl get")
		if err != nil || summary(targets) != want {
			t.Errorf("resolveArgs(%s) = %s, %v; want %s", args, summary(targets), err, want)
		}
	}
	for args, want := range map[string]string{
		"po/x y":    "there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'ctl get resource/<resource_name>' instead of 'ctl get resource resource/<resource_name>'",
		"po/":       "arguments in resource/name form must have a single resource and name",
		"foo x":     `the server doesn't have a resource type "foo"`,
		"po,foo":    `the server doesn't have a resource type "foo"`,
		"foo/bar":   `the server doesn't have a resource type "foo"`,
		"pods/x/y":  "arguments in resource/name form may not have more than one slash",
		"po/a po//": "arguments in resource/name form may not have more than one slash",
	} {
		if _, err := resolveArgs(m, strings.Fields(args), "ctl get"); err == nil || err.Error() != want {
			t.Errorf("resolveArgs(%s) error = %v, want %q", args, err, want)
		}
	}
}

func TestKubeconfigSearchOrder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	home := filepath.Join(dir, "home")
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", "")
	touch := func(path string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	f := newFactory(IOStreams{})
	if got := f.kubeconfigPath(); got != "" {
		t.Errorf("with nothing there: %q", got)
	}
	if _, err := f.clientConfig(); !errors.Is(err, errNoKubeconfig) {
		t.Errorf("with nothing there, clientConfig: %v", err)
	}
	homeConfig := touch(filepath.Join(home, ".kube", "config"))
	if got := f.kubeconfigPath(); got != homeConfig {
		t.Errorf("~/.kube/config: %q", got)
	}
	local := touch(filepath.Join(dir, ".kplane", "kubeconfig"))
	if got := f.kubeconfigPath(); got != filepath.Join(".kplane", "kubeconfig") {
		t.Errorf("./.kplane/kubeconfig should win over ~/.kube/config: %q (%s)", got, local)
	}
	env := touch(filepath.Join(dir, "env-config"))
	t.Setenv("KUBECONFIG", filepath.Join(dir, "missing")+string(os.PathListSeparator)+env)
	if got := f.kubeconfigPath(); got != env {
		t.Errorf("$KUBECONFIG: the first existing file, got %q", got)
	}
	f.kubeconfigFlag = "flag-config"
	if got := f.kubeconfigPath(); got != "flag-config" {
		t.Errorf("--kubeconfig wins: %q", got)
	}
}

func TestRequestTimeout(t *testing.T) {
	for value, want := range map[string]string{"0": "0s", "": "0s", "5": "5s", "1m": "1m0s", "250ms": "250ms"} {
		got, err := parseRequestTimeout(value)
		if err != nil || got.String() != want {
			t.Errorf("parseRequestTimeout(%q) = %v, %v", value, got, err)
		}
	}
	if _, err := parseRequestTimeout("soon"); err == nil {
		t.Error("parseRequestTimeout(soon) succeeded")
	}
}

// TestLastAppliedAnnotation checks the annotation kubectl writes: the
// object without the annotation (annotations: {} when it had no others),
// compact JSON with sorted keys and a final newline.
func TestLastAppliedAnnotation(t *testing.T) {
	obj := map[string]any{
		"kind": "ConfigMap", "apiVersion": "v1",
		"metadata": map[string]any{"name": "x", "annotations": map[string]any{lastAppliedAnnotation: "old"}},
		"data":     map[string]any{"b": "<2>", "a": json.Number("1")},
	}
	modified, err := setLastApplied(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"apiVersion\":\"v1\",\"data\":{\"a\":1,\"b\":\"\\u003c2\\u003e\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"x\"}}\n"
	if got := metadataAnnotation(obj, lastAppliedAnnotation); got != want {
		t.Errorf("annotation:\n got %q\nwant %q", got, want)
	}
	var back map[string]any
	if err := json.Unmarshal(modified, &back); err != nil || metadataAnnotation(back, lastAppliedAnnotation) != want {
		t.Errorf("modified configuration %s lacks the annotation: %v", modified, err)
	}
}

func TestContainerNames(t *testing.T) {
	for image, want := range map[string]string{
		"nginx":                                 "nginx",
		"nginx:1.27":                            "nginx",
		"docker.io/library/busybox@sha256:abc":  "busybox",
		"localhost:5000/team/app:v2":            "app",
		"my_image:v1":                           "my-image",
		"registry.example.com:443/UPPER/Name_x": "name-x",
	} {
		if got := containerName(image); got != want {
			t.Errorf("containerName(%q) = %q, want %q", image, got, want)
		}
	}
}

func TestSchemaForEveryServedKind(t *testing.T) {
	for key := range apiTypes {
		group, kind, _ := strings.Cut(key, "/")
		if schemaFor(group, kind) == nil {
			t.Errorf("no schema for %s", key)
		}
	}
	if schemaFor("example.com", "Widget") != nil {
		t.Error("a schema for an unknown kind")
	}
	deploy := schemaFor("apps", "Deployment")
	if f := deploy.Field("spec").Type.Field("template").Type.Field("spec").Type.Field("containers"); f == nil || f.PatchMergeKey != "name" {
		t.Errorf("deployment containers merge key: %+v", f)
	}
}

func TestWithoutServerFields(t *testing.T) {
	live := map[string]any{"metadata": map[string]any{"name": "web", "resourceVersion": "10"}, "spec": map[string]any{"replicas": 2.0}, "status": map[string]any{"readyReplicas": 1.0}}
	patched := map[string]any{"metadata": map[string]any{"name": "web", "resourceVersion": "11"}, "spec": map[string]any{"replicas": 2.0}, "status": map[string]any{"readyReplicas": 2.0}}
	if !reflect.DeepEqual(withoutServerFields(live), withoutServerFields(patched)) {
		t.Error("a status write by a controller between the read and the patch must not count as a change")
	}
	patched["spec"] = map[string]any{"replicas": 3.0}
	if reflect.DeepEqual(withoutServerFields(live), withoutServerFields(patched)) {
		t.Error("a spec change must count")
	}
	if live["metadata"].(map[string]any)["resourceVersion"] != "10" || live["status"] == nil {
		t.Error("withoutServerFields must not modify its argument")
	}
}
