package scheduler

import (
	"fmt"
	"sort"
	"sync"

	"kplane/pkg/api"
	"kplane/pkg/scheduler/framework"
)

// Cache is the scheduler's picture of the cluster: one NodeInfo per node,
// holding the Node and the totals of the pods on it. It is fed by the node
// informer and by the informer's assigned pods (any scheduler's), and by
// the scheduler itself through assumed pods.
//
// Assuming is what lets the scheduler run ahead of the apiserver. When a
// pod is placed, the scheduler counts it on its node at once (AssumePod)
// and binds in the background. The next pod, scheduled a moment later,
// already sees the node as fuller, so consecutive pods spread instead of
// all picking the node that was emptiest before any binding landed. When
// the informer later reports the pod bound, the assumption is confirmed
// (AddPod); if the binding fails, it is taken back (ForgetPod).
//
// A pod's state in the cache is one of:
//
//	assumed, binding in flight   AssumePod → (bind) → FinishBinding
//	assumed, binding finished    waiting for the informer to report it
//	confirmed                    AddPod of a pod with spec.nodeName
//
// and every counted pod is in exactly one NodeInfo. Upstream's cache also
// expires assumed pods the informer never confirms; kplane relies on the
// informer's delete to clean them up instead.
type Cache struct {
	mu sync.RWMutex
	// nodes maps a node name to its NodeInfo. A NodeInfo with a nil Node
	// holds pods of a node not (or no longer) known.
	nodes map[string]*framework.NodeInfo
	// nodeList is the NodeInfos with a Node, sorted by name; rebuilt
	// lazily after a node is added or removed (nil means stale).
	nodeList []*framework.NodeInfo
	// pods maps a pod's UID to where it is counted. UIDs, not names: a
	// pod deleted and recreated under the same name is another pod.
	pods map[string]*cachedPod
}

// cachedPod is one counted pod.
type cachedPod struct {
	info     *framework.PodInfo
	nodeName string
	// assumed is true until the informer confirms the binding.
	assumed bool
	// bindingFinished is true once the binding request succeeded.
	bindingFinished bool
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{nodes: map[string]*framework.NodeInfo{}, pods: map[string]*cachedPod{}}
}

// AddNode records a new or changed node.
func (c *Cache) AddNode(node *api.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.nodes[node.Name]
	if !ok {
		n = framework.NewNodeInfo(nil)
		c.nodes[node.Name] = n
	}
	if n.Node == nil {
		c.nodeList = nil
	}
	n.SetNode(node)
}

// UpdateNode records a changed node.
func (c *Cache) UpdateNode(node *api.Node) { c.AddNode(node) }

// RemoveNode forgets a node. Pods still counted on it keep their
// NodeInfo, without a Node, until they are removed too.
func (c *Cache) RemoveNode(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.nodes[name]
	if !ok {
		return
	}
	c.nodeList = nil
	if len(n.Pods) == 0 {
		delete(c.nodes, name)
		return
	}
	n.SetNode(nil)
}

// AddPod counts a pod the informer reports as bound (spec.nodeName set).
// If the scheduler had assumed it, the assumption is confirmed — moved, if
// the pod ended up on another node than assumed.
func (c *Cache) AddPod(pod *api.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.countLocked(framework.NewPodInfo(pod), pod.Spec.NodeName, false)
}

// UpdatePod recounts a bound pod whose spec may have changed.
func (c *Cache) UpdatePod(pod *api.Pod) { c.AddPod(pod) }

// RemovePod stops counting a pod: it was deleted or finished.
func (c *Cache) RemovePod(pod *api.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.uncountLocked(framework.PodUID(pod))
}

// AssumePod counts pod (whose spec.nodeName is the chosen node) before it
// is bound. It fails if the pod is already counted.
func (c *Cache) AssumePod(info *framework.PodInfo) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pods[info.UID]; ok {
		return fmt.Errorf("assume pod %s: it is already in the cache", info.Key)
	}
	c.countLocked(info, info.Pod.Spec.NodeName, true)
	return nil
}

// FinishBinding records that the assumed pod with uid was bound.
func (c *Cache) FinishBinding(uid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.pods[uid]; ok && p.assumed {
		p.bindingFinished = true
	}
}

// ForgetPod takes back the assumption of the pod with uid, whose binding
// failed. A pod the informer has confirmed meanwhile is left alone.
func (c *Cache) ForgetPod(uid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.pods[uid]; ok && p.assumed {
		c.uncountLocked(uid)
	}
}

// IsAssumed reports whether pod is assumed and not yet confirmed.
func (c *Cache) IsAssumed(pod *api.Pod) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	p, ok := c.pods[framework.PodUID(pod)]
	return ok && p.assumed
}

// NodeCount returns how many nodes the cache knows.
func (c *Cache) NodeCount() (count int) {
	c.WithNodes(func(nodes []*framework.NodeInfo) { count = len(nodes) })
	return count
}

// WithNodes calls fn with the known nodes, sorted by name, while holding
// the cache's read lock: the NodeInfos do not change during fn, and fn
// must neither keep them nor call back into the cache. This is kplane's
// stand-in for upstream's per-cycle snapshot, which copies changed
// NodeInfos instead of locking.
func (c *Cache) WithNodes(fn func(nodes []*framework.NodeInfo)) {
	c.mu.RLock()
	if c.nodeList != nil {
		defer c.mu.RUnlock()
		fn(c.nodeList)
		return
	}
	c.mu.RUnlock()
	// Rebuilding the list writes, so take the write lock for it.
	c.mu.Lock()
	defer c.mu.Unlock()
	fn(c.listLocked())
}

// NodeSummary is a copy of what the cache counts on one node, for tests
// and lessons.
type NodeSummary struct {
	Pods             []string
	Requested        framework.Resource
	NonZeroRequested framework.Resource
}

// Summary returns a copy of the counts on the named node (false if the
// cache has no such NodeInfo).
func (c *Cache) Summary(name string) (NodeSummary, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n, ok := c.nodes[name]
	if !ok {
		return NodeSummary{}, false
	}
	s := NodeSummary{Requested: n.Requested.Clone(), NonZeroRequested: n.NonZeroRequested.Clone()}
	for _, p := range n.Pods {
		s.Pods = append(s.Pods, p.Key)
	}
	sort.Strings(s.Pods)
	return s, true
}

// countLocked (re)counts a pod on nodeName; caller holds the write lock.
func (c *Cache) countLocked(info *framework.PodInfo, nodeName string, assumed bool) {
	if old, ok := c.pods[info.UID]; ok && old.nodeName != nodeName {
		c.uncountLocked(info.UID)
	}
	n, ok := c.nodes[nodeName]
	if !ok {
		n = framework.NewNodeInfo(nil)
		c.nodes[nodeName] = n
	}
	n.AddPod(info)
	c.pods[info.UID] = &cachedPod{info: info, nodeName: nodeName, assumed: assumed}
}

// uncountLocked removes a pod from its node; caller holds the write lock.
func (c *Cache) uncountLocked(uid string) {
	p, ok := c.pods[uid]
	if !ok {
		return
	}
	delete(c.pods, uid)
	n, ok := c.nodes[p.nodeName]
	if !ok {
		return
	}
	n.RemovePod(uid)
	if n.Node == nil && len(n.Pods) == 0 {
		delete(c.nodes, p.nodeName)
	}
}

// listLocked returns nodeList, rebuilding it if stale; caller holds the
// write lock when it may be stale.
func (c *Cache) listLocked() []*framework.NodeInfo {
	if c.nodeList != nil {
		return c.nodeList
	}
	list := make([]*framework.NodeInfo, 0, len(c.nodes))
	for _, n := range c.nodes {
		if n.Node != nil {
			list = append(list, n)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Node.Name < list[j].Node.Name })
	c.nodeList = list
	return list
}
