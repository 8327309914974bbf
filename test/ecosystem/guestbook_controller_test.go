package ecosystem

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// guestbookLabel names, on a Guestbook's pods, the Guestbook they belong to.
const guestbookLabel = "webapp.ecosystem.kplane.dev/guestbook"

// guestbookReconciler is kubebuilder's tutorial controller in small: a
// Guestbook becomes a Deployment it owns, and the Deployment's readiness
// comes back as the Guestbook's status, written through the status
// subresource.
type guestbookReconciler struct {
	client.Client
}

// Reconcile makes one pass from a Guestbook to its Deployment and back to
// its status; with nothing changed it writes nothing.
func (r *guestbookReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var guestbook Guestbook
	if err := r.Get(ctx, req.NamespacedName, &guestbook); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !guestbook.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	replicas := int32(1)
	if guestbook.Spec.Replicas != nil {
		replicas = *guestbook.Spec.Replicas
	}

	deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: guestbook.Name, Namespace: guestbook.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, deployment, func() error {
		labels := map[string]string{guestbookLabel: guestbook.Name}
		if deployment.CreationTimestamp.IsZero() {
			deployment.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		}
		deployment.Spec.Replicas = &replicas
		deployment.Spec.Template.Labels = labels
		if len(deployment.Spec.Template.Spec.Containers) == 0 {
			deployment.Spec.Template.Spec.Containers = []corev1.Container{{Name: "frontend"}}
		}
		deployment.Spec.Template.Spec.Containers[0].Image = guestbook.Spec.Image
		return controllerutil.SetControllerReference(&guestbook, deployment, r.Scheme())
	})
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("create or update deployment %s/%s: %w", guestbook.Namespace, guestbook.Name, err)
	}

	before := copyGuestbookStatus(guestbook.Status)
	guestbook.Status.ReadyReplicas = deployment.Status.ReadyReplicas
	guestbook.Status.ObservedGeneration = guestbook.Generation
	available := metav1.Condition{Type: "Available", Status: metav1.ConditionFalse, Reason: "Scaling",
		Message: fmt.Sprintf("%d of %d replicas ready", deployment.Status.ReadyReplicas, replicas), ObservedGeneration: guestbook.Generation}
	if deployment.Status.ReadyReplicas == replicas {
		available.Status, available.Reason = metav1.ConditionTrue, "AllReplicasReady"
	}
	meta.SetStatusCondition(&guestbook.Status.Conditions, available)
	if guestbookStatusEqual(before, guestbook.Status) {
		return ctrl.Result{}, nil
	}
	if err := r.Status().Update(ctx, &guestbook); err != nil {
		return ctrl.Result{}, fmt.Errorf("update status of guestbook %s/%s: %w", guestbook.Namespace, guestbook.Name, err)
	}
	return ctrl.Result{}, nil
}

// copyGuestbookStatus returns a copy of s that shares no slice with it.
func copyGuestbookStatus(s GuestbookStatus) GuestbookStatus {
	out := s
	out.Conditions = append([]metav1.Condition(nil), s.Conditions...)
	return out
}

// guestbookStatusEqual reports whether two statuses say the same thing
// (a condition's lastTransitionTime only changes with its status, so it
// takes part too).
func guestbookStatusEqual(a, b GuestbookStatus) bool {
	if a.ReadyReplicas != b.ReadyReplicas || a.ObservedGeneration != b.ObservedGeneration || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.Conditions {
		x, y := a.Conditions[i], b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message ||
			x.ObservedGeneration != y.ObservedGeneration || !x.LastTransitionTime.Equal(&y.LastTransitionTime) {
			return false
		}
	}
	return true
}

// setupGuestbookController registers the reconciler as kubebuilder's
// scaffold does: For the Guestbooks, Owns their Deployments.
func setupGuestbookController(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("guestbook").
		For(&Guestbook{}).
		Owns(&appsv1.Deployment{}).
		Complete(&guestbookReconciler{Client: mgr.GetClient()})
}
