package ecosystem

import (
	"context"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// The "app" the judge's controller reconciles is described by a ConfigMap of
// built-in kinds only, so that it runs on kplane before CRDs are served: the
// label marks the ConfigMap as an app, its data names the image and the
// replica count, and the controller reports back through an annotation.
const (
	// appLabel marks a ConfigMap as an app description ("true").
	appLabel = "apps.ecosystem.kplane.dev/app"
	// appNameLabel is put on the app's pods, naming the ConfigMap they
	// belong to, so that a pod event maps back to its app.
	appNameLabel = "apps.ecosystem.kplane.dev/name"
	// readyReplicasAnnotation is the app's "status": the ready replicas of
	// its Deployment, as the controller last saw them.
	readyReplicasAnnotation = "apps.ecosystem.kplane.dev/ready-replicas"
	// admittedCondition is the readiness gate of the app's pods. The
	// kubelet keeps a pod not Ready until the controller sets this
	// condition True through pods/status — the pattern load-balancer
	// controllers use to hold a rollout until a pod is registered.
	admittedCondition corev1.PodConditionType = "apps.ecosystem.kplane.dev/admitted"
)

// appSpec is what an app ConfigMap asks for.
type appSpec struct {
	image    string
	replicas int32
}

// parseAppSpec reads an app ConfigMap's data: "image" is required and
// "replicas" defaults to 1.
func parseAppSpec(app *corev1.ConfigMap) (appSpec, error) {
	spec := appSpec{image: app.Data["image"], replicas: 1}
	if spec.image == "" {
		return spec, fmt.Errorf("app %s/%s: data.image is empty", app.Namespace, app.Name)
	}
	if s, ok := app.Data["replicas"]; ok {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil || n < 0 {
			return spec, fmt.Errorf("app %s/%s: data.replicas %q is not a non-negative integer", app.Namespace, app.Name, s)
		}
		spec.replicas = int32(n)
	}
	return spec, nil
}

// appReconciler is a kubebuilder-style reconciler: it makes an app
// ConfigMap's Deployment (which it owns, with a controller ownerReference),
// admits the Deployment's pods through their readiness gate with a
// pods/status patch, and writes the Deployment's ready replicas back onto the
// ConfigMap. Nothing in it knows it runs against kplane.
type appReconciler struct {
	client.Client
	recorder recorder.EventRecorder
}

// Reconcile makes one pass from an app ConfigMap's description to its
// Deployment, its pods' admission and its reported readiness. It is
// idempotent: a second pass with nothing changed writes nothing.
func (r *appReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var app corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		// Deleted: the garbage collector removes the Deployment it owns.
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !app.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	spec, err := parseAppSpec(&app)
	if err != nil {
		// Retrying cannot fix the data; the next edit of the ConfigMap will.
		return ctrl.Result{}, reconcile.TerminalError(err)
	}

	deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, deployment, func() error {
		desiredDeployment(deployment, app.Name, spec)
		return controllerutil.SetControllerReference(&app, deployment, r.Scheme())
	})
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("create or update deployment %s/%s: %w", app.Namespace, app.Name, err)
	}
	if op == controllerutil.OperationResultCreated {
		r.recorder.Eventf(&app, deployment, corev1.EventTypeNormal, "DeploymentCreated", "Create", "created Deployment %s", deployment.Name)
	}

	if err := r.admitPods(ctx, &app); err != nil {
		return ctrl.Result{}, err
	}

	ready := strconv.Itoa(int(deployment.Status.ReadyReplicas))
	if app.Annotations[readyReplicasAnnotation] != ready {
		patch := client.MergeFrom(app.DeepCopy())
		if app.Annotations == nil {
			app.Annotations = map[string]string{}
		}
		app.Annotations[readyReplicasAnnotation] = ready
		if err := r.Patch(ctx, &app, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("report ready replicas on app %s/%s: %w", app.Namespace, app.Name, err)
		}
	}
	return ctrl.Result{}, nil
}

// desiredDeployment sets the fields of deployment the app controls, leaving
// every field the apiserver defaulted alone so that an unchanged app makes no
// update. The selector is immutable, so it is only set on creation.
func desiredDeployment(deployment *appsv1.Deployment, name string, spec appSpec) {
	labels := map[string]string{appNameLabel: name}
	if deployment.CreationTimestamp.IsZero() {
		deployment.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
	}
	deployment.Spec.Replicas = &spec.replicas
	deployment.Spec.Template.Labels = labels
	deployment.Spec.Template.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: admittedCondition}}
	if len(deployment.Spec.Template.Spec.Containers) == 0 {
		deployment.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app"}}
	}
	deployment.Spec.Template.Spec.Containers[0].Image = spec.image
}

// admitPods sets the admitted condition True on every live pod of the app
// that lacks it, with a strategic-merge patch of pods/status: conditions
// merge by type, so the kubelet's own conditions are left as they are.
func (r *appReconciler) admitPods(ctx context.Context, app *corev1.ConfigMap) error {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(app.Namespace), client.MatchingLabels{appNameLabel: app.Name}); err != nil {
		return fmt.Errorf("list pods of app %s/%s: %w", app.Namespace, app.Name, err)
	}
	for i := range pods.Items {
		pod := &pods.Items[i]
		if !pod.DeletionTimestamp.IsZero() || podCondition(pod, admittedCondition) == corev1.ConditionTrue {
			continue
		}
		patch := client.StrategicMergeFrom(pod.DeepCopy())
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{
			Type: admittedCondition, Status: corev1.ConditionTrue,
			Reason: "Admitted", LastTransitionTime: metav1.Now(),
		})
		if err := r.Status().Patch(ctx, pod, patch); err != nil {
			return fmt.Errorf("admit pod %s/%s: %w", pod.Namespace, pod.Name, client.IgnoreNotFound(err))
		}
	}
	return nil
}

// podCondition returns the status of pod's condition of type kind, or "" if
// the pod has none.
func podCondition(pod *corev1.Pod, kind corev1.PodConditionType) corev1.ConditionStatus {
	for _, c := range pod.Status.Conditions {
		if c.Type == kind {
			return c.Status
		}
	}
	return ""
}

// setupWithManager registers the reconciler the way kubebuilder's scaffold
// does: For the app ConfigMaps, Owns their Deployments (a Deployment's status
// change reconciles its owner), and Watches the pods, mapped to their app by
// label.
func (r *appReconciler) setupWithManager(mgr ctrl.Manager) error {
	isApp := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[appLabel] == "true" })
	podToApp := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		name, ok := o.GetLabels()[appNameLabel]
		if !ok {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("app").
		For(&corev1.ConfigMap{}, builder.WithPredicates(isApp)).
		Owns(&appsv1.Deployment{}).
		Watches(&corev1.Pod{}, podToApp).
		Complete(r)
}
