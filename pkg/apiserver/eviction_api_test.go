package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// evictionFixture is an apiserver with pods labelled app=web, bound to a
// node, and helpers to put a budget over them with a chosen status (as the
// disruption controller would have written it).
type evictionFixture struct {
	a *framework.APIServer
	c *client.Client
	// ns is the namespace the fixture's objects live in: the cases of one
	// test share an apiserver, each in a namespace of its own.
	ns string
}

func newEvictionFixture(t *testing.T) *evictionFixture {
	t.Helper()
	a := framework.StartAPIServer(t)
	return &evictionFixture{a: a, c: a.Client(t, func(cfg *client.Config) { cfg.MaxRetries = -1 }), ns: "default"}
}

// inNamespace returns the fixture working in a new namespace ns.
func (f *evictionFixture) inNamespace(t *testing.T, ns string) *evictionFixture {
	t.Helper()
	if _, err := f.c.Namespaces().Create(context.Background(), &api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return &evictionFixture{a: f.a, c: f.c, ns: ns}
}

// pod creates a pod app=web on node1 in phase with the given readiness.
func (f *evictionFixture) pod(t *testing.T, name string, phase api.PodPhase, ready bool) *api.Pod {
	t.Helper()
	ctx := context.Background()
	grace := int64(30)
	pod, err := f.c.Pods(f.ns).Create(ctx, &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{NodeName: "node1", TerminationGracePeriodSeconds: &grace,
			Containers: []api.Container{{Name: "app", Image: "nginx"}}},
	}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.Phase = phase
	readiness := api.ConditionFalse
	if ready {
		readiness = api.ConditionTrue
	}
	pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: readiness}}
	pod, err = f.c.Pods(f.ns).UpdateStatus(ctx, pod, client.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pod
}

// budget creates a PodDisruptionBudget named name over app=web (minAvailable
// 2) and writes status as its observed status for generation 1.
func (f *evictionFixture) budget(t *testing.T, name string, status api.PodDisruptionBudgetStatus, mutate func(*api.PodDisruptionBudget)) *api.PodDisruptionBudget {
	t.Helper()
	ctx := context.Background()
	two := api.FromInt(2)
	pdb := &api.PodDisruptionBudget{
		ObjectMeta: api.ObjectMeta{Name: name},
		Spec:       api.PodDisruptionBudgetSpec{MinAvailable: &two, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
	if mutate != nil {
		mutate(pdb)
	}
	pdb, err := f.c.PodDisruptionBudgets(f.ns).Create(ctx, pdb, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pdb.Status = status
	pdb, err = f.c.PodDisruptionBudgets(f.ns).UpdateStatus(ctx, pdb, client.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pdb
}

// evict POSTs an Eviction of pod name (body may replace the default one)
// and returns the answer.
func (f *evictionFixture) evict(t *testing.T, name, body string) framework.Response {
	t.Helper()
	if body == "" {
		body = fmt.Sprintf(`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":%q,"namespace":%q}}`, name, f.ns)
	}
	return f.a.Do(t, "POST", "/api/v1/namespaces/"+f.ns+"/pods/"+name+"/eviction", []byte(body))
}

// podState is "gone", "terminating" or "running", and the pod's
// DisruptionTarget condition reason.
func (f *evictionFixture) podState(t *testing.T, name string) (state, disruptionReason string) {
	t.Helper()
	pod, err := f.c.Pods(f.ns).Get(context.Background(), name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "gone", ""
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == api.DisruptionTarget && c.Status == api.ConditionTrue {
			disruptionReason = c.Reason
		}
	}
	if pod.DeletionTimestamp != nil {
		return "terminating", disruptionReason
	}
	return "running", disruptionReason
}

// budgetStatus reads a budget's status.
func (f *evictionFixture) budgetStatus(t *testing.T, name string) api.PodDisruptionBudgetStatus {
	t.Helper()
	pdb, err := f.c.PodDisruptionBudgets(f.ns).Get(context.Background(), name, client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pdb.Status
}

// evictionAnswer is the Status of an eviction's answer: code, reason,
// message and causes as "Type: message".
type evictionAnswer struct {
	code    int
	reason  string
	message string
	causes  []string
}

func answerOf(t *testing.T, r framework.Response) evictionAnswer {
	t.Helper()
	var status api.Status
	if err := json.Unmarshal(r.Body, &status); err != nil {
		t.Fatalf("%d %s: not a Status: %v", r.Code, r.Body, err)
	}
	got := evictionAnswer{code: r.Code, reason: string(status.Reason), message: status.Message}
	if status.Details != nil {
		for _, c := range status.Details.Causes {
			got.causes = append(got.causes, c.Type+": "+c.Message)
		}
	}
	return got
}

var ready = api.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3}

// A budget that allows a disruption: the pod gets DisruptionTarget
// (EvictionByEvictionAPI) and is deleted gracefully; the budget's
// disruptionsAllowed goes down by one, the pod is listed in disruptedPods
// and, at 0, DisruptionAllowed turns False (InsufficientPods).
func TestEvictionTakesADisruption(t *testing.T) {
	f := newEvictionFixture(t)
	f.pod(t, "web-1", api.PodRunning, true)
	f.budget(t, "web", ready, nil)

	r := f.evict(t, "web-1", "")
	if got := answerOf(t, r); r.Code != http.StatusCreated || got.message != "" {
		t.Fatalf("eviction = %+v %s, want 201 Success", got, r.Body)
	}
	if state, reason := f.podState(t, "web-1"); state != "terminating" || reason != "EvictionByEvictionAPI" {
		t.Errorf("pod after eviction: %s, DisruptionTarget %q; want terminating with EvictionByEvictionAPI", state, reason)
	}
	status := f.budgetStatus(t, "web")
	if status.DisruptionsAllowed != 0 {
		t.Errorf("disruptionsAllowed = %d, want 0", status.DisruptionsAllowed)
	}
	if _, ok := status.DisruptedPods["web-1"]; !ok || len(status.DisruptedPods) != 1 {
		t.Errorf("disruptedPods = %v, want web-1", status.DisruptedPods)
	}
	if len(status.Conditions) != 1 || status.Conditions[0].Type != "DisruptionAllowed" ||
		status.Conditions[0].Status != "False" || status.Conditions[0].Reason != "InsufficientPods" {
		t.Errorf("conditions = %+v, want DisruptionAllowed=False (InsufficientPods)", status.Conditions)
	}
}

// The refusals, each with upstream's code and words, and the pod left
// alone.
func TestEvictionRefusals(t *testing.T) {
	violates := "Cannot evict pod as it would violate the pod's disruption budget."
	tests := []struct {
		name    string
		status  api.PodDisruptionBudgetStatus
		second  bool // a second budget selects the pod too
		want    evictionAnswer
		wantPod string
	}{
		{"no disruption allowed", api.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 0, CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 3}, false,
			evictionAnswer{code: 429, reason: "TooManyRequests", message: violates,
				causes: []string{"DisruptionBudget: The disruption budget web needs 2 healthy pods and has 2 currently"}}, "running"},
		{"status not observed yet", api.PodDisruptionBudgetStatus{ObservedGeneration: 0, DisruptionsAllowed: 1}, false,
			evictionAnswer{code: 429, reason: "TooManyRequests", message: violates,
				causes: []string{"DisruptionBudget: The disruption budget web is still being processed by the server."}}, "running"},
		{"two budgets", ready, true,
			evictionAnswer{code: 500, message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}, "running"},
	}
	server := newEvictionFixture(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := server.inNamespace(t, fmt.Sprintf("case-%d", i))
			f.pod(t, "web-1", api.PodRunning, true)
			f.budget(t, "web", tt.status, nil)
			if tt.second {
				f.budget(t, "web-too", tt.status, nil)
			}
			got := answerOf(t, f.evict(t, "web-1", ""))
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("eviction = %+v\nwant       %+v", got, tt.want)
			}
			if state, _ := f.podState(t, "web-1"); state != tt.wantPod {
				t.Errorf("pod is %s, want %s", state, tt.wantPod)
			}
		})
	}
}

// Pods that do not run are deleted whatever the budget says; a Ready pod
// without a budget too.
func TestEvictionWithoutConsultingTheBudget(t *testing.T) {
	blocked := api.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 0, CurrentHealthy: 2, DesiredHealthy: 2}
	server := newEvictionFixture(t)
	for _, phase := range []api.PodPhase{api.PodPending, api.PodSucceeded, api.PodFailed} {
		t.Run(string(phase), func(t *testing.T) {
			f := server.inNamespace(t, strings.ToLower(string(phase)))
			f.pod(t, "web-1", phase, false)
			f.budget(t, "web", blocked, nil)
			if r := f.evict(t, "web-1", ""); r.Code != http.StatusCreated {
				t.Fatalf("eviction of a %s pod: %d %s", phase, r.Code, r.Body)
			}
			want := "terminating"
			if phase != api.PodPending {
				want = "gone" // nothing runs it: no grace period to wait for
			}
			if state, _ := f.podState(t, "web-1"); state != want {
				t.Errorf("%s pod is %s after eviction, want %s", phase, state, want)
			}
			if got := f.budgetStatus(t, "web").DisruptionsAllowed; got != 0 {
				t.Errorf("disruptionsAllowed changed to %d", got)
			}
		})
	}
	t.Run("no budget", func(t *testing.T) {
		f := server.inNamespace(t, "no-budget")
		f.pod(t, "web-1", api.PodRunning, true)
		if r := f.evict(t, "web-1", ""); r.Code != http.StatusCreated {
			t.Fatalf("eviction: %d %s", r.Code, r.Body)
		}
		if state, _ := f.podState(t, "web-1"); state != "terminating" {
			t.Errorf("pod is %s, want terminating", state)
		}
	})
}

// An unready pod counts for nothing in its budget: with IfHealthyBudget
// (the default) it goes while the budget is met, without using up a
// disruption, and not when the budget is short; with AlwaysAllow it
// always goes.
func TestEvictionOfUnhealthyPods(t *testing.T) {
	always := api.AlwaysAllow
	tests := []struct {
		name     string
		status   api.PodDisruptionBudgetStatus
		policy   *api.UnhealthyPodEvictionPolicyType
		wantCode int
	}{
		{"budget met", api.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 0, CurrentHealthy: 2, DesiredHealthy: 2}, nil, 201},
		{"budget short", api.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 0, CurrentHealthy: 1, DesiredHealthy: 2}, nil, 429},
		{"budget short, AlwaysAllow", api.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 0, CurrentHealthy: 1, DesiredHealthy: 2}, &always, 201},
	}
	server := newEvictionFixture(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := server.inNamespace(t, fmt.Sprintf("case-%d", i))
			f.pod(t, "web-1", api.PodRunning, false)
			f.budget(t, "web", tt.status, func(p *api.PodDisruptionBudget) { p.Spec.UnhealthyPodEvictionPolicy = tt.policy })
			if r := f.evict(t, "web-1", ""); r.Code != tt.wantCode {
				t.Fatalf("eviction: %d %s, want %d", r.Code, r.Body, tt.wantCode)
			}
			if status := f.budgetStatus(t, "web"); status.DisruptionsAllowed != 0 || len(status.DisruptedPods) != 0 {
				t.Errorf("the budget's status changed: %+v", status)
			}
		})
	}
}

// Two evictions racing for a budget's last disruption: exactly one wins,
// the other gets the 429, and one pod is left running.
func TestConcurrentEvictionsTakeOneDisruption(t *testing.T) {
	f := newEvictionFixture(t)
	f.pod(t, "web-1", api.PodRunning, true)
	f.pod(t, "web-2", api.PodRunning, true)
	f.budget(t, "web", ready, nil)

	ctx := context.Background()
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, name := range []string{"web-1", "web-2"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f.c.Evict(ctx, &api.Eviction{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}})
		}()
	}
	wg.Wait()
	succeeded, refused := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			succeeded++
		case apierrors.IsTooManyRequests(err):
			refused++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if succeeded != 1 || refused != 1 {
		t.Fatalf("%d evictions succeeded and %d were refused (%v), want 1 and 1", succeeded, refused, errs)
	}
	status := f.budgetStatus(t, "web")
	if status.DisruptionsAllowed != 0 || len(status.DisruptedPods) != 1 {
		t.Errorf("budget status = %+v, want 0 allowed and one disrupted pod", status)
	}
	running := 0
	for _, name := range []string{"web-1", "web-2"} {
		if state, _ := f.podState(t, name); state == "running" {
			running++
		}
	}
	if running != 1 {
		t.Errorf("%d pods still running, want 1", running)
	}
}

// The Eviction's deleteOptions and dryRun apply, policy/v1beta1 is
// accepted, and a body naming another pod is a 400.
func TestEvictionOptions(t *testing.T) {
	f := newEvictionFixture(t)
	f.pod(t, "web-1", api.PodRunning, true)
	f.pod(t, "web-2", api.PodRunning, true)
	f.pod(t, "web-3", api.PodRunning, true)
	f.budget(t, "web", api.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 3, CurrentHealthy: 3, DesiredHealthy: 0}, nil)

	// A dry run changes nothing, from the query or from deleteOptions.
	if r := f.a.Do(t, "POST", "/api/v1/namespaces/default/pods/web-1/eviction?dryRun=All",
		[]byte(`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"web-1"}}`)); r.Code != http.StatusCreated {
		t.Fatalf("dry-run eviction: %d %s", r.Code, r.Body)
	}
	if r := f.evict(t, "web-1", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"web-1"},"deleteOptions":{"dryRun":["All"]}}`); r.Code != http.StatusCreated {
		t.Fatalf("dry-run eviction: %d %s", r.Code, r.Body)
	}
	if state, reason := f.podState(t, "web-1"); state != "running" || reason != "" {
		t.Errorf("after a dry run the pod is %s (DisruptionTarget %q)", state, reason)
	}
	if got := f.budgetStatus(t, "web").DisruptionsAllowed; got != 3 {
		t.Errorf("after a dry run disruptionsAllowed = %d, want 3", got)
	}

	// gracePeriodSeconds 0 removes the pod at once; v1beta1 is accepted.
	if r := f.evict(t, "web-1", `{"apiVersion":"policy/v1beta1","kind":"Eviction","metadata":{"name":"web-1"},"deleteOptions":{"gracePeriodSeconds":0}}`); r.Code != http.StatusCreated {
		t.Fatalf("eviction with grace 0: %d %s", r.Code, r.Body)
	}
	if state, _ := f.podState(t, "web-1"); state != "gone" {
		t.Errorf("after an eviction with grace 0 the pod is %s", state)
	}

	// A UID precondition that does not hold is a Conflict; the disruption
	// it took is the controller's to give back, as upstream.
	r := f.evict(t, "web-2", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"web-2"},"deleteOptions":{"preconditions":{"uid":"not-this-one"}}}`)
	if got := answerOf(t, r); got.code != 409 ||
		got.message != `Operation cannot be fulfilled on Pod "web-2": the UID in the precondition (not-this-one) does not match the UID in record (`+f.uid(t, "web-2")+`). The object might have been deleted and then recreated` {
		t.Errorf("eviction with a stale UID: %+v", got)
	}

	for _, tt := range []struct{ body, want string }{
		{`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"web-2"}}`, "name in URL does not match name in Eviction object"},
		{`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"web-3","namespace":"other"}}`, "the namespace of the provided object does not match the namespace sent on the request"},
		{`{"apiVersion":"v1","kind":"Eviction","metadata":{"name":"web-3"}}`, "the API version in the data (v1) does not match the expected API version (policy/v1)"},
	} {
		if got := answerOf(t, f.evict(t, "web-3", tt.body)); got.code != 400 || got.message != tt.want {
			t.Errorf("eviction of %s: %+v, want 400 %q", tt.body, got, tt.want)
		}
	}
	if got := answerOf(t, f.evict(t, "nope", "")); got.code != 404 || got.message != `pods "nope" not found` {
		t.Errorf("eviction of a missing pod: %+v", got)
	}
}

// uid is the pod's UID.
func (f *evictionFixture) uid(t *testing.T, name string) string {
	t.Helper()
	pod, err := f.c.Pods(f.ns).Get(context.Background(), name, client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pod.UID
}
