package daemonset

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"kplane/pkg/api"
)

func TestNodePlacement(t *testing.T) {
	pinned := func(ds *api.DaemonSet) {
		ds.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"}
	}
	requiredZone := func(ds *api.DaemonSet) {
		ds.Spec.Template.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
				MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a"}}},
			}}},
		}}
	}
	toleratesMaster := func(ds *api.DaemonSet) {
		ds.Spec.Template.Spec.Tolerations = []api.Toleration{{Key: "node-role.kubernetes.io/control-plane", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}}
	}
	tests := []struct {
		name string
		ds   *api.DaemonSet
		node *api.Node
		want placement
	}{
		{"plain node", newDS(), newNode("n1", nil), placement{true, true}},
		{"nodeSelector matches", newDS(pinned), newNode("n1", map[string]string{"disk": "ssd"}), placement{true, true}},
		{"nodeSelector does not match", newDS(pinned), newNode("n1", map[string]string{"disk": "hdd"}), placement{}},
		{"required affinity matches", newDS(requiredZone), newNode("n1", map[string]string{"zone": "a"}), placement{true, true}},
		{"required affinity does not match", newDS(requiredZone), newNode("n1", map[string]string{"zone": "b"}), placement{}},
		{"template nodeName elsewhere", newDS(func(ds *api.DaemonSet) { ds.Spec.Template.Spec.NodeName = "n2" }), newNode("n1", nil), placement{}},
		{"untolerated NoSchedule: no new pod, old may stay", newDS(), newNode("n1", nil, noSchedule("node-role.kubernetes.io/control-plane")), placement{false, true}},
		{"tolerated NoSchedule", newDS(toleratesMaster), newNode("n1", nil, noSchedule("node-role.kubernetes.io/control-plane")), placement{true, true}},
		{"untolerated NoExecute evicts", newDS(), newNode("n1", nil, noExecute("dedicated")), placement{}},
		{"PreferNoSchedule is ignored", newDS(), newNode("n1", nil, api.Taint{Key: "x", Effect: api.TaintEffectPreferNoSchedule}), placement{true, true}},
		{"not-ready NoExecute tolerated by the daemon tolerations", newDS(), newNode("n1", nil, noExecute(api.TaintNodeNotReady)), placement{true, true}},
		{"unreachable NoExecute tolerated", newDS(), newNode("n1", nil, noExecute(api.TaintNodeUnreachable)), placement{true, true}},
		{"memory pressure tolerated", newDS(), newNode("n1", nil, noSchedule(api.TaintNodeMemoryPressure)), placement{true, true}},
		{"network-unavailable not tolerated without hostNetwork", newDS(), newNode("n1", nil, noSchedule(api.TaintNodeNetworkUnavailable)), placement{false, true}},
		{"network-unavailable tolerated with hostNetwork", newDS(func(ds *api.DaemonSet) { ds.Spec.Template.Spec.HostNetwork = true }),
			newNode("n1", nil, noSchedule(api.TaintNodeNetworkUnavailable)), placement{true, true}},
		{"cordoned node still gets its daemon", newDS(), func() *api.Node {
			n := newNode("n1", nil, noSchedule(api.TaintNodeUnschedulable))
			n.Spec.Unschedulable = true
			return n
		}(), placement{true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nodePlacement(tt.node, tt.ds); got != tt.want {
				t.Errorf("nodePlacement = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestAddDaemonTolerations(t *testing.T) {
	seconds := int64(300)
	tests := []struct {
		name        string
		spec        api.PodSpec
		wantKeys    []string
		wantLen     int
		checkSecond bool
	}{
		{name: "empty template gets the six", spec: api.PodSpec{}, wantLen: 6},
		{name: "hostNetwork adds network-unavailable", spec: api.PodSpec{HostNetwork: true}, wantLen: 7,
			wantKeys: []string{api.TaintNodeNetworkUnavailable}},
		{name: "template's own toleration is kept", spec: api.PodSpec{Tolerations: []api.Toleration{{Key: "gpu", Operator: api.TolerationOpExists}}},
			wantLen: 7, wantKeys: []string{"gpu"}},
		{name: "same toleration with seconds is replaced, not duplicated", spec: api.PodSpec{Tolerations: []api.Toleration{
			{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: &seconds}}},
			wantLen: 6, checkSecond: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec
			addDaemonTolerations(&spec)
			if len(spec.Tolerations) != tt.wantLen {
				t.Fatalf("got %d tolerations %+v, want %d", len(spec.Tolerations), spec.Tolerations, tt.wantLen)
			}
			keys := map[string]api.Toleration{}
			for _, tol := range spec.Tolerations {
				keys[tol.Key] = tol
			}
			for _, want := range append([]string{api.TaintNodeNotReady, api.TaintNodeUnreachable, api.TaintNodeDiskPressure,
				api.TaintNodeMemoryPressure, api.TaintNodePIDPressure, api.TaintNodeUnschedulable}, tt.wantKeys...) {
				if _, ok := keys[want]; !ok {
					t.Errorf("toleration %s missing from %+v", want, spec.Tolerations)
				}
			}
			for _, key := range []string{api.TaintNodeNotReady, api.TaintNodeUnreachable} {
				if tol := keys[key]; tol.Effect != api.TaintEffectNoExecute || tol.TolerationSeconds != nil {
					t.Errorf("%s toleration = %+v, want NoExecute forever (no tolerationSeconds)", key, tol)
				}
			}
			if tol := keys[api.TaintNodeUnschedulable]; tol.Effect != api.TaintEffectNoSchedule || tol.Operator != api.TolerationOpExists {
				t.Errorf("unschedulable toleration = %+v", tol)
			}
		})
	}
}

func TestPinToNode(t *testing.T) {
	want := &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
		MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{"n1"}}},
	}}}
	preferred := []api.PreferredSchedulingTerm{{Weight: 1, Preference: api.NodeSelectorTerm{
		MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpExists}}}}}
	tests := []struct {
		name          string
		in            *api.Affinity
		wantPreferred bool
	}{
		{"nil affinity", nil, false},
		{"no node affinity", &api.Affinity{}, false},
		{"no required terms", &api.Affinity{NodeAffinity: &api.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: preferred}}, true},
		{"existing terms and matchFields are replaced", &api.Affinity{NodeAffinity: &api.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{
				{MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{"old"}}}},
				{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a"}}}},
			}},
			PreferredDuringSchedulingIgnoredDuringExecution: preferred,
		}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pinToNode(tt.in, "n1")
			if !reflect.DeepEqual(got.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, want) {
				t.Errorf("required = %+v, want %+v", got.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, want)
			}
			if kept := got.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution != nil; kept != tt.wantPreferred {
				t.Errorf("preferred terms kept = %v, want %v", kept, tt.wantPreferred)
			}
			name, err := targetNodeName(&api.Pod{Spec: api.PodSpec{Affinity: got}})
			if err != nil || name != "n1" {
				t.Errorf("targetNodeName = %q, %v; want n1", name, err)
			}
		})
	}
}

func TestTargetNodeName(t *testing.T) {
	if name, _ := targetNodeName(&api.Pod{Spec: api.PodSpec{NodeName: "bound", Affinity: pinToNode(nil, "pinned")}}); name != "bound" {
		t.Errorf("bound pod: got %q, want spec.nodeName", name)
	}
	if _, err := targetNodeName(&api.Pod{}); err == nil {
		t.Errorf("pod with neither nodeName nor affinity: want an error")
	}
}

func TestPodTemplateForNode(t *testing.T) {
	ds := newDS(func(ds *api.DaemonSet) { ds.Generation = 3 })
	template := podTemplateForNode(ds, "abc12", "n1")
	if template.Labels["app"] != "ds" || template.Labels["controller-revision-hash"] != "abc12" || template.Labels["pod-template-generation"] != "3" {
		t.Errorf("labels = %v", template.Labels)
	}
	if template.Spec.NodeName != "" {
		t.Errorf("nodeName = %q, want it empty: the scheduler binds daemon pods", template.Spec.NodeName)
	}
	if name, err := targetNodeName(&api.Pod{Spec: template.Spec}); err != nil || name != "n1" {
		t.Errorf("pinned to %q (%v), want n1", name, err)
	}
	if len(ds.Spec.Template.Spec.Tolerations) != 0 || ds.Spec.Template.Spec.Affinity != nil || len(ds.Spec.Template.Labels) != 1 {
		t.Errorf("the DaemonSet's own template was modified: %+v", ds.Spec.Template)
	}
}

func TestPlanNodes(t *testing.T) {
	ds := newDS()
	running := func(name, node string, age time.Duration) *api.Pod {
		return newPod(ds, name, node, "h1", age, api.PodRunning, true)
	}
	deleting := running("deleting", "n1", 0)
	deleting.DeletionTimestamp = &api.Time{Time: testNow}
	failed := newPod(ds, "failed", "n1", "h1", 0, api.PodFailed, false)
	succeeded := newPod(ds, "done", "n1", "h1", 0, api.PodSucceeded, false)

	tests := []struct {
		name       string
		nodes      []*api.Node
		pods       []*api.Pod
		wantCreate []string
		wantDelete []string
		wantFailed []string
	}{
		{name: "every eligible node without a pod gets one",
			nodes:      []*api.Node{newNode("n1", nil), newNode("n2", nil), newNode("master", nil, noSchedule("node-role.kubernetes.io/control-plane"))},
			wantCreate: []string{"n1", "n2"}},
		{name: "one pod per node: nothing to do",
			nodes: []*api.Node{newNode("n1", nil)}, pods: []*api.Pod{running("a", "n1", 0)}},
		{name: "extras go, the oldest stays",
			nodes:      []*api.Node{newNode("n1", nil)},
			pods:       []*api.Pod{running("young", "n1", time.Minute), running("old", "n1", 0), running("mid", "n1", time.Second)},
			wantDelete: []string{"mid", "young"}},
		{name: "pod on a node that is no longer eligible goes",
			nodes: []*api.Node{newNode("n1", nil, noExecute("dedicated"))}, pods: []*api.Pod{running("a", "n1", 0)},
			wantDelete: []string{"a"}},
		{name: "untolerated NoSchedule keeps the running pod",
			nodes: []*api.Node{newNode("n1", nil, noSchedule("dedicated"))}, pods: []*api.Pod{running("a", "n1", 0)}},
		{name: "pod on a node that is gone goes",
			nodes: []*api.Node{newNode("n1", nil)}, pods: []*api.Pod{running("a", "n1", 0), running("b", "gone", 0)},
			wantDelete: []string{"b"}},
		{name: "a pod being deleted blocks the replacement and is not deleted again",
			nodes: []*api.Node{newNode("n1", nil)}, pods: []*api.Pod{deleting}},
		{name: "failed pod is handed back for a back-off; succeeded pod deleted",
			nodes: []*api.Node{newNode("n1", nil)}, pods: []*api.Pod{failed, succeeded},
			wantDelete: []string{"done"}, wantFailed: []string{"failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			byNode, unplaced := groupPodsByNode(tt.pods)
			if len(unplaced) > 0 {
				t.Fatalf("unplaced pods %v", podNames(unplaced))
			}
			plan := planNodes(ds, tt.nodes, byNode)
			if !slices.Equal(plan.createOn, tt.wantCreate) {
				t.Errorf("createOn = %v, want %v", plan.createOn, tt.wantCreate)
			}
			if got := podNames(plan.deletePods); !slices.Equal(got, tt.wantDelete) && (len(got) > 0 || len(tt.wantDelete) > 0) {
				t.Errorf("delete = %v, want %v", got, tt.wantDelete)
			}
			if got := podNames(plan.failedPods); !slices.Equal(got, tt.wantFailed) && (len(got) > 0 || len(tt.wantFailed) > 0) {
				t.Errorf("failed = %v, want %v", got, tt.wantFailed)
			}
		})
	}
}

func TestMaxUnavailable(t *testing.T) {
	percent := func(s string) func(*api.DaemonSet) {
		return func(ds *api.DaemonSet) {
			v := api.FromString(s)
			ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &v
		}
	}
	tests := []struct {
		name    string
		ds      *api.DaemonSet
		desired int
		want    int
	}{
		{"default 1", newDS(), 10, 1},
		{"percent rounds up", newDS(percent("25%")), 10, 3},
		{"zero falls back to 1", newDS(percent("0%")), 10, 1},
		{"OnDelete deletes nothing", newDS(func(ds *api.DaemonSet) {
			ds.Spec.UpdateStrategy = api.DaemonSetUpdateStrategy{Type: api.OnDeleteDaemonSetStrategyType}
		}), 10, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := maxUnavailable(tt.ds, tt.desired)
			if err != nil || got != tt.want {
				t.Errorf("maxUnavailable = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestRollingUpdateVictims(t *testing.T) {
	ds := newDS(func(ds *api.DaemonSet) { ds.Generation = 2 })
	old := func(name, node string, ready bool) *api.Pod {
		p := newPod(ds, name, node, "old", 0, api.PodRunning, ready)
		p.Labels[PodTemplateGenerationLabel] = "1"
		return p
	}
	cur := func(name, node string, ready bool) *api.Pod {
		return newPod(ds, name, node, "new", 0, api.PodRunning, ready)
	}
	group := func(pods ...*api.Pod) map[string][]*api.Pod { m, _ := groupPodsByNode(pods); return m }

	tests := []struct {
		name   string
		byNode map[string][]*api.Pod
		budget int
		want   []string
	}{
		{"one at a time, in node order", group(old("a", "n1", true), old("b", "n2", true), old("c", "n3", true)), 1, []string{"a"}},
		{"budget 2", group(old("a", "n1", true), old("b", "n2", true), old("c", "n3", true)), 2, []string{"a", "b"}},
		{"an updated pod not yet available uses the budget", group(cur("a", "n1", false), old("b", "n2", true)), 1, nil},
		{"available updated pods free the budget", group(cur("a", "n1", true), old("b", "n2", true)), 1, []string{"b"}},
		{"unavailable old pods are replaced regardless", group(cur("a", "n1", false), old("b", "n2", false), old("c", "n3", true)), 1, []string{"b"}},
		{"a node with old and new pods counts as unavailable", group(cur("a", "n1", true), old("a2", "n1", true), old("b", "n2", true)), 1, nil},
		{"all updated: nothing to do", group(cur("a", "n1", true), cur("b", "n2", true)), 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := podNames(rollingUpdateVictims(tt.byNode, "new", templateGeneration(ds), tt.budget, 0, testNow))
			if !slices.Equal(got, tt.want) && (len(got) > 0 || len(tt.want) > 0) {
				t.Errorf("victims = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsPodUpdated(t *testing.T) {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"controller-revision-hash": "h1", "pod-template-generation": "4"}}}
	tests := []struct {
		hash       string
		generation int64
		want       bool
	}{{"h1", 1, true}, {"h2", 4, true}, {"h2", 5, false}, {"", 0, false}}
	for _, tt := range tests {
		if got := isPodUpdated(pod, tt.hash, tt.generation); got != tt.want {
			t.Errorf("isPodUpdated(hash %q, generation %d) = %v, want %v", tt.hash, tt.generation, got, tt.want)
		}
	}
}

func TestCalculateStatus(t *testing.T) {
	ds := newDS(func(ds *api.DaemonSet) { ds.Generation = 2 })
	nodes := []*api.Node{newNode("n1", nil), newNode("n2", nil), newNode("n3", nil), newNode("tainted", nil, noSchedule("dedicated"))}
	oldPod := newPod(ds, "c", "n3", "old", 0, api.PodRunning, true)
	oldPod.Labels[PodTemplateGenerationLabel] = "1"
	pods := []*api.Pod{
		newPod(ds, "a", "n1", "new", 0, api.PodRunning, true),
		newPod(ds, "b", "n2", "new", 0, api.PodPending, false),
		oldPod,
		newPod(ds, "d", "tainted", "new", 0, api.PodRunning, true),
	}
	byNode, _ := groupPodsByNode(pods)
	got := calculateStatus(ds, nodes, byNode, "new", true, testNow)
	want := api.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberMisscheduled: 1,
		NumberReady: 2, NumberAvailable: 2, NumberUnavailable: 1, UpdatedNumberScheduled: 2, ObservedGeneration: 2}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("status = %+v\nwant     %+v", got, want)
	}
	if waiting := calculateStatus(ds, nodes, byNode, "new", false, testNow); waiting.ObservedGeneration != 0 {
		t.Errorf("a sync that did not act raised observedGeneration to %d", waiting.ObservedGeneration)
	}
}

func TestFailedPodBackoff(t *testing.T) {
	clk := newFakeClock()
	b := newFailedPodBackoff(clk)
	if ok, _ := b.next("uid/n1"); !ok {
		t.Fatal("first failure: want the pod deleted at once")
	}
	if ok, wait := b.next("uid/n1"); ok || wait != time.Second {
		t.Fatalf("second failure at once: allowed=%v wait=%v, want a 1s wait", ok, wait)
	}
	clk.Step(time.Second)
	if ok, _ := b.next("uid/n1"); !ok {
		t.Fatal("after 1s: want allowed")
	}
	if ok, wait := b.next("uid/n1"); ok || wait != 2*time.Second {
		t.Fatalf("third failure: allowed=%v wait=%v, want a 2s wait", ok, wait)
	}
	if ok, _ := b.next("uid/n2"); !ok {
		t.Fatal("another node has its own back-off")
	}
	b.forget("uid")
	if ok, _ := b.next("uid/n1"); !ok {
		t.Fatal("after forget: want allowed")
	}
}
