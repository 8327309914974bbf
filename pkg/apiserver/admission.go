package apiserver

import (
	"context"
	"errors"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/resourcehelper"
	"kplane/pkg/store"
)

// Admission runs on every create and update after the server has set its
// own metadata and before validation: the chain upstream calls mutating
// admission plus defaulting. In order:
//
//  1. NamespaceLifecycle — no new objects in a namespace that is missing or
//     being deleted.
//  2. Defaulting — the Kubernetes defaults (replicas 1, restartPolicy Always…).
//  3. Per-kind mutations — a Service gets its ClusterIP and node ports, a Pod
//     its ServiceAccount and token volume (admission_serviceaccount.go) and
//     its default not-ready/unreachable tolerations
//     (admission_tolerations.go), a Job its selector, a Namespace its name
//     label, an Ingress without a class the default IngressClass
//     (admission_ingressclass.go), a PersistentVolumeClaim without a class the
//     default StorageClass (admission_storageclass.go), a DaemonSet its template
//     generation (admission_daemonset.go), a PriorityClass its generation.
//  4. Priority — a new Pod gets spec.priority and spec.preemptionPolicy from
//     its PriorityClass or the global default one (admission_priority.go).
//  5. LimitRange defaults — a new Pod's containers get the default requests
//     and limits of the namespace's LimitRanges (admission_limitrange.go),
//     before its QoS class is computed from them.
//
// admit returns a release function that gives back anything it allocated,
// for the caller to call if the write does not happen, and for a create in
// a namespace the revision of the namespace it checked, which the create's
// etcd write is guarded by (see admitNamespaceLifecycle).
func (s *Server) admit(ctx context.Context, res *resource, obj, old api.Object, dryRun bool) (release func(), namespaceRevision int64, err error) {
	release = func() {}
	// RBAC's escalation check first, as upstream's RBAC storage runs it
	// before anything else (admission_rbac.go).
	if err := s.admitRBAC(ctx, res, obj, old); err != nil {
		return release, namespaceRevision, err
	}
	if old == nil && res.namespaced {
		if namespaceRevision, err = s.admitNamespaceLifecycle(ctx, res, obj, false); err != nil {
			return release, 0, err
		}
	}
	// Mutations that defaulting builds on (a Job's labels come from its
	// generated selector, a pod's serviceAccount from serviceAccountName).
	switch o := obj.(type) {
	case *api.Namespace:
		if old == nil {
			o.Spec.Finalizers = []string{api.FinalizerKubernetes}
			o.Status.Phase = api.NamespaceActive
		}
	case *api.Pod:
		if old == nil {
			if err := s.admitServiceAccount(ctx, o); err != nil {
				return release, namespaceRevision, err
			}
			s.inheritSimLoad(o) // kplane-only: admission_simload.go
		}
		oldPod, _ := old.(*api.Pod)
		if oldPod != nil && o.Spec.ServiceAccountName == "" {
			// A replace that leaves the account out keeps the stored one
			// (a mirror pod's stays empty, as upstream leaves it).
			o.Spec.ServiceAccountName = oldPod.Spec.ServiceAccountName
		}
		addDefaultTolerations(o, oldPod)
		if old == nil {
			o.Status = api.PodStatus{Phase: api.PodPending}
		}
	case *api.Job:
		if old == nil {
			generateJobSelector(o)
		}
	case *api.Ingress:
		if old == nil {
			if err := s.admitDefaultIngressClass(ctx, o); err != nil {
				return release, namespaceRevision, err
			}
		}
	case *api.CertificateSigningRequest:
		if err := s.admitCSR(ctx, o, old); err != nil {
			return release, namespaceRevision, err
		}
	case *api.PriorityClass:
		if old == nil {
			// Upstream's strategy starts a class at generation 1 and,
			// its value being fixed, never counts further.
			o.Generation = 1
		}
	case *api.CustomResourceDefinition:
		admitCustomResourceDefinition(o)
	case *api.CustomObject:
		if err := admitCustomResource(res, o, old); err != nil {
			return release, namespaceRevision, err
		}
	}

	api.SetDefaults(obj)

	switch o := obj.(type) {
	case *api.Pod:
		if old == nil {
			if err := s.admitPodPriority(ctx, res, o); err != nil {
				return release, namespaceRevision, err
			}
			// LimitRange defaults before the QoS class, which they can change.
			if err := s.admitLimitRangeDefaults(ctx, res, o); err != nil {
				return release, namespaceRevision, err
			}
			o.Status.QOSClass = resourcehelper.QOSClass(&o.Spec)
		} else {
			keepPodPriority(o, old.(*api.Pod))
		}
	case *api.DaemonSet:
		oldDS, _ := old.(*api.DaemonSet)
		setDaemonSetTemplateGeneration(o, oldDS)
	case *api.Service:
		var oldSvc *api.Service
		if old != nil {
			oldSvc = old.(*api.Service)
		}
		r, err := s.alloc.admitService(ctx, o, oldSvc, dryRun)
		if err != nil {
			return release, namespaceRevision, err
		}
		release = r
	case *api.PersistentVolumeClaim:
		if old == nil {
			s.admitDefaultStorageClass(ctx, o)
		}
	}
	return release, namespaceRevision, nil
}

// admitNamespaceLifecycle refuses creates in a namespace that does not exist
// or is terminating, and returns the revision of the namespace it checked.
//
// It reads the namespace from the watch cache, which may lag: another
// apiserver (or this one, a moment ago) may have marked it for deletion
// already. Rather than ask etcd on every create, the create's own etcd
// transaction carries the check: it writes only if the namespace's key is
// still at the revision read here (store.CreateGuarded). When the key has
// moved, the create path calls this again with fresh set, which reads the
// namespace from etcd, and refuses or retries. So the common create costs
// no extra round trip, and no create ever lands in a namespace marked for
// deletion before it — on any apiserver of the cluster, since the state
// that decides is the namespace object in etcd they all share. Upstream's
// NamespaceLifecycle plugin instead asks etcd for namespaces it marked
// recently and accepts a short window on the others.
//
// A namespace the cache does not know (created a moment ago?) is read
// from etcd as well.
func (s *Server) admitNamespaceLifecycle(ctx context.Context, res *resource, obj api.Object, fresh bool) (int64, error) {
	namespace := obj.GetObjectMeta().Namespace
	nsRes := s.reg.byPluralAny["namespaces"]
	var ns *api.Namespace
	var revision int64
	if e, ok := s.caches[nsRes].Get(nsRes.key("", namespace)); ok && !fresh {
		ns, revision = e.Object.(*storedObject).obj.(*api.Namespace), e.Revision
	} else {
		kv, err := s.store.Get(ctx, nsRes.key("", namespace))
		if errors.Is(err, store.ErrNotFound) {
			return 0, apierrors.NewNotFound(nsRes.qualified(), namespace)
		}
		if err != nil {
			return 0, storeError(err, nsRes, namespace)
		}
		so, err := s.decodeStored(nsRes, kv)
		if err != nil {
			return 0, err
		}
		ns, revision = so.obj.(*api.Namespace), kv.ModRevision
	}
	if ns.Status.Phase == api.NamespaceTerminating || ns.DeletionTimestamp != nil {
		return 0, apierrors.NewNamespaceTerminating(res.qualified(), obj.GetObjectMeta().Name, namespace)
	}
	return revision, nil
}

// generateJobSelector gives a Job the selector and pod labels upstream
// generates from its UID, unless the user asked for a manual selector.
func generateJobSelector(job *api.Job) {
	if job.Spec.ManualSelector != nil && *job.Spec.ManualSelector {
		return
	}
	generated := map[string]string{
		"batch.kubernetes.io/controller-uid": job.UID,
		"batch.kubernetes.io/job-name":       job.Name,
		"controller-uid":                     job.UID,
		"job-name":                           job.Name,
	}
	if job.Spec.Template.Labels == nil {
		job.Spec.Template.Labels = map[string]string{}
	}
	for k, v := range generated {
		job.Spec.Template.Labels[k] = v
	}
	job.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": job.UID}}
}
