package apiserver

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/authorization/authorizer"
	"kplane/pkg/authorization/bootstrappolicy"
	"kplane/pkg/authorization/node"
	"kplane/pkg/store/cache"
)

// nodeAuthorizer is the Node authorizer (pkg/authorization/node): what
// each kubelet may read and write, decided from the pods bound to its
// node as this server's watch caches hold them.
func (s *Server) nodeAuthorizer() (authorizer.Authorizer, error) {
	src := &cacheNodeSource{}
	for _, want := range []struct {
		plural string
		into   **cache.Cache
	}{{"pods", &src.pods}, {"persistentvolumeclaims", &src.claims}, {"persistentvolumes", &src.volumes}} {
		res := s.reg.lookup("", "v1", want.plural)
		if res == nil || s.caches[res] == nil {
			return nil, fmt.Errorf("--authorization-mode: Node needs the watch cache of %s", want.plural)
		}
		*want.into = s.caches[res]
	}
	src.claimKey = s.reg.lookup("", "v1", "persistentvolumeclaims").key
	src.volumeKey = s.reg.lookup("", "v1", "persistentvolumes").key
	return node.New(src, bootstrappolicy.NodeRules()), nil
}

// cacheNodeSource answers the Node authorizer's questions from the watch
// caches. Like upstream's graph, it sees a change once the cache has it.
type cacheNodeSource struct {
	pods, claims, volumes *cache.Cache
	claimKey, volumeKey   func(namespace, name string) string
}

// PodsOnNode looks the node's pods up in the pod cache's index.
func (c *cacheNodeSource) PodsOnNode(nodeName string) []*api.Pod {
	entries := c.pods.ByIndex(nodeName)
	pods := make([]*api.Pod, 0, len(entries))
	for _, e := range entries {
		if pod, ok := storedAs[*api.Pod](e.Object); ok {
			pods = append(pods, pod)
		}
	}
	return pods
}

// PersistentVolumeClaim returns the cached claim.
func (c *cacheNodeSource) PersistentVolumeClaim(namespace, name string) (*api.PersistentVolumeClaim, bool) {
	e, ok := c.claims.Get(c.claimKey(namespace, name))
	if !ok {
		return nil, false
	}
	return storedAs[*api.PersistentVolumeClaim](e.Object)
}

// PersistentVolume returns the cached volume.
func (c *cacheNodeSource) PersistentVolume(name string) (*api.PersistentVolume, bool) {
	e, ok := c.volumes.Get(c.volumeKey("", name))
	if !ok {
		return nil, false
	}
	return storedAs[*api.PersistentVolume](e.Object)
}

// storedAs unwraps a watch cache entry's object as a T.
func storedAs[T api.Object](o any) (T, bool) {
	var zero T
	so, ok := o.(*storedObject)
	if !ok {
		return zero, false
	}
	t, ok := so.obj.(T)
	return t, ok
}

// cacheIndexFor is the index of res's watch cache: pods are filed under
// their spec.nodeName, for the Node authorizer's PodsOnNode; other
// resources have none.
func cacheIndexFor(res *resource) func(obj any) string {
	if res.group != "" || res.plural != "pods" {
		return nil
	}
	return func(obj any) string {
		if pod, ok := storedAs[*api.Pod](obj); ok {
			return pod.Spec.NodeName
		}
		return ""
	}
}
