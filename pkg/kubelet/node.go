package kubelet

// This file registers the kubelet's Node and keeps its status current, as
// upstream's kubelet_node_status.go and nodestatus/setters.go do. The Node
// says what the scheduler may place here (capacity, allocatable, taints,
// labels) and how the node is (conditions); the Lease (lease.go) is the
// cheap heartbeat, so the Node itself is only rewritten when its status
// changes or every NodeStatusReportFrequency.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	goruntime "runtime"
	"strings"
	"time"

	"github.com/google/uuid"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/cloudprovider"
)

// KubeletVersion is the version every kplane node reports.
const KubeletVersion = "v1.32.0-kplane"

// Node labels and annotations the kubelet sets, besides pkg/api's.
const (
	labelBetaOS   = "beta.kubernetes.io/os"
	labelBetaArch = "beta.kubernetes.io/arch"
	// annotationControllerManagedAttach tells the attach/detach controller
	// it manages this node's volumes (upstream's default).
	annotationControllerManagedAttach = "volumes.kubernetes.io/controller-managed-attach-detach"
)

// nodeConditionSpecs are the conditions the kubelet reports, in upstream's
// order, with the reason and message of the healthy state. A simulated node
// is never under pressure.
var nodeConditionSpecs = []struct {
	kind    api.NodeConditionType
	status  api.ConditionStatus
	reason  string
	message string
}{
	{api.NodeMemoryPressure, api.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
	{api.NodeDiskPressure, api.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
	{api.NodePIDPressure, api.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
	{api.NodeReady, api.ConditionTrue, "KubeletReady", "kubelet is posting ready status"},
}

// isKubeletNodeCondition reports whether the kubelet owns a condition type.
func isKubeletNodeCondition(t api.NodeConditionType) bool {
	for _, spec := range nodeConditionSpecs {
		if spec.kind == t {
			return true
		}
	}
	return false
}

// newNode is the Node object the kubelet registers.
func (k *Kubelet) newNode(now time.Time) *api.Node {
	node := &api.Node{
		TypeMeta: api.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{
			Name:        k.nodeName,
			Labels:      map[string]string{},
			Annotations: map[string]string{annotationControllerManagedAttach: "true"},
		},
		Spec: api.NodeSpec{Taints: append([]api.Taint(nil), k.opts.RegisterWithTaints...)},
	}
	if k.opts.CloudProvider == CloudProviderExternal {
		// As upstream's kubelet: the node stays unschedulable until the
		// cloud-controller-manager has described its machine and removed
		// the taint (pkg/controllers/cloudnode).
		node.Spec.Taints = append(node.Spec.Taints, api.Taint{Key: cloudprovider.TaintExternalCloudProvider, Value: "true", Effect: api.TaintEffectNoSchedule})
	}
	for key, value := range k.opts.NodeLabels {
		node.Labels[key] = value
	}
	setDefaultNodeLabels(node, k.nodeName)
	if k.flagPodCIDR.IsValid() {
		node.Spec.PodCIDR = k.flagPodCIDR.String()
		node.Spec.PodCIDRs = []string{node.Spec.PodCIDR}
	}
	node.Status = mergeNodeStatus(api.NodeStatus{}, k.desiredNodeStatus(), now)
	return node
}

// setDefaultNodeLabels sets the labels every kubelet keeps on its node
// (upstream's updateDefaultLabels) and reports whether any changed.
func setDefaultNodeLabels(node *api.Node, hostname string) bool {
	want := map[string]string{
		api.LabelHostname: hostname,
		api.LabelOS:       goruntime.GOOS,
		api.LabelArch:     goruntime.GOARCH,
		labelBetaOS:       goruntime.GOOS,
		labelBetaArch:     goruntime.GOARCH,
	}
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	changed := false
	for key, value := range want {
		if node.Labels[key] != value {
			node.Labels[key], changed = value, true
		}
	}
	return changed
}

// registerNode creates the node, or takes over an existing one, retrying
// until it succeeds or ctx ends (upstream's registerWithAPIServer). A node
// that already exists keeps its taints and labels; only the default labels
// and a missing podCIDR are put right.
func (k *Kubelet) registerNode(ctx context.Context) error {
	delay := 100 * time.Millisecond
	for {
		err := k.tryRegisterNode(ctx)
		if err == nil {
			return nil
		}
		k.log.Warn("could not register node, will retry", "err", err, "retryIn", delay)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-k.clock.After(delay):
		}
		delay = min(2*delay, 7*time.Second)
	}
}

func (k *Kubelet) tryRegisterNode(ctx context.Context) error {
	nodes := k.client.Nodes()
	now := k.clock.Now()
	created, err := nodes.Create(ctx, k.newNode(now), client.CreateOptions{})
	if err == nil {
		k.log.Info("registered node", "podCIDR", created.Spec.PodCIDR)
		k.nodeRegistered(created, api.NodeStatus{}, now)
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create node %s: %w", k.nodeName, err)
	}
	existing, err := nodes.Get(ctx, k.nodeName, client.GetOptions{})
	if err != nil {
		return fmt.Errorf("read existing node %s: %w", k.nodeName, err)
	}
	changed := setDefaultNodeLabels(existing, k.nodeName)
	if existing.Spec.PodCIDR == "" && k.flagPodCIDR.IsValid() {
		existing.Spec.PodCIDR = k.flagPodCIDR.String()
		existing.Spec.PodCIDRs = []string{existing.Spec.PodCIDR}
		changed = true
	}
	if changed {
		if existing, err = nodes.Update(ctx, existing, client.UpdateOptions{}); err != nil {
			return fmt.Errorf("update existing node %s: %w", k.nodeName, err)
		}
	}
	k.log.Info("node already registered, taking it over", "podCIDR", existing.Spec.PodCIDR)
	k.nodeRegistered(existing, existing.Status, now)
	if err := k.syncNodeStatus(ctx, true); err != nil && ctx.Err() == nil {
		k.log.Warn("could not update node status, will retry", "err", err) // runNodeStatus retries
	}
	return nil
}

// nodeRegistered records the registered node: its UID (the Lease and
// mirror pods point at it), its pod range, and, for a new node, the
// condition events describe shows.
func (k *Kubelet) nodeRegistered(node *api.Node, before api.NodeStatus, now time.Time) {
	k.mu.Lock()
	k.nodeUID = node.UID
	if node.UID != "" && before.Conditions == nil {
		k.lastReported, k.lastReportTime = new(api.NodeStatus), now
		*k.lastReported = k.desiredNodeStatusLocked()
	}
	k.mu.Unlock()
	k.setPodCIDR(node.Spec.PodCIDR)
	k.recorder.Event(k.nodeRef(), api.EventTypeNormal, eventStarting, msgStartingKubelet)
	k.recordConditionEvents(before, node.Status)
	if before.Conditions == nil {
		k.recorder.Event(k.nodeRef(), api.EventTypeNormal, eventAllocatableEnforce, msgAllocatableEnforce)
	}
	close(k.registered)
}

// nodeRef is the object node events are about. Upstream's kubelet uses
// the node's name as its UID in events, and kubectl describe node looks
// for both.
func (k *Kubelet) nodeRef() *api.Node {
	return &api.Node{TypeMeta: api.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Name: k.nodeName, UID: k.nodeName}}
}

// setPodCIDR (re)creates the pod IP allocator for the node's range: the
// Node object's, else --pod-cidr's, else a range derived from the name.
func (k *Kubelet) setPodCIDR(fromNode string) {
	prefix := k.flagPodCIDR
	if p, err := netip.ParsePrefix(fromNode); err == nil && p.Addr().Is4() && p.Bits() <= 30 {
		prefix = p
	}
	if !prefix.IsValid() {
		prefix = fallbackPodCIDR(k.nodeName)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ipam != nil && k.ipam.prefix == prefix.Masked() {
		return
	}
	a, err := newIPAM(prefix)
	if err != nil {
		k.log.Error("unusable pod CIDR", "cidr", prefix, "err", err)
		return
	}
	if k.ipam != nil {
		k.log.Info("pod CIDR changed; pods started from now on get addresses from the new range", "old", k.ipam.prefix, "new", prefix)
	}
	k.ipam = a
}

// desiredNodeStatus is the status the kubelet reports, without timestamps.
func (k *Kubelet) desiredNodeStatus() api.NodeStatus {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.desiredNodeStatusLocked()
}

func (k *Kubelet) desiredNodeStatusLocked() api.NodeStatus {
	capacity := api.ResourceList{
		api.ResourceCPU:              api.MustParseQuantity(k.opts.CPU),
		api.ResourceMemory:           api.MustParseQuantity(k.opts.Memory),
		api.ResourceEphemeralStorage: api.MustParseQuantity(k.opts.EphemeralStorage),
		api.ResourcePods:             api.NewQuantity(int64(k.opts.Pods), api.DecimalSI),
		"hugepages-1Gi":              api.NewQuantity(0, api.DecimalSI),
		"hugepages-2Mi":              api.NewQuantity(0, api.DecimalSI),
	}
	status := api.NodeStatus{
		Capacity:    capacity,
		Allocatable: api.DeepCopyValue(capacity),
		Addresses: []api.NodeAddress{
			{Type: api.NodeInternalIP, Address: k.opts.NodeIP},
			{Type: api.NodeHostName, Address: k.nodeName},
		},
		DaemonEndpoints: api.NodeDaemonEndpoints{KubeletEndpoint: api.DaemonEndpoint{Port: k.kubeletPort}},
		NodeInfo:        k.nodeInfo,
	}
	for _, spec := range nodeConditionSpecs {
		status.Conditions = append(status.Conditions, api.NodeCondition{
			Type: spec.kind, Status: spec.status, Reason: spec.reason, Message: spec.message})
	}
	return status
}

// newNodeInfo describes the node's machine: identities derived from the
// node's name (stable across restarts), this host's kernel and OS, and
// kplane's kubelet and runtime versions.
func newNodeInfo(nodeName, runtimeName string) api.NodeSystemInfo {
	sum := sha256.Sum256([]byte("kplane-node/" + nodeName))
	return api.NodeSystemInfo{
		MachineID:               hex.EncodeToString(sum[:16]),
		SystemUUID:              uuid.NewSHA1(uuid.NameSpaceDNS, []byte(nodeName)).String(),
		BootID:                  uuid.NewString(),
		KernelVersion:           readTrimmed("/proc/sys/kernel/osrelease"),
		OSImage:                 osImage(),
		ContainerRuntimeVersion: fmt.Sprintf("kplane-%s://0.1", runtimeName),
		KubeletVersion:          KubeletVersion,
		OperatingSystem:         goruntime.GOOS,
		Architecture:            goruntime.GOARCH,
	}
}

func readTrimmed(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// osImage is the host's PRETTY_NAME from /etc/os-release.
func osImage() string {
	for _, line := range strings.Split(readTrimmed("/etc/os-release"), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return "Linux"
}

// mergeNodeStatus lays desired over the stored status: the kubelet's
// conditions get a fresh lastHeartbeatTime and keep their
// lastTransitionTime unless their status changed; conditions others own
// (NetworkUnavailable) and fields others fill (images, volumes) stay.
func mergeNodeStatus(current, desired api.NodeStatus, now time.Time) api.NodeStatus {
	out := current
	out.Capacity, out.Allocatable = desired.Capacity, desired.Allocatable
	out.Addresses, out.DaemonEndpoints, out.NodeInfo = desired.Addresses, desired.DaemonEndpoints, desired.NodeInfo
	heartbeat := api.NewTime(now.UTC().Truncate(time.Second))
	out.Conditions = nil
	for _, c := range current.Conditions {
		if !isKubeletNodeCondition(c.Type) {
			out.Conditions = append(out.Conditions, c)
		}
	}
	for _, c := range desired.Conditions {
		c.LastHeartbeatTime, c.LastTransitionTime = heartbeat, heartbeat
		for _, old := range current.Conditions {
			if old.Type == c.Type && old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
		}
		out.Conditions = append(out.Conditions, c)
	}
	return out
}

// kubeletConditionsAsReported reports whether stored has every kubelet
// condition of desired with the same status, reason and message.
func kubeletConditionsAsReported(stored, desired api.NodeStatus) bool {
	for _, want := range desired.Conditions {
		found := false
		for _, got := range stored.Conditions {
			if got.Type == want.Type {
				found = got.Status == want.Status && got.Reason == want.Reason && got.Message == want.Message
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// sameNodeStatus compares two desired statuses (which have no timestamps).
func sameNodeStatus(a, b api.NodeStatus) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// recordConditionEvents records "Node node1 status is now: NodeReady" for
// every kubelet condition that is new or changed status, as upstream does.
func (k *Kubelet) recordConditionEvents(before, after api.NodeStatus) {
	for _, c := range after.Conditions {
		if !isKubeletNodeCondition(c.Type) {
			continue
		}
		changed := true
		for _, old := range before.Conditions {
			if old.Type == c.Type && old.Status == c.Status {
				changed = false
			}
		}
		if changed {
			reason := "Node" + strings.TrimPrefix(c.Reason, "Kubelet")
			k.recorder.Eventf(k.nodeRef(), api.EventTypeNormal, reason, msgNodeStatusIsNow, k.nodeName, reason)
		}
	}
}

// runNodeStatus recomputes the node's status every
// NodeStatusUpdateFrequency and writes it when it changed or is due anyway.
// The hollow nodes of one process register at the same instant; each
// starts its ticks statusPhase later, so that their periodic reports
// (every NodeStatusReportFrequency, 5 minutes) do not all reach the
// apiserver in the same second, as 1 000 of them did in the scale run.
// Upstream's kubelets start at different times and add a 4 % jitter to
// each tick (wait.JitterUntil in kubelet.go) for the same reason.
func (k *Kubelet) runNodeStatus(ctx context.Context) {
	if k.statusPhase > 0 {
		select {
		case <-ctx.Done():
			return
		case <-k.clock.After(k.statusPhase):
		}
	}
	ticker := k.clock.NewTicker(k.opts.NodeStatusUpdateFrequency)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
		}
		if !k.heartbeat.wait(ctx) { // paused by the debug API (pause.go)
			return
		}
		if err := k.syncNodeStatus(ctx, false); err != nil && ctx.Err() == nil {
			k.log.Warn("could not update node status", "err", err)
		}
	}
}

// syncNodeStatus writes the node's status if it changed since the last
// report, or the last report is older than NodeStatusReportFrequency, or
// force is set — or if the Node's kubelet conditions are not the ones the
// kubelet reports: the node lifecycle controller set them to Unknown while
// this kubelet was not heartbeating, and it must say Ready again at once,
// not at the next report. Like upstream it reads the Node every time to
// know (the first read may come from the apiserver's cache). Conflicts are
// retried against a fresh read, five times as upstream's
// nodeStatusUpdateRetry.
func (k *Kubelet) syncNodeStatus(ctx context.Context, force bool) error {
	desired := k.desiredNodeStatus()
	now := k.clock.Now()
	k.mu.Lock()
	due := force || k.lastReported == nil || !sameNodeStatus(*k.lastReported, desired) ||
		now.Sub(k.lastReportTime) >= k.opts.NodeStatusReportFrequency
	k.mu.Unlock()
	nodes := k.client.Nodes()
	for attempt := 0; ; attempt++ {
		opts := client.GetOptions{}
		if attempt == 0 {
			opts.ResourceVersion = "0"
		}
		node, err := nodes.Get(ctx, k.nodeName, opts)
		if err != nil {
			// A deleted Node is not re-created, as upstream: restart the
			// kubelet to register it again.
			return fmt.Errorf("read node %s: %w", k.nodeName, err)
		}
		k.setPodCIDR(node.Spec.PodCIDR)
		if !due && kubeletConditionsAsReported(node.Status, desired) {
			return nil
		}
		before := node.Status
		node.Status = mergeNodeStatus(before, desired, now)
		updated, err := nodes.UpdateStatus(ctx, node, client.UpdateOptions{})
		if apierrors.IsConflict(err) && attempt < 4 {
			continue
		}
		if err != nil {
			return fmt.Errorf("update status of node %s: %w", k.nodeName, err)
		}
		k.recordConditionEvents(before, updated.Status)
		k.mu.Lock()
		k.lastReported, k.lastReportTime = &desired, now
		k.mu.Unlock()
		return nil
	}
}

// statusPhase is how much later than the first node of a process node
// number index of count starts its node status ticks: the process's nodes
// spread evenly over one interval.
func statusPhase(index, count int, interval time.Duration) time.Duration {
	if count <= 1 {
		return 0
	}
	return interval * time.Duration(index) / time.Duration(count)
}
