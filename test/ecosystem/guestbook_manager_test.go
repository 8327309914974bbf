package ecosystem

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kplane/test/framework"
)

// guestbookLeaseName is the Lease the guestbook controller's manager elects
// a leader on.
const guestbookLeaseName = "ecosystem-guestbook-controller"

// TestControllerRuntimeManagerReconcilesGuestbookCRD runs the kubebuilder
// tutorial's shape, unchanged, against a `ctl up` cluster: the Guestbook CRD
// is applied and becomes Established, a leader-elected manager reconciles a
// Guestbook into a Deployment it owns and writes the Deployment's readiness
// into the Guestbook's status through /status, a /status write cannot change
// the spec, and deleting the Guestbook garbage-collects its Deployment.
// It fails, loudly, while kplane does not serve apiextensions.k8s.io.
func TestControllerRuntimeManagerReconcilesGuestbookCRD(t *testing.T) {
	c := startCluster(t)
	cfg := restConfig(t, c)
	requireCRDsServed(t, cfg)
	scheme := crdScheme(t)
	kube := directClient(t, cfg, scheme)
	ctx := context.Background()

	crd := readGuestbookCRD(t)
	if err := kube.Create(ctx, crd); err != nil {
		t.Fatalf("create CRD %s: %v", crd.Name, err)
	}
	waitEstablished(t, kube, crd.Name)

	mgr := startManager(t, cfg, "guestbook-manager", scheme, guestbookLeaseName, setupGuestbookController)
	waitElected(t, mgr, time.Minute)

	// replicas is left out: the schema's default (1) fills it, then the
	// test scales to 2.
	guestbook := &Guestbook{ObjectMeta: metav1.ObjectMeta{Name: "book", Namespace: "default"}, Spec: GuestbookSpec{Image: "nginx:1.27"}}
	if err := kube.Create(ctx, guestbook); err != nil {
		t.Fatalf("create guestbook: %v", err)
	}
	if guestbook.Spec.Replicas == nil || *guestbook.Spec.Replicas != 1 {
		t.Errorf("created guestbook's spec.replicas = %v, want the schema's default 1", guestbook.Spec.Replicas)
	}
	waitGuestbookAvailable(t, kube, guestbook.Name, 1)
	patch := client.MergeFrom(guestbook.DeepCopy())
	two := int32(2)
	guestbook.Spec.Replicas = &two
	if err := kube.Patch(ctx, guestbook, patch); err != nil {
		t.Fatalf("scale guestbook to 2: %v", err)
	}
	waitGuestbookAvailable(t, kube, guestbook.Name, 2)

	var deployment appsv1.Deployment
	if err := kube.Get(ctx, client.ObjectKeyFromObject(guestbook), &deployment); err != nil {
		t.Fatalf("get the guestbook's deployment: %v", err)
	}
	if owner := metav1.GetControllerOf(&deployment); owner == nil || owner.APIVersion != guestbookGroupVersion.String() ||
		owner.Kind != "Guestbook" || owner.UID != guestbook.UID {
		t.Errorf("deployment's controller ownerReference = %+v, want Guestbook %s uid %s", owner, guestbook.Name, guestbook.UID)
	}

	// A write through /status keeps the stored spec: the status
	// subresource takes only the status from the body.
	var current Guestbook
	if err := kube.Get(ctx, client.ObjectKeyFromObject(guestbook), &current); err != nil {
		t.Fatalf("get guestbook: %v", err)
	}
	generation := current.Generation
	seven := int32(7)
	current.Spec.Replicas = &seven
	if err := kube.Status().Update(ctx, &current); err != nil {
		t.Fatalf("update guestbook status: %v", err)
	}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(guestbook), &current); err != nil {
		t.Fatalf("get guestbook: %v", err)
	}
	if *current.Spec.Replicas != 2 || current.Generation != generation {
		t.Errorf("after a /status update carrying spec.replicas 7: spec.replicas %d, generation %d; want 2 and %d unchanged",
			*current.Spec.Replicas, current.Generation, generation)
	}

	if err := kube.Delete(ctx, guestbook); err != nil {
		t.Fatalf("delete guestbook: %v", err)
	}
	waitGone(t, kube, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: guestbook.Name, Namespace: guestbook.Namespace}})
	if err := kube.Delete(ctx, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: crd.Name}}); err != nil {
		t.Fatalf("delete CRD %s: %v", crd.Name, err)
	}
	waitGone(t, kube, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: crd.Name}})
}

// waitGuestbookAvailable waits until the guestbook's status, written by the
// controller, reports want ready replicas for its current generation and
// Available True.
func waitGuestbookAvailable(t *testing.T, kube client.Client, name string, want int32) {
	t.Helper()
	framework.Eventually(t, 2*time.Minute, func() (bool, string) {
		var g Guestbook
		if err := kube.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: name}, &g); err != nil {
			return false, err.Error()
		}
		ok := g.Status.ReadyReplicas == want && g.Status.ObservedGeneration == g.Generation &&
			meta.IsStatusConditionTrue(g.Status.Conditions, "Available")
		return ok, fmt.Sprintf("guestbook generation %d, status %+v", g.Generation, g.Status)
	})
}

// waitGone waits until obj (its name and namespace) no longer exists.
func waitGone(t *testing.T, kube client.Client, obj client.Object) {
	t.Helper()
	framework.Eventually(t, time.Minute, func() (bool, string) {
		err := kube.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			return true, ""
		}
		return false, fmt.Sprintf("%T %s still there (err %v, finalizers %v, ownerReferences %v)",
			obj, client.ObjectKeyFromObject(obj), err, obj.GetFinalizers(), obj.GetOwnerReferences())
	})
}
