package apiserver

// This file is upstream's ServiceAccount admission plugin
// (plugin/pkg/admission/serviceaccount). Every pod runs as a ServiceAccount,
// and a process in it reaches the apiserver with that account's token. On a
// pod's creation the plugin
//
//  1. names the account: `serviceAccountName: default` when the pod names
//     none (defaulting then mirrors it into the deprecated
//     `serviceAccount`);
//  2. refuses the pod if the account does not exist;
//  3. unless the pod or the account sets automountServiceAccountToken to
//     false, adds a projected volume `kube-api-access-<5 chars>` that
//     holds the three files a client in the pod needs — a short-lived
//     `token`, the cluster CA as `ca.crt` (from the `kube-root-ca.crt`
//     ConfigMap the root-ca-cert-publisher controller keeps in every
//     namespace) and the pod's `namespace` — and mounts it read-only at
//     /var/run/secrets/kubernetes.io/serviceaccount in every container and
//     init container, which is where client libraries look for
//     "in-cluster" credentials.
//
// The kubelet fills the volume: it asks TokenRequest (tokenrequest.go) for
// a token bound to the pod and writes it with the CA and the namespace.

import (
	"context"
	"fmt"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

const (
	// DefaultServiceAccountName is the account a pod runs as when it names none.
	DefaultServiceAccountName = "default"

	// ServiceAccountVolumePrefix starts the name of the projected token
	// volume; admission appends five random characters.
	ServiceAccountVolumePrefix = "kube-api-access-"

	// ServiceAccountMountPath is where every container finds its token,
	// CA and namespace (upstream's DefaultAPITokenMountPath).
	ServiceAccountMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

	// serviceAccountTokenExpirationSeconds is the token's lifetime: upstream
	// asks for one hour and seven seconds, an odd number that lets the
	// apiserver recognise these tokens (it may then extend them to a year
	// for old clients that never reread the file).
	serviceAccountTokenExpirationSeconds int64 = 3607

	// mirrorPodAnnotation marks a kubelet's mirror of a static pod, which
	// upstream's plugin leaves alone (its spec comes from a file on the
	// node, not from the API).
	mirrorPodAnnotation = "kubernetes.io/config.mirror"
)

// admitServiceAccount applies the ServiceAccount plugin to a pod being
// created. On update it does nothing: upstream's plugin only mutates on
// create, and a pod's volumes cannot change afterwards.
//
// One difference from upstream: a pod whose account is `default` is
// admitted even when that account does not exist yet. kplane's apiserver is
// often run alone (in tests and in the first lessons) without the
// controller-manager whose serviceaccount controller creates `default`;
// upstream would refuse every pod until it does. An account the pod names
// explicitly must exist, as upstream.
func (s *Server) admitServiceAccount(ctx context.Context, pod *api.Pod) error {
	if _, mirror := pod.Annotations[mirrorPodAnnotation]; mirror {
		return nil
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = DefaultServiceAccountName
	}
	account, err := s.serviceAccount(ctx, pod.Namespace, pod.Spec.ServiceAccountName)
	switch {
	case apierrors.IsNotFound(err) && pod.Spec.ServiceAccountName == DefaultServiceAccountName:
		account = nil
	case apierrors.IsNotFound(err):
		// Upstream's words: its plugin names the account's resource in the singular.
		return apierrors.NewForbidden(apierrors.Resource{Resource: "pods"}, pod.Name,
			fmt.Errorf("error looking up service account %s/%s: serviceaccount %q not found",
				pod.Namespace, pod.Spec.ServiceAccountName, pod.Spec.ServiceAccountName))
	case err != nil:
		return err
	}
	if automountServiceAccountToken(pod, account) {
		mountServiceAccountToken(pod, ServiceAccountVolumePrefix+randomSuffix(5))
	}
	return nil
}

// serviceAccount reads an account from the watch cache, and from etcd when
// the cache does not have it (it may have been created a moment ago, as the
// serviceaccount controller does right after a namespace appears).
func (s *Server) serviceAccount(ctx context.Context, namespace, name string) (*api.ServiceAccount, error) {
	res := s.reg.byPluralAny["serviceaccounts"]
	if e, ok := s.caches[res].Get(res.key(namespace, name)); ok {
		return e.Object.(*storedObject).obj.(*api.ServiceAccount), nil
	}
	so, err := s.getStored(ctx, res, namespace, name)
	if err != nil {
		return nil, err
	}
	return so.obj.(*api.ServiceAccount), nil
}

// automountServiceAccountToken decides whether the pod gets the token
// volume: the pod's own automountServiceAccountToken wins, then the
// account's, and without either the answer is yes. account may be nil.
func automountServiceAccountToken(pod *api.Pod, account *api.ServiceAccount) bool {
	if pod.Spec.AutomountServiceAccountToken != nil {
		return *pod.Spec.AutomountServiceAccountToken
	}
	if account != nil && account.AutomountServiceAccountToken != nil {
		return *account.AutomountServiceAccountToken
	}
	return true
}

// mountServiceAccountToken mounts the token volume at
// ServiceAccountMountPath in every init container and container that has
// nothing mounted there yet, and adds the volume if any of them needed it.
// A pod that already has a kube-api-access-* volume (a copy of another
// pod's spec) keeps it, and its name is reused; newName is the name for a
// new one.
func mountServiceAccountToken(pod *api.Pod, newName string) {
	volumeName, hasVolume := newName, false
	for _, v := range pod.Spec.Volumes {
		if strings.HasPrefix(v.Name, ServiceAccountVolumePrefix) {
			volumeName, hasVolume = v.Name, true
			break
		}
	}
	mount := api.VolumeMount{Name: volumeName, ReadOnly: true, MountPath: ServiceAccountMountPath}
	needed := false
	for _, containers := range [][]api.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range containers {
			if !mountsAt(&containers[i], ServiceAccountMountPath) {
				containers[i].VolumeMounts = append(containers[i].VolumeMounts, mount)
				needed = true
			}
		}
	}
	if needed && !hasVolume {
		pod.Spec.Volumes = append(pod.Spec.Volumes, api.Volume{Name: volumeName,
			VolumeSource: api.VolumeSource{Projected: serviceAccountTokenVolume()}})
	}
}

// mountsAt reports whether a container already mounts something at path;
// upstream leaves such a container alone, so a user can bring their own
// credentials.
func mountsAt(c *api.Container, path string) bool {
	for _, m := range c.VolumeMounts {
		if m.MountPath == path {
			return true
		}
	}
	return false
}

// serviceAccountTokenVolume is the projected volume upstream's plugin adds:
// token, CA and namespace, files mode 0644 (defaultMode set explicitly, as
// upstream does, so that it shows in the stored spec).
func serviceAccountTokenVolume() *api.ProjectedVolumeSource {
	expiration := serviceAccountTokenExpirationSeconds
	mode := int32(0o644)
	return &api.ProjectedVolumeSource{
		DefaultMode: &mode,
		Sources: []api.VolumeProjection{
			{ServiceAccountToken: &api.ServiceAccountTokenProjection{ExpirationSeconds: &expiration, Path: "token"}},
			{ConfigMap: &api.ConfigMapProjection{
				LocalObjectReference: api.LocalObjectReference{Name: api.RootCAConfigMapName},
				Items:                []api.KeyToPath{{Key: api.RootCAConfigMapKey, Path: api.RootCAConfigMapKey}},
			}},
			{DownwardAPI: &api.DownwardAPIProjection{Items: []api.DownwardAPIVolumeFile{{
				Path:     "namespace",
				FieldRef: &api.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"},
			}}}},
		},
	}
}
