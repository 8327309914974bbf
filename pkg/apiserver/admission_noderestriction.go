package apiserver

// NodeRestriction: the admission plugin that keeps each kubelet to its own
// objects (upstream's plugin/pkg/admission/noderestriction). The Node
// authorizer (authz_node.go) lets any kubelet create mirror pods, update
// pod status, update Nodes and write Leases, because it cannot see the
// object being written; this plugin sees it and refuses a kubelet's write
// to another node's objects:
//
//   - pods: create only mirror pods (annotation kubernetes.io/config.mirror)
//     bound to itself, with its Node as sole controlling owner, and no
//     ServiceAccount, secrets, configmaps, claims or ResourceClaims; delete
//     only pods bound to itself; update the status of those only, without
//     touching labels or ResourceClaim statuses; evict only those;
//   - nodes: create, update and patch only its own Node, never set or
//     change node-restriction.kubernetes.io/ labels or kubernetes.io and
//     k8s.io labels outside the kubelet's own set, never change its taints
//     after registering;
//   - persistentvolumeclaims/status: change only status.capacity and
//     status.conditions;
//   - leases: only its own, in kube-node-lease;
//   - serviceaccounts/token: only tokens bound to a pod running on itself
//     (nodeRestrictTokenRequest, called by the TokenRequest handler).
//
// Only users the Node authorizer recognises as nodes are restricted; every
// other user passes untouched. The messages are upstream's.

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/node"
)

// requestingNode returns the node name of the request's user when the
// user is a kubelet; ok is false for every other user. A member of
// system:nodes whose name does not say which node it is gets an error.
func requestingNode(ctx context.Context, res *resource, name string) (nodeName string, ok bool, err error) {
	user, found := auth.UserFrom(ctx)
	if !found {
		return "", false, nil
	}
	nodeName, isNode := node.NodeIdentity(user)
	if !isNode {
		return "", false, nil
	}
	if nodeName == "" {
		return "", false, apierrors.NewForbidden(res.qualified(), name, fmt.Errorf("could not determine node from user %q", user.Name))
	}
	return nodeName, true, nil
}

// nodeRestrictWrite checks a kubelet's create (old nil) or update of obj;
// statusOnly says the write is to the status subresource.
func (s *Server) nodeRestrictWrite(ctx context.Context, res *resource, obj, old api.Object, statusOnly bool) error {
	name := obj.GetObjectMeta().Name
	nodeName, isNode, err := requestingNode(ctx, res, name)
	if err != nil || !isNode {
		return err
	}
	forbidden := func(format string, args ...any) error {
		return apierrors.NewForbidden(res.qualified(), name, fmt.Errorf(format, args...))
	}
	switch o := obj.(type) {
	case *api.Pod:
		switch {
		case old == nil:
			return s.nodeRestrictMirrorPod(ctx, nodeName, o, forbidden)
		case statusOnly:
			oldPod := old.(*api.Pod)
			if oldPod.Spec.NodeName != nodeName {
				return forbidden("node %q can only update pod status for pods with spec.nodeName set to itself", nodeName)
			}
			if !reflect.DeepEqual(labelsOrEmpty(oldPod.Labels), labelsOrEmpty(o.Labels)) {
				return forbidden("node %q cannot update labels through pod status", nodeName)
			}
			if !reflect.DeepEqual(oldPod.Status.ResourceClaimStatuses, o.Status.ResourceClaimStatuses) {
				return forbidden("node %q cannot update resource claim statues", nodeName)
			}
			return nil
		default:
			return forbidden("unexpected operation %q, node %q can only create and delete mirror pods", "UPDATE", nodeName)
		}
	case *api.Node:
		return nodeRestrictNode(nodeName, o, oldNode(old), forbidden)
	case *api.PersistentVolumeClaim:
		if !statusOnly {
			return forbidden("may only update PVC status")
		}
		if old == nil {
			return forbidden("unexpected operation %q", "CREATE")
		}
		return nodeRestrictClaimStatus(nodeName, o, old.(*api.PersistentVolumeClaim), forbidden)
	case *api.Lease:
		if o.Namespace != api.NamespaceNodeLease {
			return forbidden("can only access leases in the %q system namespace", api.NamespaceNodeLease)
		}
		if o.Name != nodeName {
			return forbidden("can only access node lease with the same name as the requesting node")
		}
	}
	return nil
}

func oldNode(old api.Object) *api.Node {
	n, _ := old.(*api.Node)
	return n
}

func labelsOrEmpty(l map[string]string) map[string]string {
	if l == nil {
		return map[string]string{}
	}
	return l
}

// nodeRestrictMirrorPod lets a kubelet create only the mirror pod of one
// of its static pods.
func (s *Server) nodeRestrictMirrorPod(ctx context.Context, nodeName string, pod *api.Pod, forbidden func(string, ...any) error) error {
	if _, mirror := pod.Annotations[mirrorPodAnnotation]; !mirror {
		return forbidden("pod does not have %q annotation, node %q can only create mirror pods", mirrorPodAnnotation, nodeName)
	}
	if pod.Spec.NodeName != nodeName {
		return forbidden("node %q can only create pods with spec.nodeName set to itself", nodeName)
	}
	switch len(pod.OwnerReferences) {
	case 0:
		return forbidden("node %q can only create pods with an owner reference set to itself", nodeName)
	case 1:
	default:
		return forbidden("node %q can only create pods with a single owner reference set to itself", nodeName)
	}
	owner := pod.OwnerReferences[0]
	if owner.APIVersion != "v1" || owner.Kind != "Node" || owner.Name != nodeName {
		return forbidden("node %q can only create pods with an owner reference set to itself", nodeName)
	}
	if owner.Controller == nil || !*owner.Controller {
		return forbidden("node %q can only create pods with a controller owner reference set to itself", nodeName)
	}
	if owner.BlockOwnerDeletion != nil && *owner.BlockOwnerDeletion {
		return forbidden("node %q must not set blockOwnerDeletion on an owner reference", nodeName)
	}
	nodeRes := s.reg.lookup("", "v1", "nodes")
	so, err := s.getStored(ctx, nodeRes, "", nodeName)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return forbidden("error looking up node %s to verify uid: %v", nodeName, err)
	}
	if uid := so.obj.GetObjectMeta().UID; owner.UID != uid {
		// Upstream names the owner reference's UID "expected" and the node's "got".
		return forbidden("node %s UID mismatch: expected %s got %s", nodeName, owner.UID, uid)
	}

	// A mirror pod may not reach any other API object.
	if pod.Spec.ServiceAccountName != "" {
		return forbidden("node %q can not create pods that reference a service account", nodeName)
	}
	if len(node.PodSecretNames(pod)) > 0 {
		return forbidden("node %q can not create pods that reference secrets", nodeName)
	}
	if len(node.PodConfigMapNames(pod)) > 0 {
		return forbidden("node %q can not create pods that reference configmaps", nodeName)
	}
	for _, v := range pod.Spec.Volumes {
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				if src.ClusterTrustBundle != nil {
					return forbidden("node %q can not create pods that use clustertrustbundles", nodeName)
				}
			}
		}
		if v.PersistentVolumeClaim != nil {
			return forbidden("node %q can not create pods that reference persistentvolumeclaims", nodeName)
		}
	}
	if len(pod.Spec.ResourceClaims) > 0 {
		return forbidden("node %q can not create pods that reference resourceclaims", nodeName)
	}
	return nil
}

// nodeRestrictNode lets a kubelet write only its own Node, and not steer
// workloads to itself through labels or taints.
func nodeRestrictNode(nodeName string, n, old *api.Node, forbidden func(string, ...any) error) error {
	if n.Name != nodeName {
		return forbidden("node %q is not allowed to modify node %q", nodeName, n.Name)
	}
	if old == nil {
		if bad := forbiddenNodeLabels(modifiedLabels(n.Labels, nil)); len(bad) > 0 {
			return forbidden("node %q is not allowed to set the following labels: %s", nodeName, strings.Join(bad, ", "))
		}
		return nil
	}
	if !reflect.DeepEqual(taintsOrEmpty(n.Spec.Taints), taintsOrEmpty(old.Spec.Taints)) {
		return forbidden("node %q is not allowed to modify taints", nodeName)
	}
	if bad := forbiddenNodeLabels(modifiedLabels(n.Labels, old.Labels)); len(bad) > 0 {
		return forbidden("is not allowed to modify labels: %s", strings.Join(bad, ", "))
	}
	return nil
}

func taintsOrEmpty(t []api.Taint) []api.Taint {
	if t == nil {
		return []api.Taint{}
	}
	return t
}

// modifiedLabels lists the keys whose presence or value differs.
func modifiedLabels(a, b map[string]string) []string {
	var keys []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			keys = append(keys, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	return keys
}

// kubeletLabels are the kubernetes.io labels a kubelet may set on its
// Node (upstream's kubeletapis.IsKubeletLabel); kubeletLabelDomains are
// the label namespaces it may use freely.
var (
	kubeletLabels = map[string]bool{
		"kubernetes.io/hostname":                   true,
		"topology.kubernetes.io/zone":              true,
		"topology.kubernetes.io/region":            true,
		"failure-domain.beta.kubernetes.io/zone":   true,
		"failure-domain.beta.kubernetes.io/region": true,
		"beta.kubernetes.io/instance-type":         true,
		"node.kubernetes.io/instance-type":         true,
		"kubernetes.io/os":                         true,
		"kubernetes.io/arch":                       true,
		"beta.kubernetes.io/os":                    true,
		"beta.kubernetes.io/arch":                  true,
	}
	kubeletLabelDomains = []string{"kubelet.kubernetes.io", "node.kubernetes.io"}
)

// forbiddenNodeLabels picks, sorted, the labels among keys a kubelet may
// not set: node-restriction.kubernetes.io/ ones, and kubernetes.io or
// k8s.io ones outside the kubelet's own.
func forbiddenNodeLabels(keys []string) []string {
	var bad []string
	for _, key := range keys {
		domain := labelDomain(key)
		switch {
		case inDomain(domain, "node-restriction.kubernetes.io"):
			bad = append(bad, key)
		case (inDomain(domain, "kubernetes.io") || inDomain(domain, "k8s.io")) && !isKubeletLabel(key):
			bad = append(bad, key)
		}
	}
	sort.Strings(bad)
	return bad
}

func isKubeletLabel(key string) bool {
	if kubeletLabels[key] {
		return true
	}
	for _, d := range kubeletLabelDomains {
		if inDomain(labelDomain(key), d) {
			return true
		}
	}
	return false
}

// labelDomain is the prefix of a label key before "/", "" when none.
func labelDomain(key string) string {
	if domain, _, ok := strings.Cut(key, "/"); ok {
		return domain
	}
	return ""
}

// inDomain reports whether domain is d or a subdomain of it.
func inDomain(domain, d string) bool {
	return domain == d || strings.HasSuffix(domain, "."+d)
}

// nodeRestrictClaimStatus lets a kubelet change only a claim's
// status.capacity and status.conditions (resizing a volume).
func nodeRestrictClaimStatus(nodeName string, claim, old *api.PersistentVolumeClaim, forbidden func(string, ...any) error) error {
	a, b := api.DeepCopy(old), api.DeepCopy(claim)
	for _, c := range []*api.PersistentVolumeClaim{a, b} {
		c.ResourceVersion = ""
		c.ManagedFields = nil
		c.Status.Capacity = nil
		c.Status.Conditions = nil
	}
	if !reflect.DeepEqual(a, b) {
		return forbidden("node %q is not allowed to update fields other than status.capacity and status.conditions", nodeName)
	}
	return nil
}

// nodeRestrictDelete lets a kubelet delete only pods bound to itself.
func nodeRestrictDelete(ctx context.Context, res *resource, obj api.Object) error {
	nodeName, isNode, err := requestingNode(ctx, res, obj.GetObjectMeta().Name)
	if err != nil || !isNode {
		return err
	}
	pod, isPod := obj.(*api.Pod)
	if isPod && pod.Spec.NodeName != nodeName {
		return apierrors.NewForbidden(res.qualified(), pod.Name, fmt.Errorf("node %q can only delete pods with spec.nodeName set to itself", nodeName))
	}
	return nil
}

// nodeRestrictEviction lets a kubelet evict only pods bound to itself.
func nodeRestrictEviction(ctx context.Context, podRes *resource, pod *api.Pod) error {
	nodeName, isNode, err := requestingNode(ctx, podRes, pod.Name)
	if err != nil || !isNode {
		return err
	}
	if pod.Spec.NodeName != nodeName {
		return apierrors.NewForbidden(podRes.qualified(), pod.Name, fmt.Errorf("node %s can only evict pods with spec.nodeName set to itself", nodeName))
	}
	return nil
}

// nodeRestrictTokenRequest lets a kubelet request a ServiceAccount token
// only when it is bound to a pod running on that kubelet's node, with the
// pod's current UID. The TokenRequest handler (serviceaccounts/<name>/token,
// tokenrequest.go) calls it before issuing.
func (s *Server) nodeRestrictTokenRequest(ctx context.Context, namespace, saName string, tr *api.TokenRequest) error {
	saRes := s.reg.lookup("", "v1", "serviceaccounts")
	nodeName, isNode, err := requestingNode(ctx, saRes, saName)
	if err != nil || !isNode {
		return err
	}
	forbidden := func(format string, args ...any) error {
		return apierrors.NewForbidden(saRes.qualified(), saName, fmt.Errorf(format, args...))
	}
	ref := tr.Spec.BoundObjectRef
	if ref == nil || ref.APIVersion != "v1" || ref.Kind != "Pod" || ref.Name == "" {
		return forbidden("node requested token not bound to a pod")
	}
	if ref.UID == "" {
		return forbidden("node requested token with a pod binding without a uid")
	}
	so, err := s.getStored(ctx, s.reg.lookup("", "v1", "pods"), namespace, ref.Name)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return forbidden("%v", err)
	}
	pod := so.obj.(*api.Pod)
	if ref.UID != pod.UID {
		return forbidden("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID)
	}
	if pod.Spec.NodeName != nodeName {
		return forbidden("node requested token bound to a pod scheduled on a different node")
	}
	return nil
}
