package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

// websiteWait bounds each wait of the Website test: pods must be scheduled
// and started on a loaded machine, and the garbage collector must notice
// the owner is gone.
const websiteWait = 90 * time.Second

// TestWebsiteController runs examples/controller the way a student does
// (docs/write-a-controller.md): against a `ctl up` cluster, after applying
// its CRD; a Website gets its Deployment and Service, reports Ready with
// every replica ready, and when it is deleted the garbage collector
// deletes what it owned.
func TestWebsiteController(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	requireControllerManager(t)
	c := framework.StartCluster(t, nil)
	requireCRDsServed(t, c)
	bin := buildWebsiteController(t)

	c.MustKubectl(t, "apply", "-f", examplePath(t, filepath.Join("controller", "crd.yaml")))
	c.MustKubectl(t, "wait", "--for=condition=Established", "crd/websites.examples.kplane.dev", "--timeout=60s")

	out := &framework.SyncBuffer{}
	cmd := exec.Command(bin, "--kubeconfig", c.KubeconfigPath(), "--leader-elect", "--workers", "2", "--debug-data-dir", c.Dir)
	cmd.Stdout, cmd.Stderr = out, out
	framework.StartProcess(t, "website-controller", cmd, func() {
		if t.Failed() {
			t.Logf("website-controller output:\n%s", out.String())
		}
	})

	c.MustKubectl(t, "apply", "-f", examplePath(t, filepath.Join("controller", "website.yaml")))
	cl := c.Client(t)
	ctx := context.Background()

	// The Deployment and the Service, each controlled by the Website.
	website := getWebsite(t, c)
	framework.Eventually(t, websiteWait, func() (bool, string) {
		d, err := cl.Deployments("default").Get(ctx, "hello", client.GetOptions{})
		if err != nil {
			return false, "deployment hello: " + err.Error()
		}
		return ownedByWebsite(d.OwnerReferences, website.uid)
	})
	framework.Eventually(t, websiteWait, func() (bool, string) {
		s, err := cl.Services("default").Get(ctx, "hello", client.GetOptions{})
		if err != nil {
			return false, "service hello: " + err.Error()
		}
		if len(s.Spec.Ports) != 1 || s.Spec.Ports[0].Port != 80 {
			return false, fmt.Sprintf("service ports %+v, want 80", s.Spec.Ports)
		}
		return ownedByWebsite(s.OwnerReferences, website.uid)
	})

	// Ready once both replicas are, as the printer columns show.
	framework.Eventually(t, websiteWait, func() (bool, string) {
		w := getWebsite(t, c)
		ok := w.ready == "True" && w.readyReplicas == "2" && w.observedGeneration == w.generation
		return ok, fmt.Sprintf("website hello: %+v", w)
	})
	table := c.MustKubectl(t, "get", "websites")
	for _, want := range []string{`(?m)^NAME\s+IMAGE\s+REPLICAS\s+READY\s+AGE$`, `(?m)^hello\s+nginx:1\.27\s+2\s+2\s+\S+$`} {
		if !regexp.MustCompile(want).MatchString(table) {
			t.Errorf("kubectl get websites does not match %s:\n%s", want, table)
		}
	}
	framework.Eventually(t, websiteWait, controllertest.EventSeen(cl, controllertest.EventMatch{
		Namespace: "default", Component: "website-controller", Kind: "Website", Name: "hello",
		Reason: "Created", Message: "Created Deployment hello"}))
	checkWebsiteTeachingLayer(t, c)

	// Deleting the Website deletes what it owned: the garbage collector
	// follows the ownerReferences.
	c.MustKubectl(t, "delete", "website", "hello", "--wait=true")
	framework.Eventually(t, websiteWait, func() (bool, string) {
		_, errD := cl.Deployments("default").Get(ctx, "hello", client.GetOptions{})
		_, errS := cl.Services("default").Get(ctx, "hello", client.GetOptions{})
		return apierrors.IsNotFound(errD) && apierrors.IsNotFound(errS),
			fmt.Sprintf("after deleting the website: deployment: %v; service: %v", errD, errS)
	})
}

// requireCRDsServed fails the test — loudly, not a skip — when the
// apiserver does not serve apiextensions.k8s.io/v1: the Website controller
// cannot run without its CRD.
func requireCRDsServed(t *testing.T, c *framework.LocalCluster) {
	t.Helper()
	r := c.Kubectl(t, "", "get", "--raw", "/apis/apiextensions.k8s.io/v1")
	if r.Err != nil || !strings.Contains(r.Stdout, "customresourcedefinitions") {
		t.Fatalf("the apiserver does not serve apiextensions.k8s.io/v1 CustomResourceDefinitions "+
			"(kplane does not support CRDs yet — issue 19), so examples/controller cannot run:\n%v\n%s%s", r.Err, r.Stdout, r.Stderr)
	}
}

// buildWebsiteController builds examples/controller into a temporary
// directory of t's and returns the binary's path.
func buildWebsiteController(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "website-controller")
	cmd := exec.Command("go", "build", "-o", bin, "./examples/controller")
	cmd.Dir = framework.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/controller: %v\n%s", err, out)
	}
	return bin
}

// websiteView is what the test reads of Website default/hello, as kubectl
// prints it.
type websiteView struct {
	uid, generation, observedGeneration, readyReplicas, ready string
}

// getWebsite reads Website default/hello with kubectl, as a user would.
func getWebsite(t *testing.T, c *framework.LocalCluster) websiteView {
	t.Helper()
	out := c.MustKubectl(t, "get", "website", "hello", "-o",
		`jsonpath={.metadata.uid}|{.metadata.generation}|{.status.observedGeneration}|{.status.readyReplicas}|{.status.conditions[?(@.type=="Ready")].status}`)
	f := strings.Split(strings.TrimSpace(out), "|") // fields not set yet print as empty
	for len(f) < 5 {
		f = append(f, "")
	}
	return websiteView{uid: f[0], generation: f[1], observedGeneration: f[2], readyReplicas: f[3], ready: f[4]}
}

// ownedByWebsite reports whether refs make the Website with uid the
// object's controller, blocking its deletion.
func ownedByWebsite(refs []api.OwnerReference, uid string) (bool, string) {
	for _, ref := range refs {
		if ref.Controller != nil && *ref.Controller && ref.Kind == "Website" &&
			ref.APIVersion == "examples.kplane.dev/v1alpha1" && ref.UID == uid &&
			ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
			return true, ""
		}
	}
	return false, fmt.Sprintf("ownerReferences %+v, want a controller ref to Website hello (uid %s)", refs, uid)
}
