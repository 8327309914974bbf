package ecosystem

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kplane/test/framework"
)

// appLeaseName is the Lease the app controller's managers elect a leader on.
const appLeaseName = "ecosystem-app-controller"

// TestControllerRuntimeManagerReconcilesBuiltinKinds runs a kubebuilder-style
// controller-runtime manager, unchanged, against a `ctl up` cluster, on
// built-in kinds only: it wins leader election on a Lease, syncs its
// informers' caches, turns an app ConfigMap into a Deployment it owns, admits
// that Deployment's pods through their readiness gate with pods/status
// patches, and reports ready replicas back when the owned Deployment's
// status changes. A second manager stands by and takes over, through the
// Lease, when the first stops; deleting the app garbage-collects its
// Deployment through the ownerReference.
func TestControllerRuntimeManagerReconcilesBuiltinKinds(t *testing.T) {
	start := time.Now()
	c := startCluster(t)
	cfg := restConfig(t, c)
	scheme := newAppScheme(t)
	kube := directClient(t, cfg, scheme)
	ctx := context.Background()
	clusterUp := time.Now()

	first := startManager(t, cfg, "manager-a", scheme, appLeaseName, setupAppController)
	waitElected(t, first, time.Minute)
	firstHolder := leaseHolder(t, kube)
	if firstHolder == "" {
		t.Fatalf("manager-a is elected but Lease default/%s names no holder", appLeaseName)
	}

	app := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{appLabel: "true"}},
		Data:       map[string]string{"image": "nginx:1.27", "replicas": "2"},
	}
	if err := kube.Create(ctx, app); err != nil {
		t.Fatalf("create app ConfigMap: %v", err)
	}
	waitAppReady(t, kube, app, 2)
	requireOwnedDeployment(t, kube, app, "nginx:1.27", 2)
	requireAppEvent(t, kube, app)

	// A scale through the app: the reconciler updates the Deployment, the
	// new pod is admitted, and the owned Deployment's status change brings
	// the report to 3.
	setAppReplicas(t, kube, app, "3")
	waitAppReady(t, kube, app, 3)
	requireOwnedDeployment(t, kube, app, "nginx:1.27", 3)

	// A standby cannot lead while manager-a holds the Lease; once
	// manager-a stops (releasing it), the standby is elected and serves.
	second := startManager(t, cfg, "manager-b", scheme, appLeaseName, setupAppController)
	if err := second.GetCache().WaitForCacheSync(ctx); !err {
		t.Fatalf("manager-b's caches did not sync")
	}
	select {
	case <-second.Elected():
		t.Fatalf("manager-b was elected while manager-a holds Lease default/%s (holder %q)", appLeaseName, leaseHolder(t, kube))
	default:
	}
	first.stop()
	waitElected(t, second, time.Minute)
	if holder := leaseHolder(t, kube); holder == firstHolder || holder == "" {
		t.Fatalf("after the failover Lease default/%s is held by %q, want manager-b (not manager-a's %q)", appLeaseName, holder, firstHolder)
	}
	setAppReplicas(t, kube, app, "1")
	waitAppReady(t, kube, app, 1)
	requireOwnedDeployment(t, kube, app, "nginx:1.27", 1)

	if err := kube.Delete(ctx, app); err != nil {
		t.Fatalf("delete app ConfigMap: %v", err)
	}
	framework.Eventually(t, time.Minute, func() (bool, string) {
		var d appsv1.Deployment
		err := kube.Get(ctx, client.ObjectKeyFromObject(app), &d)
		if apierrors.IsNotFound(err) {
			return true, ""
		}
		return false, fmt.Sprintf("deployment default/web still there (err %v, ownerReferences %v)", err, d.OwnerReferences)
	})
	t.Logf("variant (a) took %v, of which the cluster's start %v", time.Since(start).Round(time.Millisecond), clusterUp.Sub(start).Round(time.Millisecond))
}

// leaseHolder returns the holderIdentity of the app controller's Lease.
func leaseHolder(t *testing.T, kube client.Client) string {
	t.Helper()
	var lease coordinationv1.Lease
	if err := kube.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: appLeaseName}, &lease); err != nil {
		t.Fatalf("get Lease default/%s: %v", appLeaseName, err)
	}
	if lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}

// setAppReplicas changes the replicas an app asks for.
func setAppReplicas(t *testing.T, kube client.Client, app *corev1.ConfigMap, replicas string) {
	t.Helper()
	patch := client.MergeFrom(app.DeepCopy())
	app.Data["replicas"] = replicas
	if err := kube.Patch(context.Background(), app, patch); err != nil {
		t.Fatalf("set app %s replicas to %s: %v", app.Name, replicas, err)
	}
}

// waitAppReady waits until the app reports want ready replicas and exactly
// want of its pods carry the admitted condition and are Ready.
func waitAppReady(t *testing.T, kube client.Client, app *corev1.ConfigMap, want int) {
	t.Helper()
	ctx := context.Background()
	framework.Eventually(t, 2*time.Minute, func() (bool, string) {
		var got corev1.ConfigMap
		if err := kube.Get(ctx, client.ObjectKeyFromObject(app), &got); err != nil {
			return false, err.Error()
		}
		var pods corev1.PodList
		if err := kube.List(ctx, &pods, client.InNamespace(app.Namespace), client.MatchingLabels{appNameLabel: app.Name}); err != nil {
			return false, err.Error()
		}
		var live, admittedReady int
		var seen []string
		for i := range pods.Items {
			pod := &pods.Items[i]
			if !pod.DeletionTimestamp.IsZero() {
				continue
			}
			live++
			admitted, ready := podCondition(pod, admittedCondition), podCondition(pod, corev1.PodReady)
			if admitted == corev1.ConditionTrue && ready == corev1.ConditionTrue {
				admittedReady++
			}
			seen = append(seen, fmt.Sprintf("%s admitted=%s ready=%s", pod.Name, admitted, ready))
		}
		report := got.Annotations[readyReplicasAnnotation]
		ok := report == fmt.Sprint(want) && live == want && admittedReady == want
		return ok, fmt.Sprintf("app reports %s=%q (want %d); pods: %s", readyReplicasAnnotation, report, want, strings.Join(seen, ", "))
	})
}

// requireOwnedDeployment checks the app's Deployment: controlled by the app
// (a controller ownerReference with the ConfigMap's uid), with the image,
// replicas and readiness gate the app asks for.
func requireOwnedDeployment(t *testing.T, kube client.Client, app *corev1.ConfigMap, image string, replicas int32) {
	t.Helper()
	var d appsv1.Deployment
	if err := kube.Get(context.Background(), client.ObjectKeyFromObject(app), &d); err != nil {
		t.Fatalf("get the app's deployment: %v", err)
	}
	owner := metav1.GetControllerOf(&d)
	if owner == nil || owner.Kind != "ConfigMap" || owner.APIVersion != "v1" || owner.Name != app.Name || owner.UID != app.UID ||
		owner.BlockOwnerDeletion == nil || !*owner.BlockOwnerDeletion {
		t.Errorf("deployment's controller ownerReference = %+v, want ConfigMap %s uid %s blocking owner deletion", owner, app.Name, app.UID)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != replicas {
		t.Errorf("deployment replicas = %v, want %d", d.Spec.Replicas, replicas)
	}
	if got := d.Spec.Template.Spec.Containers; len(got) != 1 || got[0].Image != image {
		t.Errorf("deployment containers = %+v, want one with image %s", got, image)
	}
	if gates := d.Spec.Template.Spec.ReadinessGates; len(gates) != 1 || gates[0].ConditionType != admittedCondition {
		t.Errorf("deployment readiness gates = %+v, want %s", gates, admittedCondition)
	}
}

// requireAppEvent waits for the events.k8s.io/v1 Event the reconciler
// recorded when it created the app's Deployment.
func requireAppEvent(t *testing.T, kube client.Client, app *corev1.ConfigMap) {
	t.Helper()
	framework.Eventually(t, time.Minute, func() (bool, string) {
		var events eventsv1.EventList
		if err := kube.List(context.Background(), &events, client.InNamespace(app.Namespace)); err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range events.Items {
			if e.Regarding.UID == app.UID && e.Reason == "DeploymentCreated" && e.Action == "Create" &&
				e.Related != nil && e.Related.Kind == "Deployment" && e.ReportingController == "app-controller" {
				return true, ""
			}
			seen = append(seen, fmt.Sprintf("%s/%s %s %s by %q", e.Regarding.Kind, e.Regarding.Name, e.Reason, e.Action, e.ReportingController))
		}
		return false, "events: " + strings.Join(seen, "; ")
	})
}
