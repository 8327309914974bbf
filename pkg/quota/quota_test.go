package quota

import (
	"errors"
	"testing"
	"time"

	"kplane/pkg/api"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func list(pairs ...string) api.ResourceList {
	l := api.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		l[pairs[i]] = api.MustParseQuantity(pairs[i+1])
	}
	return l
}

func container(name string, requests, limits api.ResourceList) api.Container {
	return api.Container{Name: name, Image: "nginx", Resources: api.ResourceRequirements{Requests: requests, Limits: limits}}
}

func pod(name string, containers ...api.Container) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "team"}, Spec: api.PodSpec{Containers: containers}}
}

// enforced is a quota as the controller leaves it: status.hard copied
// from spec.hard, status.used computed.
func enforced(name string, hard, used api.ResourceList) *api.ResourceQuota {
	return &api.ResourceQuota{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "team"},
		Spec: api.ResourceQuotaSpec{Hard: hard}, Status: api.ResourceQuotaStatus{Hard: hard, Used: used}}
}

func TestPodUsage(t *testing.T) {
	p := pod("web", container("app", list("cpu", "100m", "memory", "64Mi"), list("cpu", "200m")),
		container("side", list("cpu", "50m"), nil))
	got, err := NewPodEvaluator().Usage(p, now)
	if err != nil {
		t.Fatal(err)
	}
	want := list("count/pods", "1", "pods", "1", "cpu", "150m", "requests.cpu", "150m", "limits.cpu", "200m",
		"memory", "64Mi", "requests.memory", "64Mi")
	if !Equals(got, want) {
		t.Errorf("usage = %v, want %v", got, want)
	}

	p.Status.Phase = api.PodSucceeded
	got, _ = NewPodEvaluator().Usage(p, now)
	if !Equals(got, list("count/pods", "1")) {
		t.Errorf("a finished pod charges %v, want only count/pods", got)
	}
}

func TestPodPastGracePeriodIsNotCharged(t *testing.T) {
	p := pod("web", container("app", nil, nil))
	grace := int64(30)
	deleted := api.Time{Time: now.Add(-time.Minute)}
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &deleted, &grace
	if IsPodCharged(p, now) {
		t.Error("a pod a minute past a 30 s grace period is still charged")
	}
	if !IsPodCharged(p, now.Add(-45*time.Second)) {
		t.Error("a pod within its grace period is not charged")
	}
}

func TestPodConstraintsMessage(t *testing.T) {
	p := pod("web", container("web", list("memory", "64Mi"), nil), container("db", list("cpu", "1"), nil))
	err := NewPodEvaluator().Constraints([]api.ResourceName{"pods", "requests.cpu", "limits.cpu"}, p)
	want := "must specify limits.cpu for: db,web; requests.cpu for: web"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if err := NewPodEvaluator().Constraints([]api.ResourceName{"pods", "count/pods"}, p); err != nil {
		t.Errorf("a count-only quota constrains: %v", err)
	}
}

func TestServiceUsage(t *testing.T) {
	ports := []api.ServicePort{{Port: 80}, {Port: 443}}
	tests := []struct {
		typ  api.ServiceType
		want api.ResourceList
	}{
		{api.ServiceTypeClusterIP, list("count/services", "1", "services", "1")},
		{api.ServiceTypeNodePort, list("count/services", "1", "services", "1", "services.nodeports", "2")},
		{api.ServiceTypeLoadBalancer, list("count/services", "1", "services", "1", "services.nodeports", "2", "services.loadbalancers", "1")},
	}
	for _, tt := range tests {
		svc := &api.Service{Spec: api.ServiceSpec{Type: tt.typ, Ports: ports}}
		got, _ := NewServiceEvaluator().Usage(svc, now)
		if !Equals(got, tt.want) {
			t.Errorf("%s: usage = %v, want %v", tt.typ, got, tt.want)
		}
	}
}

func TestClaimUsage(t *testing.T) {
	class := "fast"
	claim := &api.PersistentVolumeClaim{Spec: api.PersistentVolumeClaimSpec{StorageClassName: &class,
		Resources: api.VolumeResourceRequirements{Requests: list("storage", "1Gi")}}}
	got, _ := NewPersistentVolumeClaimEvaluator().Usage(claim, now)
	want := list("count/persistentvolumeclaims", "1", "persistentvolumeclaims", "1", "requests.storage", "1Gi",
		"fast.storageclass.storage.k8s.io/requests.storage", "1Gi", "fast.storageclass.storage.k8s.io/persistentvolumeclaims", "1")
	if !Equals(got, want) {
		t.Errorf("usage = %v, want %v", got, want)
	}
	matched := NewPersistentVolumeClaimEvaluator().MatchingResources([]api.ResourceName{
		"pods", "requests.storage", "fast.storageclass.storage.k8s.io/requests.storage"})
	if len(matched) != 2 {
		t.Errorf("matching = %v", matched)
	}
}

func TestObjectCountNames(t *testing.T) {
	got, _ := EvaluatorFor(GroupResource{Group: "apps", Resource: "deployments"}).Usage(nil, now)
	if !Equals(got, list("count/deployments.apps", "1")) {
		t.Errorf("deployment usage = %v", got)
	}
	got, _ = EvaluatorFor(GroupResource{Resource: "configmaps"}).Usage(nil, now)
	if !Equals(got, list("count/configmaps", "1", "configmaps", "1")) {
		t.Errorf("configmap usage = %v", got)
	}
	if EvaluatorFor(GroupResource{Resource: "configmaps"}).Handles(Update) {
		t.Error("an object count handles updates")
	}
}

func TestScopes(t *testing.T) {
	deadline := int64(60)
	bestEffort := pod("be", container("app", nil, nil))
	burstable := pod("bu", container("app", list("cpu", "100m"), nil))
	burstable.Spec.ActiveDeadlineSeconds = &deadline
	burstable.Spec.PriorityClassName = "high"
	e := NewPodEvaluator()
	tests := []struct {
		selector api.ScopedResourceSelectorRequirement
		pod      *api.Pod
		want     bool
	}{
		{api.ScopedResourceSelectorRequirement{ScopeName: api.ResourceQuotaScopeBestEffort, Operator: "Exists"}, bestEffort, true},
		{api.ScopedResourceSelectorRequirement{ScopeName: api.ResourceQuotaScopeBestEffort, Operator: "Exists"}, burstable, false},
		{api.ScopedResourceSelectorRequirement{ScopeName: api.ResourceQuotaScopeNotBestEffort, Operator: "Exists"}, burstable, true},
		{api.ScopedResourceSelectorRequirement{ScopeName: api.ResourceQuotaScopeTerminating, Operator: "Exists"}, burstable, true},
		{api.ScopedResourceSelectorRequirement{ScopeName: api.ResourceQuotaScopeNotTerminating, Operator: "Exists"}, bestEffort, true},
		{api.ScopedResourceSelectorRequirement{ScopeName: api.ResourceQuotaScopePriorityClass, Operator: "In", Values: []string{"high"}}, burstable, true},
		{api.ScopedResourceSelectorRequirement{ScopeName: api.ResourceQuotaScopePriorityClass, Operator: "In", Values: []string{"high"}}, bestEffort, false},
		{api.ScopedResourceSelectorRequirement{ScopeName: api.ResourceQuotaScopePriorityClass, Operator: "NotIn", Values: []string{"high"}}, bestEffort, true},
	}
	for _, tt := range tests {
		got, err := e.MatchesScope(tt.selector, tt.pod)
		if err != nil || got != tt.want {
			t.Errorf("%s %s %v on %s = %v, %v; want %v", tt.selector.ScopeName, tt.selector.Operator, tt.selector.Values, tt.pod.Name, got, err, tt.want)
		}
	}
	crossNamespace := pod("cross", container("app", nil, nil))
	crossNamespace.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{
		{TopologyKey: "kubernetes.io/hostname", Namespaces: []string{"other"}}}}}
	for p, want := range map[*api.Pod]bool{crossNamespace: true, burstable: false} {
		got, _ := e.MatchesScope(api.ScopedResourceSelectorRequirement{ScopeName: ScopeCrossNamespacePodAffinity, Operator: "Exists"}, p)
		if got != want {
			t.Errorf("CrossNamespacePodAffinity on %s = %v, want %v", p.Name, got, want)
		}
	}
	svcMatch, _ := NewServiceEvaluator().MatchesScope(api.ScopedResourceSelectorRequirement{ScopeName: api.ResourceQuotaScopeBestEffort, Operator: "Exists"}, &api.Service{})
	if svcMatch {
		t.Error("a Service is in a pod scope")
	}
}

func refusal(t *testing.T, err error) string {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) {
		t.Fatalf("err = %v, want a Refusal", err)
	}
	return r.Message
}

func TestCheckRequestExceeded(t *testing.T) {
	q := enforced("q", list("pods", "2"), list("pods", "2"))
	_, err := CheckRequest([]*api.ResourceQuota{q}, NewPodEvaluator(), Request{Operation: Create, Object: pod("web", container("app", nil, nil)), Now: now})
	want := "exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2"
	if got := refusal(t, err); got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}

func TestCheckRequestCharges(t *testing.T) {
	q := enforced("q", list("pods", "2", "requests.cpu", "1"), list("pods", "1", "requests.cpu", "100m"))
	other := enforced("best-effort", list("pods", "5"), list("pods", "0"))
	other.Spec.Scopes = []api.ResourceQuotaScope{api.ResourceQuotaScopeBestEffort}
	p := pod("web", container("app", list("cpu", "250m"), nil))
	charges, err := CheckRequest([]*api.ResourceQuota{q, other}, NewPodEvaluator(), Request{Operation: Create, Object: p, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(charges) != 1 || charges[0].Quota != q {
		t.Fatalf("charges = %+v, want q only (the pod is not BestEffort)", charges)
	}
	if want := list("pods", "2", "requests.cpu", "350m"); !Equals(charges[0].Used, want) {
		t.Errorf("used = %v, want %v", charges[0].Used, want)
	}
}

func TestCheckRequestConstraintsAndUnknownStatus(t *testing.T) {
	p := pod("web", container("web", nil, nil))
	q := enforced("compute", list("requests.cpu", "1"), list("requests.cpu", "0"))
	_, err := CheckRequest([]*api.ResourceQuota{q}, NewPodEvaluator(), Request{Operation: Create, Object: p, Now: now})
	if got, want := refusal(t, err), "failed quota: compute: must specify requests.cpu for: web"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}

	fresh := enforced("q", list("pods", "2"), nil)
	_, err = CheckRequest([]*api.ResourceQuota{fresh}, NewPodEvaluator(), Request{Operation: Create, Object: p, Now: now})
	if got, want := refusal(t, err), "status unknown for quota: q, resources: pods"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}

	unseen := &api.ResourceQuota{ObjectMeta: api.ObjectMeta{Name: "new"}, Spec: api.ResourceQuotaSpec{Hard: list("pods", "0")}}
	if charges, err := CheckRequest([]*api.ResourceQuota{unseen}, NewPodEvaluator(), Request{Operation: Create, Object: p, Now: now}); err != nil || charges != nil {
		t.Errorf("a quota without status.hard enforced something: %v, %v", charges, err)
	}
}

func TestCheckRequestServiceUpdateChargesGrowth(t *testing.T) {
	q := enforced("q", list("services", "5", "services.nodeports", "1"), list("services", "1", "services.nodeports", "0"))
	old := &api.Service{ObjectMeta: api.ObjectMeta{Name: "web", ResourceVersion: "5"}, Spec: api.ServiceSpec{Type: api.ServiceTypeClusterIP, Ports: []api.ServicePort{{Port: 80}, {Port: 443}}}}
	updated := &api.Service{ObjectMeta: old.ObjectMeta, Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: old.Spec.Ports}}
	_, err := CheckRequest([]*api.ResourceQuota{q}, NewServiceEvaluator(), Request{Operation: Update, Object: updated, Old: old, Now: now})
	if got, want := refusal(t, err), "exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	charges, err := CheckRequest([]*api.ResourceQuota{q}, NewServiceEvaluator(), Request{Operation: Update, Object: old, Old: old, Now: now})
	if err != nil || len(charges) != 0 {
		t.Errorf("an unchanged Service charged %v, %v", charges, err)
	}
}

func TestCalculateUsage(t *testing.T) {
	q := enforced("q", list("pods", "10", "requests.memory", "1Gi"), nil)
	running := pod("a", container("app", list("memory", "100Mi"), nil))
	done := pod("b", container("app", list("memory", "100Mi"), nil))
	done.Status.Phase = api.PodSucceeded
	used, err := CalculateUsage(q, NewPodEvaluator(), []api.Object{running, done}, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := list("pods", "1", "requests.memory", "100Mi"); !Equals(used, want) {
		t.Errorf("used = %v, want %v", used, want)
	}
	empty, _ := CalculateUsage(q, NewPodEvaluator(), nil, now)
	if want := list("pods", "0", "requests.memory", "0"); !Equals(empty, want) {
		t.Errorf("used with no pods = %v, want %v", empty, want)
	}
}

func TestPrettyPrint(t *testing.T) {
	if got, want := PrettyPrint(list("requests.cpu", "500m", "pods", "2")), "pods=2,requests.cpu=500m"; got != want {
		t.Errorf("PrettyPrint = %q, want %q", got, want)
	}
}

// A claim resized upward is charged its growth only.
func TestCheckRequestClaimResize(t *testing.T) {
	claim := func(size string) *api.PersistentVolumeClaim {
		return &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data", ResourceVersion: "3"},
			Spec: api.PersistentVolumeClaimSpec{Resources: api.VolumeResourceRequirements{Requests: list("storage", size)}}}
	}
	q := enforced("storage", list("requests.storage", "3Gi", "persistentvolumeclaims", "1"), list("requests.storage", "1Gi", "persistentvolumeclaims", "1"))
	charges, err := CheckRequest([]*api.ResourceQuota{q}, NewPersistentVolumeClaimEvaluator(), Request{Operation: Update, Object: claim("2Gi"), Old: claim("1Gi"), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(charges) != 1 || !Equals(charges[0].Used, list("requests.storage", "2Gi", "persistentvolumeclaims", "1")) {
		t.Fatalf("charges = %+v, want requests.storage 2Gi and the claim count unchanged", charges)
	}
	_, err = CheckRequest([]*api.ResourceQuota{q}, NewPersistentVolumeClaimEvaluator(), Request{Operation: Update, Object: claim("4Gi"), Old: claim("1Gi"), Now: now})
	if got, want := refusal(t, err), "exceeded quota: storage, requested: requests.storage=3Gi, used: requests.storage=1Gi, limited: requests.storage=3Gi"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}
