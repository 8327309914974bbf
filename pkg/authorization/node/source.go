package node

import "kplane/pkg/api"

// Source is where the authorizer reads relationships from: the pods bound
// to a node and the volumes they use. The apiserver implements it over its
// watch caches (pkg/apiserver/authz_node.go). Objects returned are shared;
// the authorizer never modifies them.
type Source interface {
	// PodsOnNode returns the pods whose spec.nodeName is nodeName.
	PodsOnNode(nodeName string) []*api.Pod
	// PersistentVolumeClaim returns the named claim, if it exists.
	PersistentVolumeClaim(namespace, name string) (*api.PersistentVolumeClaim, bool)
	// PersistentVolume returns the named volume, if it exists.
	PersistentVolume(name string) (*api.PersistentVolume, bool)
}
