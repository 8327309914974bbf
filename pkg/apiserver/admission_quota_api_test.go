package apiserver_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// quotaFixture is one namespace with one enforced quota.
type quotaFixture struct {
	c         *client.Client
	namespace string
}

// enforcedQuota creates namespace with a quota named name and plays the
// resourcequota controller's part: status.hard = spec.hard, status.used
// zero. It returns once the apiserver's watch cache holds the enforced
// quota, which admission consults first.
func enforcedQuota(t *testing.T, c *client.Client, namespace, name string, hard api.ResourceList, scopes ...api.ResourceQuotaScope) quotaFixture {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: namespace}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	q, err := c.ResourceQuotas(namespace).Create(ctx, &api.ResourceQuota{ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.ResourceQuotaSpec{Hard: hard, Scopes: scopes}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	q.Status.Hard = hard
	q.Status.Used = api.ResourceList{}
	for resource := range hard {
		q.Status.Used[resource] = api.MustParseQuantity("0")
	}
	if _, err := c.ResourceQuotas(namespace).UpdateStatus(ctx, q, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Gets go to etcd; a plain list waits until the watch cache, which
	// admission reads, has caught up with etcd (the controller's own
	// status write could not come before the cache saw the quota).
	list, err := c.ResourceQuotas(namespace).List(ctx, client.ListOptions{})
	if err != nil || len(list.Items) != 1 || len(list.Items[0].Status.Hard) == 0 {
		t.Fatalf("the watch cache does not show quota %s enforced: %+v, %v", name, list, err)
	}
	return quotaFixture{c: c, namespace: namespace}
}

func quotaPod(name string, requests api.ResourceList) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.PodSpec{Containers: []api.Container{{
		Name: "web", Image: "nginx", Resources: api.ResourceRequirements{Requests: requests}}}}}
}

func (f quotaFixture) used(t *testing.T, name string) api.ResourceList {
	t.Helper()
	q, err := f.c.ResourceQuotas(f.namespace).Get(context.Background(), name, client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return q.Status.Used
}

// Ten pods created at once against pods=2: exactly two are admitted, the
// others are refused with upstream's message, and the quota has charged two.
func TestQuotaConcurrentCreatesNeverOvershoot(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	f := enforcedQuota(t, c, "team-a", "q", api.ResourceList{"pods": api.MustParseQuantity("2")})

	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Pods(f.namespace).Create(context.Background(), quotaPod(fmt.Sprintf("web-%d", i), nil), client.CreateOptions{})
		}()
	}
	wg.Wait()
	admitted := 0
	for i, err := range errs {
		switch {
		case err == nil:
			admitted++
		case apierrors.IsForbidden(err):
			want := fmt.Sprintf(`pods "web-%d" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`, i)
			if err.Error() != want {
				t.Errorf("refusal = %q, want %q", err.Error(), want)
			}
		default:
			t.Errorf("web-%d: unexpected error %v", i, err)
		}
	}
	pods, err := c.Pods(f.namespace).List(context.Background(), client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if admitted != 2 || len(pods.Items) != 2 {
		t.Fatalf("admitted %d, %d pods exist; want exactly 2", admitted, len(pods.Items))
	}
	if used := f.used(t, "q"); used.Pods().Value() != 2 {
		t.Errorf("status.used = %v, want pods=2", used)
	}
}

// A requests.cpu quota refuses a pod whose container requests no cpu, with
// upstream's "must specify" message, and then counts the cpu of the pods
// that do request it.
func TestQuotaRequestsCPU(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	f := enforcedQuota(t, c, "team-b", "compute", api.ResourceList{"requests.cpu": api.MustParseQuantity("1")})
	ctx := context.Background()
	pods := c.Pods(f.namespace)

	_, err := pods.Create(ctx, quotaPod("web", nil), client.CreateOptions{})
	if want := `pods "web" is forbidden: failed quota: compute: must specify requests.cpu for: web`; err == nil || err.Error() != want {
		t.Fatalf("pod without requests: err = %v, want %q", err, want)
	}
	cpu := api.ResourceList{"cpu": api.MustParseQuantity("600m")}
	if _, err := pods.Create(ctx, quotaPod("first", cpu), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = pods.Create(ctx, quotaPod("second", cpu), client.CreateOptions{})
	if want := "exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("second pod: err = %v, want …%q", err, want)
	}
	if used := f.used(t, "compute")["requests.cpu"]; used.MilliValue() != 600 {
		t.Errorf("used requests.cpu = %v, want 600m", used.String())
	}
}

// A dry run is judged like a real create but charges nothing.
func TestQuotaDryRunIsNotCharged(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	f := enforcedQuota(t, c, "team-c", "q", api.ResourceList{"pods": api.MustParseQuantity("1")})
	ctx := context.Background()
	pods := c.Pods(f.namespace)
	for i := range 3 {
		if _, err := pods.Create(ctx, quotaPod(fmt.Sprintf("dry-%d", i), nil), client.CreateOptions{DryRun: true}); err != nil {
			t.Fatalf("dry run %d: %v", i, err)
		}
	}
	if used := f.used(t, "q"); used.Pods().Value() != 0 {
		t.Fatalf("dry runs charged: used = %v", used)
	}
	if _, err := pods.Create(ctx, quotaPod("real", nil), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Create(ctx, quotaPod("dry", nil), client.CreateOptions{DryRun: true}); !apierrors.IsForbidden(err) {
		t.Errorf("a dry run over the quota: err = %v, want Forbidden", err)
	}
}

// A BestEffort quota counts only pods without requests or limits; other
// kinds of object and other pods pass.
func TestQuotaScopes(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	f := enforcedQuota(t, c, "team-d", "best-effort", api.ResourceList{"pods": api.MustParseQuantity("1")}, api.ResourceQuotaScopeBestEffort)
	ctx := context.Background()
	pods := c.Pods(f.namespace)
	if _, err := pods.Create(ctx, quotaPod("be-1", nil), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Create(ctx, quotaPod("be-2", nil), client.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("second BestEffort pod: err = %v, want Forbidden", err)
	}
	if _, err := pods.Create(ctx, quotaPod("burstable", api.ResourceList{"cpu": api.MustParseQuantity("100m")}), client.CreateOptions{}); err != nil {
		t.Errorf("a Burstable pod under a BestEffort quota: %v", err)
	}
	if used := f.used(t, "best-effort"); used.Pods().Value() != 1 {
		t.Errorf("used = %v, want pods=1", used)
	}
}

// A Service that becomes NodePort is charged its node ports on the update.
func TestQuotaServiceTypeChange(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	f := enforcedQuota(t, c, "team-e", "svc", api.ResourceList{"services": api.MustParseQuantity("2"), "services.nodeports": api.MustParseQuantity("1")})
	ctx := context.Background()
	svcs := c.Services(f.namespace)
	svc, err := svcs.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "web"}, Spec: api.ServiceSpec{
		Ports: []api.ServicePort{{Name: "http", Port: 80}, {Name: "https", Port: 443}}}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Spec.Type = api.ServiceTypeNodePort
	_, err = svcs.Update(ctx, svc, client.UpdateOptions{})
	if want := "exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("type change: err = %v, want …%q", err, want)
	}
}

// Any served resource is counted as count/<resource>.<group>; a ConfigMap
// also under its older name, configmaps.
func TestQuotaObjectCounts(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	f := enforcedQuota(t, c, "team-f", "objects", api.ResourceList{
		"count/deployments.apps": api.MustParseQuantity("1"), "configmaps": api.MustParseQuantity("1")})
	ctx := context.Background()
	deployment := func(name string) *api.Deployment {
		labels := map[string]string{"app": name}
		return &api.Deployment{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.DeploymentSpec{
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}}}}}
	}
	if _, err := c.Deployments(f.namespace).Create(ctx, deployment("web"), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Deployments(f.namespace).Create(ctx, deployment("api"), client.CreateOptions{})
	if want := `deployments.apps "api" is forbidden: exceeded quota: objects, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1`; err == nil || err.Error() != want {
		t.Fatalf("second deployment: err = %v, want %q", err, want)
	}
	// kube-root-ca.crt is not there (no controller runs), so the first fits.
	if _, err := c.ConfigMaps(f.namespace).Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "a"}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ConfigMaps(f.namespace).Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "b"}}, client.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("second configmap: err = %v, want Forbidden", err)
	}
}

// Creating a pod whose name is taken fails with AlreadyExists and charges
// nothing.
func TestQuotaAlreadyExistsIsNotCharged(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	f := enforcedQuota(t, c, "team-g", "q", api.ResourceList{"pods": api.MustParseQuantity("2")})
	ctx := context.Background()
	if _, err := c.Pods(f.namespace).Create(ctx, quotaPod("web", nil), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Pods(f.namespace).Create(ctx, quotaPod("web", nil), client.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("second create of web: err = %v, want AlreadyExists", err)
	}
	if used := f.used(t, "q"); used.Pods().Value() != 1 {
		t.Errorf("used = %v, want pods=1", used)
	}
}

// A create refused after its quota charge (too large for etcd, which only
// the encoding finds out) gives the charge back: the next object fits.
func TestQuotaChargeGivenBackWhenWriteFails(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	f := enforcedQuota(t, c, "team-h", "objects", api.ResourceList{"count/deployments.apps": api.MustParseQuantity("1")})
	ctx := context.Background()
	deployment := func(name, env string) *api.Deployment {
		labels := map[string]string{"app": name}
		return &api.Deployment{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.DeploymentSpec{
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx",
					Env: []api.EnvVar{{Name: "BIG", Value: env}}}}}}}}
	}
	// 1.6 MiB: within the request body limit, over etcd's 1.5 MiB.
	_, err := c.Deployments(f.namespace).Create(ctx, deployment("huge", strings.Repeat("x", 1600<<10)), client.CreateOptions{})
	if !apierrors.IsRequestEntityTooLarge(err) {
		t.Fatalf("huge deployment: err = %v, want RequestEntityTooLarge", err)
	}
	if used := f.used(t, "objects")["count/deployments.apps"]; used.Value() != 0 {
		t.Errorf("after the refused create: used count/deployments.apps = %s, want 0", used.String())
	}
	if _, err := c.Deployments(f.namespace).Create(ctx, deployment("web", "small"), client.CreateOptions{}); err != nil {
		t.Fatalf("the quota's one deployment: %v", err)
	}
}

// A Service turned NodePort while other writes race it is charged once:
// when its compare-and-swap loses and the update is retried, the first
// attempt's charge is given back before the retry charges again.
func TestQuotaRetriedUpdateChargedOnce(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	f := enforcedQuota(t, c, "team-i", "svc", api.ResourceList{"services.nodeports": api.MustParseQuantity("2")})
	ctx := context.Background()
	svcs := c.Services(f.namespace)
	if _, err := svcs.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "web"}, Spec: api.ServiceSpec{
		Ports: []api.ServicePort{{Name: "http", Port: 80}, {Name: "https", Port: 443}}}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 5 {
				// Only there to race the type change; one that runs out
				// of retries does not matter.
				patch := fmt.Sprintf(`{"metadata":{"labels":{"writer":"w%d-%d"}}}`, i, j)
				if _, err := svcs.Patch(ctx, "web", client.MergePatchType, []byte(patch), client.PatchOptions{}); err != nil && !apierrors.IsConflict(err) {
					t.Errorf("label patch %d-%d: %v", i, j, err)
				}
			}
		}()
	}
	// The type change may itself run out of retries under this much
	// contention; every attempt that does not write gives its charge back.
	var err error
	for range 10 {
		_, err = svcs.Patch(ctx, "web", client.MergePatchType, []byte(`{"spec":{"type":"NodePort"}}`), client.PatchOptions{})
		if !apierrors.IsConflict(err) {
			break
		}
	}
	wg.Wait()
	if err != nil {
		t.Fatalf("type change: %v", err)
	}
	if used := f.used(t, "svc")["services.nodeports"]; used.Value() != 2 {
		t.Errorf("used services.nodeports = %s, want 2", used.String())
	}
}
