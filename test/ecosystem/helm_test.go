package ecosystem

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kplane/test/framework"
)

// TestHelmInstallsChartWithCRDs drives the Helm binary against a `ctl up`
// cluster with a chart whose crds/ directory holds the Guestbook CRD and
// whose template creates one Guestbook. Helm installs crds/ first and waits
// for the CRD to be Established before it creates the Guestbook; the
// Guestbook then reconciles into its Deployment under the controller-runtime
// manager. `helm uninstall` removes the Guestbook (and, through its
// ownerReference, the Deployment) but leaves the CRD, as Helm never deletes
// what it installed from crds/.
func TestHelmInstallsChartWithCRDs(t *testing.T) {
	framework.RequireHelm(t)
	c := startCluster(t)
	cfg := restConfig(t, c)
	requireCRDsServed(t, cfg)
	scheme := crdScheme(t)
	kube := directClient(t, cfg, scheme)
	ctx := context.Background()
	chart, err := filepath.Abs(filepath.Join("testdata", "charts", "guestbook"))
	if err != nil {
		t.Fatalf("chart path: %v", err)
	}

	install := c.MustHelm(t, t.TempDir(), "install", "guests", chart, "--wait", "--timeout", "120s")
	if !strings.Contains(install, "STATUS: deployed") {
		t.Fatalf("helm install did not deploy:\n%s", install)
	}
	crdName := readGuestbookCRD(t).Name
	waitEstablished(t, kube, crdName)
	var guestbook Guestbook
	if err := kube.Get(ctx, client.ObjectKey{Namespace: "default", Name: "guests"}, &guestbook); err != nil {
		t.Fatalf("the chart's Guestbook after helm install: %v", err)
	}
	if guestbook.Spec.Image != "nginx:1.27" || guestbook.Spec.Replicas == nil || *guestbook.Spec.Replicas != 2 ||
		guestbook.Labels["app.kubernetes.io/managed-by"] != "Helm" {
		t.Errorf("the chart's Guestbook = spec %+v labels %v, want nginx:1.27 × 2 managed by Helm", guestbook.Spec, guestbook.Labels)
	}

	mgr := startManager(t, cfg, "guestbook-manager", scheme, guestbookLeaseName, setupGuestbookController)
	waitElected(t, mgr, time.Minute)
	waitGuestbookAvailable(t, kube, "guests", 2)

	c.MustHelm(t, t.TempDir(), "uninstall", "guests", "--wait", "--timeout", "120s")
	waitGone(t, kube, &Guestbook{ObjectMeta: metav1.ObjectMeta{Name: "guests", Namespace: "default"}})
	waitGone(t, kube, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "guests", Namespace: "default"}})
	var crd apiextensionsv1.CustomResourceDefinition
	if err := kube.Get(ctx, client.ObjectKey{Name: crdName}, &crd); err != nil {
		t.Errorf("CRD %s after helm uninstall: %v; Helm leaves the CRDs of crds/ installed", crdName, err)
	}
	if list := c.MustHelm(t, t.TempDir(), "list", "--all", "-q"); list != "" {
		t.Errorf("helm list --all after uninstall = %q, want none", list)
	}
}
