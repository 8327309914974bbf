package apiserver

import (
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

func TestResolvePodPriority(t *testing.T) {
	int32Ptr := func(v int32) *int32 { return &v }
	policyPtr := func(p api.PreemptionPolicy) *api.PreemptionPolicy { return &p }
	high := &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "high"}, Value: 1000, PreemptionPolicy: policyPtr(api.PreemptNever)}
	normal := &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "normal"}, Value: 10, GlobalDefault: true,
		PreemptionPolicy: policyPtr(api.PreemptLowerPriority)}
	legacy := &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "legacy"}, Value: 7}
	tests := []struct {
		name string
		// className, priority and policy are what the pod brings; class is
		// what the plugin found (nil: no name and no global default).
		className  string
		priority   *int32
		policy     *api.PreemptionPolicy
		class      *api.PriorityClass
		wantName   string
		wantValue  int32
		wantPolicy *api.PreemptionPolicy
		wantErr    string
	}{
		{name: "no class and no default: priority 0", wantValue: 0, wantPolicy: policyPtr(api.PreemptLowerPriority)},
		{name: "no class, the 0 it would get anyway", priority: int32Ptr(0), wantValue: 0, wantPolicy: policyPtr(api.PreemptLowerPriority)},
		{name: "no class, a priority of its own", priority: int32Ptr(5),
			wantErr: "the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name"},
		{name: "named class", className: "high", class: high, wantName: "high", wantValue: 1000, wantPolicy: policyPtr(api.PreemptNever)},
		{name: "named class, its own value repeated", className: "high", class: high, priority: int32Ptr(1000),
			wantName: "high", wantValue: 1000, wantPolicy: policyPtr(api.PreemptNever)},
		{name: "named class, another value", className: "high", class: high, priority: int32Ptr(1),
			wantErr: "the integer value of priority (1) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name"},
		{name: "named class, another policy", className: "high", class: high, policy: policyPtr(api.PreemptLowerPriority),
			wantErr: "the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name"},
		{name: "global default: its name too", class: normal, wantName: "normal", wantValue: 10, wantPolicy: policyPtr(api.PreemptLowerPriority)},
		{name: "class without a policy leaves the pod's", className: "legacy", class: legacy, policy: policyPtr(api.PreemptNever),
			wantName: "legacy", wantValue: 7, wantPolicy: policyPtr(api.PreemptNever)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &api.Pod{Spec: api.PodSpec{PriorityClassName: tt.className, Priority: tt.priority, PreemptionPolicy: tt.policy}}
			err := resolvePodPriority(pod, tt.class)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pod.Spec.PriorityClassName != tt.wantName || pod.Spec.Priority == nil || *pod.Spec.Priority != tt.wantValue {
				t.Errorf("class %q priority %v, want %q %d", pod.Spec.PriorityClassName, pod.Spec.Priority, tt.wantName, tt.wantValue)
			}
			if (pod.Spec.PreemptionPolicy == nil) != (tt.wantPolicy == nil) ||
				(tt.wantPolicy != nil && *pod.Spec.PreemptionPolicy != *tt.wantPolicy) {
				t.Errorf("preemptionPolicy %v, want %v", pod.Spec.PreemptionPolicy, tt.wantPolicy)
			}
		})
	}
	// The pod gets a copy of the class's policy: the class is the cache's.
	pod := &api.Pod{Spec: api.PodSpec{PriorityClassName: "high"}}
	if err := resolvePodPriority(pod, high); err != nil {
		t.Fatal(err)
	}
	if pod.Spec.PreemptionPolicy == high.PreemptionPolicy {
		t.Error("the pod shares the class's preemptionPolicy pointer")
	}
}

// An update that leaves priority and policy out keeps the stored ones; one
// that brings them keeps its own (for validation to judge).
func TestKeepPodPriority(t *testing.T) {
	priority, policy := int32(1000), api.PreemptNever
	old := &api.Pod{Spec: api.PodSpec{Priority: &priority, PreemptionPolicy: &policy}}

	replaced := &api.Pod{}
	keepPodPriority(replaced, old)
	if replaced.Spec.Priority == nil || *replaced.Spec.Priority != 1000 || replaced.Spec.PreemptionPolicy == nil || *replaced.Spec.PreemptionPolicy != api.PreemptNever {
		t.Errorf("priority %v policy %v, want the stored 1000 Never", replaced.Spec.Priority, replaced.Spec.PreemptionPolicy)
	}
	if replaced.Spec.Priority == old.Spec.Priority {
		t.Error("the update shares the stored pod's priority pointer")
	}

	own := int32(5)
	changed := &api.Pod{Spec: api.PodSpec{Priority: &own}}
	keepPodPriority(changed, old)
	if *changed.Spec.Priority != 5 {
		t.Errorf("priority %d, want the update's own 5", *changed.Spec.Priority)
	}
}

func TestGlobalDefaultPriorityClass(t *testing.T) {
	class := func(name string, value int32, globalDefault bool) *api.PriorityClass {
		return &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: name}, Value: value, GlobalDefault: globalDefault}
	}
	tests := []struct {
		name    string
		classes []*api.PriorityClass
		want    string // "" for none
	}{
		{"no classes", nil, ""},
		{"none marked", []*api.PriorityClass{class("high", 1000, false), class(api.SystemNodeCritical, 2000001000, false)}, ""},
		{"one marked", []*api.PriorityClass{class("high", 1000, false), class("normal", 10, true)}, "normal"},
		{"several marked: the lowest value", []*api.PriorityClass{class("b", 50, true), class("a", 100, true), class("c", 20, true)}, "c"},
		{"several marked, same value: first by name", []*api.PriorityClass{class("zeta", 5, true), class("alpha", 5, true)}, "alpha"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := globalDefaultPriorityClass(tt.classes)
			name := ""
			if got != nil {
				name = got.Name
			}
			if name != tt.want {
				t.Errorf("default = %q, want %q", name, tt.want)
			}
		})
	}
}

func TestRefuseSystemPriorityClassDelete(t *testing.T) {
	classes := &resource{group: "scheduling.k8s.io", version: "v1", plural: "priorityclasses"}
	err := refuseSystemPriorityClassDelete(classes, api.SystemNodeCritical)
	if !apierrors.IsForbidden(err) || err.Error() != `priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted` {
		t.Errorf("delete system-node-critical: %v", err)
	}
	if err := refuseSystemPriorityClassDelete(classes, api.SystemClusterCritical); !apierrors.IsForbidden(err) {
		t.Errorf("delete system-cluster-critical: %v", err)
	}
	if err := refuseSystemPriorityClassDelete(classes, "high"); err != nil {
		t.Errorf("delete a user's class: %v", err)
	}
	// A resource of another group may use the names freely.
	other := &resource{group: "example.com", version: "v1", plural: "priorityclasses"}
	if err := refuseSystemPriorityClassDelete(other, api.SystemNodeCritical); err != nil {
		t.Errorf("delete in another group: %v", err)
	}
}
